"""tg.from_xgboost / from_lightgbm / from_sklearn against the real libraries, run here.

Margins equal to 1e-5 (relative for large margins) for each library × objective × tree
method, with missing values; H equal to the library's own cover / weight; the gain
recomputed from the recovered G and H equal to the stored one wherever G is recoverable.
Parameters vary in pairs.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core import formulas

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")
ensemble = pytest.importorskip("sklearn.ensemble")

MARGIN_TOL = 1e-5
GAIN_RTOL = 1e-4
N_ROWS, N_FEATURES, MISSING = 400, 5, 0.15


def _data(classify, missing=True, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N_ROWS, N_FEATURES))
    X[:, 3] = np.round(X[:, 3], 1)  # ties
    signal = X[:, 0] - 0.7 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=N_ROWS)
    if missing:
        X[rng.random(X.shape) < MISSING] = np.nan
    y = (signal > 0).astype(int) if classify else 3.0 * signal + 10.0
    return X, y


def _close(ours, theirs):
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    gap = np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs))
    assert gap.max() <= MARGIN_TOL, f"margins differ by up to {gap.max():.3g}"


def _check_gains(model, reg_lambda):
    """loss_chg from the children's recovered G, H equals the stored one (where G is known)."""
    checked = 0
    for tree in model.trees_:
        for i in np.flatnonzero(~tree.is_leaf):
            L, R = tree.left[i], tree.right[i]
            if np.isnan([tree.G[L], tree.G[R], tree.H[L], tree.H[R]]).any():
                continue
            lc = formulas.loss_chg(tree.G[L], tree.H[L], tree.G[R], tree.H[R], reg_lambda)
            terms = tree.G[L] ** 2 / (tree.H[L] + reg_lambda) + tree.G[R] ** 2 / (
                tree.H[R] + reg_lambda
            )
            # relative to the gain, and to the terms it is the difference of
            assert np.isclose(lc, tree.loss_chg[i], rtol=GAIN_RTOL, atol=1e-6 * terms), (
                lc,
                tree.loss_chg[i],
            )
            checked += 1
    return checked


def _sorted(v):
    return np.sort(np.asarray(v, dtype=float))


# ---------------------------------------------------------------------------- XGBoost
XGB_PAIRS = [
    dict(reg_lambda=0.5, gamma=0.3),
    dict(learning_rate=0.05, min_child_weight=3),
    dict(max_depth=5, reg_lambda=3.0),
]


@pytest.mark.parametrize("tree_method", ["exact", "hist", "approx"])
@pytest.mark.parametrize("classify", [True, False])
@pytest.mark.parametrize("pair", XGB_PAIRS, ids=lambda p: "+".join(p))
def test_xgboost_parity(tree_method, classify, pair):
    X, y = _data(classify)
    Est = xgb.XGBClassifier if classify else xgb.XGBRegressor
    params = dict(n_estimators=15, max_depth=3, tree_method=tree_method, n_jobs=1) | pair
    est = Est(**params).fit(X, y)
    booster = est.get_booster()
    model = tg.from_xgboost(est)
    _close(model.decision_function(X), booster.predict(xgb.DMatrix(X), output_margin=True))
    # H is XGBoost's cover, loss_chg its gain, value its leaf: per tree, as the library dumps them
    dump = booster.trees_to_dataframe()
    for k, tree in enumerate(model.trees_):
        d = dump[dump.Tree == k]
        leaf = d.Feature == "Leaf"
        np.testing.assert_allclose(_sorted(tree.H), _sorted(d.Cover), rtol=1e-6)
        np.testing.assert_allclose(
            _sorted(tree.loss_chg[~tree.is_leaf]), _sorted(d.Gain[~leaf]), rtol=1e-6
        )
        np.testing.assert_allclose(_sorted(tree.value[tree.is_leaf]), _sorted(d.Gain[leaf]))
    lam = pair.get("reg_lambda", 1.0)
    assert _check_gains(model, lam) > 0
    assert model.gamma == pair.get("gamma", 0.0)
    gamma = pair.get("gamma", 0.0)
    split = ~model.trees_[0].is_leaf
    np.testing.assert_allclose(
        model.trees_[0].gain[split], 0.5 * (model.trees_[0].loss_chg[split] - gamma)
    )


@pytest.mark.parametrize("fmt", ["json", "ubj"])
def test_xgboost_file_without_xgboost(fmt, tmp_path, monkeypatch):
    X, y = _data(True)
    est = xgb.XGBClassifier(
        n_estimators=10, max_depth=3, learning_rate=0.2, reg_lambda=2.0, n_jobs=1
    )
    est.fit(X, y)
    path = tmp_path / f"m.{fmt}"
    est.save_model(path)
    expected = est.get_booster().predict(xgb.DMatrix(X), output_margin=True)
    from_booster = tg.from_xgboost(est)
    monkeypatch.setitem(sys.modules, "xgboost", None)  # reading a file must not import it
    with pytest.warns(tg.io.ImportAssumptionWarning, match="learning_rate=0.3"):
        assumed = tg.from_xgboost(path)  # η and λ unknown: defaults, and a warning
    _close(assumed.decision_function(X), expected)
    model = tg.from_xgboost(path, reg_lambda=2.0, learning_rate=0.2, gamma=0.0)
    _close(model.decision_function(X), expected)
    for a, b in zip(model.trees_, from_booster.trees_):
        np.testing.assert_allclose(a.G, b.G)
        np.testing.assert_allclose(a.weight, b.weight)
    assert "learning_rate=0.3" in " ".join(assumed.import_notes_)


def test_xgboost_alpha_makes_g_unknown():
    X, y = _data(True)
    est = xgb.XGBClassifier(
        n_estimators=3, max_depth=2, reg_alpha=1.0, max_delta_step=0.5, n_jobs=1
    ).fit(X, y)
    model = tg.from_xgboost(est)
    assert np.isnan(model.trees_[0].G).all()
    assert not np.isnan(model.trees_[0].gain[~model.trees_[0].is_leaf]).any()
    assert "not recoverable" in str(tg.explain.leaf(model, 1, int(model.trees_[0].leaves[0])))


def test_xgboost_base_score_given_and_pruned_nodes():
    X, y = _data(False)
    est = xgb.XGBRegressor(n_estimators=8, max_depth=4, gamma=5.0, base_score=2.5, n_jobs=1).fit(
        X, y
    )
    model = tg.from_xgboost(est)
    assert model.base_score_ == pytest.approx(2.5)
    _close(model.decision_function(X), est.predict(X, output_margin=True))


# ---------------------------------------------------------------------------- LightGBM
LGB_PAIRS = [
    dict(reg_lambda=1.0, min_split_gain=0.05),
    dict(learning_rate=0.3, num_leaves=7),
    dict(use_missing=False, max_bin=15),
]


@pytest.mark.parametrize("classify", [True, False])
@pytest.mark.parametrize("pair", LGB_PAIRS, ids=lambda p: "+".join(p))
def test_lightgbm_parity(classify, pair):
    X, y = _data(classify)
    Est = lgb.LGBMClassifier if classify else lgb.LGBMRegressor
    params = dict(n_estimators=15, num_leaves=15, min_child_samples=5, verbose=-1, n_jobs=1)
    params |= pair
    est = Est(**params).fit(X, y)
    model = tg.from_lightgbm(est)
    _close(model.decision_function(X), est.predict(X, raw_score=True))
    dump = est.booster_.trees_to_dataframe()
    for k, tree in enumerate(model.trees_):
        d = dump[dump.tree_index == k]
        np.testing.assert_allclose(_sorted(tree.H), _sorted(d.weight), rtol=1e-6)
        np.testing.assert_array_equal(_sorted(tree.n), _sorted(d["count"]))
    assert _check_gains(model, pair.get("reg_lambda", 0.0)) > 0
    tree = model.trees_[1]
    gamma = pair.get("min_split_gain", 0.0)
    np.testing.assert_allclose(tree.gain, 0.5 * (tree.extra["split_gain"] - gamma))


def test_lightgbm_values_at_thresholds_and_text_file(tmp_path, monkeypatch):
    X, y = _data(True)
    est = lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, n_jobs=1).fit(X, y)
    model = tg.from_lightgbm(est)
    # every row exactly on a threshold of LightGBM's x ≤ t (float64, as LightGBM compares)
    rows = []
    for tree in model.trees_:
        for i in np.flatnonzero(~tree.is_leaf):
            x = np.nanmedian(X, axis=0)
            x[tree.feature[i]] = tree.threshold[i]
            rows.append(x)
    at = np.asarray(rows)
    _close(model.decision_function(at), est.predict(at, raw_score=True))
    path = tmp_path / "m.txt"
    est.booster_.save_model(path)
    monkeypatch.setitem(sys.modules, "lightgbm", None)
    from_file = tg.from_lightgbm(path)
    _close(from_file.decision_function(X), model.decision_function(X))
    assert from_file.learning_rate == pytest.approx(0.1)  # from the parameters section


# ---------------------------------------------------------------------------- scikit-learn
SK_PAIRS = [dict(learning_rate=0.3, max_depth=2), dict(max_leaf_nodes=6, max_depth=None)]


@pytest.mark.parametrize("classify", [True, False])
@pytest.mark.parametrize("pair", SK_PAIRS, ids=lambda p: "+".join(p))
def test_gradient_boosting_parity(classify, pair):
    X, y = _data(classify, missing=False)
    Est = ensemble.GradientBoostingClassifier if classify else ensemble.GradientBoostingRegressor
    est = Est(n_estimators=15, random_state=0, **pair).fit(X, y)
    model = tg.from_sklearn(est)
    theirs = est.decision_function(X) if classify else est.predict(X)
    _close(model.decision_function(X), theirs)
    t0 = est.estimators_[0, 0].tree_
    np.testing.assert_array_equal(_sorted(model.trees_[0].n), _sorted(t0.n_node_samples))
    if not classify:
        assert _check_gains(model, 0.0) > 0


@pytest.mark.parametrize("classify", [True, False])
@pytest.mark.parametrize(
    "pair", [dict(l2_regularization=1.0, max_leaf_nodes=8), dict(learning_rate=0.3, max_depth=3)]
)
def test_hist_gradient_boosting_parity(classify, pair):
    X, y = _data(classify)
    Est = (
        ensemble.HistGradientBoostingClassifier
        if classify
        else ensemble.HistGradientBoostingRegressor
    )
    est = Est(max_iter=15, early_stopping=False, **pair).fit(X, y)
    model = tg.from_sklearn(est)
    theirs = est.decision_function(X) if classify else est.predict(X)
    _close(model.decision_function(X), theirs)
    if not classify:
        assert _check_gains(model, pair.get("l2_regularization", 0.0)) > 0


# ---------------------------------------------------------------------------- every view
@pytest.fixture(scope="module")
def imported():
    X, y = _data(True)
    est = xgb.XGBClassifier(n_estimators=4, max_depth=2, n_jobs=1).fit(X, y)
    lg = lgb.LGBMRegressor(n_estimators=4, num_leaves=4, verbose=-1, n_jobs=1).fit(X, y * 1.0)
    gb = ensemble.GradientBoostingClassifier(n_estimators=4, max_depth=2).fit(np.nan_to_num(X), y)
    return X, {"xgb": tg.from_xgboost(est), "lgb": tg.from_lightgbm(lg), "gb": tg.from_sklearn(gb)}


@pytest.mark.parametrize("which", ["xgb", "lgb", "gb"])
def test_imported_model_is_a_fitted_model(imported, which, tmp_path):
    X, models = imported
    model = models[which]
    X = np.nan_to_num(X) if which == "gb" else X
    for tree in model.trees_:
        frame = tree.to_frame()
        assert list(frame.columns[: len(tg.core.NODE_COLUMNS)]) == tg.core.NODE_COLUMNS
        assert "<svg" in tree.draw(engine="matplotlib")._repr_mimebundle_()["image/svg+xml"]
    tree = model.trees_[0]
    leaf, split = int(tree.leaves[0]), 0
    assert str(tg.explain.leaf(model, 1, leaf)) and str(tg.explain.split(model, 1, split))
    assert tg.explain.prediction(model, X[0]).values["margin"] == pytest.approx(
        model.decision_function(X[:1])[0], abs=1e-6
    )
    with pytest.raises(AttributeError, match="imported from"):
        _ = model.trace_
    model.save(tmp_path / "m.json")
    again = tg.load(tmp_path / "m.json")
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    if hasattr(model, "classes_"):
        assert model.predict_proba(X).shape == (len(X), 2)


# ---------------------------------------------------------------------------- refusals
def test_what_is_still_refused_says_why_in_one_line():
    X, y = _data(False)
    refusals = [
        (lambda: xgb.XGBRegressor(n_estimators=2, booster="gblinear", n_jobs=1), "gblinear"),
        (
            lambda: xgb.XGBRegressor(n_estimators=2, objective="reg:logistic", n_jobs=1),
            "reg:logistic",
        ),
        (
            lambda: xgb.XGBRegressor(
                n_estimators=2, objective="reg:quantileerror", quantile_alpha=[0.2, 0.8], n_jobs=1
            ),
            "2 quantiles at once",
        ),
    ]
    y01 = (y - y.min()) / (y.max() - y.min())  # reg:logistic regresses a probability
    for make, match in refusals:
        with pytest.raises(ValueError, match=match) as e:
            tg.from_xgboost(make().fit(X, y01))
        assert "\n" not in str(e.value)
    for params, match in [
        (dict(linear_tree=True), "linear tree.*not one number"),
        (dict(objective="regression", reg_sqrt=True), "√y"),
    ]:
        with pytest.raises(ValueError, match=match) as e:
            tg.from_lightgbm(
                lgb.LGBMRegressor(n_estimators=2, verbose=-1, n_jobs=1, **params).fit(X, y)
            )
        assert "\n" not in str(e.value)
    with pytest.raises(TypeError, match="from_sklearn takes"):
        tg.from_sklearn(xgb.XGBRegressor())


def test_categorical_models_import_with_their_sets_and_names():
    """Models with categorical splits import (tests/test_categorical_import.py checks them in
    depth): the same margins, the sets shown by category name."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=300), "colour": rng.choice(list("abcde"), 300)})
    df["colour"] = df["colour"].astype("category")
    y = (df["colour"].isin(["a", "c"]) ^ (df["x"] > 0)).astype(int)
    est = xgb.XGBClassifier(n_estimators=3, enable_categorical=True, tree_method="hist", n_jobs=1)
    lg = lgb.LGBMClassifier(
        n_estimators=3, min_data_per_group=5, cat_smooth=1, min_child_samples=5, verbose=-1
    )
    hgb = ensemble.HistGradientBoostingClassifier(max_iter=3, categorical_features=["colour"])
    for fitted, ours in (
        (est.fit(df, y), tg.from_xgboost),
        (lg.fit(df, y), tg.from_lightgbm),
        (hgb.fit(df, y), tg.from_sklearn),
    ):
        model = ours(fitted)
        theirs = fitted.predict_proba(df)[:, 1]
        np.testing.assert_allclose(model.predict_proba(df)[:, 1], theirs, atol=1e-6)
        labels = [label for tree in model.trees_ for i in tree.sets for label in tree.set_labels(i)]
        assert labels and set(labels) <= set("abcde")


@pytest.mark.parametrize("fmt", ["json", "ubj", "txt"])
def test_truncated_files_are_refused_cleanly(fmt, tmp_path):
    X, y = _data(True)
    path = tmp_path / f"m.{fmt}"
    if fmt == "txt":
        lgb.LGBMClassifier(n_estimators=3, verbose=-1, n_jobs=1).fit(X, y).booster_.save_model(path)
    else:
        xgb.XGBClassifier(n_estimators=3, n_jobs=1).fit(X, y).save_model(path)
    data = path.read_bytes()
    # the LightGBM text ends with a pandas_categorical line that its trees do not need
    end = data.find(b"end of parameters") if fmt == "txt" else len(data)
    for cut in (len(data) // 3, end - 7):
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError):
            tg.io.open_model(path, learning_rate=0.3, reg_lambda=1.0, gamma=0.0)


def test_write_atomic_follows_the_umask(tmp_path):
    import os

    from teachgbt.utils._files import write_atomic

    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "f.txt", lambda f: f.write("x"))
    finally:
        os.umask(old)
    assert (tmp_path / "f.txt").stat().st_mode & 0o777 == 0o644


def test_models_fitted_on_dataframes_keep_their_names():
    pd = pytest.importorskip("pandas")
    X, y = _data(True)
    df = pd.DataFrame(X, columns=[f"col {j}" for j in range(N_FEATURES)])
    fitted = [
        tg.from_xgboost(xgb.XGBClassifier(n_estimators=3, n_jobs=1).fit(df, y)),
        tg.from_lightgbm(lgb.LGBMClassifier(n_estimators=3, verbose=-1, n_jobs=1).fit(df, y)),
        tg.from_sklearn(ensemble.HistGradientBoostingClassifier(max_iter=3).fit(df, y)),
    ]
    for model in fitted:  # no ImportAssumptionWarning: the self-check ran and agreed
        # LightGBM itself writes "col 0" as "col_0"
        expected = [c.replace(" ", "_") for c in df.columns] if model is fitted[1] else df.columns
        assert list(model.feature_names_in_) == list(expected)
        X_named = df.set_axis(expected, axis=1)
        assert model.predict_proba(X_named).shape == (N_ROWS, 2)
