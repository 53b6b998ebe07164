"""The histogram trainer (tree_method="hist") against XGBoost's, run in the same test.

Features have at most ``max_bin`` distinct values, so both libraries use every distinct
value as a cut point and must grow the same trees. (What needs no XGBoost is in
test_hist.py.)
"""

import numpy as np
import pytest
from hist_data import few_values

xgb = pytest.importorskip("xgboost")
import xgb_compare  # noqa: E402
from xgb_compare import PAIR_VALUES, compare_tree, pair_cases, resolve_case, xgb_trees  # noqa: E402

N_ROUNDS = 8
# the pairwise grid: small data and few rounds, so that its many cases stay quick
PAIR_ROWS, PAIR_ROUNDS = 200, 4
MARGIN_TOL = 1e-5


def xgb_params(params, objective):
    return xgb_compare.xgb_params(params, objective, "hist")


def run_both(X, y, params, classifier, sample_weight=None, n_rounds=N_ROUNDS):
    return xgb_compare.run_both(X, y, params, classifier, "hist", sample_weight, n_rounds)


def assert_same(est, booster, X):
    """Margins within 1e-5 (relative to large margins: both sides hold them in float32) and
    the same splits, thresholds, default directions and leaves."""
    theirs = booster.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True)
    ours = est.decision_function(X)
    gap = np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs)))
    assert gap < MARGIN_TOL, f"margins differ by {gap}"
    for t, (tree, dump) in enumerate(zip(est.trees_, xgb_trees(booster)), 1):
        diffs = compare_tree(tree, dump)
        assert not diffs, f"tree {t}: {diffs[:3]}"
    return gap


GRID = [
    dict(max_depth=3),
    dict(max_depth=6, reg_lambda=0.1, min_child_weight=0.0, learning_rate=0.5),
    dict(
        max_depth=4,
        reg_lambda=5.0,
        reg_alpha=0.5,
        gamma=0.5,
        min_child_weight=2.0,
        learning_rate=0.1,
    ),
    dict(max_depth=2, gamma=2.0, learning_rate=1.0, base_score=0.5),
    dict(max_depth=5, reg_lambda=0.3, reg_alpha=1.5, min_child_weight=0.5),
    dict(max_depth=6, reg_lambda=2.0, gamma=5.0, min_child_weight=3.0, learning_rate=0.2),
    dict(max_depth=4, max_delta_step=0.7),
]


@pytest.mark.parametrize("params", GRID, ids=[f"grid{i}" for i in range(len(GRID))])
@pytest.mark.parametrize("nan", [0.0, 0.2], ids=["dense", "nan"])
def test_classifier_matches_xgboost_hist(params, nan):
    X, y, _ = few_values(seed=1, nan=nan)
    est, booster = run_both(X, y, params, classifier=True)
    assert_same(est, booster, X)


@pytest.mark.parametrize("params", GRID[:4], ids=[f"grid{i}" for i in range(4)])
@pytest.mark.parametrize("nan", [0.0, 0.2], ids=["dense", "nan"])
def test_regressor_matches_xgboost_hist(params, nan):
    X, _, logit = few_values(seed=2, nan=nan)
    est, booster = run_both(X, logit, params, classifier=False)
    assert_same(est, booster, X)


@pytest.mark.parametrize("classifier", [True, False], ids=["clf", "reg"])
@pytest.mark.parametrize("case", pair_cases(list(PAIR_VALUES)))
def test_parameter_pairs_match_xgboost_hist(case, classifier):
    """Every pair of parameters, two values each, on ties and 20 % missing values; every
    feature has 6 distinct values (<= max_bin), so both libraries cut at each of them."""
    X, y, logit = few_values(seed=21, n=PAIR_ROWS, d=5, nan=0.2)
    params, sample_weight = resolve_case(case, classifier, len(X))
    target = y if classifier else logit
    est, booster = run_both(X, target, params, classifier, sample_weight, n_rounds=PAIR_ROUNDS)
    assert_same(est, booster, X)


def awkward_columns(seed=0, n=600):
    """40 distinct values per feature, plus a constant, an all-missing and a 0/NaN column."""
    X, y, logit = few_values(seed, n=n, d=4, levels=40, nan=0.15)
    rng = np.random.default_rng(seed + 100)
    extra = np.column_stack(
        [
            np.full(n, 2.0),
            np.full(n, np.nan),
            np.where(rng.random(n) < 0.3, np.nan, 1.0),
        ]
    )
    return np.column_stack([X, extra]), y, logit


@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=4, max_bin=40),  # exactly max_bin distinct values
        dict(max_depth=0, max_leaves=12),  # best-first (XGBoost lossguide)
        dict(max_depth=5, min_child_weight=0.0),
    ],
    ids=["max_bin=distinct", "lossguide", "mcw0"],
)
@pytest.mark.parametrize("classifier", [True, False], ids=["clf", "reg"])
def test_matches_xgboost_with_weights_and_odd_columns(kernel, params, classifier):
    X, y, logit = awkward_columns()
    sample_weight = np.random.default_rng(3).uniform(0.2, 3.0, len(X))
    target = y if classifier else logit
    est, booster = run_both(X, target, params, classifier, sample_weight=sample_weight)
    assert_same(est, booster, X)


def test_matches_xgboost_with_more_than_256_bins():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 300, size=(1500, 3)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.sin(np.nan_to_num(X[:, 0]) / 50) + rng.normal(0, 0.3, len(X))
    est, booster = run_both(X, y, dict(max_depth=5, max_bin=512), classifier=False)
    assert est.trace_._data.bins.dtype == np.uint16
    assert_same(est, booster, X)


def test_thresholds_are_data_values_compared_in_float32():
    """Hist thresholds are cut points (data values): 0.8 in float64 is below float32(0.8)."""
    X = np.array([[0.2], [0.5], [0.8], [0.8], [1.1], [1.4]] * 10)
    y = np.array([0, 0, 1, 1, 1, 1] * 10, dtype=float)
    est, booster = run_both(X, y, dict(max_depth=1, min_child_weight=0.0), classifier=False)
    assert_same(est, booster, X)
    assert est.trees_[0].threshold[0] == float(np.float32(0.8))
