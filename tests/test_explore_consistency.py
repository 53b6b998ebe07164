"""One meaning per number on every screen (the payload side; the browser side is in
test_explore_browser.py): the explorer, the diagrams, explain, the trace, the walkthrough
and the plots say the same number under the same name; n from the rows given, effective
parameters, assumptions."""

import base64

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core.format import exact_threshold, format_number, format_threshold, split_rule
from teachgbt.show import draw
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
    # and every text says so: no "unknown" above boxes that show the count
    assert not any("row counts" in s for s in d["assumed"])
    for td in d["trees"]:
        for j, text in enumerate(td["leaf_text"]):
            assert "unknown" not in text
            n = td["n"][j]
            assert f"n = {n} row{'s' * (n != 1)} (counted from the rows given)" in text
    without_rows = explore_data.build(model)
    assert any("n is shown as —" in s for s in without_rows["notes"])
    assert any("row counts" in s for s in without_rows["assumed"])


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
            # the rule every view shows; the stored threshold, to the last digit, on hover
            assert td["rule"][j] == split_rule(tree, j)
            assert float(td["exact"][j]) == float(np.float32(tree.threshold[j]))


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


def test_class_names_name_the_classes_everywhere_on_the_page():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    model = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    d = explore_data.build(model, class_names=["malignant", "benign"])
    assert d["classes"] == ["malignant", "benign"]
    assert "the probability of class benign" in d["start"][-1]
    assert explore_data.build(model)["classes"] == ["0", "1"]  # the labels themselves
    with pytest.raises(ValueError, match="class_names has 3 names but the model has 2"):
        explore_data.build(model, class_names=["a", "b", "c"])
    reg = tg.BoostingRegressor(n_estimators=1).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="for a classifier"):
        explore_data.build(reg, class_names=["a"])


def _margins(d):
    """The running margins the page carries: (rows, rounds + 1, K)."""
    p = d["rows"]["margins"]
    raw = np.frombuffer(base64.b64decode(p["b64"]), dtype="<f4" if p["bytes"] == 4 else "<f8")
    return raw.reshape(d["rows"]["margin_rows"], d["rounds"] + 1, d["K"])


@pytest.mark.parametrize("algorithm", ["xgboost", "gbdt"])
def test_the_page_carries_the_model_s_own_margins(algorithm):
    rng = np.random.default_rng(5)
    X = (rng.normal(size=(200, 3)) * [1e4, 1, 1e-3]).astype(np.float32)
    y = (X[:, 1] + rng.normal(size=200) > 0).astype(int)
    model = tg.BoostingClassifier(algorithm=algorithm, n_estimators=4, max_depth=3).fit(X, y)
    m = _margins(explore_data.build(model))
    for t in range(5):  # bit for bit: the model's precision, not a guess of it
        np.testing.assert_array_equal(m[:, t, 0], model.model_.margins_after(X, t))
        np.testing.assert_array_equal(m[:, t, 0], model.trace_.epochs()[f"ep_{t}_pre"])


def test_margins_are_sent_for_as_many_rows_as_the_budget_allows(monkeypatch):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 2))
    model = tg.BoostingRegressor(n_estimators=3, max_depth=2).fit(X, X[:, 0])
    monkeypatch.setattr(explore_data, "MAX_MARGIN_VALUES", 4 * 100)
    d = explore_data.build(model, table_rows=50)
    assert d["rows"]["margin_rows"] == 100  # 100 rows × 4 rounds
    assert any("first 100 of 400 rows" in s for s in d["limits"])
    np.testing.assert_array_equal(_margins(d)[:, 3, 0], model.predict(X[:100]))
    # rows given (not the training rows): the same budget, the model's margins
    d = explore_data.build(model, X + 1.0, X[:, 0])
    assert d["rows"]["margin_rows"] == 100
    np.testing.assert_array_equal(
        _margins(d)[:, 2, 0], model.predict(X[:100] + 1.0, iteration_range=(0, 2))
    )


# ------------------------------------------------------------------ every view, one model
@pytest.fixture(scope="module")
def troll():
    return tg.walkthrough.troll2(compare=False)


def test_every_view_of_one_model_says_the_same(troll):
    """One GBDT classifier (seed 004), every view of it: the explorer's payload, the
    diagram's labels and legend, tg.explain, the trace, the walkthrough's tables, the
    candidate-split display and the residual plot."""
    model, X = troll.model, troll.data.drop(columns=troll.target)
    d = explore_data.build(troll)
    ep = model.trace_.epochs()
    opts = draw.LabelOptions.make()
    for t, tree in enumerate(model.trees_, start=1):
        td, nodes = d["trees"][t - 1], model.trace_.nodes(t)
        text = draw.text(tree)
        assert "Σp(1−p) (w*'s denominator)" in text and "the gain's H" in text
        for j in range(tree.n_nodes):
            label = draw.node_label(tree, j, opts).text()
            # n and Σp(1−p) (the tree's H): the trace's, under one name in every view
            assert td["n"][j] == nodes["n"][j] and f"n = {nodes['n'][j]}" in label
            assert td["H"][j] == pytest.approx(nodes["H"][j], rel=1e-8)
            assert f"Σp(1−p) = {format_number(nodes['H'][j], 3)}" in label
            if tree.is_leaf[j]:
                # w* is the walkthrough's leaf_output, η·w* what the leaf adds
                w, v = nodes["weight"][j], nodes["value"][j]
                assert td["weight"][j] == pytest.approx(w) and td["value"][j] == pytest.approx(v)
                got = ep.loc[ep[f"ep_{t}_leaf_index"] == j, f"ep_{t}_leaf_output"]
                assert len(got) and (got == w).all()
                assert f"w* = {format_number(w, 3)}, η·w* = {format_number(v, 3)}" in label
                factor = format_number(w, 3) if w >= 0 else f"({format_number(w, 3)})"
                assert f"η·w* = 0.8 × {factor} = {format_number(v, 3)}" in str(
                    tg.explain.leaf(model, t, j)
                )
                continue
            # the gain's H is n: the gain recomputed with H = n is the trace's
            L, R = tree.left[j], tree.right[j]
            G_L, G_R, n_L, n_R = tree.G[L], tree.G[R], tree.n[L], tree.n[R]
            gain = 0.5 * (G_L**2 / n_L + G_R**2 / n_R - (G_L + G_R) ** 2 / (n_L + n_R))
            assert gain == pytest.approx(nodes["gain"][j], abs=1e-12)
            assert f"H_L = {n_L}" in str(tg.explain.split(model, t, j))
            # one threshold text: explorer, diagram, explain, the split tables
            rule = split_rule(tree, j)
            assert td["rule"][j] == rule and rule in label
            assert f"split {rule}" in str(tg.explain.split(model, t, j))
            shown = tg.display.splits(model, t, j).frame
            chosen = shown[shown["chosen"]].iloc[0]
            assert f"{chosen['feature']} < {format_threshold(chosen['threshold'])}" == rule
            chosen_row = [r for r in td["splits"][str(j)]["rows"] if r[-1]][0]
            assert f"{chosen_row[0]} < {chosen_row[1]}" == rule
            assert td["thr_text"][j] == format_threshold(tree.threshold[j], tree.rule)
            assert td["exact"][j] == exact_threshold(tree.threshold[j], tree.rule)
    # a row's path: explain.prediction and the trace name the same leaves and values
    text = str(tg.explain.prediction(model, X.iloc[[1]]))
    for t, tree in enumerate(model.trees_, start=1):
        leaf = ep[f"ep_{t}_leaf_index"][1]
        w = format_number(tree.weight[leaf], 3)
        assert f"→ leaf {leaf}: η·w* = 0.8 × {w if tree.weight[leaf] >= 0 else f'({w})'}" in text


def test_the_residual_plot_is_the_epoch_table(troll):
    import matplotlib.pyplot as plt

    model = troll.model
    ep = model.trace_.epochs()
    fig, ax = plt.subplots()
    try:
        tg.plot.residuals(model, ax=ax)
        # epoch k: ep_k_residual, the residual before tree k
        lines = [ln for ln in ax.get_lines() if list(ln.get_xdata()) == [1, 2]]
        assert len(lines) == len(ep)
        got = sorted(tuple(np.round(ln.get_ydata(), 9)) for ln in lines)
        want = sorted(
            tuple(np.round(r, 9)) for r in ep[["ep_1_residual", "ep_2_residual"]].to_numpy()
        )
        assert got == want
        assert "shrink" not in ax.get_title() and "ep_k_residual" in ax.get_title()
    finally:
        plt.close(fig)


def test_explain_reads_a_row_s_values_as_the_trees_do():
    rng = np.random.default_rng(8)
    X = (rng.normal(size=(100, 2)) * 10 + 16).astype(np.float32)
    y = (X[:, 0] > 16).astype(int)
    model = tg.BoostingClassifier(n_estimators=1, max_depth=1).fit(X, y)
    text = str(tg.explain.prediction(model, X[:1]))
    shown = format_threshold(X[0, model.trees_[0].feature[0]])
    assert f"= {shown} <" in text  # 16.11, not 16.110001: the shortest float32 reading
