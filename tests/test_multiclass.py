"""K ≥ 3 classes: softmax against XGBoost's multi:softprob and scikit-learn's multinomial GBDT."""

import json

import numpy as np
import pytest
import xgboost as xgb
from sklearn import ensemble

import teachgbt as tg
from tests.xgb_compare import compare_tree, xgb_params, xgb_trees

N_CLASSES = 4
N_ROUNDS = 6
MARGIN_ATOL = 1e-5


def make_data(seed, n=250, missing=0.15):
    """Features with ties (two decimals) and missing values; four unbalanced classes that
    depend on the features. n ≤ 256 keeps every feature within max_bin distinct values,
    so XGBoost hist and teachgbt hist cut at the same values."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 5)), 2)
    z = np.column_stack([X[:, 0], X[:, 1] - X[:, 2], 0.5 * X[:, 3] ** 2, np.zeros(n)])
    p = np.exp(2 * z) / np.exp(2 * z).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    X[rng.random(X.shape) < missing] = np.nan
    return X, y


def fit_both(X, y, w, tree_method, **params):
    p = dict(n_estimators=N_ROUNDS, tree_method=tree_method, **params)
    ours = tg.BoostingClassifier(**p).fit(X, y, sample_weight=w)
    native = xgb_params(p, "multi:softprob", tree_method)
    native["num_class"] = len(np.unique(y))
    booster = xgb.train(native, xgb.DMatrix(X, y, weight=w), num_boost_round=N_ROUNDS)
    return ours, booster


# pairs of parameters, varied together: (max_depth, reg_lambda), (gamma, min_child_weight),
# (learning_rate, weights), (reg_alpha, max_delta_step), (max_leaves, learning_rate)
PAIRS = [
    (dict(max_depth=2, reg_lambda=0.5), False),
    (dict(max_depth=5, reg_lambda=5.0), False),
    (dict(max_depth=4, gamma=0.4, min_child_weight=2.0), False),
    (dict(max_depth=3, gamma=2.0, min_child_weight=0.3), True),
    (dict(max_depth=3, learning_rate=0.1), True),
    (dict(max_depth=3, learning_rate=0.8), False),
    (dict(max_depth=3, max_delta_step=0.7, learning_rate=0.6), False),
    (dict(max_depth=3, reg_alpha=1.0), True),
    (dict(max_depth=4, max_leaves=6, learning_rate=0.5), True),  # hist only: lossguide
]


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
@pytest.mark.parametrize("params, weighted", PAIRS, ids=lambda v: str(v))
def test_matches_xgboost_softprob(tree_method, params, weighted):
    if params.get("max_leaves") and tree_method == "exact":
        pytest.skip("XGBoost's exact tree method grows depth-wise only (no max_leaves)")
    X, y = make_data(3)
    w = np.random.default_rng(7).uniform(0.2, 3.0, len(y)) if weighted else None
    ours, booster = fit_both(X, y, w, tree_method, **params)
    dm = xgb.DMatrix(X)
    margin = booster.predict(dm, output_margin=True)
    np.testing.assert_allclose(ours.decision_function(X), margin, rtol=0, atol=MARGIN_ATOL)
    np.testing.assert_allclose(ours.predict_proba(X), booster.predict(dm), rtol=0, atol=1e-5)
    theirs = xgb_trees(booster)
    assert len(ours.trees_) == len(theirs) == N_ROUNDS * N_CLASSES
    for i, (tree, other) in enumerate(zip(ours.trees_, theirs)):
        assert (tree.round, tree.class_) == (i // N_CLASSES + 1, i % N_CLASSES)
        assert compare_tree(tree, other, leaf_atol=1e-5, X=X) == [], f"tree {i}"


def test_default_base_score_is_xgboosts_centred_log_priors():
    X, y = make_data(5)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    for weights in (None, w):
        ours, booster = fit_both(X, y, weights, "exact", max_depth=2)
        config = json.loads(booster.save_config())
        theirs = json.loads(config["learner"]["learner_model_param"]["base_score"])
        np.testing.assert_allclose(ours.base_score_, theirs, rtol=0, atol=1e-6)
        assert ours.base_margin_ == pytest.approx(ours.base_score_)
        # they are margins: the centred log of the (weighted) class priors
        prior = np.bincount(y, weights=weights) / (len(y) if weights is None else w.sum())
        np.testing.assert_allclose(
            ours.base_score_, np.log(prior) - np.log(prior).mean(), rtol=0, atol=1e-4
        )
    given = tg.BoostingClassifier(n_estimators=2, max_depth=2, base_score=0.5).fit(X, y)
    booster = xgb.train(
        {"objective": "multi:softprob", "num_class": 4, "max_depth": 2, "base_score": 0.5},
        xgb.DMatrix(X, y),
        num_boost_round=2,
    )
    np.testing.assert_allclose(
        given.decision_function(X), booster.predict(xgb.DMatrix(X), output_margin=True), atol=1e-5
    )


def test_gradients_and_hessians_are_xgboosts():
    X, y = make_data(6, n=120)
    ours, booster = fit_both(X, y, None, "exact", max_depth=2)
    config = json.loads(booster.save_config())
    base = json.loads(config["learner"]["learner_model_param"]["base_score"])
    for t in (1, 3):
        if t == 1:  # XGBoost reads iteration_range=(0, 0) as every tree
            margin = np.tile(np.float32(base), (len(y), 1))
        else:
            margin = booster.predict(
                xgb.DMatrix(X), output_margin=True, iteration_range=(0, t - 1)
            ).astype(np.float32)
        p = np.exp(margin) / np.exp(margin).sum(axis=1, keepdims=True)
        for k in range(N_CLASSES):
            inst = ours.trace_.instances(t, class_=k)
            np.testing.assert_allclose(inst["margin"], margin[:, k], atol=1e-5)
            np.testing.assert_allclose(inst["g"], p[:, k] - (y == k), atol=1e-5)
            h = np.maximum(2 * p[:, k] * (1 - p[:, k]), 1e-16)
            np.testing.assert_allclose(inst["h"], h, atol=1e-5)
            nodes = ours.trace_.nodes(t, class_=k)
            assert nodes.loc[0, "G"] == pytest.approx(inst["g"].sum(), abs=1e-4)


def gbdt_pair(X, y, w, random_state, **params):
    sk = ensemble.GradientBoostingClassifier(random_state=random_state, **params)
    return sk.fit(X, y, sample_weight=w)


@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=2, learning_rate=0.5),
        dict(max_depth=4, learning_rate=0.1),
        dict(max_depth=None, max_leaf_nodes=5, learning_rate=1.0),
    ],
    ids=["depth2", "depth4", "leaves5"],
)
def test_gbdt_matches_sklearn_multinomial(params):
    rng = np.random.default_rng(11)
    n = 200
    X = rng.normal(size=(n, 4))
    labels = np.array(["setosa", "versicolor", "virginica", "other"])
    y = labels[(X[:, 0] + rng.normal(0, 1, n) > 0) + 2 * (X[:, 1] * X[:, 2] > 0)]
    w = rng.uniform(0.5, 2.0, n)  # continuous weights break the ties of round 1
    sk = gbdt_pair(X, y, w, 0, n_estimators=N_ROUNDS, **params)
    other = gbdt_pair(X, y, w, 1, n_estimators=N_ROUNDS, **params)
    np.testing.assert_allclose(other.decision_function(X), sk.decision_function(X), atol=1e-12)
    ours = tg.BoostingClassifier(
        algorithm="gbdt",
        n_estimators=N_ROUNDS,
        max_depth=params["max_depth"] or 0,
        max_leaves=params.get("max_leaf_nodes"),
        learning_rate=params["learning_rate"],
    ).fit(X, y, sample_weight=w)
    assert list(ours.classes_) == list(sk.classes_)
    for t, staged in enumerate(sk.staged_decision_function(X), start=1):
        np.testing.assert_allclose(
            ours.decision_function(X, iteration_range=(0, t)), staged, rtol=0, atol=1e-10
        )
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=0, atol=1e-10)
    assert np.array_equal(ours.predict(X), sk.predict(X))
    # each tree's leaves are scikit-learn's: (K−1)/K · Σ residual / Σ p(1−p)
    X32 = X.astype(np.float32)
    for tree in ours.trees_:
        sk_tree = sk.estimators_[tree.round - 1, tree.class_]
        sk_leaf = sk_tree.tree_.value[sk_tree.apply(X32)].ravel()
        np.testing.assert_allclose(tree.weight[tree.apply(X32)], sk_leaf, rtol=1e-9, atol=1e-9)
    # the start is scikit-learn's: the centred log of the weighted class priors
    prior = np.array([w[y == c].sum() for c in sk.classes_]) / w.sum()
    np.testing.assert_allclose(ours.base_margin_, np.log(prior) - np.log(prior).mean(), atol=1e-12)


def test_gbdt_unweighted_untied_data_matches_sklearn():
    rng = np.random.default_rng(2)
    n = 150
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] + rng.normal(0, 0.5, n) > 0.3) + (X[:, 2] > 1)
    p = dict(n_estimators=3, max_depth=2, learning_rate=0.5)
    sk = [gbdt_pair(X, y, None, rs, **p).decision_function(X) for rs in range(4)]
    for other in sk[1:]:  # no deciding ties: every feature order gives the same model
        np.testing.assert_allclose(other, sk[0], atol=1e-12)
    ours = tg.BoostingClassifier(algorithm="gbdt", **p).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), sk[0], rtol=0, atol=1e-10)
