"""Native categorical splits trained here against XGBoost ``hist`` with enable_categorical=True,
in the same test: the same split (feature and set) at every node, the same default direction,
leaf values and margins on unseen rows with missing and unseen categories."""

import json

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg

xgb = pytest.importorskip("xgboost")

MARGIN_TOL = 1e-5


def _data(n=300, n_cats=8, seed=0, nan_share=0.1, classifier=False, n_classes=2):
    """A category column with its own effect per category, a rounded numeric column (few
    distinct values: XGBoost's cuts are then its values, as teachgbt's) and NaN."""
    rng = np.random.default_rng(seed)
    cats = [f"k{i}" for i in range(n_cats)]
    effect = dict(zip(cats, rng.normal(0, 2, n_cats)))
    v = rng.choice(cats, n)
    x = np.round(rng.normal(size=n), 1)
    score = np.array([effect[c] for c in v]) + x + rng.normal(0, 0.3, n)
    X = pd.DataFrame({"x": x, "colour": pd.Categorical(v, categories=cats)})
    X.loc[rng.random(n) < nan_share, "colour"] = np.nan
    if not classifier:
        return X, score
    if n_classes == 2:
        return X, (score > np.median(score)).astype(int)
    return X, np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))


def _fit_both(X, y, classifier=False, **params):
    kw = dict(tree_method="hist", n_estimators=4, max_depth=3, learning_rate=0.3)
    kw.update(params)
    Ours = tg.BoostingClassifier if classifier else tg.BoostingRegressor
    Theirs = xgb.XGBClassifier if classifier else xgb.XGBRegressor
    ours = Ours(enable_categorical=True, **kw).fit(X, y)
    policy = {"grow_policy": "lossguide"} if kw.get("max_leaves") else {}  # teachgbt's best-first
    theirs = Theirs(enable_categorical=True, n_jobs=1, **kw, **policy).fit(X, y)
    return ours, theirs


def _xgb_trees(theirs):
    d = json.loads(theirs.get_booster().save_raw(raw_format="json"))
    return d["learner"]["gradient_booster"]["model"]["trees"]


def _xgb_sets(t):
    """node -> XGBoost's set of a categorical split (the categories it sends right)."""
    out = {}
    for node, seg, size in zip(t["categories_nodes"], t["categories_segments"],
                               t["categories_sizes"]):  # fmt: skip
        out[node] = sorted(t["categories"][seg : seg + size])
    return out


def compare(tree, t):
    """Differences between a teachgbt tree and XGBoost's, walking both from the root.
    Node ids are XGBoost's; at a set split teachgbt's left child is XGBoost's right one
    (XGBoost sends its set right, teachgbt left) and the default direction flips."""
    sets = _xgb_sets(t)
    diffs, stack = [], [0]
    while stack:
        i = stack.pop()
        if t["left_children"][i] < 0:
            if tree.feature[i] >= 0 or abs(tree.value[i] - t["split_conditions"][i]) > 1e-6:
                diffs.append(f"leaf {i}")
            continue
        if tree.feature[i] != t["split_indices"][i]:
            diffs.append(f"node {i}: feature {tree.feature[i]} vs {t['split_indices'][i]}")
            continue
        left, right = t["left_children"][i], t["right_children"][i]
        if i in sets:
            ok = (
                i in tree.sets
                and tree.sets[i].tolist() == sets[i]
                and tree.default_left[i] != bool(t["default_left"][i])
                and (tree.left[i], tree.right[i]) == (right, left)
            )
        else:
            ok = (
                i not in tree.sets
                and np.float32(tree.threshold[i]) == np.float32(t["split_conditions"][i])
                and tree.default_left[i] == bool(t["default_left"][i])
                and (tree.left[i], tree.right[i]) == (left, right)
            )
        if not ok:
            diffs.append(f"node {i}: ours {tree.sets.get(i)}, XGBoost's {sets.get(i)}")
        stack.extend((left, right))
    return diffs


def _unseen_rows(X, seed=1):
    """New rows: every category, NaN, and codes no category has (8, 50, -1, 2^24), as the
    DataFrame teachgbt reads (unseen codes: a category named "new") and as XGBoost's
    codes (XGBoost refuses an unseen category by name; by code it is out of range)."""
    rng = np.random.default_rng(seed)
    cats = list(X["colour"].cat.categories)
    n_cats = len(cats)
    codes = np.concatenate([np.arange(n_cats), [np.nan, n_cats, 50, -1, 2**24, 1.7]])
    codes = rng.permutation(np.tile(codes, 5))
    x = np.round(rng.normal(size=len(codes)), 1)
    x[::7] = np.nan
    as_codes = np.column_stack([x, codes])
    # 1.7 reads as code 1 (truncated), as XGBoost casts it
    labels = [None if c != c else cats[int(c)] if 0 <= c < n_cats else "new" for c in codes]
    frame = pd.DataFrame({"x": x, "colour": pd.Categorical(labels, categories=cats + ["new"])})
    return as_codes, frame


def _xgb_margin(theirs, codes):
    dm = xgb.DMatrix(codes, feature_names=["x", "colour"], feature_types=["q", "c"],
                     enable_categorical=True)  # fmt: skip
    return theirs.get_booster().predict(dm, output_margin=True)


CASES = {
    "partition": dict(),
    "one-hot below max_cat_to_onehot": dict(max_cat_to_onehot=9),
    "max_cat_threshold 3": dict(max_cat_threshold=3),
    "lossguide": dict(max_leaves=6, max_depth=0),
    "regularized": dict(reg_lambda=3.0, reg_alpha=0.5, gamma=0.2, min_child_weight=4.0),
    "deep": dict(max_depth=6, n_estimators=3),
}


@pytest.mark.parametrize("case", CASES)
def test_trees_and_margins_match_xgboost(case):
    X, y = _data()
    ours, theirs = _fit_both(X, y, **CASES[case])
    for k, (tree, t) in enumerate(zip(ours.trees_, _xgb_trees(theirs))):
        assert compare(tree, t) == [], f"tree {k}"
    assert sum(len(tree.sets) for tree in ours.trees_) > 0
    codes, frame = _unseen_rows(X)
    theirs_margin = _xgb_margin(theirs, codes)
    assert np.abs(ours.decision_function(frame) - theirs_margin).max() < MARGIN_TOL
    assert np.abs(ours.decision_function(codes) - theirs_margin).max() < MARGIN_TOL


def test_one_hot_and_partition_both_happen():
    """max_cat_to_onehot picks the kind: one category a set below it, sets of several above."""
    X, y = _data()
    one_hot, _ = _fit_both(X, y, max_cat_to_onehot=9)
    partition, _ = _fit_both(X, y)
    sizes = [len(s) for tree in one_hot.trees_ for s in tree.sets.values()]
    assert sizes and set(sizes) == {1}
    assert max(len(s) for tree in partition.trees_ for s in tree.sets.values()) > 1


@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifiers_match_xgboost(n_classes):
    X, y = _data(classifier=True, n_classes=n_classes, seed=3)
    ours, theirs = _fit_both(X, y, classifier=True)
    for k, (tree, t) in enumerate(zip(ours.trees_, _xgb_trees(theirs))):
        assert compare(tree, t) == [], f"tree {k}"
    codes, frame = _unseen_rows(X)
    theirs_margin = _xgb_margin(theirs, codes).reshape(len(codes), -1)
    ours_margin = ours.decision_function(frame).reshape(len(codes), -1)
    assert np.abs(ours_margin - theirs_margin).max() < MARGIN_TOL


def test_facts_example_sets_and_leaves():
    """The facts file's run: 60 rows, categories a–f with effects [3, −1, .5, −2, 2, 1], rows 0
    and 1 missing, depth 1, min_child_weight 0: base 0.5975359, the set {1, 3} (b, d), missing
    with the rest, leaves 0.35424238 / −0.6006719 (XGBoost's left, right) — checked on both."""
    rng = np.random.default_rng(0)
    cats = list("abcdef")
    effects = dict(zip(cats, [3, -1, 0.5, -2, 2, 1]))
    c = rng.choice(cats, 60)
    y = np.array([effects[v] for v in c]) + rng.normal(0, 0.1, 60)
    X = pd.DataFrame({"c": pd.Categorical(c, categories=cats), "x": rng.normal(size=60)})
    X.loc[[0, 1], "c"] = np.nan
    ours, theirs = _fit_both(X, y, n_estimators=1, max_depth=1, min_child_weight=0.0)
    t = _xgb_trees(theirs)[0]
    assert _xgb_sets(t) == {0: [1, 3]} and t["default_left"][0] == 0
    tree = ours.trees_[0]
    assert tree.sets[0].tolist() == [1, 3] and tree.default_left[0]  # missing with {b, d}
    assert tree.set_labels(0) == ["b", "d"]
    assert tree.value[tree.right[0]] == pytest.approx(t["split_conditions"][1], abs=1e-7)
    assert tree.value[tree.left[0]] == pytest.approx(t["split_conditions"][2], abs=1e-7)
    assert ours.base_score_ == pytest.approx(float(theirs.get_booster().attr("base_score") or
                                             json.loads(theirs.get_booster().save_config())
                                             ["learner"]["learner_model_param"]["base_score"]
                                             .strip("[]")), rel=1e-6)  # fmt: skip


def test_unused_codes_below_the_largest_are_categories():
    """XGBoost bins a categorical feature at every code 0 … max (codes no row has included),
    so with categories d, e, f listed first and never used, a, b, c are codes 3 … 5 and the
    feature has 6 bins: a partition, not one-hot, at max_cat_to_onehot=4."""
    rng = np.random.default_rng(0)
    v = rng.choice(list("abc"), 90)
    y = np.array([{"a": 3, "b": -2, "c": -2.1}[c] for c in v]) + rng.normal(0, 0.1, 90)
    for order, expected in ((list("abcdef"), [0]), (list("defabc"), [4, 5])):
        X = pd.DataFrame({"c": pd.Categorical(v, categories=order)})
        ours, theirs = _fit_both(X, y, n_estimators=1, max_depth=1)
        assert _xgb_sets(_xgb_trees(theirs)[0])[0] == expected
        assert ours.trees_[0].sets[0].tolist() == expected


def test_category_order_of_a_new_frame_does_not_matter():
    """Rows are read by category name: a column whose categories are listed in another
    order, or as plain text, predicts the same."""
    X, y = _data()
    ours, _ = _fit_both(X, y)
    other = X.assign(colour=X["colour"].cat.reorder_categories(X["colour"].cat.categories[::-1]))
    text = X.assign(colour=X["colour"].astype(object))
    base = ours.decision_function(X)
    np.testing.assert_array_equal(ours.decision_function(other), base)
    np.testing.assert_array_equal(ours.decision_function(text), base)


def test_refusals_say_what_to_do():
    X, y = _data()
    with pytest.raises(TypeError, match="enable_categorical=True"):
        tg.BoostingRegressor(tree_method="hist").fit(X, y)
    with pytest.raises(ValueError, match="tree_method='hist'"):
        tg.BoostingRegressor(tree_method="exact", enable_categorical=True).fit(X, y)
    with pytest.raises(ValueError, match="algorithm='gbdt'"):
        tg.BoostingRegressor(tree_method="hist", algorithm="gbdt", enable_categorical=True).fit(
            X, y
        )
    with pytest.raises(ValueError, match="max_cat_threshold"):
        tg.BoostingRegressor(tree_method="hist", max_cat_threshold=0).fit(X, y)


def test_too_many_categories_for_the_bins_are_refused_by_name():
    rng = np.random.default_rng(0)
    names = [f"c{i}" for i in range(70_000)]
    X = pd.DataFrame({"city": pd.Categorical.from_codes(np.arange(70_000) % 70_000, names)})
    with pytest.raises(ValueError, match="category codes are whole numbers from 0 to 65534"):
        tg.BoostingRegressor(tree_method="hist", enable_categorical=True, n_estimators=1).fit(
            X, rng.normal(size=70_000)
        )
