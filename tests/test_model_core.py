"""The fitted-model core (teachgbt.core.model.Model) and the engine's train(params, X, y) -> Model:
iteration_range as XGBoost reads it, trees by round and class, one meaning of round and
class_ across explain, the trace and the plots."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core.model import Model
from teachgbt.engine.training import TrainParams, train

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 4))
    X[::13, 2] = np.nan
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    y3 = np.digitize(X[:, 1] - X[:, 3], [-0.6, 0.6])
    return X, y, y3


def _hand_margins(model, X, rounds, class_=None):
    """Base margin + every tree of ``rounds`` (0-based), added one by one in float64."""
    K = model.loss_.n_outputs
    k = 0 if class_ is None else class_
    m = np.full(len(X), float(np.ravel(model.base_margin_)[k]))
    for r in rounds:
        m += model.trees_[r * K + k].predict(X.astype(np.float32))
    return m


def _leaf_sums(model, X32):
    """Every class's margin summed here, tree by tree in float32 from each leaf's value:
    base margin, then class k's trees (XGBoost's order: every K-th from the k-th)."""
    K = model.loss_.n_outputs
    base = np.ravel(model.base_margin_).astype(np.float32)
    out = np.empty((len(X32), K))
    for k in range(K):
        m = np.full(len(X32), base[k], dtype=np.float32)
        for tree in model.trees_[k::K]:
            m = m + tree.value[tree.apply(X32)].astype(np.float32)
        out[:, k] = m
    return out if K > 1 else out[:, 0]


def test_iteration_range_is_xgboost_s(data):
    X, y, _ = data
    clf = tg.BoostingClassifier(n_estimators=6, max_depth=2).fit(X, y)
    cases = {None: range(6), (0, 0): range(6), (0, 2): range(2), (2, 5): range(2, 5),
             (4, 0): range(4, 6), (3, 3): range(0)}  # fmt: skip
    for given, rounds in cases.items():
        got = clf.decision_function(X, iteration_range=given)
        np.testing.assert_allclose(got, _hand_margins(clf, X, rounds), rtol=1e-6, atol=1e-6)
    for bad in [(0, 7), (3, 2), (-1, 2), (0.5, 2), "all"]:
        with pytest.raises(ValueError, match="iteration_range"):
            clf.decision_function(X, iteration_range=bad)


def test_iteration_range_matches_xgboost_itself(data):
    xgb = pytest.importorskip("xgboost")
    X, y, y3 = data
    for labels in (y, y3):
        est = xgb.XGBClassifier(n_estimators=6, max_depth=2, n_jobs=1).fit(X, labels)
        model = tg.from_xgboost(est)
        booster = est.get_booster()
        for rng in [(0, 0), (0, 3), (2, 5), (5, 6)]:
            want = booster.predict(xgb.DMatrix(X), output_margin=True, iteration_range=rng)
            got = model.decision_function(X, iteration_range=rng)
            np.testing.assert_allclose(got, want.reshape(got.shape), rtol=1e-5, atol=1e-5)


def test_default_range_stops_at_the_best_iteration(data):
    X, y, _ = data
    clf = tg.BoostingClassifier(n_estimators=60, max_depth=3, learning_rate=0.8,
                                early_stopping_rounds=2)  # fmt: skip
    clf.fit(X[:100], y[:100], eval_set=[(X[100:], y[100:])])
    best = clf.best_iteration_
    assert best is not None and clf.model_.n_rounds > best + 1  # it stopped after the best
    np.testing.assert_array_equal(
        clf.decision_function(X), clf.decision_function(X, iteration_range=(0, best + 1))
    )
    # (0, 0) as XGBoost's estimators read it: up to the best round, like no range at all
    np.testing.assert_array_equal(
        clf.decision_function(X), clf.decision_function(X, iteration_range=(0, 0))
    )
    every = clf.decision_function(X, iteration_range=(0, clf.model_.n_rounds))
    rounds = range(clf.model_.n_rounds)
    np.testing.assert_allclose(every, _hand_margins(clf, X, rounds), rtol=1e-6, atol=1e-6)


def test_trees_by_round_and_class(data):
    X, _, y3 = data
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y3)
    model = clf.model_
    assert isinstance(model, Model) and model.n_rounds == 3 and model.n_outputs == 3
    for t in (1, 2, 3):
        for k in range(3):
            tree = model.tree(t, class_=k)
            assert tree is clf.trees_[(t - 1) * 3 + k]
            assert (tree.round, tree.class_) == (t, k)
    with pytest.raises(ValueError, match="pass class_="):
        model.tree(1)
    with pytest.raises(ValueError, match="round t must be a whole number from 1 to 3"):
        model.tree(4, class_=0)
    with pytest.raises(ValueError, match="class_ must be one of"):
        model.tree(1, class_=3)
    assert model.is_classifier and list(model.classes) == [0, 1, 2]
    assert model.feature_name(2) == "f2" and model.origin == "fitted here"
    # the margins against a sum made here from the trees' leaf values, in XGBoost's
    # precision (float32) and order: bit for bit
    X32 = X.astype(np.float32)
    leaf_sums = _leaf_sums(clf, X32)
    np.testing.assert_array_equal(model.margins(X32), leaf_sums)
    np.testing.assert_array_equal(clf.decision_function(X), leaf_sums)
    e = np.exp(leaf_sums - leaf_sums.max(axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict(X32), e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    for k in range(3):
        want = _hand_margins(clf, X, range(3), class_=k)
        np.testing.assert_allclose(clf.decision_function(X)[:, k], want, rtol=1e-6, atol=1e-6)
    start = model.margins_after(X.astype(np.float32), 0)  # round 0: the base margins
    np.testing.assert_array_equal(start, np.tile(clf.base_margin_, (len(X), 1)))


def test_train_takes_plain_parameters_and_returns_the_model(data):
    X, y, _ = data
    X32 = X.astype(np.float32)
    kw = dict(n_estimators=4, max_depth=3, reg_lambda=2.0)
    model = train(kw, X32, y.astype(float), classes=np.array([0, 1]))
    clf = tg.BoostingClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(model.margins(X32), clf.decision_function(X))
    assert model.params == clf.params_ and model.trace.n_rounds == 4
    reg = train(TrainParams(n_estimators=2), X32, X[:, 0].copy(), keep_trace=False)
    assert not reg.is_classifier and reg.trace is None and reg.classes is None
    with pytest.raises(ValueError, match="unknown training parameters \\['eta'\\]"):
        train({"eta": 0.1}, X32, y.astype(float))
    with pytest.raises(ValueError, match="max_depth must be a whole number"):
        train({"max_depth": -2}, X32, y.astype(float))


def test_estimators_are_adapters_over_the_model(data):
    X, y, _ = data
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    m = clf.model_
    assert clf.trees_ is m.trees and clf.trace_ is m.trace and clf.loss_ is m.loss
    assert clf.base_score_ == m.base_score and clf.params_ is m.params
    assert clf.n_features_in_ == 4 and not hasattr(clf, "feature_names_in_")
    made = tg.BoostingClassifier.from_trees(clf.trees_, origin="made in a test")
    assert made.model_.origin == "made in a test"
    with pytest.raises(AttributeError, match="made in a test, not fitted here"):
        _ = made.trace_


# ------------------------------------------------------------ one meaning of round and class_
def test_round_and_class_mean_the_same_in_explain_trace_and_plots(data):
    X, _, y3 = data
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y3)
    t, k = 2, 0
    tree = clf.model_.tree(t, class_=k)  # round 2, class 0: the 4th tree
    assert tree is clf.trees_[3]
    node = 0
    nodes = clf.trace_.nodes(t, class_=k)
    leaf_node = int(np.flatnonzero(tree.is_leaf)[0])
    leaf = tg.explain.leaf(clf, t, leaf_node, class_=k)
    assert leaf.values["weight"] == pytest.approx(nodes["weight"][leaf_node])
    assert str(leaf).startswith(f"Tree 4 (round {t}, class {k}), leaf {leaf_node}")
    split = tg.explain.split(clf, t, node, class_=k)
    chosen = clf.trace_.splits(t, node, class_=k).query("chosen").iloc[0]
    assert split.values["G_L"] == pytest.approx(chosen["G_L"])
    assert split.value == pytest.approx(nodes["gain"][node], rel=1e-5)
    feature = tree.feature_name(int(tree.feature[node]))
    ax = tg.plot.split_scan(clf, t, node, feature, class_=k)
    assert ax.get_title().startswith(f"The tree of round {t}, class {k}, node {node}")
    star = [ln for ln in ax.get_lines() if ln.get_label().startswith("chosen")][0]
    assert star.get_ydata()[0] == pytest.approx(chosen["gain"])
    for call in (
        lambda: tg.explain.leaf(clf, t, leaf_node),
        lambda: tg.explain.split(clf, t, node),
        lambda: tg.plot.split_scan(clf, t, node, feature),
        lambda: clf.trace_.nodes(t),
    ):
        with pytest.raises(ValueError, match="3 classes.*pass class_="):
            call()
    values = tg.plot.importance_values(clf, "weight", class_=k)
    own = [clf.model_.tree(r, class_=k) for r in (1, 2, 3)]
    assert values.sum() == sum(int((~tr.is_leaf).sum()) for tr in own)
    bars = tg.plot.structure_score(clf, class_=k)
    assert len(bars.patches) == 2 * 3  # a single leaf and the tree grown, per round
    import matplotlib.pyplot as plt

    plt.close("all")


def test_binary_rounds_are_trees(data):
    X, y, _ = data
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y)
    for t in (1, 2, 3):
        assert clf.model_.tree(t) is clf.trees_[t - 1]
        assert str(tg.explain.leaf(clf, t, 0)).startswith(f"Tree {t}, node 0")
    with pytest.raises(ValueError, match="class_ is for classifiers of three or more"):
        tg.explain.leaf(clf, 1, 0, class_=0)
