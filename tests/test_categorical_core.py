"""Set splits in the core: the tree, its routing (numpy and compiled alike), the file format
(version 2, old files still read), the validator and the formatter."""

import json

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.core import ModelFileError, routing
from teachgbt.core.format import format_set, format_set_rule, format_value
from teachgbt.core.tree import Tree, TreeBuilder, add_tree_values
from teachgbt.io import load
from teachgbt.utils import _kernels

EDGES = [np.nan, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.7, 2.0, 3.0, 2.0**24 - 1, 2.0**24, 2.0**31,
         -(2.0**31) - 5, 1e30, -1e30, 5.0, 6.0, 255.0, 256.0]  # fmt: skip


def _set_tree(rule="xgboost", names=None):
    """Root: x1 ∈ {1, 3} (missing right); left: x0 < 0.5; right: x1 ∈ {0, 2, 5} (missing left)."""
    b = TreeBuilder()
    r = b.add_node(-1, 0, 8, 0.0, 8.0, 0.0, 0.0)
    a = b.add_node(r, 1, 4, 0.0, 4.0, 0.0, 0.0)
    c = b.add_node(r, 1, 4, 0.0, 4.0, 0.0, 0.0)
    leaves = [b.add_node(p, 2, 2, 0.0, 2.0, v, v) for p, v in ((a, 1.0), (a, 2.0), (c, 3.0),
                                                               (c, 4.0))]  # fmt: skip
    b.split(r, 1, 0.0, False, a, c, 1.0, 2.0, categories=[3, 1])
    b.split(a, 0, 0.5, True, leaves[0], leaves[1], 1.0, 2.0)
    b.split(c, 1, 0.0, True, leaves[2], leaves[3], 1.0, 2.0, categories=[0, 2, 5])
    tree = b.build(2, ["x", "colour"])
    return Tree(
        {k: getattr(tree, k) for k in ("left", "right", "parent", "feature", "threshold",
                                       "default_left", "depth", "n", "G", "H", "weight",
                                       "value", "gain", "loss_chg")},  # fmt: skip
        2, ["x", "colour"], sets=tree.sets, rule=rule, category_names=names,
    )  # fmt: skip


def _by_hand(tree, X):
    """The tree walked one row at a time with the library's reading of a code, written out
    here from the facts (not with the code under test)."""
    out = []
    for x0, x1 in X:
        node = 0
        while tree.feature[node] >= 0:
            if node in tree.sets:
                go = _hand_in_set(tree, node, x1)
            else:
                go = bool(tree.default_left[node]) if np.isnan(x0) else np.float32(x0) < np.float32(
                    tree.threshold[node])  # fmt: skip
            node = tree.left[node] if go else tree.right[node]
        out.append(node)
    return np.array(out)


def _hand_in_set(tree, node, x):
    rule = tree.rule
    if np.isnan(x):
        return bool(tree.default_left[node])
    if rule == "xgboost":
        x = float(np.float32(x))
        if x < 0 or x >= 2**24:
            return False
        return int(x) in tree.sets[node]
    if rule == "lightgbm":
        c = int(np.trunc(max(min(x, 2.0**31), -(2.0**31))))
        return c >= 0 and x < 2**31 and c in tree.sets[node]
    n_known = len(tree.category_names.get(1, [])) or np.inf  # sklearn-hist
    if x < 0 or x != int(x) or x >= n_known:
        return bool(tree.default_left[node])
    return int(x) in tree.sets[node]


@pytest.mark.parametrize("rule", ["xgboost", "lightgbm", "sklearn-hist"])
@pytest.mark.parametrize("kernel", ["numpy", "numba"])
def test_set_routing_per_library_numpy_and_compiled(rule, kernel, monkeypatch):
    if kernel == "numba":
        pytest.importorskip("numba")
    monkeypatch.setattr(_kernels, "KERNEL", kernel)
    tree = _set_tree(rule, names={1: list("abcdef")})
    rng = np.random.default_rng(0)
    X = np.array([[x0, x1] for x0 in (np.nan, 0.0, 1.0) for x1 in EDGES])
    expected = _by_hand(tree, X)
    np.testing.assert_array_equal(tree.apply(X), expected)
    big = X[rng.integers(0, len(X), 25_000)]  # large enough for the compiled walk
    np.testing.assert_array_equal(tree.apply(big), _by_hand(tree, big))
    assert [tree.path(x)[-1] for x in X] == expected.tolist()


def test_set_trees_and_numeric_trees_add_up_alike_in_numpy_and_compiled(monkeypatch):
    pytest.importorskip("numba")
    set_tree = _set_tree()
    numeric = Tree.from_rules(("x < 0.25", 0.5, -0.5), feature_names=["x", "colour"])
    trees = [numeric, set_tree, numeric, set_tree]
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=30_000), rng.integers(-1, 8, 30_000).astype(float)])
    X[::7, 1] = np.nan
    out = {}
    for kernel in ("numpy", "numba"):
        monkeypatch.setattr(_kernels, "KERNEL", kernel)
        out[kernel] = add_tree_values(trees, X, np.zeros(len(X), dtype=np.float32))
    np.testing.assert_array_equal(out["numpy"], out["numba"])
    expected = np.zeros(len(X), dtype=np.float32)
    for tree in trees:  # tree after tree, in float32
        expected = (expected + tree.value[_by_hand(tree, X)].astype(np.float32)).astype(np.float32)
    np.testing.assert_array_equal(out["numpy"], expected)


def test_tree_tables_show_the_sets_by_name():
    tree = _set_tree(names={1: list("abcdef")})
    df = tree.to_frame()
    assert df["categories"].tolist()[:3] == [("b", "d"), None, ("a", "c", "f")]
    assert np.isnan(df["threshold"][0]) and df["threshold"][1] == 0.5
    assert "colour ∈ {b, d}" in str(tree)
    assert tree.set_labels(2) == ["a", "c", "f"]
    # no names: the codes
    assert _set_tree().set_labels(0) == [1, 3]


def test_the_formatter_shortens_long_sets_with_their_count():
    assert format_set(["red", "blue"]) == "{red, blue}"
    assert format_set(list("abcdefg")) == "{a, b, c, … 7 in all}"
    assert format_set(list("abcdefg"), full=True) == "{a, b, c, d, e, f, g}"
    assert format_set_rule("colour", [10, 2.5]) == "colour ∈ {10, 2.5}"
    assert format_value(np.nan, ["a"]) == "missing"
    assert format_value(0.0, ["a"]) == "a"
    assert format_value(3.0, ["a"]) == "unseen (3)"
    assert format_value(-1.0, ["a"]) == "unseen"
    assert format_value(0.25) == "0.25"


def _fitted(tmp_path):
    rng = np.random.default_rng(0)
    v = rng.choice(list("abcdef"), 200)
    X = pd.DataFrame({"x": rng.normal(size=200).round(1),
                      "colour": pd.Categorical(v, categories=list("fedcba"))})  # fmt: skip
    y = (X["colour"].isin(["a", "c", "e"]).to_numpy() * 2.0) + X["x"]
    model = tg.BoostingRegressor(tree_method="hist", enable_categorical=True, n_estimators=3,
                                 max_depth=3).fit(X, y)  # fmt: skip
    return model, X


def test_save_and_load_keep_the_sets_and_category_names(tmp_path):
    model, X = _fitted(tmp_path)
    path = tmp_path / "m.json"
    model.save(path)
    d = json.loads(path.read_text())
    assert d["version"] == 2 and d["categories"] == {"1": list("fedcba")}
    assert all("category_names" not in t for t in d["trees"])  # written once, for the model
    loaded = load(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.model_.categories == {1: list("fedcba")}
    assert loaded.trees_[0].sets.keys() == model.trees_[0].sets.keys()
    assert str(loaded.trees_[0]) == str(model.trees_[0])


def test_models_without_sets_are_still_written_as_version_1(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 2)), rng.normal(size=50)
    model = tg.BoostingRegressor(n_estimators=2, max_depth=2).fit(X, y)
    path = tmp_path / "m.json"
    model.save(path)
    d = json.loads(path.read_text())
    assert d["version"] == 1 and "categories" not in d
    assert all("sets" not in t for t in d["trees"])
    np.testing.assert_array_equal(load(path).predict(X), model.predict(X))


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: d["trees"][0].update(sets={"9999": [1]}), "a node of sets"),
        (
            lambda d: d["trees"][0]["sets"].update({str(len(d["trees"][0]["feature"]) - 1): [1]}),
            "a set of categories on a leaf",
        ),  # fmt: skip
        (lambda d: d["trees"][0].update(sets={"0": [-3]}), "the code -3"),
        (lambda d: d["trees"][0].update(sets={"0": "abc"}), "not a list of category codes"),
        (lambda d: d["trees"][0].update(sets={"0": []}), "not a list of category codes"),
        (lambda d: d["trees"][0].update(sets=[1, 2]), "sets has 2 entries"),
        (lambda d: d["trees"][0].update(sets="x"), "sets is not an object"),
        (lambda d: d.update(categories={"7": ["a"]}), "a feature of category_names"),
        (lambda d: d.update(categories={"1": ["a", "a"]}), "lists a category twice"),
        (lambda d: d.update(categories={"1": [["a"]]}), "not a list of names"),
        (lambda d: d.update(version=3), "version 3"),
    ],
)
def test_broken_set_files_are_refused_by_name(tmp_path, damage, message):
    model, _ = _fitted(tmp_path)
    path = tmp_path / "m.json"
    model.save(path)
    d = json.loads(path.read_text())
    damage(d)
    path.write_text(json.dumps(d))
    with pytest.raises(ValueError, match=message):
        load(path)


def test_a_set_threshold_is_nan_and_a_numeric_nan_threshold_still_refused(tmp_path):
    model, _ = _fitted(tmp_path)
    path = tmp_path / "m.json"
    model.save(path)
    d = json.loads(path.read_text())
    tree = d["trees"][0]
    numeric = [i for i, f in enumerate(tree["feature"]) if f >= 0 and str(i) not in tree["sets"]]
    assert numeric, "the test needs a numeric split"
    tree["threshold"][numeric[0]] = None
    path.write_text(json.dumps(d))
    with pytest.raises(ModelFileError, match="threshold is NaN"):
        load(path)


def test_category_codes_follow_each_librarys_reading():
    x = np.array([np.nan, -1.0, -0.5, 1.7, 2.0**24, 3.0, 7.0])
    xgb_codes = routing.category_codes(x, "xgboost").tolist()
    assert xgb_codes == [routing.MISSING_CATEGORY, -1, -1, 1, -1, 3, 7]
    assert routing.category_codes(x, "lightgbm").tolist() == [-2, -1, 0, 1, 2**24, 3, 7]
    assert routing.category_codes(x, "sklearn-hist", 5).tolist() == [-2, -2, -2, -2, -2, 3, -2]
