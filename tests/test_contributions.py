"""Feature contributions: SHAP and path values against XGBoost's pred_contribs and
approx_contribs on the same trees, the readable enumeration against the fast one,
and rows that sum to the margin."""

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.explain import attributions as C
from teachgbt.utils import _kernels

xgb = pytest.importorskip("xgboost")
import xgb_compare  # noqa: E402

N_ROUNDS = 6
# both sides hold leaf values and covers in float32: a few float32 steps of the margin
XGB_ATOL = 1e-5
SUM_ATOL = 1e-5


def missing_data(seed=0, n=300, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = rng.integers(0, 4, n)  # ties
    signal = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 1)
    X[rng.random(X.shape) < 0.2] = np.nan
    return X, signal + rng.normal(0, 0.5, n)


GRID = [
    dict(max_depth=2, reg_lambda=1.0, learning_rate=0.3),
    dict(max_depth=4, reg_lambda=0.5, learning_rate=0.5, min_child_weight=2.0),
    dict(max_depth=6, reg_lambda=2.0, learning_rate=0.2, gamma=0.5, reg_alpha=0.3),
]


@pytest.mark.parametrize("classifier", [True, False], ids=["classifier", "regressor"])
@pytest.mark.parametrize("params", GRID, ids=lambda p: f"depth{p['max_depth']}")
def test_equals_xgboost_pred_contribs_and_approx_contribs(classifier, params):
    X, signal = missing_data(seed=params["max_depth"])
    y = (signal > 0).astype(float) if classifier else signal
    est = (tg.BoostingClassifier if classifier else tg.BoostingRegressor)(
        n_estimators=N_ROUNDS, tree_method="exact", **params
    ).fit(X, y)
    objective = "binary:logistic" if classifier else "reg:squarederror"
    booster = xgb.train(
        xgb_compare.xgb_params(params, objective, "exact"),
        xgb.DMatrix(X, label=y, missing=np.nan),
        N_ROUNDS,
    )
    for tree, dump in zip(est.trees_, xgb_compare.xgb_trees(booster)):
        assert not xgb_compare.compare_tree(tree, dump, X=X)  # the same trees first
    dm = xgb.DMatrix(X, missing=np.nan)
    shap = tg.explain.contributions(est, X, method="shap")
    path = tg.explain.contributions(est, X, method="path")
    assert list(shap.columns) == [f"f{j}" for j in range(X.shape[1])] + ["bias"]
    # XGBoost's last column is the bias, base margin included
    theirs_shap = booster.predict(dm, pred_contribs=True)
    theirs_path = booster.predict(dm, pred_contribs=True, approx_contribs=True)
    np.testing.assert_allclose(shap.to_numpy(), theirs_shap, atol=XGB_ATOL, rtol=0)
    np.testing.assert_allclose(path.to_numpy(), theirs_path, atol=XGB_ATOL, rtol=0)
    margin = est.decision_function(X)
    np.testing.assert_allclose(shap.sum(axis=1), margin, atol=SUM_ATOL)
    np.testing.assert_allclose(path.sum(axis=1), margin, atol=SUM_ATOL)


@pytest.fixture(scope="module")
def cancer():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_breast_cancer(return_X_y=True, as_frame=True)
    return X, y


def test_readable_enumeration_equals_fast_tree_shap(cancer):
    X, y = cancer
    clf = tg.BoostingClassifier(n_estimators=4, max_depth=4, tree_method="exact").fit(X, y)
    rows = X.iloc[::57]
    for tree in clf.trees_:
        fast, bias = C.tree_shap(tree, rows)
        path, path_bias = C.path_contributions(tree, rows)
        assert bias == path_bias
        for i in range(len(rows)):
            phi, v_empty = C.shapley_values(tree, rows.iloc[i].to_numpy())
            np.testing.assert_allclose(phi, fast[i], atol=1e-12)
            assert v_empty == pytest.approx(bias, abs=1e-12)
            # each tree: bias + Σφ = the leaf the row reaches, for both methods
            leaf = tree.predict(rows.iloc[[i]])[0]
            assert bias + fast[i].sum() == pytest.approx(leaf, abs=1e-9)
            assert bias + path[i].sum() == pytest.approx(leaf, abs=1e-9)


def test_expected_value_given_all_or_nothing(cancer):
    X, y = cancer
    tree = tg.BoostingClassifier(n_estimators=1, max_depth=3).fit(X, y).trees_[0]
    x = X.iloc[7].to_numpy()
    everything = set(range(X.shape[1]))
    assert C.expected_value_given(tree, x, everything) == tree.predict(X.iloc[[7]])[0]
    assert C.expected_value_given(tree, x, set()) == pytest.approx(C.expected_values(tree)[0])


def test_the_table_of_seen_patterns_equals_the_full_table(cancer, monkeypatch):
    X, y = cancer
    tree = tg.BoostingClassifier(n_estimators=1, max_depth=5).fit(X, y).trees_[0]
    full, bias = C.tree_shap(tree, X)
    monkeypatch.setattr(C, "FULL_TABLE_BUDGET", 0)  # only the (leaf, pattern) pairs seen
    monkeypatch.setattr(C, "BLOCK_ELEMENTS", 1000)  # and several blocks of rows
    seen, _ = C.tree_shap(tree, X)
    np.testing.assert_allclose(seen, full, atol=1e-12)


@pytest.mark.parametrize("kernel", ["numpy", "numba"])
def test_numba_and_numpy_give_the_same_numbers(cancer, monkeypatch, kernel):
    if kernel == "numba":
        pytest.importorskip("numba")
    X, y = cancer
    clf = tg.BoostingClassifier(n_estimators=5, max_depth=6).fit(X, y)
    monkeypatch.setattr(_kernels, "KERNEL", "numpy")
    reference = C.contributions(clf, X)
    monkeypatch.setattr(_kernels, "KERNEL", kernel)
    np.testing.assert_allclose(C.contributions(clf, X), reference, atol=1e-12)


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
@pytest.mark.parametrize("algorithm", ["xgboost", "gbdt"])
def test_rows_sum_to_the_margin(cancer, algorithm, tree_method):
    X, y = cancer
    X = X.mask(np.random.default_rng(0).random(X.shape) < 0.1)  # missing values
    if algorithm == "gbdt":
        X = X.fillna(0.0)  # scikit-learn's GradientBoosting rejects NaN; so does gbdt parity
    clf = tg.BoostingClassifier(
        algorithm=algorithm, tree_method=tree_method, n_estimators=10, max_depth=4
    ).fit(X, y)
    margin = clf.decision_function(X)
    for method in C.METHODS:
        out = tg.explain.contributions(clf, X, method=method)
        assert list(out.columns) == list(X.columns) + ["bias"]
        assert out.index.equals(X.index)
        np.testing.assert_allclose(out.sum(axis=1), margin, atol=SUM_ATOL)
    reg = tg.BoostingRegressor(
        algorithm=algorithm, tree_method=tree_method, n_estimators=10, max_depth=4
    ).fit(X, y * 10.0)
    out = tg.explain.contributions(reg, X)
    np.testing.assert_allclose(out.sum(axis=1), reg.decision_function(X), atol=SUM_ATOL)


def test_a_single_leaf_tree_gives_everything_to_the_bias():
    X = np.zeros((4, 2))
    reg = tg.BoostingRegressor(n_estimators=2, base_score=1.0).fit(X, [1.0, 2.0, 3.0, 4.0])
    out = tg.explain.contributions(reg, X)
    assert (out[["f0", "f1"]] == 0).all().all()
    np.testing.assert_allclose(out["bias"], reg.decision_function(X))


def test_clear_errors(cancer):
    X, y = cancer
    with pytest.raises(tg.NotFittedError, match="not fitted"):
        tg.explain.contributions(tg.BoostingClassifier(), X)
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="5 features, but BoostingClassifier is expecting 30"):
        tg.explain.contributions(clf, X.to_numpy()[:, :5])
    with pytest.raises(ValueError, match="method="):
        tg.explain.contributions(clf, X, method="lime")
    with pytest.raises(ValueError, match="single margin"):
        tg.explain.contributions(clf, X, class_=1)
    tree = clf.trees_[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(C, "MAX_ENUMERATED_FEATURES", 1)
        with pytest.raises(ValueError, match="too slow"):
            C.shapley_values(tree, X.iloc[0].to_numpy())


def test_largest_folds_the_rest():
    row = pd.Series({"a": 0.1, "b": -2.0, "c": 0.5, "d": 0.0, "bias": 3.0})
    assert C.largest(row, 2) == [("b", -2.0), ("c", 0.5), ("other features (1)", 0.1)]
    assert C.largest(row, 5) == [("b", -2.0), ("c", 0.5), ("a", 0.1)]


def test_prediction_lists_the_contributions(cancer):
    X, y = cancer
    clf = tg.BoostingClassifier(n_estimators=5, max_depth=3).fit(X, y)
    ex = tg.explain.prediction(clf, X.iloc[0])
    text = str(ex)
    assert "feature contributions to the margin (SHAP): bias = " in text
    row = tg.explain.contributions(clf, X.iloc[[0]]).iloc[0]
    top = row.drop("bias").abs().idxmax()
    assert f"{top} = " in text.split("feature contributions")[1]
    assert "other features (" in text


def test_waterfall_plot(cancer):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    X, y = cancer
    clf = tg.BoostingClassifier(n_estimators=5, max_depth=3).fit(X, y)
    ax = tg.plot.contributions(clf, X.iloc[0], max_features=4)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].startswith("bias") and labels[-1] == "margin"  # bias at the top
    assert any(lbl.startswith("other features (") for lbl in labels)
    assert len(labels) == 4 + 3
    margin = clf.decision_function(X.iloc[[0]])[0]
    assert f"p = {tg.core.format.format_number(1 / (1 + np.exp(-margin)), 3)}" in ax.get_title()
    fig, mine = plt.subplots()
    reg = tg.BoostingRegressor(n_estimators=3, max_depth=2).fit(X, y * 100.0)
    assert tg.plot.contributions(reg, X.iloc[3].to_numpy(), ax=mine, method="path") is mine
    assert "prediction" in mine.get_title()
    plt.close("all")


def test_multiclass_contributions_equal_xgboost_per_class():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_iris(return_X_y=True)
    X = X.astype(np.float32)
    X[::7, 1] = np.nan
    params = dict(n_estimators=4, max_depth=3, learning_rate=0.5)
    model = tg.BoostingClassifier(**params).fit(X, y)
    booster = xgb.XGBClassifier(tree_method="exact", **params).fit(X, y).get_booster()
    theirs = booster.predict(xgb.DMatrix(X, missing=np.nan), pred_contribs=True)  # (n, K, d+1)
    margins = model.decision_function(X)
    for k in range(3):
        ours = tg.explain.contributions(model, X, class_=k).to_numpy()
        np.testing.assert_allclose(ours, theirs[:, k, :], atol=1e-5)
        np.testing.assert_allclose(ours.sum(axis=1), margins[:, k], atol=1e-5)
    with pytest.raises(ValueError, match="3 classes and one tree per class"):
        tg.explain.contributions(model, X)
