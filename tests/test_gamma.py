"""γ, one convention: a tree's ``gain`` is seed 000's gain for the model's ``gamma``.

The estimators' ``gamma`` is XGBoost's: a split stays when its ``loss_chg`` (no ½)
is at least ``gamma``. Seed 000's γ is then ``gamma / 2``, and every split node
records gain = ½(loss_chg − gamma), whose sign is what ``gamma`` decided:

* pre-stopping (XGBoost ``hist``) never makes a split with gain < 0;
* post-pruning (XGBoost ``exact``) undoes, bottom-up, a split whose two children
  are leaves when its gain is < 0, so a negative gain survives only above a
  child that is itself a kept split.

The trees still match XGBoost, run in the same test.
"""

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core import formulas

xgb = pytest.importorskip("xgboost")
import xgb_compare  # noqa: E402
from xgb_compare import compare_tree, xgb_trees  # noqa: E402

N_ROUNDS = 4
# gain and loss_chg are both float64 columns; ½(loss_chg − gamma) is recomputed here
GAIN_RTOL = 1e-12
MARGIN_TOL = 1e-5
# 0 prunes nothing; the larger ones prune most splits of these data
GAMMAS = [0.0, 0.5, 2.0, 4.0]
SETTINGS = [("exact", "post"), ("exact", "pre"), ("hist", "pre")]
SETTING_IDS = [f"{method}-{pruning}" for method, pruning in SETTINGS]


def data(seed=3, n=300, d=5):
    """Few distinct values (ties; <= max_bin for hist) and 15 % missing."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, d)).astype(float) / 2
    logit = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 1) + rng.normal(0, 1, n)
    X[rng.random(X.shape) < 0.15] = np.nan
    return X, (logit > 0.6).astype(float), logit


def fit(tree_method, pruning, gamma, classifier):
    X, y, logit = data()
    target = y if classifier else logit
    Est = tg.BoostingClassifier if classifier else tg.BoostingRegressor
    est = Est(
        tree_method=tree_method, pruning=pruning, gamma=gamma, n_estimators=N_ROUNDS, max_depth=4
    ).fit(X, target)
    return est, X, target


def splits_of(tree):
    return np.flatnonzero(~tree.is_leaf)


@pytest.mark.parametrize("classifier", [True, False], ids=["clf", "reg"])
@pytest.mark.parametrize("gamma", GAMMAS)
@pytest.mark.parametrize("tree_method,pruning", SETTINGS, ids=SETTING_IDS)
def test_gain_sign_is_what_gamma_decided(tree_method, pruning, gamma, classifier):
    est, X, target = fit(tree_method, pruning, gamma, classifier)
    for tree in est.trees_:
        s = splits_of(tree)
        np.testing.assert_allclose(
            tree.gain[s], 0.5 * (tree.loss_chg[s] - gamma), rtol=GAIN_RTOL, atol=0
        )
        if pruning == "pre":
            assert np.all(tree.gain[s] >= 0)
        else:
            for i in s[tree.gain[s] < 0]:
                kids = [tree.left[i], tree.right[i]]
                assert not all(tree.is_leaf[k] for k in kids), f"node {i} should be pruned"

    # the trees are XGBoost's: exact post-prunes as XGBoost exact, hist pre-stops as XGBoost hist
    if (tree_method, pruning) in (("exact", "post"), ("hist", "pre")):
        params = dict(gamma=gamma, max_depth=4)
        objective = "binary:logistic" if classifier else "reg:squarederror"
        booster = xgb.train(
            xgb_compare.xgb_params(params, objective, tree_method),
            xgb.DMatrix(X, label=target, missing=np.nan),
            N_ROUNDS,
        )
        theirs = booster.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True)
        gap = np.max(np.abs(est.decision_function(X) - theirs) / np.maximum(1.0, np.abs(theirs)))
        assert gap < MARGIN_TOL
        for tree, dump in zip(est.trees_, xgb_trees(booster)):
            assert not compare_tree(tree, dump, X=X if tree_method == "exact" else None)


@pytest.mark.parametrize("tree_method,pruning", SETTINGS, ids=SETTING_IDS)
def test_candidate_tables_use_the_same_gain(tree_method, pruning):
    """splits(t, node): seed 000's gain with γ = gamma / 2, the chosen row the node's gain."""
    gamma = 2.0
    est, _, _ = fit(tree_method, pruning, gamma, classifier=True)
    params = est.params_
    for t, tree in enumerate(est.trees_, 1):
        for node in splits_of(tree)[:3]:
            table = est.trace_.splits(t, int(node))
            by_hand = formulas.split_gain(
                table["G_L"], table["H_L"], table["G_R"], table["H_R"], params.reg_lambda, gamma / 2
            )
            np.testing.assert_allclose(table["gain"], by_hand, rtol=1e-9, atol=1e-9)
            chosen = table.loc[table["chosen"], "gain"].iloc[0]
            assert chosen == pytest.approx(tree.gain[node], rel=1e-6, abs=1e-6)


def test_the_grid_prunes_and_keeps_negative_gains():
    """The grid above is not vacuous: large gamma removes splits, pre and post differ, and
    post-pruning keeps some split with gain < 0 above a kept split."""
    n_splits = {}
    negative_kept = 0
    for gamma in (0.0, GAMMAS[-1]):
        for pruning in ("pre", "post"):
            est, _, _ = fit("exact", pruning, gamma, classifier=True)
            n_splits[gamma, pruning] = sum(len(splits_of(t)) for t in est.trees_)
            if pruning == "post":
                negative_kept += sum(int(np.sum(t.gain[splits_of(t)] < 0)) for t in est.trees_)
    assert n_splits[GAMMAS[-1], "pre"] < n_splits[0.0, "pre"]
    assert n_splits[GAMMAS[-1], "post"] < n_splits[0.0, "post"]
    assert n_splits[GAMMAS[-1], "pre"] < n_splits[GAMMAS[-1], "post"]
    assert negative_kept > 0
