"""teachgbt.reference (seed 000 in one file) against hand calculations, every teachgbt trainer
and XGBoost tree_method="exact".

Node for node means: the same feature, the same threshold (for hist, whose thresholds are
the data's own values, the same cut of the node's rows), the same default direction, the
same n, G, H and values, and margins within 1e-5. The data include float32 neighbours (1
and the next float32 above it), many tied values, large magnitudes and NaN.
"""

import ast
import functools
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt import reference
from teachgbt.utils import kernels

xgb = pytest.importorskip("xgboost")

F32 = np.float32
N_ROUNDS = 3
MARGIN_TOL = 1e-5
STAT_RTOL, STAT_ATOL = 1e-5, 1e-6  # G, H, values: float32 margins (trainers, XGBoost) vs float64
MAX_LINES = 300  # the reference must stay readable in one sitting
BASE = dict(n_estimators=N_ROUNDS, max_depth=3)  # the settings the cases change
OBJECTIVE = {
    "logistic": "binary:logistic",
    "squared": "reg:squarederror",
    "multi": "multi:softprob",
}

ONE = F32(1)
UP1 = np.nextafter(ONE, F32(2))  # the next float32 above 1
UP2 = np.nextafter(UP1, F32(2))


# ------------------------------------------------------------------------------ data
def neighbour_data(kind, seed, n=160, d=4, missing=0.0, continuous=0):
    """Features drawn from three base values per column, each moved up 0, 1 or 2 float32
    steps: float32 neighbours, many exact ties, magnitudes from 0.1 to 1e6. ``continuous``
    extra columns of three-decimal values; ``missing``: the share of NaN in every column."""
    rng = np.random.default_rng(seed)
    bases = np.array([0.1, 1.0, -2.5, 7.0, 3e4, -1e6], dtype=F32)
    cols = []
    for _ in range(d):
        v = rng.choice(bases, size=3, replace=False)[rng.integers(0, 3, n)]
        for _step in range(2):
            v = np.where(rng.random(n) < 0.5, np.nextafter(v, F32(np.inf)), v)
        cols.append(v)
    cols += [np.round(rng.normal(size=n), 3).astype(F32) for _ in range(continuous)]
    X = np.column_stack(cols).astype(np.float64)
    ranks = np.argsort(np.argsort(X, axis=0), axis=0) / n  # signal from the values' order
    score = ranks[:, 0] - ranks[:, 1] + 0.5 * ranks[:, -1] + rng.normal(0, 0.3, n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, target(kind, score)


def continuous_data(kind, seed=0, n=200, d=4, missing=0.0):
    """Three-decimal values held as float32: no float32 neighbours, few ties."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3).astype(F32).astype(np.float64)
    score = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] * X[:, 3] + rng.normal(0, 0.7, n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, target(kind, score)


def tied_data(kind, seed=0, n=200, d=4, missing=0.2):
    """Six distinct values per feature, so many candidates tie exactly, and an indicator
    column (1 or missing, as sparse one-hot data stores it) that XGBoost scans one way only."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, d)) / 2
    score = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 1) + rng.normal(0, 1, n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    indicator = np.where((score > 0.6) ^ (rng.random(n) < 0.3), 1.0, np.nan)
    return np.column_stack([X, indicator]), target(kind, score - 0.6)


def target(kind, score):
    if kind == "logistic":
        return (score > np.median(score)).astype(float)
    if kind == "multi":
        return np.digitize(score, np.quantile(score, [1 / 3, 2 / 3])).astype(float)
    return score


# ----------------------------------------------------------------------- comparisons
def as_teachgbt(ref_tree):
    """The reference's tree as a tg.Tree, through the dict both read and write."""
    return tg.Tree.from_dict(ref_tree.to_dict(), "the reference's tree")


def diff_trainer(ref, other, X, hist=False):
    """Differences between a reference tree and a trainer's tg.Tree, walked from the root.

    hist thresholds are the data's own values (bin edges), not midpoints: there a split must
    cut the node's training rows as the reference's does, and its default direction must
    agree where the node's rows miss the feature (elsewhere XGBoost hist and exact choose it
    differently, and no training row takes it). One more hist difference, XGBoost's own: a
    feature whose present values are all equal (an indicator) is scanned with missing
    values right by hist and left by exact, so the cut "present | missing" comes mirrored,
    the same two children swapped.
    """
    ref, X32, out = as_teachgbt(ref), np.asarray(X, dtype=F32), []

    def walk(i, j, rows, path):
        if ref.is_leaf[i] != other.is_leaf[j]:
            return out.append(f"{path}: a leaf in one tree only")
        mine, theirs = [ref.G[i], ref.H[i], ref.value[i]], [other.G[j], other.H[j], other.value[j]]
        # each g differs by float32 rounding of the trainers' float32 margins: G by up to n of those
        if ref.n[i] != other.n[j] or not np.allclose(mine, theirs, STAT_RTOL, STAT_ATOL * ref.n[i]):
            return out.append(
                f"{path}: n, G, H, value {ref.n[i]}, {mine} vs {other.n[j]}, {theirs}"
            )
        if ref.is_leaf[i]:
            return None
        x, kids = X32[rows, ref.feature[i]], (other.left[j], other.right[j])
        go_left = np.where(np.isnan(x), ref.default_left[i], x < F32(ref.threshold[i]))
        theirs = np.where(np.isnan(x), other.default_left[j], x < F32(other.threshold[j]))
        if not hist:
            same = (F32(ref.threshold[i]), ref.default_left[i]) == (
                F32(other.threshold[j]), other.default_left[j])  # fmt: skip
        elif np.array_equal(go_left, ~theirs) and np.array_equal(go_left, np.isnan(x)):
            same, kids = True, kids[::-1]  # the mirrored "present | missing" cut
        else:
            learned = np.isnan(x).any()
            same = np.array_equal(go_left, theirs) and not (
                learned and ref.default_left[i] != other.default_left[j])  # fmt: skip
        if ref.feature[i] != other.feature[j] or not same:
            return out.append(
                f"{path}: f{ref.feature[i]} < {F32(ref.threshold[i])!r} (left "
                f"{ref.default_left[i]}) vs f{other.feature[j]} < {F32(other.threshold[j])!r} "
                f"(left {other.default_left[j]})"
            )
        walk(ref.left[i], kids[0], rows[go_left], path + "L")
        walk(ref.right[i], kids[1], rows[~go_left], path + "R")
        return None

    walk(0, 0, np.arange(len(X32)), "root")
    return out


def diff_xgboost(ref, node, i=0, path="root"):
    """Differences between a reference tree (as a tg.Tree) and an XGBoost JSON dump."""
    if "leaf" in node or ref.is_leaf[i]:
        if ("leaf" in node) != bool(ref.is_leaf[i]):
            return [f"{path}: a leaf in one tree only"]
        if not np.isclose(ref.value[i], node["leaf"], STAT_RTOL, STAT_ATOL):
            return [f"{path}: leaf value {ref.value[i]} vs {node['leaf']}"]
        return []
    feature, threshold = int(node["split"].lstrip("f")), F32(node["split_condition"])
    default_left = node["missing"] == node["yes"]
    if (ref.feature[i], F32(ref.threshold[i]), ref.default_left[i]) != (
        feature,
        threshold,
        default_left,
    ):
        return [
            f"{path}: f{ref.feature[i]} < {F32(ref.threshold[i])!r} (left {ref.default_left[i]})"
            f" vs f{feature} < {threshold!r} (left {default_left})"
        ]
    if not np.isclose(ref.H[i], node["cover"], STAT_RTOL):
        return [f"{path}: H {ref.H[i]} vs cover {node['cover']}"]
    kids = {c["nodeid"]: c for c in node["children"]}
    return diff_xgboost(ref, kids[node["yes"]], ref.left[i], path + "L") + diff_xgboost(
        ref, kids[node["no"]], ref.right[i], path + "R"
    )


def neighbour_cuts(m, X):
    """How many splits cut between two float32 neighbours of the data: a threshold that is a
    value of its feature one float32 step above another (where the midpoint rounds)."""
    count = 0
    for tree in (as_teachgbt(t) for t in m.trees):
        for f, t in zip(tree.feature[~tree.is_leaf], F32(tree.threshold[~tree.is_leaf])):
            values = X[:, f].astype(F32)
            count += bool(np.isin(t, values) and np.isin(np.nextafter(t, F32(-np.inf)), values))
    return count


def assert_predicts_what_it_grew(m, X):
    """Routing the training rows reaches every leaf with the rows it was grown from, and the
    reference's own prediction is teachgbt's Tree's (the same float32 rule)."""
    for tree in m.trees:
        t = as_teachgbt(tree)
        leaves, counts = np.unique(t.apply(X), return_counts=True)
        assert dict(zip(leaves.tolist(), counts.tolist())) == {
            int(k): int(t.n[k]) for k in t.leaves
        }, f"tree {tree.round}: rows routed to its leaves differ from the rows it grew them on"
        np.testing.assert_array_equal(tree.predict(X), t.predict(X))


def assert_same_as_xgboost(m, booster, X):
    dumps = [json.loads(d) for d in booster.get_dump(dump_format="json", with_stats=True)]
    for n, (tree, dump) in enumerate(zip(m.trees, dumps, strict=True)):
        assert not (d := diff_xgboost(as_teachgbt(tree), dump)), f"tree {n}: {d}"
    margin = booster.predict(xgb.DMatrix(X), output_margin=True)
    assert np.max(np.abs(m.decision_function(X) - margin)) < MARGIN_TOL


def xgboost_exact(kind, X, y, **p):
    cls = xgb.XGBRegressor if kind == "squared" else xgb.XGBClassifier
    p = {k: v for k, v in p.items() if k != "max_leaves"}
    return cls(tree_method="exact", n_jobs=1, **p).fit(X, y).get_booster()


@pytest.fixture(params=["numpy", "numba"])
def kernel(request, monkeypatch):
    """teachgbt's trainers on their numpy code, then on their compiled twins."""
    if request.param == "numba":
        pytest.importorskip("numba")
    monkeypatch.setattr(kernels, "KERNEL", request.param)
    compiled = kernels.load("engine._exact_numba", cells=1), kernels.load("engine._hist_numba", 1)
    assert all((k is not None) == (request.param == "numba") for k in compiled)
    return request.param


def trainer(kind, tree_method, **p):
    est = tg.BoostingRegressor if kind == "squared" else tg.BoostingClassifier
    return est(
        tree_method=tree_method, pruning="post", **{**p, "max_leaves": p.get("max_leaves") or None}
    )


# ------------------------------------------------------- the float32 neighbour cases
@pytest.mark.parametrize(
    "lo, hi, threshold",
    [
        (ONE, UP1, UP1),  # (1 + UP1)/2 rounds down onto 1 in float32: XGBoost takes UP1
        (UP1, UP2, UP2),  # rounds up onto UP2, which is where a midpoint belongs
        (ONE, UP2, UP1),  # two steps apart: the midpoint is UP1 exactly
        (F32(-3e4), np.nextafter(F32(-3e4), F32(0)), np.nextafter(F32(-3e4), F32(0))),
        (F32(2**24), np.nextafter(F32(2**24), F32(np.inf)), F32(2**24 + 2)),
    ],
    ids=["1|up1", "up1|up2", "1|up2", "-3e4|up1", "2^24|up1"],
)
def test_float32_neighbours_are_split_where_the_scan_split_them(lo, hi, threshold, kernel):
    """Issue 25's case: two rows at lo, two at hi. y = 0, 0, 1, 1 and ŷ = 0.5: g = ±0.5,
    h = 1; left w = −1/(2 + 1), so the rows get 0.5 ∓ 0.3/3 = 0.4, 0.4, 0.6, 0.6 from the
    reference, the exact and hist trainers and XGBoost exact alike."""
    X, y = np.array([[lo], [lo], [hi], [hi]], dtype=np.float64), np.array([0.0, 0, 1, 1])
    p = dict(n_estimators=1, max_depth=1, learning_rate=0.3, reg_lambda=1.0, min_child_weight=0)
    expected = [0.4, 0.4, 0.6, 0.6]
    m = reference.fit(X, y, objective="reg:squarederror", **p)
    assert reference.midpoint(lo, hi) == threshold == F32(m.trees[0].threshold[0])
    np.testing.assert_allclose(m.decision_function(X), expected, atol=1e-7)
    assert_predicts_what_it_grew(m, X)
    for tree_method in ("exact", "hist"):
        est = trainer("squared", tree_method, **p).fit(X, y)
        np.testing.assert_allclose(est.decision_function(X), expected, atol=1e-6)
        assert not diff_trainer(m.trees[0], est.trees_[0], X, hist=tree_method == "hist")
    booster = xgboost_exact("squared", X, y, **p)
    np.testing.assert_allclose(
        booster.predict(xgb.DMatrix(X), output_margin=True), expected, atol=1e-6
    )
    assert_same_as_xgboost(m, booster, X)


# each set changes two parameters at a time (and the objective), round-robin
NEIGHBOUR_SETS = [
    ("logistic", {}),
    ("squared", dict(max_depth=5, reg_lambda=0.1)),
    ("multi", dict(gamma=0.5, min_child_weight=0.5)),
    ("logistic", dict(learning_rate=0.8, base_score=0.3)),
    ("squared", dict(max_depth=4, min_child_weight=0.0)),
    ("multi", dict(reg_lambda=5.0, max_depth=2)),
    ("logistic", dict(gamma=1.0, min_child_weight=3.0)),
    ("squared", dict(reg_lambda=0.1, gamma=2.0)),
]


@pytest.mark.parametrize("seed", range(16))
def test_sixteen_neighbour_sets_equal_xgboost_exact(seed):
    """Random sets of float32 neighbours (and one three-decimal column with NaN, so missing
    values are learned too): the reference grows XGBoost exact's trees, node for node, and
    predicts what it grew."""
    kind, change = NEIGHBOUR_SETS[seed % len(NEIGHBOUR_SETS)]
    X, y = neighbour_data(kind, seed, d=3, continuous=1)
    X[np.random.default_rng(seed).random(len(X)) < 0.15, -1] = np.nan
    p = {**BASE, **change}
    m = reference.fit(X, y, objective=OBJECTIVE[kind], **p)
    assert neighbour_cuts(m, X) > 0
    assert_predicts_what_it_grew(m, X)
    assert_same_as_xgboost(m, xgboost_exact(kind, X, y, **p), X)


def test_xgboost_forward_scan_puts_a_neighbour_threshold_on_the_lower_value():
    """Where XGBoost exact differs, pinned so that a change shows. Its scan sending missing
    values right takes (lo + hi)·½ in float32, or lo where that equals hi: between float32
    neighbours lo either way ((1 + UP1)·½ rounds to 1). So the cut it scored, 1 | UP1,
    becomes x < 1, no row goes left, and every row gets the mean, 0.6. The reference and
    teachgbt's trainers keep the cut they scored (its backward scan would too: it takes hi
    where the midpoint equals lo)."""
    X = np.array([[1], [1], [UP1], [UP1], [np.nan]], dtype=np.float64)
    y = np.array([0.0, 0, 1, 1, 1])
    p = dict(n_estimators=1, max_depth=1, min_child_weight=0)
    booster = xgboost_exact("squared", X, y, **p)
    dump = json.loads(booster.get_dump(dump_format="json")[0])
    assert F32(dump["split_condition"]) == ONE and dump["missing"] == dump["no"]
    np.testing.assert_allclose(booster.predict(xgb.DMatrix(X), output_margin=True), 0.6, atol=1e-6)
    m = reference.fit(X, y, objective="reg:squarederror", **p)
    assert (F32(m.trees[0].threshold[0]), m.trees[0].default_left[0]) == (UP1, False)
    for tree_method in ("exact", "hist"):
        est = trainer("squared", tree_method, **p).fit(X, y)
        assert not diff_trainer(m.trees[0], est.trees_[0], X, hist=tree_method == "hist")
    # ŷ = mean y = 0.6, g = 0.6 − y: left {1, 1} has G = 1.2, H = 2; right {UP1, UP1, NaN}
    # has G = 3·0.6 − 3 = −1.2, H = 3; each row gets 0.6 + η·(−G/(H + 1))
    expected = 0.6 + 0.3 * np.array([-1.2 / 3] * 2 + [1.2 / 4] * 3)
    np.testing.assert_allclose(m.decision_function(X), expected, atol=1e-7)


# ---------------------------------------------------- every trainer grows these trees
# (kind, data, parameters): two parameters changed at a time, multiclass and max_leaves
TRAINER_CASES = [
    ("logistic", "neighbours", {}),
    ("squared", "neighbours", dict(max_depth=5, reg_lambda=0.1)),
    ("logistic", "neighbours", dict(gamma=1.0, min_child_weight=3.0)),
    ("squared", "neighbours", dict(learning_rate=0.8, base_score=1.5)),
    ("multi", "neighbours", dict(max_depth=2, reg_lambda=0.5)),
    ("multi", "neighbours", dict(gamma=0.5, min_child_weight=0.5)),
    ("logistic", "neighbours", dict(max_leaves=10, max_depth=0)),
    ("squared", "neighbours", dict(max_leaves=7, gamma=0.5)),
    ("multi", "neighbours", dict(max_leaves=4, learning_rate=0.5)),
    ("logistic", "ties", dict(max_depth=4, min_child_weight=0.0, base_score=0.5)),
    ("squared", "ties", dict(max_leaves=6, reg_lambda=2.0)),
    ("multi", "ties", dict(max_depth=3, min_child_weight=0.0)),
]


@functools.cache
def reference_case(i):
    kind, data, change = TRAINER_CASES[i]
    X, y = neighbour_data(kind, i, missing=0.15) if data == "neighbours" else tied_data(kind, i)
    p = {**BASE, **change}
    return X, y, p, reference.fit(X, y, objective=OBJECTIVE[kind], **p)


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
@pytest.mark.parametrize(
    "i", range(len(TRAINER_CASES)),
    ids=[f"{k}-{d}-" + "-".join(f"{a}={b}" for a, b in c.items()) for k, d, c in TRAINER_CASES],
)  # fmt: skip
def test_every_trainer_grows_the_reference_trees(i, tree_method, kernel):
    kind = TRAINER_CASES[i][0]
    X, y, p, m = reference_case(i)
    if tree_method == "hist":  # then XGBoost's cut points are the distinct values
        assert max(len(np.unique(x[~np.isnan(x)])) for x in X.T) <= 256
    est = trainer(kind, tree_method, **p).fit(X, y)
    assert len(est.trees_) == len(m.trees)
    for tree, other in zip(m.trees, est.trees_, strict=True):
        assert (tree.round, tree.class_) == (other.round, other.class_)
        d = diff_trainer(tree, other, X, hist=tree_method == "hist")
        assert not d, f"round {tree.round}, class {tree.class_}: {d}"
    assert np.max(np.abs(m.decision_function(X) - est.decision_function(X))) < MARGIN_TOL
    assert_predicts_what_it_grew(m, X)


def test_the_cases_reach_what_they_are_for():
    """The trainer cases send missing values both ways, cut between float32 neighbours (a
    threshold one float32 step above a value of its feature), grow best-first trees to
    exactly max_leaves and deeper than level-by-level growth would, and grow every class's
    trees."""
    dirs, cuts, lopsided = [], 0, 0
    for i, (kind, data, _) in enumerate(TRAINER_CASES):
        X, _, p, m = reference_case(i)
        trees = [as_teachgbt(t) for t in m.trees]
        dirs += [d for t in trees for d in t.default_left[~t.is_leaf]]
        cuts += neighbour_cuts(m, X) if data == "neighbours" else 0
        if p.get("max_leaves"):
            assert max(t.n_leaves for t in trees) == p["max_leaves"]
            lopsided += sum(t.max_depth > np.ceil(np.log2(t.n_leaves)) for t in trees)
        if kind == "multi":
            assert [t.class_ for t in trees] == [0, 1, 2] * N_ROUNDS
    assert any(dirs) and not all(dirs) and cuts > 0 and lopsided > 0


def test_best_first_takes_the_older_of_two_equal_leaves(kernel):
    """Best-first with λ = 0: the root splits on f0 (loss_chg 100), and then its two
    children gain the same, 14²/2 + 6²/2 − 20²/4 = 16 on the left and (−6)²/2 + (−14)²/2 −
    (−20)²/4 = 16 on the right. With max_leaves = 3 only one splits: the older, the left, as
    in teachgbt's trainers and XGBoost's lossguide."""
    X = np.array([[0, 1], [0, 2], [0, 3], [0, 4], [1, 1], [1, 2], [1, 3], [1, 4]], dtype=float)
    y = np.array([0.0, 0, 4, 4, 10, 10, 14, 14])  # ŷ = 7: g = 7, 7, 3, 3, −3, −3, −7, −7
    p = dict(n_estimators=1, max_leaves=3, max_depth=0, reg_lambda=0.0, min_child_weight=0)
    m = reference.fit(X, y, objective="reg:squarederror", learning_rate=1.0, **p)
    assert reference.loss_chg(14, 2, 6, 2, 0) == reference.loss_chg(-6, 2, -14, 2, 0) == 16
    assert [n.split is not None for n in m.trees[0].nodes] == [True, True, False, False, False]
    four = reference.fit(X, y, objective="reg:squarederror", **dict(p, max_leaves=4))
    assert [n.split.loss_chg for n in four.trees[0].nodes[1:3]] == [16, 16]
    for tree_method in ("exact", "hist"):
        est = trainer("squared", tree_method, learning_rate=1.0, **p).fit(X, y)
        assert not diff_trainer(m.trees[0], est.trees_[0], X, hist=tree_method == "hist")
    lossguide = dict(grow_policy="lossguide", max_leaves=3, max_depth=0, reg_lambda=0, eta=1.0)
    booster = xgb.train(dict(lossguide, tree_method="hist", min_child_weight=0, nthread=1),
                        xgb.DMatrix(X, y), 1)  # fmt: skip
    margin = booster.predict(xgb.DMatrix(X), output_margin=True)
    np.testing.assert_allclose(m.decision_function(X), margin, atol=1e-6)  # 0 0 4 4 12 12 12 12


@pytest.mark.parametrize("kind", ["logistic", "squared"])
def test_ties_break_as_xgboost(kind):
    """With g and h held in float32, as XGBoost holds them, equal candidates tie exactly,
    and the reference's scan order picks XGBoost's winner: the lower feature, and in the
    scan sending missing values left, the higher threshold."""
    X, y = tied_data(kind)
    p = dict(n_estimators=N_ROUNDS, max_depth=4, min_child_weight=0.0)
    p["base_score"] = 0.5 if kind == "logistic" else 1.0  # g = ±0.5 everywhere at first
    m = reference.fit(X, y, objective=OBJECTIVE[kind], **p)
    assert_same_as_xgboost(m, xgboost_exact(kind, X, y, **p), X)


# ---------------------------------------- XGBoost exact on ordinary data, pairs of parameters
CHANGES = [
    {},
    dict(max_depth=5, reg_lambda=0.1),
    dict(gamma=1.0, min_child_weight=3.0),
    dict(learning_rate=0.8, base_score="given"),
    dict(max_depth=4, min_child_weight=0.0),
    dict(reg_lambda=5.0, gamma=0.3),
    dict(learning_rate=0.1, max_depth=2),
]
GIVEN = {"logistic": 0.3, "squared": 1.5, "multi": 0.2}  # a base_score of each kind


@pytest.mark.parametrize(
    "change", CHANGES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "base"
)
@pytest.mark.parametrize("missing", [0.0, 0.2], ids=["dense", "20%-missing"])
@pytest.mark.parametrize("kind", ["logistic", "squared", "multi"])
def test_same_trees_as_xgboost_exact(kind, missing, change):
    X, y = continuous_data(kind, missing=missing)
    p = {**BASE, **change}
    if p.get("base_score") == "given":
        p["base_score"] = GIVEN[kind]
    m = reference.fit(X, y, objective=OBJECTIVE[kind], **p)
    assert_same_as_xgboost(m, xgboost_exact(kind, X, y, **p), X)
    if missing:  # missing values were sent both ways somewhere
        trees = [as_teachgbt(t) for t in m.trees]
        dirs = np.concatenate([t.default_left[~t.is_leaf] for t in trees])
        assert dirs.any() and not dirs.all()


def test_multiclass_starts_from_xgboost_base_margins():
    """No base_score: XGBoost 3.2's centred log class priors, log(π_k + 1e-6) − mean."""
    y = np.array([0, 0, 0, 1, 2, 2] * 5, dtype=float)
    X = np.arange(len(y), dtype=float).reshape(-1, 1)
    m = reference.fit(X, y, objective="multi:softprob", n_estimators=0)
    log_prior = np.log(np.array([3, 1, 2]) / 6 + 1e-6)
    np.testing.assert_allclose(m.base_margin, log_prior - log_prior.mean(), rtol=1e-6)
    clf = xgb.XGBClassifier(tree_method="exact", n_estimators=1, learning_rate=0.0).fit(X, y)
    np.testing.assert_allclose(
        m.decision_function(X), clf.predict(X, output_margin=True), atol=1e-6
    )


# ------------------------------------------------------------------- hand calculations
def test_hand_calculation_squared_error():
    """Seed 000's formulas by hand on four rows, two rounds of depth-1 trees."""
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    y = np.array([0.0, 0.0, 1.0, 3.0])
    lam, eta = 1.0, 0.3
    m = reference.fit(
        X, y, objective="reg:squarederror", n_estimators=2, learning_rate=eta, max_depth=1,
        reg_lambda=lam, base_score=0.5,
    )  # fmt: skip

    # round 1: ŷ = 0.5, so g = ŷ − y = [0.5, 0.5, −0.5, −2.5], h = 1, G = −2, H = 4
    def bracket(G_L, H_L, G_R, H_R):
        return G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam) - (G_L + G_R) ** 2 / (H_L + H_R + lam)

    cuts = {
        1.5: bracket(0.5, 1, -2.5, 3),
        2.5: bracket(1.0, 2, -3.0, 2),
        3.5: bracket(0.5, 3, -2.5, 1),
    }
    assert cuts == pytest.approx({1.5: 0.8875, 2.5: 2.5 + 1 / 30, 3.5: 2.3875})
    t1 = m.trees[0]
    assert t1.threshold[0] == 2.5  # the largest bracket
    assert (t1.G[0], t1.H[0], t1.weight[0]) == pytest.approx((-2, 4, 0.4))
    assert t1.gain[0] == pytest.approx(0.5 * cuts[2.5])  # gamma = 0
    assert list(t1.n) == [4, 2, 2]
    assert list(t1.weight[1:]) == pytest.approx([-1 / 3, 1.0])  # −G/(H+λ) = −1/3, 3/3
    assert list(t1.value[1:]) == pytest.approx([-0.1, 0.3])  # η·w

    # round 2: ŷ = [0.4, 0.4, 0.8, 0.8], g = [0.4, 0.4, −0.2, −2.2], G = −1.6
    cuts = {
        1.5: bracket(0.4, 1, -2.0, 3),
        2.5: bracket(0.8, 2, -2.4, 2),
        3.5: bracket(0.6, 3, -2.2, 1),
    }
    assert cuts == pytest.approx({1.5: 0.568, 2.5: 1.621333333, 3.5: 1.998})
    t2 = m.trees[1]
    assert t2.threshold[0] == 3.5
    assert list(t2.weight[1:]) == pytest.approx([-0.15, 1.1])  # −0.6/4, 2.2/2
    assert m.decision_function(X) == pytest.approx([0.355, 0.355, 0.755, 1.13])


def test_hand_calculation_logistic_with_a_missing_value():
    """p = 0.5 everywhere: g = p − y = ±0.5, h = p(1 − p) = 0.25; the NaN row is sent right."""
    X = np.array([[1.0], [2.0], [3.0], [np.nan]])
    y = np.array([0.0, 0.0, 1.0, 1.0])
    m = reference.fit(
        X, y, n_estimators=1, max_depth=1, min_child_weight=0.0, base_score=0.5, gamma=0.4
    )
    # missing right: cut 2.5 gives L = {1, 2}: G_L = 1, H_L = 0.5 and R = {3, NaN}: −1, 0.5
    loss_chg = 1 / 1.5 + 1 / 1.5 - 0 / 2
    # every other cut (1.5, 2.5 or NaN | present with NaN left; 1.5 or present | NaN) leaves
    # ±0.5 on a side of H 0.25 or 0.75 (score 0.25/1.25 + 0.25/1.75), or 0 on both sides
    assert max(0.25 / 1.25 + 0.25 / 1.75, 0.0) < loss_chg
    t = m.trees[0]
    assert (t.threshold[0], t.default_left[0]) == (2.5, False)
    assert t.loss_chg[0] == pytest.approx(loss_chg)
    assert t.gain[0] == pytest.approx(0.5 * (loss_chg - 0.4))  # seed 000's γ = 0.2
    assert list(t.weight[1:]) == pytest.approx([-1 / 1.5, 1 / 1.5])
    assert m.decision_function(X) == pytest.approx([-0.2, -0.2, 0.2, 0.2])  # 0 ∓ 0.3·(2/3)


def test_a_tie_goes_to_the_cut_the_scan_meets_first():
    """p = 0.5: g = −0.5 for y = 1, +0.5 for y = 0, h = 0.25. Cuts 1.5 and 5.5 each set one
    positive row apart: mirror images, same loss_chg 0.2 + 1 − 0.4 = 0.8. Without missing
    values only the scan sending them left runs, from the largest value down, so 5.5 wins."""
    X, y = np.arange(1.0, 7.0).reshape(-1, 1), np.array([1.0, 0, 0, 0, 0, 1])
    p = dict(n_estimators=1, max_depth=1, min_child_weight=0.0, base_score=0.5)
    tree = reference.fit(X, y, **p).trees[0]
    assert (tree.threshold[0], tree.loss_chg[0]) == (5.5, pytest.approx(0.8))
    dump = json.loads(xgboost_exact("logistic", X, y, **p).get_dump(dump_format="json")[0])
    assert dump["split_condition"] == 5.5


def test_a_split_must_lower_the_loss_by_more_than_1e_6():
    """Two rows, ŷ = 0, λ = 0.01: loss_chg = y₁²/1.01 + y₂²/1.01 − (y₁ + y₂)²/2.01."""
    X = np.array([[1.0], [2.0]])
    p = dict(n_estimators=1, max_depth=1, min_child_weight=0.0, base_score=0, reg_lambda=0.01)
    for scale, splits in ((1, False), (2, True)):
        y = np.array([1e-3, 2e-3]) * scale
        loss_chg = (y[0] ** 2 + y[1] ** 2) / 1.01 - y.sum() ** 2 / 2.01  # 4.7e-7, then 1.9e-6
        assert (loss_chg > 1e-6) == splits
        tree = reference.fit(X, y, objective="reg:squarederror", **p).trees[0]
        dump = json.loads(xgboost_exact("squared", X, y, **p).get_dump(dump_format="json")[0])
        assert len(tree.nodes) == (3 if splits else 1) and ("leaf" not in dump) == splits


def test_gamma_prunes_bottom_up_as_xgboost():
    """A gamma that prunes leaves and keeps a split whose own Gain is negative."""
    X, y = continuous_data("squared", seed=1, missing=0.2)
    p = dict(n_estimators=N_ROUNDS, max_depth=4)
    grown = reference.fit(X, y, objective="reg:squarederror", **p)
    m = reference.fit(X, y, objective="reg:squarederror", gamma=4.6, **p)
    assert_same_as_xgboost(m, xgboost_exact("squared", X, y, gamma=4.6, **p), X)
    leaves = [sum(t.split is None for t in tree.nodes) for tree in (grown.trees + m.trees)]
    assert sum(leaves[N_ROUNDS:]) < sum(leaves[:N_ROUNDS])
    kept_negative = False
    for tree in m.trees:
        for node in tree.nodes:
            if node.split is None:
                continue
            assert node.split.gain == pytest.approx(0.5 * (node.split.loss_chg - 4.6))
            if node.left.split is None and node.right.split is None:
                assert node.split.gain >= 0  # a split just above leaves pays its γ
            kept_negative |= node.split.gain < 0
    assert kept_negative  # post-pruning keeps a negative Gain above a split worth keeping


def test_root_lighter_than_min_child_weight_has_weight_zero():
    """XGBoost's w* is 0 where H < min_child_weight; only a root can be that light."""
    X, y = np.array([[1.0], [2.0], [3.0]]), np.array([0.0, 1.0, 1.0])
    p = dict(n_estimators=1, min_child_weight=1.0, base_score=0.5)  # H = 3 · 0.25 < 1
    m = reference.fit(X, y, **p)
    booster = xgboost_exact("logistic", X, y, **p)
    assert len(m.trees[0].nodes) == 1 and m.trees[0].weight[0] == 0.0
    assert m.decision_function(X) == pytest.approx(
        booster.predict(xgb.DMatrix(X), output_margin=True)
    )


# ----------------------------------------------------------- the tree, and reading alone
def test_a_reference_tree_becomes_a_teachgbt_tree():
    """to_dict writes what tg.Tree.to_dict writes, and tg.Tree.from_dict reads it back into
    a tree that routes as the reference does, also one float32 step either side of every
    threshold; with a DataFrame the features keep their names."""
    X, y = neighbour_data("logistic", 0, missing=0.15)
    X = pd.DataFrame(X, columns=["age", "income", "height", "weight"])
    m = reference.fit(X, y, n_estimators=2, max_depth=3)
    d = m.trees[0].to_dict()
    tree = tg.Tree.from_dict(json.loads(json.dumps(d)))  # as a model file would carry it
    assert set(d) == set(tree.to_dict()) and tree.rule == "xgboost"
    assert (tree.round, tree.class_, tree.feature_names) == (1, None, list(X.columns))
    splits = tree.threshold[~tree.is_leaf].astype(F32)
    probes = np.concatenate(
        [splits, np.nextafter(splits, F32(-np.inf)), np.nextafter(splits, F32(np.inf))]
    )
    P = np.tile(probes[:, None], (1, 4)).astype(np.float64)
    np.testing.assert_array_equal(m.trees[0].predict(P), tree.predict(P))
    df = tree.to_frame()
    leaves = df[df["is_leaf"]]
    assert np.allclose(leaves["value"], 0.3 * leaves["weight"])
    assert np.allclose(df["weight"], -df["G"] / (df["H"] + 1.0))
    root = df.loc[0, "feature"]
    assert root in str(m.trees[0]) and root in tree.to_dot()
    assert str(m.trees[0]).splitlines()[0].startswith(f"0: {root} < ")
    assert m.decision_function(X) == pytest.approx(m.decision_function(X.to_numpy()))
    np.testing.assert_array_equal(m.trees[0].feature, tree.feature)  # arrays, as a tg.Tree's


def test_the_reference_reads_alone():
    """numpy and the standard library only, nothing of teachgbt, in at most 300 lines."""
    path = Path(reference.__file__)
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MAX_LINES
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import: part of teachgbt"
            imported.add(node.module.split(".")[0])
    assert imported - sys.stdlib_module_names == {"numpy"}


def test_unknown_objective_is_refused():
    with pytest.raises(ValueError, match="objective='multi:softmax'"):
        reference.fit(np.zeros((3, 1)), np.zeros(3), objective="multi:softmax")
