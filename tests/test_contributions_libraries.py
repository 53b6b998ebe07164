"""Contributions of imported models equal their library's and shap's (tree_path_dependent).

TreeSHAP weighs the paths by the library's own cover: XGBoost's H, LightGBM's row counts,
scikit-learn's (weighted) row counts. Also: trees of any depth.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core.tree import TreeBuilder
from teachgbt.explain.attributions import tree_shap

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")
shap = pytest.importorskip("shap")
ensemble = pytest.importorskip("sklearn.ensemble")

# LightGBM and scikit-learn values are float64 on both sides; XGBoost's are float32 sums
TOL = 1e-5


def _data(n_classes=2, nan=True, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(240, 5))
    X[:, 3] = np.round(X[:, 3] * 3)
    score = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * X[:, 3]
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X, y


def _ours(model, X, class_=None):
    c = tg.explain.contributions(model, X, class_=class_)
    return c.drop(columns="bias").to_numpy(), c["bias"].to_numpy()


def _shap(est, X):
    """shap's (n, features, outputs) values and (outputs,) expected values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = shap.TreeExplainer(est, feature_perturbation="tree_path_dependent")
        values = np.asarray(e.shap_values(X))
    if values.ndim == 2:
        values = values[:, :, None]
    return values, np.atleast_1d(e.expected_value)


def _assert_close(ours, theirs):
    phi, bias = ours
    phi_t, bias_t = theirs
    assert not np.isnan(phi).any() and not np.isnan(bias).any()
    np.testing.assert_allclose(phi, phi_t, atol=TOL, rtol=0)
    np.testing.assert_allclose(bias, bias_t, atol=TOL, rtol=0)


def _quiet_import(fn, est):
    with warnings.catch_warnings():
        warnings.simplefilter("error", tg.io.ImportAssumptionWarning)
        return fn(est)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_lightgbm_classifier_equals_pred_contrib_and_shap(n_classes):
    X, y = _data(n_classes)
    est = lgb.LGBMClassifier(n_estimators=12, num_leaves=8, verbose=-1, n_jobs=1).fit(X, y)
    model = _quiet_import(tg.from_lightgbm, est)
    pc = est.booster_.predict(X, pred_contrib=True)  # (n, K·(d + 1)), class by class
    d = X.shape[1]
    values, expected = _shap(est, X)
    for k in range(1 if n_classes == 2 else n_classes):
        class_ = None if n_classes == 2 else k
        block = pc[:, k * (d + 1) : (k + 1) * (d + 1)]
        ours = _ours(model, X, class_)
        _assert_close(ours, (block[:, :d], block[:, d]))
        # shap gives binary LightGBM one output, a K-class one K
        kk = min(k, values.shape[2] - 1)
        bias = np.full(len(X), expected[min(k, len(expected) - 1)])
        _assert_close(ours, (values[:, :, kk], bias))


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kind", ["gb", "hgb"])
def test_sklearn_classifier_equals_shap(kind, n_classes):
    X, y = _data(n_classes, nan=kind == "hgb")
    if kind == "gb":
        est = ensemble.GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0)
    else:
        est = ensemble.HistGradientBoostingClassifier(max_iter=10, max_leaf_nodes=8)
    est.fit(X, y)
    model = _quiet_import(tg.from_sklearn, est)
    if n_classes == 2:
        values, expected = _shap(est, X)
        _assert_close(_ours(model, X), (values[:, :, 0], np.full(len(X), expected[0])))
        return
    values, expected = _shap(est, X) if kind == "hgb" else _shap_gb_per_class(est, X)
    for k in range(n_classes):
        ours = _ours(model, X, k)
        _assert_close(ours, (values[:, :, k], np.full(len(X), expected[k])))


def _shap_gb_per_class(est, X):
    """shap reads K-class GradientBoosting only one class at a time: class k's trees
    (× η), started from its initial raw score, as a shap tree dict."""
    start = est._raw_predict_init(X[:1])[0]
    values, expected = [], []
    for k in range(est.n_classes_):
        trees = []
        for t in (e.tree_ for e in est.estimators_[:, k]):
            trees.append(
                {
                    "children_left": t.children_left,
                    "children_right": t.children_right,
                    "children_default": t.children_left,
                    "features": t.feature,
                    "thresholds": t.threshold,
                    "values": t.value[:, 0, :1] * est.learning_rate,
                    "node_sample_weight": t.weighted_n_node_samples,
                }
            )
        e = shap.TreeExplainer(
            {"trees": trees, "base_offset": start[k]}, feature_perturbation="tree_path_dependent"
        )
        values.append(e.shap_values(X))
        expected.append(float(np.ravel(e.expected_value)[0]))
    return np.stack(values, axis=2), np.asarray(expected)


def test_xgboost_classifier_equals_pred_contribs_and_shap():
    X, y = _data(2)
    est = xgb.XGBClassifier(n_estimators=10, max_depth=3, n_jobs=1).fit(X, y)
    model = _quiet_import(tg.from_xgboost, est)
    pc = est.get_booster().predict(xgb.DMatrix(X), pred_contribs=True)
    ours = _ours(model, X)
    _assert_close(ours, (pc[:, :-1], pc[:, -1]))
    values, expected = _shap(est, X)
    _assert_close(ours, (values[:, :, 0], np.full(len(X), expected[0])))


def test_leaf_by_leaf_equals_the_pattern_table(monkeypatch):
    """The path for deep trees (no bit patterns) gives the pattern table's numbers."""
    X, y = _data(2)
    est = lgb.LGBMClassifier(n_estimators=5, num_leaves=12, verbose=-1, n_jobs=1).fit(X, y)
    model = _quiet_import(tg.from_lightgbm, est)
    want = _ours(model, X)
    monkeypatch.setattr(tg.explain.attributions, "MAX_PATTERN_BITS", 1)
    got = _ours(model, X)
    np.testing.assert_allclose(got[0], want[0], atol=1e-12)


def _chain(depth):
    """A tree that splits feature j at depth j (x_j < 0.5 goes left to a leaf, right goes
    on), covers halving each level, and the shap dict of the same tree."""
    b = TreeBuilder()
    node = b.add_node(-1, 0, 0, np.nan, 2.0**depth, 0.0, 0.0)
    for j in range(depth):
        leaf = b.add_node(node, j + 1, 0, np.nan, 2.0 ** (depth - j - 1), 0.0, float(j + 1))
        right = b.add_node(node, j + 1, 0, np.nan, 2.0 ** (depth - j - 1), 0.0, 0.0)
        b.split(node, j, 0.5, True, leaf, right, np.nan, np.nan)
        node = right
    b.cols["value"][node] = -1.0
    return b.build(depth)


def test_contributions_of_a_tree_deeper_than_64():
    depth = 70
    tree = _chain(depth)
    assert tree.max_depth == depth
    rng = np.random.default_rng(0)
    X = (rng.random((6, depth)) < 0.97).astype(np.float64)  # mostly right: deep paths
    phi, bias = tree_shap(tree, X)
    assert np.isfinite(phi).all()
    np.testing.assert_allclose(phi.sum(axis=1) + bias, tree.predict(X), atol=1e-9)
    # the same tree as shap reads it: x ≤ t' with t' just below 0.5 is x < 0.5 on 0/1 data
    inner = ~tree.is_leaf
    d = {
        "children_left": np.where(inner, tree.left, -1),
        "children_right": np.where(inner, tree.right, -1),
        "children_default": np.where(inner, tree.left, -1),
        "features": np.where(inner, tree.feature, -2),
        "thresholds": np.where(inner, 0.25, 0.0),
        "values": tree.value.reshape(-1, 1),
        "node_sample_weight": tree.cover,
    }
    e = shap.TreeExplainer({"trees": [d]}, feature_perturbation="tree_path_dependent")
    np.testing.assert_allclose(phi, e.shap_values(X), atol=1e-9)
    np.testing.assert_allclose(bias, e.expected_value, atol=1e-9)
