"""Categorical models of XGBoost (live, JSON, UBJSON), LightGBM (live, text) and
HistGradientBoosting imported exactly: margins within 1e-5 of the library's own on unseen
rows with missing values, unseen categories and edge codes, each library's rule for them
checked against the library itself; the sets by the user's category names."""

import warnings

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.io import ImportAssumptionWarning

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")
ensemble = pytest.importorskip("sklearn.ensemble")

MARGIN_TOL = 1e-5
CATS = [f"c{i}" for i in range(12)]


def _data(n=500, seed=0, n_cats=12):
    rng = np.random.default_rng(seed)
    cats = CATS[:n_cats]
    effect = dict(zip(cats, rng.normal(0, 2, n_cats)))
    v = rng.choice(cats, n)
    x = rng.normal(size=n)
    y = np.array([effect[c] for c in v]) + x + rng.normal(0, 0.3, n)
    # the categories listed in another order than their names: codes are pandas' order
    X = pd.DataFrame({"x": x, "colour": pd.Categorical(v, categories=cats[::-1])})
    X.loc[rng.random(n) < 0.1, "colour"] = np.nan
    return X, y


def _edge_codes(n_cats):
    """Codes beyond the categories: NaN, past the last, −1, −0.5, 1.7, 2^24, 2^31, 1e30."""
    edges = [np.nan, n_cats, n_cats + 5, -1, -0.5, 1.7, 2.0**24, 2.0**31, 1e30]
    return np.array(list(range(n_cats)) + edges, dtype=np.float64)


def _code_rows(X, seed=1):
    """Rows as codes: every category, the edge codes, x with NaN too."""
    rng = np.random.default_rng(seed)
    codes = rng.permutation(np.tile(_edge_codes(len(X["colour"].cat.categories)), 6))
    x = rng.normal(size=len(codes))
    x[::5] = np.nan
    return np.column_stack([x, codes])


def _name_rows(X, seed=2):
    """Rows by name, with a category no model saw ("new") and missing values."""
    rng = np.random.default_rng(seed)
    names = list(X["colour"].cat.categories) + ["new", None]
    v = rng.choice(np.array(names, dtype=object), 120)
    return pd.DataFrame(
        {"x": rng.normal(size=120), "colour": pd.Categorical(v, categories=names[:-1])}
    )


def _gap(a, b):
    return float(np.max(np.abs(np.asarray(a, float).ravel() - np.asarray(b, float).ravel())))


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImportAssumptionWarning)  # the self-check must agree
        return fn(*args, **kw)


# ------------------------------------------------------------------ XGBoost
def _xgb_codes_margin(booster, rows):
    dm = xgb.DMatrix(rows, feature_names=["x", "colour"], feature_types=["q", "c"],
                     enable_categorical=True)  # fmt: skip
    return booster.predict(dm, output_margin=True)


@pytest.mark.parametrize("objective", ["reg:squarederror", "binary:logistic", "multi:softprob"])
@pytest.mark.parametrize("source", ["live", "json", "ubj"])
def test_xgboost_categorical_models_import_exactly(objective, source, tmp_path):
    X, y = _data()
    if objective == "binary:logistic":
        y = (y > np.median(y)).astype(int)
    elif objective == "multi:softprob":
        y = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    Model = xgb.XGBRegressor if objective.startswith("reg") else xgb.XGBClassifier
    est = Model(tree_method="hist", enable_categorical=True, n_estimators=6, max_depth=4,
                max_cat_to_onehot=3, n_jobs=1).fit(X, y)  # fmt: skip
    if source == "live":
        model = _quiet(tg.from_xgboost, est)
    else:
        path = tmp_path / f"m.{source}"
        est.save_model(path)
        model = _quiet(tg.from_xgboost, path, reg_lambda=1.0, learning_rate=0.3, gamma=0.0)
    booster = est.get_booster()
    rows = _code_rows(X)
    assert _gap(model.decision_function(rows), _xgb_codes_margin(booster, rows)) < MARGIN_TOL
    # by name: XGBoost refuses a category it never saw, so those rows are compared as the
    # out-of-range code they become (teachgbt's rule for unseen categories)
    named = _name_rows(X)
    as_codes = model.model_.check_X(named)[0]
    assert np.isin(as_codes[:, 1][named["colour"] == "new"], [-1]).all()
    assert _gap(model.decision_function(named), _xgb_codes_margin(booster, as_codes)) < MARGIN_TOL
    known = named[named["colour"] != "new"].copy()
    known["colour"] = known["colour"].cat.remove_categories(["new"])
    assert _gap(model.decision_function(known), est.predict(known, output_margin=True)) < 1e-5
    assert model.model_.categories == {1: CATS[::-1]}
    assert any(len(tree.sets) for tree in model.trees_)


def test_xgboost_routes_out_of_range_codes_to_the_left_and_teachgbt_to_the_no_side():
    """The facts file: XGBoost stores the set of a categorical split as the categories sent
    right; NaN goes the default way; a code < 0, ≥ 2^24 or not in the set goes left. The
    imported tree sends its set left ("yes"): the same leaves, checked row by row."""
    X, y = _data(n_cats=6)
    y = y - X["x"]  # the categories alone: the root splits them
    est = xgb.XGBRegressor(tree_method="hist", enable_categorical=True, n_estimators=1,
                           max_depth=1, n_jobs=1).fit(X, y)  # fmt: skip
    model = _quiet(tg.from_xgboost, est)
    tree = model.trees_[0]
    assert 0 in tree.sets
    rows = np.column_stack([np.zeros(15), _edge_codes(6)])
    leaves = (
        est.get_booster()
        .predict(
            xgb.DMatrix(
                rows,
                feature_names=["x", "colour"],
                feature_types=["q", "c"],
                enable_categorical=True,
            ),
            pred_leaf=True,  # fmt: skip
        )
        .ravel()
    )
    # XGBoost's node ids are kept: its leaf for each row is the imported tree's leaf
    np.testing.assert_array_equal(tree.apply(rows), leaves)
    codes = rows[:, 1]
    outside = (codes < 0) | (codes >= 2**24) | ~np.isin(np.trunc(codes), tree.sets[0])
    outside &= ~np.isnan(codes)
    # XGBoost's left is "not in the set": teachgbt's right ("no")
    assert (tree.apply(rows)[outside] == tree.right[0]).all()


# ------------------------------------------------------------------ LightGBM
def _lgb_model(X, y, n_estimators=5, objective="regression"):
    kw = dict(n_estimators=n_estimators, num_leaves=8, min_data_per_group=5, cat_smooth=1,
              min_child_samples=5, max_cat_to_onehot=4, verbose=-1, n_jobs=1)  # fmt: skip
    Model = lgb.LGBMRegressor if objective == "regression" else lgb.LGBMClassifier
    return Model(**kw).fit(X, y)


@pytest.mark.parametrize("objective", ["regression", "binary", "multiclass"])
@pytest.mark.parametrize("source", ["live", "text"])
def test_lightgbm_categorical_models_import_exactly(objective, source, tmp_path):
    X, y = _data()
    if objective == "binary":
        y = (y > np.median(y)).astype(int)
    elif objective == "multiclass":
        y = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    est = _lgb_model(X, y, objective=objective)
    if source == "live":
        model = _quiet(tg.from_lightgbm, est)
    else:
        path = tmp_path / "m.txt"
        est.booster_.save_model(path)
        model = _quiet(tg.from_lightgbm, path)
    rows = _code_rows(X)
    theirs = est.booster_.predict(rows, raw_score=True)
    assert _gap(model.decision_function(rows), theirs) < MARGIN_TOL
    named = _name_rows(X)  # LightGBM reads an unseen category as missing: right, as ours
    assert _gap(model.decision_function(named), est.predict(named, raw_score=True)) < MARGIN_TOL
    assert model.model_.categories == {1: CATS[::-1]}
    assert any(len(tree.sets) for tree in model.trees_)


def test_lightgbm_set_goes_left_and_nan_negative_and_unseen_go_right():
    """The facts file: a LightGBM set goes left; NaN, a negative code (after truncation toward
    zero: −0.5 is category 0) and codes outside the set go right; checked on LightGBM's leaves."""
    X, y = _data(n_cats=8)
    est = _lgb_model(X, y - X["x"], n_estimators=1)
    model = _quiet(tg.from_lightgbm, est)
    tree = model.trees_[0]
    rows = np.column_stack([np.zeros(17), _edge_codes(8)])
    theirs = est.booster_.predict(rows, raw_score=True)
    np.testing.assert_allclose(model.decision_function(rows), theirs, atol=1e-9)
    root = 0
    assert root in tree.sets and not tree.default_left[root]
    codes = rows[:, 1]
    # −0.5 truncates to 0, the same leaf as category 0
    i_half, i_zero = int(np.flatnonzero(codes == -0.5)[0]), int(np.flatnonzero(codes == 0)[0])
    assert theirs[i_half] == theirs[i_zero]


# ------------------------------------------------------------------ HistGradientBoosting
@pytest.mark.parametrize("kind", ["regressor", "classifier", "multiclass"])
def test_hist_gradient_boosting_categorical_models_import_exactly(kind):
    X, y = _data()
    X["z"] = np.round(np.random.default_rng(5).normal(size=len(X)), 2)  # after the categories
    X = X[["x", "colour", "z"]]
    if kind == "regressor":
        est = ensemble.HistGradientBoostingRegressor(max_iter=6, max_leaf_nodes=8)
    else:
        y = (y > np.median(y)).astype(int) if kind == "classifier" else np.digitize(
            y, np.quantile(y, [1 / 3, 2 / 3]))  # fmt: skip
        est = ensemble.HistGradientBoostingClassifier(max_iter=6, max_leaf_nodes=8)
    est.fit(X, y)
    model = _quiet(tg.from_sklearn, est)
    named = _name_rows(X).assign(z=0.5)[["x", "colour", "z"]]
    theirs = est.decision_function(named) if kind != "regressor" else est.predict(named)
    assert _gap(model.decision_function(named), theirs) < MARGIN_TOL
    # codes: HistGradientBoosting's encoder sorts the categories (c0, c1, c10, c11, c2, …)
    assert model.model_.categories[1] == sorted(CATS)
    assert any(len(tree.sets) for tree in model.trees_)


def test_hist_gradient_boosting_reads_unknown_and_negative_codes_as_missing():
    """The facts file's run: categories f..a listed in reverse are coded a..f (sorted); NaN,
    a negative code and a category it never saw go the missing side."""
    rng = np.random.default_rng(0)
    v = rng.choice(list("abcdef"), 120)
    effect = dict(zip("abcdef", [0, 1, 0, 1, 0, 0]))
    y = np.array([effect[c] for c in v]) + rng.normal(0, 0.05, 120)
    X = pd.DataFrame({"c": pd.Categorical(v, categories=list("fedcba"))})
    est = ensemble.HistGradientBoostingRegressor(max_iter=1, max_leaf_nodes=2).fit(X, y)
    model = _quiet(tg.from_sklearn, est)
    tree = model.trees_[0]
    assert tree.set_labels(0) == ["b", "d"]  # the facts file's bitset word 10 = {1, 3}
    rows = pd.DataFrame({"c": pd.Categorical(["a", "b", "zz", None],
                                             categories=list("abcdef") + ["zz"])})  # fmt: skip
    np.testing.assert_allclose(model.decision_function(rows), est.predict(rows), atol=1e-9)
    codes = np.array([[0.0], [1.0], [7.0], [np.nan], [-1.0], [1.5]])
    leaf = tree.apply(codes)
    missing_side = tree.left[0] if tree.default_left[0] else tree.right[0]
    assert leaf[0] == tree.right[0] and leaf[1] == tree.left[0]
    assert (leaf[2:] == missing_side).all()


# ------------------------------------------------------------------ contributions
def test_contributions_equal_xgboost_pred_contribs_for_categorical_models():
    """SHAP (pred_contribs) and the path attribution (approx_contribs) of an imported and of
    a trained categorical model (trained here as XGBoost trains it: x has few values)."""
    X, y = _data()
    X["x"] = X["x"].round(1)
    kw = dict(tree_method="hist", enable_categorical=True, n_estimators=5, max_depth=4)
    est = xgb.XGBRegressor(n_jobs=1, **kw).fit(X, y)
    trained = tg.BoostingRegressor(**kw).fit(X, y)
    rows = _code_rows(X)
    dm = xgb.DMatrix(rows, feature_names=["x", "colour"], feature_types=["q", "c"],
                     enable_categorical=True)  # fmt: skip
    booster = est.get_booster()
    for model in (_quiet(tg.from_xgboost, est), trained):
        for method, approx in (("shap", False), ("path", True)):
            ours = tg.explain.contributions(model, rows, method=method).to_numpy()
            theirs = booster.predict(dm, pred_contribs=True, approx_contribs=approx)
            assert _gap(ours, theirs) < MARGIN_TOL, method


def test_lightgbm_contributions_equal_its_pred_contrib_for_categorical_models():
    X, y = _data()
    est = _lgb_model(X, y)
    rows = _code_rows(X)
    ours = tg.explain.contributions(_quiet(tg.from_lightgbm, est), rows).to_numpy()
    assert _gap(ours, est.booster_.predict(rows, pred_contrib=True)) < MARGIN_TOL


def test_hist_gradient_boosting_numeric_categories_are_read_as_their_ranks():
    """HistGradientBoosting's encoder sorts the values (10, 20, 30 …): a numpy array given to
    the imported model holds those ranks (the codes), as the tree's sets hold them."""
    X, y = _data(n_cats=6)
    values = (np.where(X["colour"].isna(), np.nan, X["colour"].cat.codes) + 1) * 10.0
    raw = np.column_stack([X["x"], values])
    est = ensemble.HistGradientBoostingRegressor(max_iter=5, categorical_features=[1]).fit(raw, y)
    model = _quiet(tg.from_sklearn, est)
    assert model.model_.categories == {1: [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]}
    ranks = np.column_stack([raw[:, 0], raw[:, 1] / 10 - 1])
    assert _gap(model.decision_function(ranks), est.predict(raw)) < MARGIN_TOL
