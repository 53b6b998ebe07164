"""Multiclass models of XGBoost, LightGBM and scikit-learn imported, against the library.

For each library: the (n, K) margins equal to 1e-5 (relative for large margins), the
probabilities and the predicted labels, with missing values wherever the library takes
them; each tree's class and round; H equal to the library's cover / weight where it
stores one; the start margins equal to the library's own. Parameters vary in pairs.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import teachgbt as tg

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")
ensemble = pytest.importorskip("sklearn.ensemble")

TOL = 1e-5
N_ROWS, N_FEATURES, MISSING = 300, 5, 0.1
LABELS = np.array(["ant", "bee", "cat", "dog"])


def _data(missing=True, K=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N_ROWS, N_FEATURES))
    X[:, 3] = np.round(X[:, 3], 1)  # ties
    score = X[:, 0] + 0.8 * X[:, 1] * X[:, 2] + 0.4 * rng.normal(size=N_ROWS)
    y = np.digitize(score, np.quantile(score, [0.45, 0.8, 0.93][: K - 1]))  # unequal classes
    if missing:
        X[rng.random(X.shape) < MISSING] = np.nan
    return X, y


def _close(ours, theirs, tol=TOL):
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    gap = np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs))
    assert gap.max() <= tol, f"differ by up to {gap.max():.3g}"


def _same_model(model, X, margin, proba, labels):
    _close(model.decision_function(X), margin)
    _close(model.predict_proba(X), proba)
    np.testing.assert_array_equal(model.predict(X), labels)


def _rounds_and_classes(model, K):
    assert [t.class_ for t in model.trees_] == [i % K for i in range(len(model.trees_))]
    assert [t.round for t in model.trees_] == [i // K + 1 for i in range(len(model.trees_))]


def _sorted(v):
    return np.sort(np.asarray(v, dtype=float))


# ---------------------------------------------------------------------------- XGBoost
@pytest.mark.parametrize(
    "objective, tree_method, pair",
    [
        ("multi:softprob", "hist", dict(reg_lambda=0.5, gamma=0.3)),
        ("multi:softmax", "exact", dict(learning_rate=0.1, min_child_weight=2)),
        ("multi:softprob", "approx", dict(max_depth=4, reg_lambda=3.0)),
    ],
)
def test_xgboost_multiclass(objective, tree_method, pair):
    X, y = _data()
    params = dict(n_estimators=6, max_depth=3, objective=objective, tree_method=tree_method)
    est = xgb.XGBClassifier(**params | pair, n_jobs=1).fit(X, y)
    booster = est.get_booster()
    model = tg.from_xgboost(est)
    margin = booster.predict(xgb.DMatrix(X), output_margin=True)
    softprob = booster.predict(xgb.DMatrix(X), output_margin=False, strict_shape=True)
    proba = est.predict_proba(X) if objective == "multi:softprob" else None
    if proba is None:  # multi:softmax: the Booster predicts labels; the softmax of the margins
        e = np.exp(margin - margin.max(axis=1, keepdims=True))
        proba = e / e.sum(axis=1, keepdims=True)
        np.testing.assert_array_equal(np.ravel(softprob), est.predict(X))
    _same_model(model, X, margin, proba, est.predict(X))
    K = 4
    _rounds_and_classes(model, K)
    learner = json.loads(bytes(booster.save_raw("json")))["learner"]
    assert [t.class_ for t in model.trees_] == learner["gradient_booster"]["model"]["tree_info"]
    # the start margins: base_score's K numbers, used as they are (3.2: centred log priors)
    stored = json.loads(learner["learner_model_param"]["base_score"])
    np.testing.assert_allclose(model.base_margin_, stored)
    np.testing.assert_allclose(stored, tg.losses.Softmax(K).default_base_score(y), atol=1e-6)
    dump = booster.trees_to_dataframe()
    for k, tree in enumerate(model.trees_):
        np.testing.assert_allclose(_sorted(tree.H), _sorted(dump[dump.Tree == k].Cover), rtol=1e-6)
    assert model.gamma == pair.get("gamma", 0.0)
    assert list(model.classes_) == [0, 1, 2, 3]


@pytest.mark.parametrize("fmt", ["json", "ubj"])
def test_xgboost_multiclass_file_and_booster(fmt, tmp_path, monkeypatch):
    X, y = _data(K=3)
    booster = xgb.train(
        {"objective": "multi:softprob", "num_class": 3, "max_depth": 2, "eta": 0.4, "nthread": 1},
        xgb.DMatrix(X, y),
        5,
    )
    expected = booster.predict(xgb.DMatrix(X), output_margin=True)
    from_booster = tg.from_xgboost(booster)  # no estimator: classes 0 … K−1
    assert list(from_booster.classes_) == [0, 1, 2]
    _close(from_booster.decision_function(X), expected)
    path = tmp_path / f"m.{fmt}"
    booster.save_model(path)
    monkeypatch.setitem(sys.modules, "xgboost", None)
    model = tg.from_xgboost(path, learning_rate=0.4, reg_lambda=1.0, gamma=0.0)
    _close(model.decision_function(X), expected)
    for a, b in zip(model.trees_, from_booster.trees_):
        np.testing.assert_allclose(a.G, b.G)
        assert (a.round, a.class_) == (b.round, b.class_)


def test_xgboost_multiclass_base_score_before_3_1(tmp_path):
    """Before 3.1 the file held one number ("5E-1"), the start margin of every class."""
    X, y = _data(K=3)
    booster = xgb.train(
        {"objective": "multi:softprob", "num_class": 3, "nthread": 1}, xgb.DMatrix(X, y), 3
    )
    d = json.loads(bytes(booster.save_raw("json")))
    d["learner"]["learner_model_param"]["base_score"] = "5E-1"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(d))
    old = xgb.Booster(model_file=str(path))
    model = tg.from_xgboost(old)
    np.testing.assert_allclose(model.base_margin_, [0.5, 0.5, 0.5])
    _close(model.decision_function(X), old.predict(xgb.DMatrix(X), output_margin=True))


# ---------------------------------------------------------------------------- LightGBM
@pytest.mark.parametrize(
    "pair", [dict(reg_lambda=1.0, min_split_gain=0.05), dict(learning_rate=0.3, num_leaves=5)]
)
def test_lightgbm_multiclass(pair, tmp_path):
    X, y = _data()
    params = dict(n_estimators=6, num_leaves=8, min_child_samples=5, verbose=-1, n_jobs=1)
    est = lgb.LGBMClassifier(**params | pair).fit(X, LABELS[y])
    model = tg.from_lightgbm(est)
    _same_model(model, X, est.predict(X, raw_score=True), est.predict_proba(X), est.predict(X))
    assert list(model.classes_) == list(LABELS)
    _rounds_and_classes(model, 4)
    # the initial scores folded into the first round: the log class shares (not centred)
    shares = np.bincount(y) / len(y)
    np.testing.assert_allclose(model.base_margin_, np.log(shares), atol=1e-5)
    dump = est.booster_.trees_to_dataframe()
    for k, tree in enumerate(model.trees_):
        d = dump[dump.tree_index == k]
        np.testing.assert_allclose(_sorted(tree.H), _sorted(d.weight), rtol=1e-6)
        np.testing.assert_array_equal(_sorted(tree.n), _sorted(d["count"]))
    path = tmp_path / "m.txt"
    est.booster_.save_model(path)
    from_file = tg.from_lightgbm(path)  # no classes in the text: 0 … K−1
    assert list(from_file.classes_) == [0, 1, 2, 3]
    _close(from_file.decision_function(X), model.decision_function(X))


def test_lightgbm_multiclassova_is_k_sigmoids():
    """One-vs-all: K binary models side by side; each class's probability is σ of its own
    margin, and they need not sum to 1 (LightGBM's predict_proba does not normalise)."""
    X, y = _data(K=3)
    est = lgb.LGBMClassifier(n_estimators=4, objective="multiclassova", verbose=-1, n_jobs=1)
    est.fit(X, LABELS[y])
    model = tg.from_lightgbm(est)
    _same_model(model, X, est.predict(X, raw_score=True), est.predict_proba(X), est.predict(X))
    assert not np.allclose(model.predict_proba(X).sum(axis=1), 1.0)


# ---------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize(
    "pair", [dict(learning_rate=0.3, max_depth=2), dict(max_leaf_nodes=6, max_depth=None)]
)
def test_gradient_boosting_multiclass(pair):
    X, y = _data(missing=False)
    est = ensemble.GradientBoostingClassifier(n_estimators=5, random_state=0, **pair)
    est.fit(X, LABELS[y])
    model = tg.from_sklearn(est)
    _same_model(model, X, est.decision_function(X), est.predict_proba(X), est.predict(X))
    assert list(model.classes_) == list(LABELS)
    _rounds_and_classes(model, 4)
    _close(model.base_margin_, est._raw_predict_init(X[:1].astype(np.float32))[0])
    for m, k in ((0, 0), (2, 3)):
        t = est.estimators_[m, k].tree_
        tree = model.trees_[4 * m + k]
        np.testing.assert_array_equal(_sorted(tree.n), _sorted(t.n_node_samples))
        np.testing.assert_allclose(
            _sorted(tree.weight[tree.is_leaf]), _sorted(t.value[:, 0, 0][t.children_left < 0])
        )


@pytest.mark.parametrize(
    "pair", [dict(l2_regularization=1.0, max_leaf_nodes=8), dict(learning_rate=0.3, max_depth=3)]
)
def test_hist_gradient_boosting_multiclass(pair):
    X, y = _data()
    est = ensemble.HistGradientBoostingClassifier(max_iter=6, early_stopping=False, **pair)
    est.fit(X, LABELS[y])
    model = tg.from_sklearn(est)
    _same_model(model, X, est.decision_function(X), est.predict_proba(X), est.predict(X))
    _rounds_and_classes(model, 4)
    _close(model.base_margin_, np.ravel(est._baseline_prediction))
    nodes = est._predictors[1][2].nodes
    np.testing.assert_array_equal(_sorted(model.trees_[4 + 2].n), _sorted(nodes["count"]))


# ---------------------------------------------------------------------------- as a model
def test_imported_multiclass_model_saves_explains_and_draws(tmp_path):
    X, y = _data(K=3)
    est = xgb.XGBClassifier(n_estimators=3, max_depth=2, n_jobs=1).fit(X, y)
    model = tg.from_xgboost(est)
    model.save(tmp_path / "m.json")
    again = tg.load(tmp_path / "m.json")
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    assert [(t.round, t.class_) for t in again.trees_] == [
        (t.round, t.class_) for t in model.trees_
    ]
    tree = model.trees_[4]
    assert (tree.round, tree.class_) == (2, 1)  # tree 5: round 2, class 1
    assert "Tree 5" in str(tg.explain.leaf(model, 2, int(tree.leaves[0]), class_=1))
    assert "<svg" in tree.draw(engine="matplotlib")._repr_mimebundle_()["image/svg+xml"]
