"""teachgbt.reference (seed 000 in one file) against hand calculations, teachgbt's exact
trainer and XGBoost tree_method="exact".

The parameter grid runs on data without exactly tied candidates: continuous features with
three decimals, held as float32 values as XGBoost holds them. Separate tests pin how ties
break, on a hand-made tie and on data with few distinct values.
"""

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt import reference

xgb = pytest.importorskip("xgboost")
from xgb_compare import xgb_trees  # noqa: E402

N_ROUNDS = 3
MARGIN_TOL = 1e-5
STAT_RTOL = 1e-5  # G, H, leaf values: float32 margins (teachgbt exact, XGBoost) vs float64
THRESHOLD_RTOL = 1e-6
# An end cut ("every present value | the missing ones") sits at v ± (|v| + 1e-6); XGBoost
# sums that in float32, which for v < 0 cancels to a number near 1e-6 with few exact digits.
THRESHOLD_ATOL = 1e-6

BASE = dict(
    max_depth=3, reg_lambda=1.0, gamma=0.0, min_child_weight=1.0, learning_rate=0.3,
    base_score=None,
)  # fmt: skip
# each entry changes two parameters of BASE; "given" is a base_score for either objective
CHANGES = [
    {},
    dict(max_depth=5, reg_lambda=0.1),
    dict(gamma=1.0, min_child_weight=3.0),
    dict(learning_rate=0.8, base_score="given"),
    dict(max_depth=4, min_child_weight=0.0),
    dict(reg_lambda=5.0, gamma=0.3),
    dict(learning_rate=0.1, max_depth=2),
]


def make_data(classifier, missing, seed=0, n=200, d=4):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3).astype(np.float32).astype(np.float64)
    signal = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] * X[:, 3] + rng.normal(0, 0.7, n)
    y = (signal > 0.3).astype(float) if classifier else signal
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    return X, y


def params_for(change, classifier):
    p = {**BASE, **change}
    if p["base_score"] == "given":
        p["base_score"] = 0.3 if classifier else 1.5
    return p


def same_threshold(a, b):
    return np.isclose(a, b, rtol=THRESHOLD_RTOL, atol=THRESHOLD_ATOL)


def diff_teachgbt(ref, other, i=0, j=0, path="root"):
    """Differences between two teachgbt Trees, walked from the root."""
    if ref.is_leaf[i] or other.is_leaf[j]:
        if ref.is_leaf[i] != other.is_leaf[j]:
            return [f"{path}: leaf in one tree only"]
        if not np.isclose(ref.value[i], other.value[j], rtol=STAT_RTOL, atol=1e-7):
            return [f"{path}: leaf value {ref.value[i]} vs {other.value[j]}"]
        return []
    if (
        ref.feature[i] != other.feature[j]
        or not same_threshold(ref.threshold[i], other.threshold[j])
        or ref.default_left[i] != other.default_left[j]
    ):
        return [
            f"{path}: f{ref.feature[i]} < {ref.threshold[i]} (left {ref.default_left[i]}) vs "
            f"f{other.feature[j]} < {other.threshold[j]} (left {other.default_left[j]})"
        ]
    if ref.n[i] != other.n[j] or not np.allclose(
        [ref.G[i], ref.H[i]], [other.G[j], other.H[j]], rtol=STAT_RTOL, atol=1e-5
    ):
        return [f"{path}: n, G, H differ"]
    return diff_teachgbt(ref, other, ref.left[i], other.left[j], path + "L") + diff_teachgbt(
        ref, other, ref.right[i], other.right[j], path + "R"
    )


def diff_xgboost(ref, node, i=0, path="root"):
    """Differences between a teachgbt Tree and an XGBoost JSON dump, walked from the root."""
    if "leaf" in node or ref.is_leaf[i]:
        if ("leaf" in node) != bool(ref.is_leaf[i]):
            return [f"{path}: leaf in one tree only"]
        if not np.isclose(ref.value[i], node["leaf"], rtol=STAT_RTOL, atol=1e-7):
            return [f"{path}: leaf value {ref.value[i]} vs {node['leaf']}"]
        return []
    feature = int(node["split"].lstrip("f"))
    default_left = node["missing"] == node["yes"]
    if (
        ref.feature[i] != feature
        or not same_threshold(ref.threshold[i], node["split_condition"])
        or ref.default_left[i] != default_left
    ):
        return [
            f"{path}: f{ref.feature[i]} < {ref.threshold[i]} (left {ref.default_left[i]}) vs "
            f"f{feature} < {node['split_condition']} (left {default_left})"
        ]
    if not np.isclose(ref.H[i], node["cover"], rtol=STAT_RTOL):
        return [f"{path}: H {ref.H[i]} vs cover {node['cover']}"]
    kids = {c["nodeid"]: c for c in node["children"]}
    return diff_xgboost(ref, kids[node["yes"]], ref.left[i], path + "L") + diff_xgboost(
        ref, kids[node["no"]], ref.right[i], path + "R"
    )


def fit_all(X, y, p, classifier):
    """The reference, teachgbt exact and XGBoost exact on the same data and parameters."""
    objective = "binary:logistic" if classifier else "reg:squarederror"
    ref = reference.fit(X, y, objective=objective, n_estimators=N_ROUNDS, **p)
    est_cls = tg.BoostingClassifier if classifier else tg.BoostingRegressor
    est = est_cls(tree_method="exact", n_estimators=N_ROUNDS, **p).fit(X, y)
    xgb_cls = xgb.XGBClassifier if classifier else xgb.XGBRegressor
    booster = xgb_cls(tree_method="exact", n_estimators=N_ROUNDS, n_jobs=1, **p).fit(X, y)
    return ref, est, booster


def assert_same_as_xgboost(ref, booster, X):
    """Every tree node for node, and the margins; returns the worst margin gap."""
    dumps = xgb_trees(booster.get_booster())
    for t, (tree, dump) in enumerate(zip(ref.trees, dumps, strict=True), 1):
        assert not (d := diff_xgboost(tree, dump)), f"tree {t} vs XGBoost exact: {d}"
    gap = np.max(np.abs(ref.decision_function(X) - booster.predict(X, output_margin=True)))
    assert gap < MARGIN_TOL
    return gap


def assert_same_as_exact(ref, est, X):
    """Likewise against teachgbt's exact trainer."""
    for t, (tree, exact_tree) in enumerate(zip(ref.trees, est.trees_, strict=True), 1):
        assert not (d := diff_teachgbt(tree, exact_tree)), f"tree {t} vs teachgbt exact: {d}"
    gap = np.max(np.abs(ref.decision_function(X) - est.decision_function(X)))
    assert gap < MARGIN_TOL
    return gap


@pytest.mark.parametrize(
    "change", CHANGES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "base"
)
@pytest.mark.parametrize("missing", [False, True], ids=["dense", "20%-missing"])
@pytest.mark.parametrize("classifier", [True, False], ids=["logistic", "squarederror"])
def test_same_trees_as_exact_and_xgboost(classifier, missing, change):
    X, y = make_data(classifier, missing)
    p = params_for(change, classifier)
    ref, est, booster = fit_all(X, y, p, classifier)
    assert_same_as_exact(ref, est, X)
    assert_same_as_xgboost(ref, booster, X)
    if classifier:
        np.testing.assert_allclose(ref.predict(X), booster.predict_proba(X)[:, 1], atol=1e-6)
    else:
        np.testing.assert_allclose(ref.predict(X), booster.predict(X), rtol=1e-5, atol=1e-5)
    if missing:  # missing values were sent both ways somewhere
        dirs = np.concatenate([t.default_left[~t.is_leaf] for t in ref.trees])
        assert dirs.any() and not dirs.all()


def tied_data(classifier, missing, seed=0, n=200, d=4):
    """Six distinct values per feature, so many candidates tie exactly, and an indicator
    column (1 or missing, as sparse one-hot data stores it) that XGBoost scans one way only."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, d)) / 2
    signal = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 1) + rng.normal(0, 1, n)
    y = (signal > 0.6).astype(float) if classifier else signal
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    indicator = np.where((signal > 0.6) ^ (rng.random(n) < 0.3), 1.0, np.nan)
    return np.column_stack([X, indicator]), y


def tied_params(classifier):
    # base_score 0.5: every row starts with g = ±0.5, so equal counts tie everywhere
    return dict(BASE, max_depth=4, min_child_weight=0.0, base_score=0.5 if classifier else 1.0)


@pytest.mark.parametrize("missing", [False, True], ids=["dense", "20%-missing"])
def test_ties_break_as_xgboost(missing):
    """With g and h held in float32, as XGBoost holds them, equal candidates tie exactly,
    and the reference's scan order picks XGBoost's winner: the lower feature, and in the
    scan sending missing values left, the higher threshold."""
    for classifier in (True, False):
        X, y = tied_data(classifier, missing)
        ref, _, booster = fit_all(X, y, tied_params(classifier), classifier)
        assert_same_as_xgboost(ref, booster, X)


def test_exact_trainer_on_a_near_tie():
    """Round 2, node RR: f2 < 0.75, f3 < 0.25 and the indicator f4 tie exactly when the
    node's G is 0 (the reference, XGBoost: f2 wins). teachgbt exact's float32 margins give
    G = −1.8e-7 there; it used to score sides as −(2Gw + (H+λ)w²), which tipped the tie to
    f4 by one float32 ulp; scored as G²/(H+λ), as XGBoost does without max_delta_step, it
    picks f2."""
    X, y = tied_data(classifier=True, missing=True)
    ref, est, _ = fit_all(X, y, tied_params(True), classifier=True)
    assert_same_as_exact(ref, est, X)


def test_a_tie_goes_to_the_cut_the_scan_meets_first():
    """p = 0.5: g = −0.5 for y = 1, +0.5 for y = 0, h = 0.25. Cuts 1.5 and 5.5 each set one
    positive row apart: mirror images, same loss_chg 0.2 + 1 − 0.4 = 0.8. Without missing
    values only the scan sending them left runs, from the largest value down, so 5.5 wins."""
    X, y = np.arange(1.0, 7.0).reshape(-1, 1), np.array([1.0, 0, 0, 0, 0, 1])
    p = dict(n_estimators=1, max_depth=1, min_child_weight=0.0, base_score=0.5)
    tree = reference.fit(X, y, **p).trees[0]
    assert (tree.threshold[0], tree.loss_chg[0]) == (5.5, pytest.approx(0.8))
    dump = xgb_trees(xgb.XGBClassifier(tree_method="exact", **p).fit(X, y).get_booster())[0]
    assert dump["split_condition"] == 5.5


def test_a_split_must_lower_the_loss_by_more_than_1e_6():
    """Two rows, ŷ = 0, λ = 0.01: loss_chg = y₁²/1.01 + y₂²/1.01 − (y₁ + y₂)²/2.01."""
    X = np.array([[1.0], [2.0]])
    p = dict(n_estimators=1, max_depth=1, min_child_weight=0.0, base_score=0.0, reg_lambda=0.01)
    for scale, splits in ((1, False), (2, True)):
        y = np.array([1e-3, 2e-3]) * scale
        loss_chg = (y[0] ** 2 + y[1] ** 2) / 1.01 - y.sum() ** 2 / 2.01  # 4.7e-7, then 1.9e-6
        assert (loss_chg > 1e-6) == splits
        tree = reference.fit(X, y, objective="reg:squarederror", **p).trees[0]
        dump = xgb_trees(xgb.XGBRegressor(tree_method="exact", **p).fit(X, y).get_booster())[0]
        assert tree.n_nodes == (3 if splits else 1) and ("leaf" not in dump) == splits


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
    t1 = m.trees[0].to_frame()
    assert t1.loc[0, "threshold"] == 2.5  # the largest bracket
    assert (t1.loc[0, "G"], t1.loc[0, "H"], t1.loc[0, "weight"]) == pytest.approx((-2, 4, 0.4))
    assert t1.loc[0, "gain"] == pytest.approx(0.5 * cuts[2.5])  # gamma = 0
    assert list(t1["n"]) == [4, 2, 2]
    assert list(t1["weight"][1:]) == pytest.approx([-1 / 3, 1.0])  # −G/(H+λ) = −1/3, 3/3
    assert list(t1["value"][1:]) == pytest.approx([-0.1, 0.3])  # η·w

    # round 2: ŷ = [0.4, 0.4, 0.8, 0.8], g = [0.4, 0.4, −0.2, −2.2], G = −1.6
    cuts = {
        1.5: bracket(0.4, 1, -2.0, 3),
        2.5: bracket(0.8, 2, -2.4, 2),
        3.5: bracket(0.6, 3, -2.2, 1),
    }
    assert cuts == pytest.approx({1.5: 0.568, 2.5: 1.621333333, 3.5: 1.998})
    t2 = m.trees[1].to_frame()
    assert t2.loc[0, "threshold"] == 3.5
    assert list(t2["weight"][1:]) == pytest.approx([-0.15, 1.1])  # −0.6/4, 2.2/2
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
    t = m.trees[0].to_frame()
    assert (t.loc[0, "threshold"], t.loc[0, "default_left"]) == (2.5, False)
    assert t.loc[0, "loss_chg"] == pytest.approx(loss_chg)
    assert t.loc[0, "gain"] == pytest.approx(0.5 * (loss_chg - 0.4))  # seed 000's γ = 0.2
    assert list(t["weight"][1:]) == pytest.approx([-1 / 1.5, 1 / 1.5])
    margin = m.decision_function(X)  # logit(0.5) = 0, plus ∓0.3·(2/3)
    assert margin == pytest.approx([-0.2, -0.2, 0.2, 0.2])
    assert m.predict(X) == pytest.approx(1 / (1 + np.exp(-margin)))


def test_gamma_prunes_bottom_up_as_xgboost():
    """A gamma that prunes 16 of 40 leaves and keeps one split whose own Gain is negative."""
    X, y = make_data(classifier=False, missing=True, seed=1)
    p = dict(BASE, max_depth=4)
    gamma = 4.6
    grown = reference.fit(X, y, objective="reg:squarederror", n_estimators=N_ROUNDS, **p)
    ref, est, booster = fit_all(X, y, dict(p, gamma=gamma), classifier=False)
    assert_same_as_exact(ref, est, X)
    assert_same_as_xgboost(ref, booster, X)
    assert sum(t.n_leaves for t in ref.trees) < sum(t.n_leaves for t in grown.trees)
    kept_negative = False
    for tree in ref.trees:
        split = ~tree.is_leaf
        np.testing.assert_allclose(tree.gain[split], 0.5 * (tree.loss_chg[split] - gamma))
        above_leaves = (
            split & tree.is_leaf[np.maximum(tree.left, 0)] & tree.is_leaf[np.maximum(tree.right, 0)]
        )
        assert (tree.gain[above_leaves] >= 0).all()  # a split just above leaves pays its γ
        kept_negative |= bool((tree.gain[split] < 0).any())
    assert kept_negative  # post-pruning keeps a negative Gain above a split worth keeping


def test_trees_show_themselves():
    X, y = make_data(classifier=True, missing=True)
    X = pd.DataFrame(X, columns=["age", "income", "height", "weight"])
    m = reference.fit(X, y, n_estimators=2, max_depth=2)
    tree = m.trees[0]
    df = tree.to_frame()
    assert list(df.columns) == list(tg.core.NODE_COLUMNS)
    assert set(df["feature"].dropna()) <= set(X.columns)
    leaves = df[df["is_leaf"]]
    assert np.allclose(leaves["value"], 0.3 * leaves["weight"])
    assert np.allclose(df["weight"], -df["G"] / (df["H"] + 1.0))
    assert df.loc[0, "n"] == len(X) and df.loc[0, "H"] > 0
    text, dot = str(tree), tree.to_dot()
    root = df.loc[0, "feature"]
    assert root in text and root in dot and dot.lstrip().startswith("digraph")
    assert m.decision_function(X) == pytest.approx(m.decision_function(X.to_numpy()))


def test_root_lighter_than_min_child_weight_has_weight_zero():
    """XGBoost's w* is 0 where H < min_child_weight; only a root can be that light."""
    X, y = np.array([[1.0], [2.0], [3.0]]), np.array([0.0, 1.0, 1.0])
    p = dict(n_estimators=1, min_child_weight=1.0, base_score=0.5)  # H = 3 · 0.25 < 1
    m = reference.fit(X, y, **p)
    booster = xgb.XGBClassifier(tree_method="exact", **p).fit(X, y)
    assert m.trees[0].n_nodes == 1 and m.trees[0].weight[0] == 0.0
    assert m.decision_function(X) == pytest.approx(booster.predict(X, output_margin=True))


def test_unknown_objective_is_refused():
    with pytest.raises(ValueError, match="objective='multi:softmax'"):
        reference.fit(np.zeros((3, 1)), np.zeros(3), objective="multi:softmax")
