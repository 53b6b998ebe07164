"""Friedman GBDT (algorithm="gbdt"): the engine, its parameters, and parity with scikit-learn.

Parity tests fit scikit-learn's GradientBoostingClassifier / Regressor in the
same test. scikit-learn visits features in a random order, so a tie between
two equally good splits is settled by its random_state; each parity case first
checks that two random states agree (the data has no deciding ties) and then
that teachgbt agrees with them.
"""

import numpy as np
import pandas as pd
import pytest

from teachgbt.core.losses import Logistic, SquaredError
from teachgbt.engine.gbdt import ZERO_DENOMINATOR, GBDTAlgorithm, initial_prediction
from teachgbt.engine.grow import GrowParams
from teachgbt.estimators import BoostingClassifier, BoostingRegressor

ensemble = pytest.importorskip("sklearn.ensemble")

N_ROUNDS = 10


def make_data(seed, classifier, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    z = X[:, 0] - 0.7 * X[:, 1] * X[:, 2] + 0.5 * np.sin(2 * X[:, 3])
    if classifier:
        y = (rng.random(n) < 1 / (1 + np.exp(-2 * z))).astype(int)
    else:
        y = 3 * z + rng.normal(size=n)
    # scikit-learn treats values closer than 1e-7 as equal; keep every gap well above that
    X32 = np.sort(X.astype(np.float32), axis=0)
    assert np.diff(X32, axis=0).min() > 1e-6
    return X, y


def sklearn_stages(classifier, X, y, w, random_state, max_depth, max_leaves, lr):
    cls = ensemble.GradientBoostingClassifier if classifier else ensemble.GradientBoostingRegressor
    model = cls(
        n_estimators=N_ROUNDS,
        learning_rate=lr,
        max_depth=None if max_depth == 0 else max_depth,
        max_leaf_nodes=max_leaves,
        random_state=random_state,
    ).fit(X, y, sample_weight=w)
    stages = model.staged_decision_function(X) if classifier else model.staged_predict(X)
    return model, np.array([np.ravel(s) for s in stages])


def assert_no_deciding_ties(model, X):
    """At every split, no other candidate with the same improvement cuts the rows differently."""
    X32 = X.astype(np.float32)
    for t in range(1, model.trace_.n_rounds + 1):
        tree = model.trees_[t - 1]
        for node in np.flatnonzero(~tree.is_leaf):
            rows = tree.node_mask(X, int(node))
            splits = model.trace_.splits(t, int(node))
            best = splits["gain"].max()
            near = splits[splits["gain"] >= best - 1e-9 * max(1.0, abs(best))]
            cuts = set()
            for _, c in near.iterrows():
                left = X32[rows, int(str(c["feature"])[1:])] < np.float32(c["threshold"])
                cuts.add(frozenset([left.tobytes(), (~left).tobytes()]))
            assert len(cuts) == 1, f"round {t}, node {node}: tied candidates {near}"


def check_parity(classifier, X, y, w, max_depth, max_leaves, lr):
    sk, raw = sklearn_stages(classifier, X, y, w, 0, max_depth, max_leaves, lr)
    _, raw_other = sklearn_stages(classifier, X, y, w, 1, max_depth, max_leaves, lr)
    # the data has no deciding ties: scikit-learn's random feature order does not matter
    np.testing.assert_allclose(raw_other, raw, rtol=0, atol=1e-12)

    est = BoostingClassifier if classifier else BoostingRegressor
    ours = est(
        algorithm="gbdt",
        n_estimators=N_ROUNDS,
        learning_rate=lr,
        max_depth=max_depth,
        max_leaves=max_leaves,
    ).fit(X, y, sample_weight=w)
    ep = ours.trace_.epochs()
    X32 = X.astype(np.float32)
    for k in range(1, N_ROUNDS + 1):
        np.testing.assert_allclose(ep[f"ep_{k}_pre"], raw[k - 1], rtol=0, atol=1e-6)
        sk_tree = sk.estimators_[k - 1, 0].tree_
        sk_leaf_value = sk_tree.value[sk.estimators_[k - 1, 0].apply(X32)].ravel()
        np.testing.assert_allclose(ep[f"ep_{k}_leaf_output"], sk_leaf_value, rtol=1e-9, atol=1e-9)
        if max_depth != 0:
            # unbounded, scikit-learn sometimes splits a node whose residuals are all equal:
            # its variance Σr²/n − mean² rounds above 2.2e-16 there. No prediction changes.
            assert ours.trees_[k - 1].n_leaves == sk_tree.n_leaves
    np.testing.assert_allclose(ours.decision_function(X), raw[-1], rtol=0, atol=1e-6)
    return ours, sk


def test_unweighted_classifier_data_is_untied():
    # a tie inside one feature is settled the same way by every random_state of scikit-learn
    # (it scans upwards, teachgbt downwards), so check the data directly
    X, y = make_data(4, classifier=True)
    for max_depth, max_leaves in [(2, None), (None, 4)]:
        for lr in (0.1, 1.0):
            model = BoostingClassifier(
                algorithm="gbdt",
                n_estimators=N_ROUNDS,
                learning_rate=lr,
                max_depth=max_depth,
                max_leaves=max_leaves,
            ).fit(X, y)
            assert_no_deciding_ties(model, X)


SHAPES_REGRESSION = [(1, None), (2, None), (3, None), (0, None), (None, 4), (None, 8)]


@pytest.mark.parametrize("lr", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("max_depth,max_leaves", SHAPES_REGRESSION)
def test_regressor_matches_sklearn(max_depth, max_leaves, lr):
    X, y = make_data(0, classifier=False)
    check_parity(False, X, y, None, max_depth, max_leaves, lr)


@pytest.mark.parametrize("lr", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("max_depth,max_leaves", [(1, None), (2, None), (None, 3), (None, 4)])
def test_classifier_matches_sklearn(max_depth, max_leaves, lr):
    X, y = make_data(4, classifier=True)
    check_parity(True, X, y, None, max_depth, max_leaves, lr)


@pytest.mark.parametrize("lr", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("max_depth,max_leaves", [(3, None), (0, None), (None, 8)])
def test_weighted_classifier_matches_sklearn(max_depth, max_leaves, lr):
    # In round 1 every residual is 1 − p0 or −p0, so small nodes are full of exact ties;
    # continuous sample weights break them, which lets deep trees be compared too.
    X, y = make_data(2, classifier=True)
    w = np.random.default_rng(7).uniform(0.5, 2.0, len(y))
    check_parity(True, X, y, w, max_depth, max_leaves, lr)


def test_weighted_regressor_matches_sklearn():
    X, y = make_data(3, classifier=False)
    w = np.random.default_rng(8).uniform(0.5, 2.0, len(y))
    check_parity(False, X, y, w, 3, None, 0.3)


def test_node_impurity_and_counts_match_sklearn():
    X, y = make_data(4, classifier=True)
    ours, sk = check_parity(True, X, y, None, 2, None, 0.5)
    for k in (1, 5):
        nodes = ours.trace_.nodes(k)
        sk_tree = sk.estimators_[k - 1, 0].tree_
        # node ids differ (level order here, depth first there); compare the multisets
        ours_pairs = sorted(zip(nodes["n"], np.round(nodes["impurity"], 12), strict=True))
        sk_pairs = sorted(zip(sk_tree.n_node_samples, np.round(sk_tree.impurity, 12), strict=True))
        assert ours_pairs == sk_pairs


# ------------------------------------------------------------------ the engine
def test_f0_is_the_log_odds_or_the_mean():
    X, y = make_data(1, classifier=True, n=40)
    clf = BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=2).fit(X, y)
    assert initial_prediction(y) == pytest.approx(np.log(y.sum() / (len(y) - y.sum())))
    assert clf.base_margin_ == pytest.approx(initial_prediction(y))
    w = np.linspace(0.5, 2.0, len(y))
    weighted = BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=2)
    weighted.fit(X, y, sample_weight=w)
    expected = np.log((w * y).sum() / (w * (1 - y)).sum())
    assert (
        weighted.base_margin_ == pytest.approx(initial_prediction(y, w)) == pytest.approx(expected)
    )
    Xr, yr = make_data(1, classifier=False, n=40)
    reg = BoostingRegressor(algorithm="gbdt", n_estimators=1, max_depth=2).fit(Xr, yr)
    assert reg.base_margin_ == pytest.approx(initial_prediction(yr, classifier=False))
    assert reg.base_margin_ == pytest.approx(yr.mean())


def test_gbdt_defaults_are_unregularized():
    X, y = make_data(1, classifier=True, n=40)
    clf = BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=2).fit(X, y)
    p = clf.params_
    assert (p.reg_lambda, p.min_child_weight, p.learning_rate, p.float32) == (0.0, 0.0, 0.1, False)
    xgb = BoostingClassifier(n_estimators=1, max_depth=2).fit(X, y)
    assert (xgb.params_.reg_lambda, xgb.params_.min_child_weight) == (1.0, 1.0)


def test_round_stats_are_residuals_with_unit_hessians():
    y = np.array([1.0, 0.0, 1.0, 0.0])
    margin = np.array([0.3, -1.2, 2.0, 0.0])
    w = np.array([1.0, 2.0, 0.5, 1.0])
    algo = GBDTAlgorithm(Logistic(), GrowParams(), is_classifier=True)
    s = algo.round_stats(y, margin, w)
    p = 1 / (1 + np.exp(-margin))
    np.testing.assert_allclose(s["g"], -(y - p) * w)
    np.testing.assert_allclose(s["h"], w)
    np.testing.assert_allclose(s["h_leaf"], p * (1 - p) * w)
    np.testing.assert_allclose(s["h_cover"], p * (1 - p) * w)
    reg = GBDTAlgorithm(SquaredError(), GrowParams(), is_classifier=False)
    s = reg.round_stats(np.array([3.0, 1.0]), np.array([2.0, 2.0]), None)
    np.testing.assert_allclose(s["g"], [-1.0, 1.0])
    np.testing.assert_allclose(s["h_leaf"], [1.0, 1.0])


def test_scan_params_rank_by_plain_squared_error():
    algo = GBDTAlgorithm(Logistic(), GrowParams(reg_lambda=2.0, reg_alpha=1.0), True)
    sp = algo.scan_params()
    assert (sp.reg_lambda, sp.reg_alpha, sp.max_delta_step, sp.float32) == (0, 0, 0, False)
    assert algo.params.reg_lambda == 2.0  # the leaves keep λ


def test_every_candidate_gain_is_the_squared_error_improvement():
    X, y = make_data(4, classifier=True, n=30)
    clf = BoostingClassifier(algorithm="gbdt", n_estimators=2, max_depth=2, learning_rate=0.5)
    clf.fit(X, y)
    for t in (1, 2):
        residual = clf.trace_.epochs()[f"ep_{t}_residual"].to_numpy()
        nodes = clf.trace_.nodes(t)
        for node in nodes.loc[~nodes["is_leaf"], "node"]:
            rows = clf.trees_[t - 1].node_mask(X, int(node))
            r = residual[rows]
            splits = clf.trace_.splits(t, int(node))
            for _, c in splits.iterrows():
                j = int(str(c["feature"])[1:])
                left = X[rows, j].astype(np.float32) < np.float32(c["threshold"])

                def sse(v):
                    return float(((v - v.mean()) ** 2).sum()) if len(v) else 0.0

                improvement = sse(r) - sse(r[left]) - sse(r[~left])
                assert 2 * c["gain"] == pytest.approx(improvement, abs=1e-12)
            chosen = splits[splits["chosen"]]
            assert len(chosen) == 1
            assert 2 * chosen["gain"].iloc[0] == pytest.approx(
                nodes.loc[nodes["node"] == node, "loss_chg"].iloc[0], abs=1e-12
            )


def test_nodes_show_residual_sum_and_newton_denominator():
    X, y = make_data(4, classifier=True, n=30)
    clf = BoostingClassifier(algorithm="gbdt", n_estimators=2, max_depth=2, learning_rate=0.5)
    clf.fit(X, y)
    ep = clf.trace_.epochs()
    nodes = clf.trace_.nodes(2)
    contract = ["node", "depth", "parent", "is_leaf", "feature", "threshold", "default_left",
                "n", "G", "H", "weight", "value", "gain", "loss_chg"]  # fmt: skip
    assert list(nodes.columns[: len(contract)]) == contract
    assert {"residual_sum", "p(1-p)_sum", "impurity"} <= set(nodes.columns)
    r = ep["ep_2_residual"].to_numpy()
    p = ep["ep_1_prob"].to_numpy()
    for _, nd in nodes.iterrows():
        rows = clf.trees_[1].node_mask(X, int(nd["node"]))
        assert nd["n"] == rows.sum()
        assert nd["residual_sum"] == pytest.approx(r[rows].sum(), abs=1e-12)
        assert nd["G"] == pytest.approx(-r[rows].sum(), abs=1e-12)
        assert nd["H"] == pytest.approx((p * (1 - p))[rows].sum(), abs=1e-12)
        assert nd["weight"] == pytest.approx(r[rows].sum() / (p * (1 - p))[rows].sum())


def test_regressor_leaf_is_the_mean_residual():
    X, y = make_data(5, classifier=False, n=25)
    reg = BoostingRegressor(algorithm="gbdt", n_estimators=2, max_depth=2, learning_rate=0.5)
    reg.fit(X, y)
    assert reg.base_margin_ == pytest.approx(np.mean(y))
    ep = reg.trace_.epochs()
    for k in (1, 2):
        r = ep[f"ep_{k}_residual"].to_numpy()
        for leaf, out in ep.groupby(f"ep_{k}_leaf_index")[f"ep_{k}_leaf_output"].first().items():
            assert out == pytest.approx(r[ep[f"ep_{k}_leaf_index"] == leaf].mean())


# ------------------------------------------------------------- parameters keep their meaning
def small_clf_data():
    # seed 004's Troll 2 numbers: age, likes popcorn, favourite colour is red
    X = np.array([[12, 1, 0], [87, 1, 0], [44, 0, 0], [19, 1, 1], [32, 0, 0], [14, 0, 0]], float)
    y = np.array([1, 1, 0, 0, 1, 1])
    return X, y


def test_reg_lambda_is_added_to_the_leaf_denominator():
    X, y = small_clf_data()
    clf = BoostingClassifier(
        algorithm="gbdt", n_estimators=2, max_depth=2, learning_rate=0.8, reg_lambda=1.5
    ).fit(X, y)
    ep = clf.trace_.epochs()
    for k in (1, 2):
        r = ep[f"ep_{k}_residual"].to_numpy()
        p = ep[f"ep_{k - 1}_prob"].to_numpy()
        for leaf in np.unique(ep[f"ep_{k}_leaf_index"]):
            rows = ep[f"ep_{k}_leaf_index"].to_numpy() == leaf
            expected = r[rows].sum() / ((p * (1 - p))[rows].sum() + 1.5)
            assert ep.loc[rows, f"ep_{k}_leaf_output"].iloc[0] == pytest.approx(expected)


def test_min_child_weight_applies_to_sum_of_p_times_1_minus_p():
    X, y = small_clf_data()
    free = BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=1, learning_rate=0.8)
    free.fit(X, y)
    # unconstrained, the root isolates one row: Σp(1−p) = (2/3)(1/3) = 0.222 in that child
    assert sorted(free.trace_.nodes(1)["n"].tolist()) == [1, 5, 6]
    clf = BoostingClassifier(
        algorithm="gbdt", n_estimators=1, max_depth=1, learning_rate=0.8, min_child_weight=0.3
    ).fit(X, y)
    nodes = clf.trace_.nodes(1)
    assert (nodes["H"] >= 0.3).all()
    assert 1 not in nodes["n"].tolist()


def test_gamma_prunes_splits_by_squared_error_improvement():
    X, y = small_clf_data()
    base = BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=2, learning_rate=0.8)
    lc = base.fit(X, y).trace_.nodes(1)["loss_chg"].dropna().sort_values().to_numpy()
    assert len(lc) == 2
    gamma = (lc[0] + lc[1]) / 2  # above the lower split's improvement, below the root's
    clf = BoostingClassifier(
        algorithm="gbdt", n_estimators=1, max_depth=2, learning_rate=0.8, gamma=gamma
    ).fit(X, y)
    nodes = clf.trace_.nodes(1)
    assert nodes["is_leaf"].sum() == 2
    assert nodes.loc[0, "loss_chg"] == pytest.approx(lc[1])


def test_zero_denominator_gives_a_zero_leaf_as_sklearn():
    # p = σ(−400) ≈ 2e−174: Σp(1−p) is below scikit-learn's 1e−150 guard, so the leaf outputs 0
    algo = GBDTAlgorithm(Logistic(), GrowParams(reg_lambda=0.0, min_child_weight=0.0), True)
    stats = algo.round_stats(np.array([1.0, 1.0]), np.array([-400.0, -400.0]), None)

    class Rows:
        def node_rows(self, nd):
            return nd

    G, H, extra, may_split = algo.leaf_stats(Rows(), stats)(np.array([0, 1]))
    assert 0 < H < ZERO_DENOMINATOR
    assert extra["residual_sum"] == pytest.approx(2.0)
    assert algo.params.leaf_weight(G, H) == 0.0


def test_pure_node_stays_a_leaf_as_sklearn():
    # round 1 residuals are 1 − p0 or −p0: a node of positives only has nothing to fit
    X, y = small_clf_data()
    clf = BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=0, learning_rate=0.8)
    clf.fit(X, y)
    sk = ensemble.GradientBoostingClassifier(
        n_estimators=1, max_depth=None, learning_rate=0.8, random_state=0
    ).fit(X, y)
    nodes = clf.trace_.nodes(1)
    assert (nodes.loc[nodes["is_leaf"], "impurity"] < 1e-15).all()
    assert clf.trees_[0].n_leaves == sk.estimators_[0, 0].tree_.n_leaves
    np.testing.assert_allclose(clf.decision_function(X), sk.decision_function(X), atol=1e-12)


# ------------------------------------------------------------------ the documented tie rule
def test_tie_rule_lower_feature_index_wins():
    # f0 isolates row 0, f1 isolates row 3; both have y = 1: the same improvement
    X = pd.DataFrame({"a": [0.0, 1, 1, 1], "b": [1.0, 1, 1, 0]})
    y = np.array([1.0, 0.0, 0.0, 1.0])
    reg = BoostingRegressor(algorithm="gbdt", n_estimators=1, max_depth=1, learning_rate=1.0)
    splits = reg.fit(X, y).trace_.splits(1, 0)
    assert splits["gain"].iloc[0] == splits["gain"].iloc[1]
    assert reg.trace_.nodes(1).loc[0, "feature"] == "a"
    swapped = BoostingRegressor(algorithm="gbdt", n_estimators=1, max_depth=1, learning_rate=1.0)
    assert swapped.fit(X[["b", "a"]], y).trace_.nodes(1).loc[0, "feature"] == "b"


def test_tie_rule_within_a_feature_larger_threshold_wins():
    # x < 0.5 and x < 2.5 both cut one y = 1 off from {0, 0, 1}: exactly tied
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, 0.0, 0.0, 1.0])
    reg = BoostingRegressor(algorithm="gbdt", n_estimators=1, max_depth=1, learning_rate=1.0)
    reg.fit(X, y)
    assert reg.trees_[0].threshold[0] == 2.5
    # scikit-learn scans upwards and keeps the first: the same improvement, the other side
    sk = ensemble.GradientBoostingRegressor(n_estimators=1, max_depth=1, learning_rate=1.0)
    sk.fit(X, y)
    assert sk.estimators_[0, 0].tree_.threshold[0] == 0.5


# ------------------------------------------------------------------ bad input
def test_unbounded_trees_must_be_asked_for():
    X, y = small_clf_data()
    with pytest.raises(ValueError, match="neither max_depth nor max_leaves bounds the trees"):
        BoostingClassifier(algorithm="gbdt", max_depth=None).fit(X, y)
    with pytest.raises(ValueError, match="neither max_depth nor max_leaves bounds the trees"):
        BoostingRegressor(algorithm="gbdt", max_depth=None).fit(X, y.astype(float))
    BoostingClassifier(algorithm="gbdt", max_depth=None, max_leaves=3, n_estimators=1).fit(X, y)
    BoostingClassifier(algorithm="gbdt", max_depth=0, n_estimators=1).fit(X, y)


def test_regression_target_for_the_classifier_is_refused():
    X, y = small_clf_data()
    target = np.array([1.5, 2.0, 0.3, 4.1, 2.2, 0.9])
    with pytest.raises(ValueError, match=r"continuous values \(e\.g\. 1\.5\).*regression target"):
        BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=2).fit(X, target)
    with pytest.raises(ValueError, match="at least two classes in y, got 1 class"):
        BoostingClassifier(algorithm="gbdt", n_estimators=1, max_depth=2).fit(X, [2] * 6)
