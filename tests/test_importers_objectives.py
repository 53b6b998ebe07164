"""Every objective, booster and forest of the three libraries opens with the library's numbers.

38 model kinds (issue 30), plus LightGBM's cross_entropy_lambda and rank_xendcg and a
three-class forest, each fitted here by the real library and opened by every route it
has (XGBoost: the estimator, a .json and a .ubj file; LightGBM: the estimator and a .txt
file; scikit-learn: the estimator). On probe rows at every threshold the model splits at
(the value, one float64 step and one float32 step either side), on ±inf in every feature
(where the library predicts them: all but scikit-learn's GradientBoosting and forests,
which refuse them, and so does the import) and on the data itself, the margins and the
transformed predictions (``predict``, and ``predict_proba`` for classifiers) equal the
library's to 1e-5 relative. Contributions equal the library's ``pred_contribs`` /
``pred_contrib``, or shap's for scikit-learn.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgbt as tg

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")
ensemble = pytest.importorskip("sklearn.ensemble")

REL_TOL = 1e-5
N_ROWS, N_FEATURES, N_TREES = 320, 4, 8
GROUP = 16  # rows per query of the ranking models


# ---------------------------------------------------------------------------- data
def data(nan=True, seed=0):
    """Four features with ties (rounded values, whole numbers) and, when the library takes
    them, missing values; the targets every kind below needs."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(N_ROWS, N_FEATURES)) * 20) / 20
    X[:, 3] = rng.integers(0, 6, N_ROWS)
    signal = X[:, 0] + 0.5 * X[:, 1] - 0.2 * X[:, 3]
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    noise = rng.normal(size=N_ROWS)
    positive = np.exp(0.5 * signal + 0.3 * noise)
    targets = {
        "positive": positive,
        "zeros": np.where(rng.random(N_ROWS) < 0.3, 0.0, positive),
        "counts": rng.poisson(positive).astype(float),
        "outliers": 3 * signal + noise + np.where(rng.random(N_ROWS) < 0.05, 20.0, 0.0),
        "binary": (signal + noise > 0).astype(int),
        "classes": np.digitize(signal + 0.5 * noise, [-0.5, 0.5]),
        "relevance": np.digitize(signal + 0.5 * noise, [-0.5, 0.3, 1.0]),
        "survival": np.where(rng.random(N_ROWS) < 0.3, -1.0, 1.0) * positive,
        "share": 1 / (1 + np.exp(-signal - noise)),
    }
    return X, targets


def _qid():
    return np.repeat(np.arange(N_ROWS // GROUP), GROUP)


def _xgb(objective, target, cls=None, **kw):
    def fit(X, t):
        Est = cls or xgb.XGBRegressor
        est = Est(objective=objective, n_estimators=N_TREES, max_depth=3, n_jobs=1, **kw)
        if Est is xgb.XGBRanker:
            return est.fit(X, t[target], qid=_qid())
        return est.fit(X, t[target])

    return ("xgboost", fit)


def _lgb(objective, target, cls=None, **kw):
    def fit(X, t):
        Est = cls or lgb.LGBMRegressor
        params = dict(n_estimators=N_TREES, num_leaves=7, min_child_samples=5, verbose=-1)
        est = Est(objective=objective, n_jobs=1, **params, **kw)
        if Est is lgb.LGBMRanker:
            return est.fit(X, t[target], group=[GROUP] * (N_ROWS // GROUP))
        return est.fit(X, t[target])

    return ("lightgbm", fit)


def _sk(Est, target, nan=True, **kw):
    def fit(X, t):
        rows = X if nan else np.nan_to_num(X)
        return Est(**kw).fit(rows, t[target])

    return ("sklearn", fit, nan)


GB, HGB = ensemble.GradientBoostingRegressor, ensemble.HistGradientBoostingRegressor
FORESTS = dict(n_estimators=N_TREES, max_depth=5, random_state=0)
KINDS = {
    # XGBoost
    "xgb reg:squaredlogerror": _xgb("reg:squaredlogerror", "positive"),
    "xgb reg:pseudohubererror": _xgb("reg:pseudohubererror", "outliers", huber_slope=2.0),
    "xgb reg:absoluteerror": _xgb("reg:absoluteerror", "outliers"),
    "xgb reg:quantileerror": _xgb("reg:quantileerror", "outliers", quantile_alpha=0.8),
    "xgb count:poisson": _xgb("count:poisson", "counts"),
    "xgb reg:gamma": _xgb("reg:gamma", "positive"),
    "xgb reg:tweedie": _xgb("reg:tweedie", "zeros", tweedie_variance_power=1.3),
    "xgb binary:logitraw": _xgb("binary:logitraw", "binary", xgb.XGBClassifier),
    "xgb binary:hinge": _xgb("binary:hinge", "binary", xgb.XGBClassifier),
    "xgb survival:cox": _xgb("survival:cox", "survival"),
    "xgb rank:ndcg": _xgb("rank:ndcg", "relevance", xgb.XGBRanker),
    "xgb rank:pairwise": _xgb("rank:pairwise", "relevance", xgb.XGBRanker),
    "xgb dart": _xgb(
        "binary:logistic",
        "binary",
        xgb.XGBClassifier,
        booster="dart",
        rate_drop=0.3,
        random_state=0,
    ),  # fmt: skip
    # LightGBM
    "lgb regression_l1": _lgb("regression_l1", "outliers"),
    "lgb huber": _lgb("huber", "outliers", alpha=2.0),
    "lgb fair": _lgb("fair", "outliers", fair_c=0.5),
    "lgb poisson": _lgb("poisson", "counts"),
    "lgb quantile": _lgb("quantile", "outliers", alpha=0.8),
    "lgb mape": _lgb("mape", "positive"),
    "lgb gamma": _lgb("gamma", "positive"),
    "lgb tweedie": _lgb("tweedie", "zeros", tweedie_variance_power=1.3),
    "lgb cross_entropy": _lgb("cross_entropy", "share"),
    "lgb multiclassova": _lgb("multiclassova", "classes", lgb.LGBMClassifier),
    "lgb lambdarank": _lgb("lambdarank", "relevance", lgb.LGBMRanker),
    "lgb dart": _lgb("binary", "binary", lgb.LGBMClassifier, boosting_type="dart"),
    "lgb rf": _lgb(
        "binary", "binary", lgb.LGBMClassifier, boosting_type="rf", subsample=0.7, subsample_freq=1
    ),  # fmt: skip
    # scikit-learn
    "GBR absolute_error": _sk(GB, "outliers", False, loss="absolute_error", n_estimators=N_TREES),
    "GBR huber": _sk(GB, "outliers", False, loss="huber", n_estimators=N_TREES),
    "GBR quantile": _sk(GB, "outliers", False, loss="quantile", alpha=0.8, n_estimators=N_TREES),
    "GBC exponential": _sk(
        ensemble.GradientBoostingClassifier,
        "binary",
        False,
        loss="exponential",
        n_estimators=N_TREES,
    ),  # fmt: skip
    "HGBR absolute_error": _sk(HGB, "outliers", loss="absolute_error", max_iter=N_TREES),
    "HGBR gamma": _sk(HGB, "positive", loss="gamma", max_iter=N_TREES),
    "HGBR poisson": _sk(HGB, "counts", loss="poisson", max_iter=N_TREES),
    "HGBR quantile": _sk(HGB, "outliers", loss="quantile", quantile=0.8, max_iter=N_TREES),
    "RandomForestRegressor": _sk(ensemble.RandomForestRegressor, "positive", **FORESTS),
    "RandomForestClassifier": _sk(ensemble.RandomForestClassifier, "binary", **FORESTS),
    "ExtraTreesRegressor": _sk(ensemble.ExtraTreesRegressor, "positive", **FORESTS),
    "ExtraTreesClassifier": _sk(ensemble.ExtraTreesClassifier, "binary", **FORESTS),
}
THE_38 = list(KINDS)
KINDS.update(
    {
        "lgb cross_entropy_lambda": _lgb("cross_entropy_lambda", "share"),
        "lgb rank_xendcg": _lgb("rank_xendcg", "relevance", lgb.LGBMRanker),
        "RandomForestClassifier 3 classes": _sk(
            ensemble.RandomForestClassifier, "classes", **FORESTS
        ),
    }
)
ROUTES = {"xgboost": ("live", "json", "ubj"), "lightgbm": ("live", "txt"), "sklearn": ("live",)}
CASES = [(kind, route) for kind, spec in KINDS.items() for route in ROUTES[spec[0]]]


# ---------------------------------------------------------------------------- the library
def fit(kind):
    """(the fitted library estimator, the X it was fitted on)."""
    spec = KINDS[kind]
    X, targets = data(nan=spec[2] if len(spec) > 2 else True)
    return spec[1](X, targets), X


def _quiet(fn, *args):
    """``fn(*args)``, failing if the import's self-check against the library warns (files
    may still warn that the training parameters were assumed)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", tg.io.ImportAssumptionWarning)
        out = fn(*args)
    for w in seen:
        assert "differ" not in str(w.message) and "could not" not in str(w.message), w.message
    return out


class Library:
    """The library's own margins and transformed predictions of a model, by its own API
    (XGBoost's inplace_predict, which takes ±inf as XGBRegressor.predict does)."""

    def __init__(self, kind, est, route, path):
        self.lib = KINDS[kind][0]
        self.est = est if route == "live" else None
        if self.lib == "xgboost":
            self.booster = est.get_booster() if route == "live" else xgb.Booster(model_file=path)
        elif self.lib == "lightgbm":
            self.booster = est.booster_ if route == "live" else lgb.Booster(model_file=path)
            self.scale = 1.0
            if "average_output" in self.booster.model_to_string():  # rf: raw is the sum
                self.scale = self.booster.num_trees() / self.booster.num_model_per_iteration()
        self.classifier = hasattr(est, "classes_") and not isinstance(est, xgb.XGBRanker)

    def margin(self, X):
        if self.lib == "xgboost":
            return self.booster.inplace_predict(X, predict_type="margin")
        if self.lib == "lightgbm":
            return self.booster.predict(X, raw_score=True) / self.scale
        kind = type(self.est).__name__
        if kind.startswith(("RandomForest", "ExtraTrees")):
            if not self.classifier:
                return self.est.predict(X)
            proba = self.est.predict_proba(X)
            return proba[:, 1] if proba.shape[1] == 2 else proba
        if self.classifier:
            return self.est.decision_function(X)
        rows = X if kind.startswith("Hist") else X.astype(np.float32)
        return self.est._raw_predict(rows).ravel()

    def transformed(self, X):
        """predict_proba for a classifier estimator, else the prediction (the booster's)."""
        if self.est is not None and self.classifier:
            return self.est.predict_proba(X)
        if self.lib == "xgboost":
            return self.booster.inplace_predict(X)
        if self.lib == "lightgbm":
            return self.booster.predict(X)
        return self.est.predict(X)

    def labels(self, X):
        return self.est.predict(X) if self.est is not None and self.classifier else None


def open_model(kind, route, tmp_path):
    """(the imported teachgbt model, the Library view of the same model, its X)."""
    est, X = fit(kind)
    lib = KINDS[kind][0]
    path = None
    if route == "live":
        source = est
    elif lib == "xgboost":
        path = tmp_path / f"m.{route}"
        est.save_model(path)
        source = path
    else:
        path = tmp_path / "m.txt"
        est.booster_.save_model(path)
        source = path
    reader = {"xgboost": tg.from_xgboost, "lightgbm": tg.from_lightgbm, "sklearn": tg.from_sklearn}
    model = _quiet(reader[lib], source)
    return model, Library(kind, est, route, path), X


# ---------------------------------------------------------------------------- probes
def probe_rows(model, X, infinite):
    """The data; for every threshold of every tree, a row at it, one float64 step and one
    float32 step either side; with ``infinite`` ±inf in each feature in turn."""
    rows = [X]
    base = np.nan_to_num(X[len(X) // 2])
    for tree in model.trees_:
        split = ~tree.is_leaf
        for j, t in zip(tree.feature[split], tree.threshold[split]):
            if not np.isfinite(t):
                continue
            t32 = np.float32(t)
            down32, up32 = (np.nextafter(t32, np.float32(s)) for s in (-np.inf, np.inf))
            values = [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), down32, up32]
            block = np.tile(base, (len(values), 1))
            block[:, j] = np.asarray(values, dtype=np.float64)
            rows.append(block)
    if infinite:
        for v in (np.inf, -np.inf):
            block = np.tile(base, (X.shape[1], 1))
            block[np.arange(X.shape[1]), np.arange(X.shape[1])] = v
            rows.append(block)
    return np.vstack(rows)


def worst_gap(ours, theirs):
    ours = np.asarray(ours, dtype=np.float64)
    theirs = np.asarray(theirs, dtype=np.float64).reshape(ours.shape)
    return float(np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs))))


def takes_inf(kind):
    return not kind.startswith(("GB", "RandomForest", "ExtraTrees"))


def gaps(kind, route, tmp_path):
    """(worst margin gap, worst transformed-prediction gap) of one kind and route over its
    probe rows; also checks the predicted labels of classifiers."""
    model, library, X = open_model(kind, route, tmp_path)
    rows = probe_rows(model, X, takes_inf(kind))
    margin = worst_gap(model.decision_function(rows), library.margin(rows))
    if library.classifier and library.est is not None:
        ours = model.predict_proba(rows)
        np.testing.assert_array_equal(model.predict(rows), library.labels(rows))
    else:
        ours = model.model_.predict(model._validate_X_predict(rows))
    return margin, worst_gap(ours, library.transformed(rows))


@pytest.mark.parametrize("kind, route", CASES, ids=[f"{k}-{r}" for k, r in CASES])
def test_margins_and_predictions_equal_the_librarys(kind, route, tmp_path):
    margin, transformed = gaps(kind, route, tmp_path)
    assert margin <= REL_TOL, f"margins differ by up to {margin:.3g}"
    assert transformed <= REL_TOL, f"predictions differ by up to {transformed:.3g}"


def test_the_38_kinds_are_all_here():
    assert len(THE_38) == 38


@pytest.mark.parametrize("kind", ["GBR huber", "RandomForestClassifier", "ExtraTreesRegressor"])
def test_infinite_rows_refused_where_the_library_refuses_them(kind, tmp_path):
    model, library, X = open_model(kind, "live", tmp_path)
    row = np.nan_to_num(X[:1]).copy()
    row[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        library.est.predict(row)
    with pytest.raises(ValueError, match="infinite value"):
        model.predict(row)


# ---------------------------------------------------------------------------- contributions
CONTRIB_TOL = 1e-5


def _ours(model, X, class_=None):
    c = tg.explain.contributions(model, X, class_=class_)
    return c.drop(columns="bias").to_numpy(), c["bias"].to_numpy()


def _library_contributions(kind, library, X):
    """Per output: (phi (n, d), bias (n,)) by the library's own TreeSHAP, or shap's."""
    d = X.shape[1]
    if library.lib == "xgboost":
        pc = library.booster.predict(xgb.DMatrix(X), pred_contribs=True)
        return [(pc[:, :d], pc[:, d])]
    if library.lib == "lightgbm":
        pc = library.booster.predict(X, pred_contrib=True) / library.scale
        K = pc.shape[1] // (d + 1)
        return [(pc[:, k * (d + 1) : k * (d + 1) + d], pc[:, k * (d + 1) + d]) for k in range(K)]
    shap = pytest.importorskip("shap")
    est = library.est
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if type(est).__name__.startswith("Gradient"):
            explainer = shap.TreeExplainer(
                _shap_dict(est), feature_perturbation="tree_path_dependent"
            )
        else:
            explainer = shap.TreeExplainer(est, feature_perturbation="tree_path_dependent")
        values = np.asarray(explainer.shap_values(X))
    expected = np.atleast_1d(explainer.expected_value)
    if values.ndim == 2:
        values, expected = values[:, :, None], expected[:1]
    outputs = range(values.shape[2])
    if values.shape[2] == 2:  # a two-class forest: teachgbt's one margin is class 1's
        outputs = [1]
    return [(values[:, :, k], np.full(len(X), expected[k])) for k in outputs]


def _shap_dict(est):
    """A GradientBoosting model as shap's generic tree dict (× η, from its raw start), so
    that shap explains every loss alike."""
    start = est._raw_predict_init(np.zeros((1, est.n_features_in_), dtype=np.float32))[0, 0]
    trees = [
        {
            "children_left": t.children_left,
            "children_right": t.children_right,
            "children_default": t.children_left,
            "features": t.feature,
            "thresholds": t.threshold,
            "values": t.value[:, 0, :1] * est.learning_rate,
            "node_sample_weight": t.weighted_n_node_samples,
        }
        for t in (e.tree_ for e in est.estimators_[:, 0])
    ]
    return {"trees": trees, "base_offset": start}


@pytest.mark.parametrize("kind", list(KINDS))
def test_contributions_equal_the_librarys(kind, tmp_path):
    model, library, X = open_model(kind, "live", tmp_path)
    X = X[:80]
    theirs = _library_contributions(kind, library, X)
    K = model.model_.n_outputs
    assert len(theirs) == K
    for k, (phi_t, bias_t) in enumerate(theirs):
        phi, bias = _ours(model, X, k if K > 1 else None)
        np.testing.assert_allclose(phi, phi_t, atol=CONTRIB_TOL, rtol=1e-5)
        np.testing.assert_allclose(bias, bias_t, atol=CONTRIB_TOL, rtol=1e-5)


def test_dart_weights_and_forest_averages_are_in_the_trees(tmp_path):
    """XGBoost dart's weight_drop (not all 1 here) multiplies each tree's leaves and is
    shown; a forest's trees add leaf / n with learning rate 1/n."""
    model, _, _ = open_model("xgb dart", "live", tmp_path)
    weights = np.array([tree.extra["weight_drop"][0] for tree in model.trees_])
    assert (weights < 1).any()
    for tree, w in zip(model.trees_, weights):
        leaf = tree.is_leaf
        np.testing.assert_allclose(tree.value[leaf], tree.weight[leaf] * 0.3 * w, rtol=1e-6)
    forest, _, _ = open_model("RandomForestRegressor", "live", tmp_path)
    for tree in forest.trees_:
        assert tree.learning_rate == 1 / N_TREES
        np.testing.assert_allclose(tree.value, tree.weight / N_TREES)


@pytest.mark.parametrize("kind", list(KINDS))
def test_saved_and_loaded_predicts_the_same(kind, tmp_path):
    """teachgbt's own file keeps the objective, its parameters and the trees: a loaded
    model predicts (margins and transformed) exactly as the import."""
    model, _, X = open_model(kind, "live", tmp_path)
    model.save(tmp_path / "m.json")
    again = tg.load(tmp_path / "m.json")
    assert again.loss_.name == model.loss_.name and type(again) is type(model)
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


@pytest.mark.parametrize("kind", ["lgb poisson", "xgb binary:hinge", "xgb reg:quantileerror"])
def test_command_line_explains_a_row_through_the_link(kind, tmp_path, capsys):
    """``teachgbt explain FILE --data CSV --row I``: the margin round by round, then the
    prediction through the objective's link (e^margin, the hinge's 0/1), as the library's."""
    import pandas as pd

    from teachgbt.cli import main

    est, X = fit(kind)
    path = tmp_path / ("m.txt" if KINDS[kind][0] == "lightgbm" else "m.json")
    (est.booster_ if KINDS[kind][0] == "lightgbm" else est).save_model(path)
    names = [f"Column_{j}" if KINDS[kind][0] == "lightgbm" else f"f{j}" for j in range(N_FEATURES)]
    pd.DataFrame(X, columns=names).to_csv(tmp_path / "d.csv", index=False)
    code = main(["explain", str(path), "--data", str(tmp_path / "d.csv"), "--row", "3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    library = Library(kind, est, "file", path)
    expected = library.transformed(X[3:4])
    if kind == "xgb reg:quantileerror":  # identity: the margin is the prediction
        assert "prediction after" not in out
        return
    last = [ln for ln in out.splitlines() if ln.strip().split(" ")[0].isdigit()][-1]
    assert "prediction after" in out
    assert np.isclose(float(last.split()[-1]), float(np.ravel(expected)[0]), rtol=1e-3, atol=1e-4)
