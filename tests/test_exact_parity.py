"""The exact trainer against XGBoost tree_method="exact", run in the same test.

Margins must agree to 1e-5 and every tree must have the same split features,
thresholds and default directions.
"""

import itertools

import numpy as np
import pytest

import teachgbt as tg

xgb = pytest.importorskip("xgboost")
datasets = pytest.importorskip("sklearn.datasets")
import xgb_compare  # noqa: E402
from xgb_compare import compare_tree, pair_cases, resolve_case, xgb_trees  # noqa: E402

N_ROUNDS = 8
# the pairwise grid: small data and few rounds, so that its many cases stay quick
PAIR_ROWS, PAIR_ROUNDS = 200, 4
# relative to the margin: both sides hold margins in float32
MARGIN_TOL = 1e-5


def xgb_params(params, objective):
    return xgb_compare.xgb_params(params, objective, "exact")


def run_both(X, y, params, classifier, sample_weight=None, n_rounds=N_ROUNDS):
    return xgb_compare.run_both(X, y, params, classifier, "exact", sample_weight, n_rounds)


def assert_same(est, booster, X):
    theirs = booster.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True)
    ours = est.decision_function(X)
    # both sides hold margins in float32: allow a few float32 steps of large margins
    gap = np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs)))
    assert gap < MARGIN_TOL, f"margins differ by {gap}"
    for t, (tree, dump) in enumerate(zip(est.trees_, xgb_trees(booster)), 1):
        diffs = compare_tree(tree, dump, X=X)
        assert not diffs, f"tree {t}: {diffs[:3]}"
    return gap


def ties_and_nan(seed=0, n=400, d=6):
    """Few distinct values (many ties) and 20 % missing."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, d)).astype(float) / 2
    logit = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 1) + rng.normal(0, 1, n)
    y = (logit > 0.6).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    return X, y, logit


def grid_id(params):
    return "-".join(f"{v}" for v in params.values())


# reg_lambda > 0 throughout: with lambda = 0, every split of a node whose instances share
# one g and h (common in classification) has gain exactly 0, and XGBoost breaks those
# ties by float32 rounding noise; see teachgbt.exact.ExactSplitter._really_lowers_loss.
GRID = [
    dict(
        max_depth=md,
        reg_lambda=lam,
        reg_alpha=alpha,
        gamma=gam,
        min_child_weight=mcw,
        learning_rate=lr,
        base_score=bs,
    )
    for (md, lam, alpha, gam, mcw, lr, bs) in [
        (3, 1.0, 0.0, 0.0, 1.0, 0.3, None),
        (6, 0.1, 0.0, 0.0, 0.0, 0.5, None),
        (4, 5.0, 0.5, 0.5, 2.0, 0.1, None),
        (2, 1.0, 0.0, 2.0, 1.0, 1.0, 0.5),
        (5, 0.3, 1.5, 0.0, 0.5, 0.3, None),
        (6, 2.0, 0.0, 5.0, 3.0, 0.2, None),
    ]
]


@pytest.mark.parametrize("params", GRID, ids=grid_id)
def test_breast_cancer_classifier(params):
    X, y = datasets.load_breast_cancer(return_X_y=True)
    est, booster = run_both(X, y, params, classifier=True)
    assert_same(est, booster, X)


@pytest.mark.parametrize("params", GRID, ids=grid_id)
def test_diabetes_regressor(params):
    X, y = datasets.load_diabetes(return_X_y=True)
    params = dict(params)
    if params["base_score"] is not None:
        params["base_score"] = 150.0
    est, booster = run_both(X, y, params, classifier=False)
    assert_same(est, booster, X)


@pytest.mark.parametrize("params", GRID, ids=grid_id)
def test_ties_and_missing_classifier(params):
    X, y, _ = ties_and_nan()
    est, booster = run_both(X, y, params, classifier=True)
    assert_same(est, booster, X)
    # missing values were routed by a learned direction, both ways somewhere
    dirs = np.concatenate([t.default_left[~t.is_leaf] for t in est.trees_])
    assert dirs.any() and not dirs.all()


@pytest.mark.parametrize("seed", [1, 2])
def test_ties_and_missing_regressor(seed):
    X, _, target = ties_and_nan(seed)
    for params in GRID[:3]:
        est, booster = run_both(X, target, params, classifier=False)
        assert_same(est, booster, X)


EXACT_PAIRS = [
    "max_depth",
    "reg_lambda",
    "reg_alpha",
    "gamma",
    "min_child_weight",
    "max_delta_step",
    "learning_rate",
    "sample_weight",
    "base_score",
]


@pytest.mark.parametrize("classifier", [True, False], ids=["clf", "reg"])
@pytest.mark.parametrize("case", pair_cases(EXACT_PAIRS))
def test_parameter_pairs_match_xgboost_exact(case, classifier):
    """Every pair of parameters, two values each, on ties and missing values."""
    X, y, logit = ties_and_nan(seed=21, n=PAIR_ROWS, d=5)
    params, sample_weight = resolve_case(case, classifier, len(X))
    target = y if classifier else logit
    est, booster = run_both(X, target, params, classifier, sample_weight, n_rounds=PAIR_ROUNDS)
    assert_same(est, booster, X)


def test_sample_weight_and_max_delta_step():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    sample_weight = np.random.default_rng(3).uniform(0.2, 3.0, len(y))
    for params in (dict(max_depth=4), dict(max_depth=3, max_delta_step=0.7, reg_lambda=0.0)):
        est, booster = run_both(X, y, params, classifier=True, sample_weight=sample_weight)
        assert_same(est, booster, X)


def test_base_score_estimated_like_xgboost():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    sample_weight = np.random.default_rng(4).uniform(0.5, 2.0, len(y))
    est = tg.BoostingClassifier(n_estimators=1).fit(X, y, sample_weight=sample_weight)
    booster = xgb.train(
        {"objective": "binary:logistic", "tree_method": "exact"},
        xgb.DMatrix(X, label=y, weight=sample_weight),
        1,
    )
    import json

    theirs = float(
        json.loads(booster.save_config())["learner"]["learner_model_param"]["base_score"].strip(
            "[]"
        )
    )
    assert est.base_score_ == pytest.approx(theirs, rel=1e-6)
    assert est.base_score_ == pytest.approx(np.average(y, weights=sample_weight))


def test_best_first_growth_matches_xgboost_lossguide():
    """max_leaves: best-first growth. On data with few distinct values XGBoost hist
    evaluates the same partitions as exact, so its lossguide trees give the same margins."""
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(600, 5)), 1)
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + X[:, 2] * X[:, 3] + rng.normal(0, 0.3, 600)
    for leaves in (3, 6, 11):
        est = tg.BoostingRegressor(n_estimators=6, max_depth=0, max_leaves=leaves).fit(X, y)
        booster = xgb.train(
            {
                "tree_method": "hist",
                "grow_policy": "lossguide",
                "max_leaves": leaves,
                "max_depth": 0,
                "max_bin": 256,
                "nthread": 1,
            },
            xgb.DMatrix(X, label=y),
            6,
        )
        theirs = booster.predict(xgb.DMatrix(X), output_margin=True)
        assert np.max(np.abs(est.decision_function(X) - theirs)) < 1e-5
        assert all(t.n_leaves <= leaves for t in est.trees_)
        assert max(t.n_leaves for t in est.trees_) == leaves


def test_worst_gap_over_grid():
    """One summary number for the closing note: the worst margin gap over a sweep."""
    X, y = datasets.load_breast_cancer(return_X_y=True)
    worst = 0.0
    for md, lam in itertools.product((2, 6), (0.3, 1.0)):
        est, booster = run_both(X, y, dict(max_depth=md, reg_lambda=lam), classifier=True)
        worst = max(worst, assert_same(est, booster, X))
    print(f"worst margin gap vs XGBoost exact: {worst:.3g}")
    assert worst < 1e-5
