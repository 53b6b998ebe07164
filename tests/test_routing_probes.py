"""Imported models route every input as their library does: probes at every threshold.

For every importer and route (live object, saved file) the margins on rows that sit on,
one float64 step either side of, and 1e-9·|t| / 1e-7·|t| above every threshold the model
uses must equal the library's own (``predict`` raw / ``output_margin``) to 1e-5 relative.
The data have large-magnitude features (1e7 + quarter steps, 1.6e9 timestamps) and, where
the library takes them, values beyond float32 (1e300, 3.5e38).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgbt as tg

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")
ensemble = pytest.importorskip("sklearn.ensemble")

REL_TOL = 1e-5
N_ROWS = 300
BEYOND_FLOAT32 = (1e300, -1e300, 3.5e38)


def _data(task, seed=0, nan=True, zeros=False):
    """Five features: plain, with NaN, rounded (ties at data values), 1e7 + quarter steps,
    1.6e9 timestamps; with ``zeros`` a share of exact zeros in the first two."""
    rng = np.random.default_rng(seed)
    n = N_ROWS
    X = np.column_stack(
        [
            rng.normal(size=n),
            rng.normal(size=n) * 3,
            np.round(rng.normal(size=n) * 4, 1),
            1e7 + 0.25 * rng.integers(0, 400, n),
            1.6e9 + rng.integers(0, 86_400 * 30, n),
        ]
    )
    if zeros:
        X[rng.random(n) < 0.3, 0] = 0.0
        X[rng.random(n) < 0.3, 1] = 0.0
    signal = X[:, 0] + 0.5 * X[:, 2] + (X[:, 3] - 1e7) / 25 + (X[:, 4] - 1.6e9) / 1e6
    if nan:
        X[rng.random(n) < 0.1, 1] = np.nan
    if task == "regression":
        return X, signal + rng.normal(size=n) * 0.3
    if task == "binary":
        return X, (signal + rng.normal(size=n) > np.median(signal)).astype(int)
    return X, np.digitize(signal + rng.normal(size=n) * 0.5, np.quantile(signal, [1 / 3, 2 / 3]))


def _probes(t):
    t = np.asarray(t, dtype=np.float64)
    t = t[np.isfinite(t)]
    return np.concatenate(
        [
            t,
            np.nextafter(t, -np.inf),
            np.nextafter(t, np.inf),
            t + 1e-9 * np.abs(t),
            t + 1e-7 * np.abs(t),
        ]
    )


def probe_rows(model, X, beyond=False):
    """One row per probe of every threshold of every tree (other features: a data row),
    the data itself, and with ``beyond`` rows holding values beyond float32."""
    rows = [X]
    base = X[len(X) // 2]
    for tree in model.trees_:
        split = ~tree.is_leaf
        for j in np.unique(tree.feature[split]):
            p = _probes(tree.threshold[split][tree.feature[split] == j])
            block = np.tile(base, (len(p), 1))
            block[:, j] = p
            rows.append(block)
    if beyond:
        for v in BEYOND_FLOAT32:
            block = np.tile(base, (X.shape[1], 1))
            block[np.arange(X.shape[1]), np.arange(X.shape[1])] = v
            rows.append(block)
    return np.vstack(rows)


def worst_gap(ours, theirs):
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float).reshape(np.shape(ours))
    return float(np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs))))


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", tg.io.ImportAssumptionWarning)  # the self-check passes
        return fn(*args, **kw)


# ---------------------------------------------------------------------------- LightGBM
LGB_CASES = {
    "binary": ("binary", {}),
    "regression": ("regression", {}),
    "multiclass": ("multiclass", {}),
    "use_missing=false": ("binary", {"use_missing": False}),
    "zero_as_missing": ("binary", {"zero_as_missing": True}),
    "zero_as_missing-regression": ("regression", {"zero_as_missing": True}),
}


@pytest.mark.parametrize("case", list(LGB_CASES))
@pytest.mark.parametrize("route", ["live", "file"])
def test_lightgbm_probes(case, route, tmp_path):
    task, extra = LGB_CASES[case]
    X, y = _data(task, zeros="zero_as_missing" in extra)
    Est = lgb.LGBMRegressor if task == "regression" else lgb.LGBMClassifier
    est = Est(n_estimators=15, num_leaves=8, min_child_samples=5, verbose=-1, n_jobs=1, **extra)
    est.fit(X, y)
    source = est
    if route == "file":
        source = tmp_path / "m.txt"
        est.booster_.save_model(source)
    model = _quiet(tg.from_lightgbm, source)
    P = probe_rows(model, X, beyond=True)
    if "zero_as_missing" in extra:
        P = np.vstack([P, np.where(np.isnan(P), 0.0, P), np.where(P == 0, 1e-36, P)])
    theirs = est.booster_.predict(P, raw_score=True)
    assert worst_gap(model.decision_function(P), theirs) <= REL_TOL


def test_lightgbm_single_leaf_trees_open(tmp_path):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    est = lgb.LGBMClassifier(n_estimators=100, min_sum_hessian_in_leaf=5, verbose=-1, n_jobs=1).fit(
        X, y
    )
    text = est.booster_.model_to_string()
    assert "leaf_weight=\n" in text  # LightGBM writes a single-leaf tree's line empty
    path = tmp_path / "iris.txt"
    est.booster_.save_model(path)
    for source in (est, path):
        model = _quiet(tg.from_lightgbm, source)
        assert sum(t.n_leaves == 1 for t in model.trees_) > 0
        theirs = est.booster_.predict(X, raw_score=True)
        assert worst_gap(model.decision_function(X), theirs) <= REL_TOL
        np.testing.assert_allclose(model.predict_proba(X), est.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("route", ["live", "file"])
def test_lightgbm_two_class_softmax(route, tmp_path):
    X, y = _data("binary")
    est = lgb.LGBMClassifier(
        objective="multiclass", num_class=2, n_estimators=10, num_leaves=6, verbose=-1, n_jobs=1
    ).fit(X, y)
    source = est
    if route == "file":
        source = tmp_path / "k2.txt"
        est.booster_.save_model(source)
    model = _quiet(tg.from_lightgbm, source)
    assert model.decision_function(X).shape == (len(X), 2)  # two margins, a softmax
    P = probe_rows(model, X)
    assert worst_gap(model.decision_function(P), est.booster_.predict(P, raw_score=True)) <= 1e-5
    # margins are summed in float32, LightGBM's in float64
    np.testing.assert_allclose(model.predict_proba(P), est.predict_proba(P), atol=1e-6)
    if route == "live":
        np.testing.assert_array_equal(model.predict(X), est.predict(X))


def test_lightgbm_threshold_shown_as_lightgbm_writes_it():
    X, y = _data("binary")
    est = lgb.LGBMClassifier(n_estimators=2, num_leaves=4, verbose=-1, n_jobs=1).fit(X, y)
    model = _quiet(tg.from_lightgbm, est)
    tree = est.booster_.model_to_string().split("Tree=0")[1]
    written = next(ln for ln in tree.splitlines() if ln.startswith("threshold="))
    first = written.split("=")[1].split()[0]
    tree = model.trees_[0]
    assert f"Column_{tree.feature[0]} ≤ {first}" in str(tree)


# ---------------------------------------------------------------------------- XGBoost
@pytest.mark.parametrize("task", ["binary", "regression", "multiclass"])
@pytest.mark.parametrize("route", ["live", "json", "ubj"])
def test_xgboost_probes(task, route, tmp_path):
    X, y = _data(task)
    Est = xgb.XGBRegressor if task == "regression" else xgb.XGBClassifier
    est = Est(n_estimators=10, max_depth=3, n_jobs=1).fit(X, y)
    source = est
    if route != "live":
        source = tmp_path / f"m.{route}"
        est.save_model(source)
    model = _quiet(tg.from_xgboost, source, reg_lambda=1, learning_rate=0.3, gamma=0)
    P = probe_rows(model, X)  # XGBoost reads float32: 1e300 is not a float32 number
    theirs = est.get_booster().predict(xgb.DMatrix(P), output_margin=True)
    assert worst_gap(model.decision_function(P), theirs) <= REL_TOL


def test_xgboost_missing_zero(tmp_path):
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X = X[:300]
    y = y[:300]
    X = np.where(np.abs(X) < 0.01, 0.0, X)  # zeros that missing=0.0 reads as missing
    est = xgb.XGBRegressor(missing=0.0, n_estimators=10, max_depth=3, n_jobs=1).fit(X, y)
    path = tmp_path / "m.json"
    est.save_model(path)
    theirs = est.predict(X, output_margin=True)
    model = _quiet(tg.from_xgboost, est)
    assert worst_gap(model.decision_function(X), theirs) <= REL_TOL
    model = _quiet(tg.from_xgboost, path, missing=0.0, reg_lambda=1, learning_rate=0.3, gamma=0)
    assert worst_gap(model.decision_function(X), theirs) <= REL_TOL
    booster = est.get_booster()
    model = _quiet(tg.from_xgboost, booster, missing=0.0)
    assert worst_gap(model.decision_function(X), theirs) <= REL_TOL
    # without missing=, a file is read with NaN as the missing value: zeros route otherwise
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tg.io.ImportAssumptionWarning)
        as_nan = tg.from_xgboost(path, reg_lambda=1, learning_rate=0.3, gamma=0)
    assert worst_gap(as_nan.decision_function(X), theirs) > 1e-3
    with pytest.raises(ValueError, match="differs from the estimator's own missing"):
        tg.from_xgboost(est, missing=-1.0)
    # saved and loaded with the trees
    loaded = tg.load(_saved(model, tmp_path))
    assert worst_gap(loaded.decision_function(X), theirs) <= REL_TOL


def _saved(model, tmp_path):
    path = tmp_path / "teachgbt.json"
    model.save(path)
    return path


def test_xgboost_multi_output_tree_refused():
    X, y = _data("multiclass")
    est = xgb.XGBClassifier(
        n_estimators=2, multi_strategy="multi_output_tree", tree_method="hist", n_jobs=1
    ).fit(X, y)
    with pytest.raises(ValueError, match="several outputs per tree are not supported"):
        tg.from_xgboost(est)


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_iteration_range_is_xgboosts(task):
    X, y = _data(task)
    Est = xgb.XGBClassifier
    est = Est(n_estimators=12, max_depth=2, n_jobs=1).fit(X, y)
    model = _quiet(tg.from_xgboost, est)
    for rng in [(5, 10), (0, 0), (0, 12), (3, 0), (0, 1)]:
        theirs = est.get_booster().predict(xgb.DMatrix(X), output_margin=True, iteration_range=rng)
        ours = model.decision_function(X, iteration_range=rng)
        assert worst_gap(ours, theirs) <= REL_TOL, rng
    with pytest.raises(ValueError, match="0 <= start <= end"):
        model.decision_function(X, iteration_range=(5, 2))


# ---------------------------------------------------------------------------- scikit-learn
SK_TASKS = ["binary", "regression", "multiclass"]


def _sk_est(kind, task):
    if kind == "gb":
        Est = (
            ensemble.GradientBoostingRegressor
            if task == "regression"
            else ensemble.GradientBoostingClassifier
        )
        return Est(n_estimators=10, max_depth=3, random_state=0)
    Est = (
        ensemble.HistGradientBoostingRegressor
        if task == "regression"
        else ensemble.HistGradientBoostingClassifier
    )
    return Est(max_iter=10, max_leaf_nodes=8, random_state=0)


def _sk_margin(est, X):
    return est.predict(X) if not hasattr(est, "classes_") else est.decision_function(X)


@pytest.mark.parametrize("task", SK_TASKS)
@pytest.mark.parametrize("kind", ["gb", "hgb"])
def test_sklearn_probes(kind, task, tmp_path):
    X, y = _data(task, nan=kind == "hgb")
    est = _sk_est(kind, task).fit(X, y)
    model = _quiet(tg.from_sklearn, est)
    # HistGradientBoosting reads float64 (1e300 included); GradientBoosting float32
    P = probe_rows(model, X, beyond=kind == "hgb")
    assert worst_gap(model.decision_function(P), _sk_margin(est, P)) <= REL_TOL
    loaded = tg.load(_saved(model, tmp_path))  # the rule is saved with the trees
    assert worst_gap(loaded.decision_function(P), _sk_margin(est, P)) <= REL_TOL


def test_gradient_boosting_custom_init_refused_by_name():
    from sklearn.dummy import DummyRegressor
    from sklearn.naive_bayes import GaussianNB

    X, y = _data("binary", nan=False)
    est = ensemble.GradientBoostingClassifier(n_estimators=3, init=GaussianNB()).fit(X, y)
    with pytest.raises(ValueError, match="init=GaussianNB"):
        tg.from_sklearn(est)
    X, y = _data("regression", nan=False)
    est = ensemble.GradientBoostingRegressor(
        n_estimators=5, init=DummyRegressor(strategy="median")
    ).fit(X, y)
    model = _quiet(tg.from_sklearn, est)
    assert worst_gap(model.decision_function(X), est.predict(X)) <= REL_TOL


def test_values_beyond_float32_taken_where_the_library_takes_them():
    import pandas as pd

    X, y = _data("regression", nan=False)
    big = np.tile(X[:1], (3, 1))
    big[:, 0] = BEYOND_FLOAT32
    xgb_est = xgb.XGBRegressor(n_estimators=3, n_jobs=1).fit(X, y)
    xgb_model = _quiet(tg.from_xgboost, xgb_est)  # XGBoost reads 1e300 as float32 inf
    for rows in (big, pd.DataFrame(big)):
        assert worst_gap(xgb_model.predict(rows), xgb_est.predict(big)) <= REL_TOL
    own = tg.BoostingRegressor(n_estimators=3).fit(X, y)
    assert np.isfinite(own.predict(big)).all()
    est = lgb.LGBMRegressor(n_estimators=2, verbose=-1, n_jobs=1).fit(X, y)
    lgb_model = _quiet(tg.from_lightgbm, est)
    assert worst_gap(lgb_model.predict(big), est.predict(big)) <= REL_TOL
    gb = _quiet(tg.from_sklearn, ensemble.GradientBoostingRegressor(n_estimators=2).fit(X, y))
    with pytest.raises(ValueError, match="too large for float32"):  # as scikit-learn refuses
        gb.predict(big)
    with pytest.raises(ValueError, match="too large for float32"):  # training still refuses
        tg.BoostingRegressor(n_estimators=1).fit(big, y[:3])
    infinite = np.where(big == 1e300, np.inf, np.where(big == -1e300, -np.inf, big))
    assert worst_gap(xgb_model.predict(infinite), xgb_est.predict(infinite)) <= REL_TOL
    with pytest.raises(ValueError, match="infinite value"):  # as scikit-learn refuses
        gb.predict(infinite)


@pytest.mark.parametrize("route", ["live", "file"])
def test_self_check_runs_for_files_and_reports_the_worst_gap(route, tmp_path, monkeypatch):
    """With the old routing (every rule read as float32 x < t) the check must notice, on
    the probe rows, for a file as for a live model, and say the worst gap it saw."""
    import re

    from teachgbt.core import routing

    X, y = _data("binary")
    est = lgb.LGBMClassifier(n_estimators=10, num_leaves=8, verbose=-1, n_jobs=1).fit(X, y)
    source = est
    if route == "file":
        source = tmp_path / "m.txt"
        est.booster_.save_model(source)
    float32_lt = routing.RULES["xgboost"]
    monkeypatch.setitem(routing.RULES, "lightgbm", float32_lt)
    with pytest.warns(tg.io.ImportAssumptionWarning, match="differ from LightGBM's own") as w:
        model = tg.from_lightgbm(source)
    said = float(re.search(r"by up to ([0-9.e+-]+)", str(w[0].message)).group(1))
    P = tg.io._common.probe_rows(model.trees_, model.n_features_in_)
    gap = worst_gap(model.decision_function(P), est.booster_.predict(P, raw_score=True))
    assert said == pytest.approx(gap, rel=1e-2) and gap > 1e-3
