"""One meaning per number on every explorer screen (the payload side; the browser side is
in test_explore_browser.py): n from the rows given, effective parameters, assumptions."""

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core.format import split_rule
from teachgbt.show.explorer import data as explore_data


@pytest.fixture(scope="module")
def xgb_import(tmp_path_factory):
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3)).astype(np.float32) * 40 + 60
    y = (X[:, 0] + rng.normal(size=150) * 20 > 60).astype(int)
    booster = xgb.XGBClassifier(n_estimators=3, max_depth=2, reg_lambda=3.0).fit(X, y)
    path = tmp_path_factory.mktemp("xgb") / "m.json"
    booster.get_booster().save_model(path)  # a model file: no training parameters in it
    with pytest.warns(UserWarning, match="assumed"):
        model = tg.from_xgboost(path)
    return model, X, y


def test_n_is_counted_from_the_rows_given_never_minus_one(xgb_import):
    model, X, y = xgb_import
    assert (model.trees_[0].n < 0).all()  # the file stores no counts
    d = explore_data.build(model, X, y)
    for i, tree in enumerate(model.trees_):
        # every row's path, from Tree.path: a node's n is how many paths pass through it
        through = np.zeros(tree.n_nodes, dtype=int)
        for x in X:
            through[tree.path(x)] += 1
        assert d["trees"][i]["n"] == through.tolist()
    assert any("n is counted from the 150 rows given" in s for s in d["notes"])
    without_rows = explore_data.build(model)
    assert any("n is shown as —" in s for s in without_rows["notes"])


def test_about_lists_effective_parameters_and_the_import_s_assumptions(xgb_import):
    model, X, y = xgb_import
    d = explore_data.build(model, X, y)
    assert None not in d["params"].values() and "null" not in str(d["params"])
    deepest = max(t.max_depth for t in model.trees_)
    assert d["params"]["max_depth"] in (str(deepest), f"{deepest} (the deepest tree)")
    assert d["assumed"] and any("reg_lambda" in s or "λ" in s for s in d["assumed"])
    # an assumed λ: the recomputed loss_chg is not "what XGBoost reports"
    texts = [t for td in d["trees"] for t in td["split_text"] if t]
    assert texts and not any("XGBoost reports" in t for t in texts)
    assert all("with the assumed parameters; the file's is in the table" in t for t in texts)
    assert d["loss_chg_from_file"]


def test_walkthrough_params_have_no_nulls_and_trees_one_label():
    w = tg.walkthrough.troll2(compare=False)
    d = explore_data.build(w)
    assert d["params"]["reg_lambda"] == "0" and d["params"]["learning_rate"] == "0.8"
    assert [t["label"] for t in d["trees"]] == ["Tree 1", "Tree 2"]
    for td, tree in zip(d["trees"], w.model.trees_):
        for j in np.flatnonzero(~tree.is_leaf):
            # the reading rule rounds only the threshold, and the exact one is the library's
            assert td["exact_rule"][j] == split_rule(tree, j)
            assert td["rule"][j].split(" < ")[0] == td["exact_rule"][j].split(" < ")[0]
            read = float(td["rule"][j].split(" < ")[1])
            assert read == pytest.approx(float(np.float32(tree.threshold[j])), rel=1e-5)


def test_multiclass_trees_are_named_by_number_round_and_class():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    y = np.array(["a", "b", "c"])[np.argmax(X @ rng.normal(size=(2, 3)), axis=1)]
    model = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    d = explore_data.build(model)
    labels = [t["label"] for t in d["trees"]]
    assert labels[4] == "Tree 5 (round 2, class 1)"
    # the same numbering as tg.explain's formula text
    assert d["trees"][4]["leaf_text"][0].startswith(labels[4] + ", node 0")
