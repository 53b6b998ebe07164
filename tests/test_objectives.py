"""Every trainable objective: g and h as their formulas say, and trees and margins as XGBoost's.

* g and h from ``grad_hess`` equal the derivatives of the loss itself (central finite
  differences of ``Loss.loss``), and where XGBoost replaces the true hessian (absolute
  error, quantiles, hinge: 0; Poisson: e^ŷ) the value XGBoost uses instead, written
  out by hand here.
* Both tree methods (exact, hist) train each objective to XGBoost's model, trained in
  the same test: the same split at every node (feature, threshold, missing side), leaf
  values and margins on unseen rows with ties and NaN to 1e-5 relative, the base score
  given and estimated, with and without sample weights. hist refreshes the leaves of
  absolute error and quantiles as XGBoost does; exact does not (XGBoost's neither).
* The trace's g, h columns are the objective's derivatives at the trace's margins,
  computed here from the hand formulas.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from xgb_compare import compare_tree, xgb_trees

import teachgbt as tg
from teachgbt.core import losses

xgb = pytest.importorskip("xgboost")

REL_TOL = 1e-5
N_ROWS, N_UNSEEN = 300, 200
ROUNDS = 6

# objective -> (its parameters, how y is drawn, a base_score to give)
OBJECTIVES = {
    "reg:squaredlogerror": ({}, "positive", 1.5),
    "reg:pseudohubererror": ({"huber_slope": 2.0}, "outliers", 0.5),
    "reg:absoluteerror": ({}, "outliers", 1.0),
    "reg:quantileerror": ({"quantile_alpha": 0.8}, "outliers", 2.0),
    "count:poisson": ({}, "counts", 2.0),
    "reg:gamma": ({}, "positive", 3.0),
    "reg:tweedie": ({"tweedie_variance_power": 1.3}, "zeros", 1.0),
    "binary:logitraw": ({}, "binary", 0.3),
    "binary:hinge": ({}, "binary", 0.0),
}
CLASSIFIERS = ("binary:logitraw", "binary:hinge")


def _X(n, seed):
    """Features with ties (rounded columns) and missing values; at most 256 distinct
    values each, so that hist's bins are XGBoost's (every distinct value a cut)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)) * 40) / 40
    X[:, 1] = np.round(X[:, 1] * 2) / 2  # few distinct values: ties
    X[:, 3] = rng.integers(0, 5, n)  # ties at whole numbers
    X[rng.random(X.shape) < 0.1] = np.nan
    return X


def _y(kind, X, seed):
    rng = np.random.default_rng(seed + 1)
    signal = np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) - 0.3 * np.nan_to_num(X[:, 3])
    if kind == "positive":
        return np.exp(0.5 * signal + 0.3 * rng.normal(size=len(X)))
    if kind == "outliers":
        y = 3 * signal + rng.normal(size=len(X))
        y[rng.random(len(X)) < 0.05] += 30
        return y
    if kind == "counts":
        return rng.poisson(np.exp(0.6 * signal + 0.5)).astype(float)
    if kind == "zeros":
        return np.where(rng.random(len(X)) < 0.4, 0.0, np.exp(0.5 * signal + 1))
    return (signal + 0.5 * rng.normal(size=len(X)) > 0).astype(float)


def _data(objective, seed=0):
    kind = OBJECTIVES[objective][1]
    X = _X(N_ROWS + N_UNSEEN, seed)
    y = _y(kind, X, seed)
    return X[:N_ROWS], y[:N_ROWS], X[N_ROWS:]


def _xgb_params(objective, extra, tree_method, base_score, max_delta_step=None):
    params = {
        "objective": objective,
        "tree_method": tree_method,
        "max_depth": 3,
        "eta": 0.3,
        "lambda": 1.0,
        "min_child_weight": 1.0,
        "nthread": 1,
        **extra,
    }
    if base_score is not None:
        params["base_score"] = base_score
    if max_delta_step is not None:
        params["max_delta_step"] = max_delta_step
    return params


def _fit_both(objective, tree_method, given_base, weighted=False, max_delta_step=None, seed=0):
    extra = OBJECTIVES[objective][0]
    X, y, X_new = _data(objective, seed)
    w = np.random.default_rng(seed + 7).uniform(0.5, 2.0, len(y)) if weighted else None
    base = OBJECTIVES[objective][2] if given_base else None
    params = _xgb_params(objective, extra, tree_method, base, max_delta_step)
    booster = xgb.train(params, xgb.DMatrix(X, y, weight=w), ROUNDS)
    Est = tg.BoostingClassifier if objective in CLASSIFIERS else tg.BoostingRegressor
    est = Est(
        objective=objective,
        tree_method=tree_method,
        n_estimators=ROUNDS,
        max_depth=3,
        learning_rate=0.3,
        base_score=base,
        max_delta_step=max_delta_step,
        **extra,
    ).fit(X, y, sample_weight=w)
    return est, booster, X, X_new


def _gap(ours, theirs):
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    return float(np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs))))


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
@pytest.mark.parametrize("given_base", [False, True], ids=["estimated", "given"])
@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_trains_as_xgboost(objective, tree_method, given_base):
    est, booster, X, X_new = _fit_both(objective, tree_method, given_base)
    stored = json.loads(booster.save_config())["learner"]["learner_model_param"]["base_score"]
    assert np.isclose(est.base_score_, float(stored.strip("[]")), rtol=1e-6, atol=1e-7)
    for k, (ours, theirs) in enumerate(zip(est.trees_, xgb_trees(booster))):
        assert compare_tree(ours, theirs, leaf_atol=1e-5, X=X) == [], f"tree {k}"
    for rows in (X, X_new):
        dm = xgb.DMatrix(rows)
        assert _gap(est.decision_function(rows), booster.predict(dm, output_margin=True)) <= REL_TOL
        assert (
            _gap(est.model_.predict(est._validate_X_predict(rows)), booster.predict(dm)) <= REL_TOL
        )


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_weighted_rows_and_deeper_trees(objective, tree_method):
    """Sample weights scale g and h and enter every estimated base score (weighted mean,
    weighted median/quantile, weighted Newton step)."""
    est, booster, X, X_new = _fit_both(objective, tree_method, False, weighted=True, seed=3)
    stored = json.loads(booster.save_config())["learner"]["learner_model_param"]["base_score"]
    assert np.isclose(est.base_score_, float(stored.strip("[]")), rtol=1e-6, atol=1e-7)
    for k, (ours, theirs) in enumerate(zip(est.trees_, xgb_trees(booster))):
        assert compare_tree(ours, theirs, leaf_atol=1e-5, X=X) == [], f"tree {k}"
    dm = xgb.DMatrix(X_new)
    assert _gap(est.decision_function(X_new), booster.predict(dm, output_margin=True)) <= REL_TOL


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
@pytest.mark.parametrize("max_delta_step", [None, 0.0, 0.3])
def test_poisson_max_delta_step(tree_method, max_delta_step):
    """Unset, count:poisson's max_delta_step is 0.7 in the hessian and on the leaves; set
    (even to 0), it is the value given in both."""
    est, booster, X, X_new = _fit_both(
        "count:poisson", tree_method, False, max_delta_step=max_delta_step
    )
    expected = 0.7 if max_delta_step is None else max_delta_step
    assert est.params_.max_delta_step == expected
    assert est.loss_.max_delta_step == expected
    for ours, theirs in zip(est.trees_, xgb_trees(booster)):
        assert compare_tree(ours, theirs, leaf_atol=1e-5, X=X) == []
    dm = xgb.DMatrix(X_new)
    assert _gap(est.decision_function(X_new), booster.predict(dm, output_margin=True)) <= REL_TOL


def test_poisson_leaf_is_clipped_at_max_delta_step():
    """The facts' example: y = 1,1,1,1,1,100 in one leaf: w* = 2.276 unclipped, so the leaf
    is η·0.7 = 0.21 (learning rate 0.3)."""
    X = np.arange(6.0).reshape(-1, 1)
    y = np.array([1, 1, 1, 1, 1, 100.0])
    est = tg.BoostingRegressor(  # gamma prunes the one split: the root is the leaf
        objective="count:poisson", n_estimators=1, max_depth=1, gamma=1e9, base_score=1.0
    ).fit(X, y)
    root = est.trees_[0]
    G, H = root.G[0], root.H[0]
    assert np.isclose(G, 6 - y.sum()) and np.isclose(H, 6 * np.exp(0.7), rtol=1e-6)
    assert -G / (H + 1) > 0.7  # unclipped it would step further
    assert np.isclose(root.value[0], 0.3 * 0.7, rtol=1e-6)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 0.9])
def test_quantile_alphas_and_their_metric(alpha):
    X, y, X_new = _data("reg:quantileerror")
    y_new = _y("outliers", _X(N_ROWS + N_UNSEEN, 0), 0)[N_ROWS:]
    params = _xgb_params("reg:quantileerror", {"quantile_alpha": alpha}, "hist", None)
    res = {}
    booster = xgb.train(
        params,
        xgb.DMatrix(X, y),
        ROUNDS,
        evals=[(xgb.DMatrix(X_new, y_new), "v")],
        evals_result=res,
        verbose_eval=False,
    )
    est = tg.BoostingRegressor(
        objective="reg:quantileerror",
        quantile_alpha=alpha,
        tree_method="hist",
        n_estimators=ROUNDS,
        max_depth=3,
    ).fit(X, y, eval_set=[(X_new, y_new)])
    assert (
        _gap(est.decision_function(X_new), booster.predict(xgb.DMatrix(X_new), output_margin=True))
        <= REL_TOL
    )
    ours = est.evals_result_["validation_0"]["quantile"]
    np.testing.assert_allclose(ours, res["v"]["quantile"], rtol=1e-5)


@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_eval_metric_is_xgboosts(objective):
    """Each objective's default metric, round by round on an eval set, as XGBoost reports it."""
    extra = OBJECTIVES[objective][0]
    X, y, X_new = _data(objective)
    y_new = _y(OBJECTIVES[objective][1], _X(N_ROWS + N_UNSEEN, 0), 0)[N_ROWS:]
    res = {}
    xgb.train(
        _xgb_params(objective, extra, "hist", None),
        xgb.DMatrix(X, y),
        ROUNDS,
        evals=[(xgb.DMatrix(X_new, y_new), "v")],
        evals_result=res,
        verbose_eval=False,
    )
    Est = tg.BoostingClassifier if objective in CLASSIFIERS else tg.BoostingRegressor
    est = Est(objective=objective, tree_method="hist", n_estimators=ROUNDS, max_depth=3, **extra)
    est.fit(X, y, eval_set=[(X_new, y_new)])
    ((name, theirs),) = res["v"].items()
    ours = est.evals_result_["validation_0"]
    assert list(ours) == [name]
    np.testing.assert_allclose(ours[name], theirs, rtol=2e-5, atol=1e-6)


# ---------------------------------------------------------------- g and h, independently
def _hand(objective, y, m, params):
    """g and h as XGBoost computes them, written out from its formulas (float64)."""
    d = m - y
    if objective == "reg:squaredlogerror":
        p = np.maximum(m, -1 + 1e-6)
        g = (np.log1p(p) - np.log1p(y)) / (p + 1)
        return g, np.maximum((1 - np.log1p(p) + np.log1p(y)) / (p + 1) ** 2, 1e-6)
    if objective == "reg:pseudohubererror":
        s = params["huber_slope"]
        root = np.sqrt(1 + d**2 / s**2)
        return d / root, s**2 / ((s**2 + d**2) * root)
    if objective == "reg:absoluteerror":
        return np.sign(d), np.ones_like(d)
    if objective == "reg:quantileerror":
        a = float(np.float32(params["quantile_alpha"]))  # XGBoost keeps α as a float
        return np.where(d >= 0, 1 - a, -a), np.ones_like(d)
    if objective == "count:poisson":
        return np.exp(m) - y, np.exp(m + 0.7)
    if objective == "reg:gamma":
        return 1 - y * np.exp(-m), y * np.exp(-m)
    if objective == "reg:tweedie":
        r = params["tweedie_variance_power"]
        a, b = np.exp((1 - r) * m), np.exp((2 - r) * m)
        return -y * a + b, -y * (1 - r) * a + (2 - r) * b
    if objective == "binary:logitraw":
        p = 1 / (1 + np.exp(-m))
        return p - y, p * (1 - p)
    t = 2 * y - 1  # binary:hinge
    inside = t * m < 1
    return np.where(inside, -t, 0.0), np.where(inside, 1.0, np.finfo(np.float32).tiny)


def _points(objective, seed=0):
    """Labels and margins away from any kink (|ŷ − y| > 0.05, t·ŷ ≠ 1)."""
    rng = np.random.default_rng(seed)
    kind = OBJECTIVES[objective][1]
    y = _y(kind, rng.normal(size=(40, 4)), seed)
    m = rng.normal(size=40) + (np.log(np.mean(y) + 1) if kind != "binary" else 0)
    m = np.maximum(m, -0.9)  # squared log error floors ŷ at −1 + 1e-6
    keep = (np.abs(m - y) > 0.05) & (np.abs(np.abs(m) - 1) > 0.05)
    return y[keep], m[keep]


def _per_row_loss(loss, y, m):
    return np.array([loss.loss(y[i : i + 1], m[i : i + 1]) for i in range(len(y))])


# where XGBoost's h is not the loss's second derivative, what it uses instead, per row
_NOT_SECOND_DERIVATIVE = {
    "reg:absoluteerror": "h = 1: the true h is 0 (then the leaf is refreshed, see hist)",
    "reg:quantileerror": "h = 1: the true h is 0 (then the leaf is refreshed, see hist)",
    "binary:hinge": "h = 1 inside the margin, FLT_MIN outside: the true h is 0",
    "count:poisson": "h = e^(ŷ + 0.7): the true h is e^ŷ, inflated by max_delta_step",
}


@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_g_h_are_the_derivatives_of_the_loss(objective):
    params = OBJECTIVES[objective][0]
    loss = losses.get_loss(objective, objective in CLASSIFIERS, **params)
    y, m = _points(objective)
    g, h = loss.grad_hess(y, m)
    step = 1e-4
    up, mid, down = (_per_row_loss(loss, y, m + e) for e in (step, 0.0, -step))
    np.testing.assert_allclose(g, (up - down) / (2 * step), rtol=1e-5, atol=1e-6)
    second = (up - 2 * mid + down) / step**2
    hand_g, hand_h = _hand(objective, y, m, params)
    np.testing.assert_allclose(g, hand_g, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, hand_h, rtol=1e-12, atol=1e-300)
    if objective in _NOT_SECOND_DERIVATIVE:
        expected = np.exp(m) if objective == "count:poisson" else np.zeros_like(m)
        np.testing.assert_allclose(second, expected, rtol=1e-3, atol=1e-4)
    elif objective == "reg:squaredlogerror":
        bends = h > 1e-6  # h is floored where the loss is not convex
        np.testing.assert_allclose(h[bends], second[bends], rtol=1e-3, atol=1e-5)
    else:
        np.testing.assert_allclose(h, second, rtol=1e-3, atol=1e-5)
    # float32, as XGBoost computes them: the same numbers to float32 rounding
    g32, h32 = loss.grad_hess(y, m, dtype=np.float32)
    assert g32.dtype == h32.dtype == np.float32
    np.testing.assert_allclose(g32, hand_g, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(h32, hand_h, rtol=2e-5, atol=1e-30)


@pytest.mark.parametrize("objective", list(OBJECTIVES))
def test_trace_g_h_are_the_hand_formulas(objective):
    est, _, X, _ = _fit_both(objective, "hist", False, weighted=True)
    w = np.random.default_rng(7).uniform(0.5, 2.0, len(X))  # the weights _fit_both drew
    for t in (1, ROUNDS):
        table = est.trace_.instances(t)
        # XGBoost's labels are float32: a margin may equal float32(y) but not y
        y = table["y"].to_numpy().astype(np.float32).astype(float)
        m = table["margin"].to_numpy()
        hand_g, hand_h = _hand(objective, y, m, {**OBJECTIVES[objective][0]})
        np.testing.assert_allclose(table["g"], hand_g * w, rtol=3e-5, atol=1e-5)
        np.testing.assert_allclose(table["h"], hand_h * w, rtol=3e-5, atol=1e-30)


# ---------------------------------------------------------------- the leaf refresh
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("objective", ["reg:absoluteerror", "reg:quantileerror"])
def test_hist_refreshes_leaves_to_the_residual_quantile(objective, weighted):
    """hist: each leaf is η × the α-quantile of its rows' residuals y − ŷ, computed here
    with numpy (unweighted: NIST's rank α(n+1), numpy's "weibull"; weighted: the first
    value whose cumulative weight reaches α·Σw, "inverted_cdf"); the Newton weight
    −G/(H+λ) stays beside it in the nodes table. exact keeps −G/(H+λ), as XGBoost's."""
    est, _, X, _ = _fit_both(objective, "hist", False, weighted=weighted)
    alpha = float(np.float32(OBJECTIVES[objective][0].get("quantile_alpha", 0.5)))
    w = np.random.default_rng(7).uniform(0.5, 2.0, len(X)) if weighted else None
    for t in (1, 3):
        table = est.trace_.instances(t)
        residual = table["y"].to_numpy().astype(np.float32) - table["margin"].to_numpy().astype(
            np.float32
        )
        nodes = est.trace_.nodes(t)
        leaves = nodes[nodes.is_leaf]
        assert "newton_weight" in nodes.columns
        for _, row in leaves.iterrows():
            mine = (table["leaf"] == row.node).to_numpy()
            if weighted:
                q = np.quantile(
                    residual[mine], alpha, weights=w[mine].astype(np.float32), method="inverted_cdf"
                )
            else:
                q = np.quantile(residual[mine], alpha, method="weibull")
            assert np.isclose(row.weight, q, rtol=1e-6, atol=1e-6)
            assert np.isclose(row.value, 0.3 * q, rtol=1e-6, atol=1e-6)
            newton = -row.G / (row.H + 1.0)
            assert np.isclose(row.newton_weight, newton, rtol=1e-5, atol=1e-6)
    exact, _, _, _ = _fit_both(objective, "exact", False, weighted=weighted)
    nodes = exact.trace_.nodes(1)
    assert "newton_weight" not in nodes.columns
    leaves = nodes[nodes.is_leaf]
    np.testing.assert_allclose(leaves.weight, -leaves.G / (leaves.H + 1.0), rtol=1e-5, atol=1e-6)


def test_objective_errors_are_one_line_and_named():
    X, y = np.arange(20.0).reshape(-1, 1), np.arange(20.0)
    cases = [
        (dict(objective="reg:quantileerror"), "needs quantile_alpha"),
        (dict(objective="reg:quantileerror", quantile_alpha=1.5), "strictly between 0 and 1"),
        (dict(objective="reg:quantileerror", quantile_alpha=[0.2, 0.8]), "one quantile per model"),
        (dict(objective="reg:pseudohubererror", huber_slope=0.0), "huber_slope"),
        (dict(objective="reg:tweedie", tweedie_variance_power=2.5), r"\[1, 2\)"),
        (dict(objective="survival:cox"), "reads in imported models"),
        (dict(objective="count:poisson", base_score=0.0), "greater than 0"),
        (dict(objective="reg:nonsense"), "not known"),
    ]
    for params, match in cases:
        with pytest.raises(ValueError, match=match):
            tg.BoostingRegressor(n_estimators=1, **params).fit(X, y)


# ---------------------------------------------------------------- lesson 14's checkers
def test_objective_checkers_accept_the_hand_answer_and_name_the_slips():
    check = tg.check
    # Poisson at y = 3, ŷ = 0.5: g = e^0.5 − 3, h = e^(0.5 + 0.7), worked by hand
    assert check.objective_gradient(-1.35, "count:poisson", 3, 0.5, 1).correct
    assert check.objective_gradient(3.32, "count:poisson", 3, 0.5, 2).correct
    r = check.objective_gradient(1.65, "count:poisson", 3, 0.5, 2)  # e^ŷ, no e^0.7
    assert not r.correct and "e^0.7" in r.slip
    r = check.objective_gradient(-2.5, "count:poisson", 3, 0.5, 1)  # ŷ − y
    assert not r.correct and "not the margin" in r.slip
    r = check.objective_gradient(0.2, "reg:quantileerror", 2, 0.5, 1, quantile_alpha=0.8)
    assert not r.correct and "swapped" in r.slip
    assert check.objective_gradient(1.0, "reg:absoluteerror", 2, 0.5, 2).correct
    # a refreshed leaf: the median of (−3, −1, 0.5, 2.5, 4) is 0.5, × η = 0.3
    leaf = check.refreshed_leaf
    assert leaf(0.15, [2.5, -1, 0.5, 4, -3], 0.3).correct
    assert "learning rate" in leaf(0.5, [2.5, -1, 0.5, 4, -3], 0.3).slip
    assert "mean residual" in leaf(0.18, [2.5, -1, 0.5, 4, -3], 0.3).slip
    # a capped leaf: 99 / 13.0825 = 7.57 capped to 0.7, × η = 0.3
    assert check.clipped_leaf(0.21, -99, 12.0825, 1, 0.7, 0.3).correct
    assert "cap is missing" in check.clipped_leaf(2.27, -99, 12.0825, 1, 0.7, 0.3).slip
    with pytest.raises(ValueError, match="objective must be one of"):
        check.objective_gradient(1.0, "reg:tweedie", 1, 0, 1)


def test_the_dask_trainer_refuses_what_it_does_not_train():
    """The cluster trainer estimates base_score as a mean and refreshes no leaf: it says so
    instead of training another objective wrongly."""
    pytest.importorskip("dask.distributed")
    from teachgbt.dask import DaskBoostingRegressor

    X, y = np.arange(20.0).reshape(-1, 1), np.arange(20.0)
    with pytest.raises(ValueError, match="trains only reg:squarederror"):
        DaskBoostingRegressor(objective="reg:absoluteerror", n_estimators=1).fit(X, y)


def test_trace_probabilities_of_the_two_class_objectives():
    """logitraw's margin is log-odds (the trace's prob is σ of it, though predict omits σ);
    hinge's margin is a score: no prob column."""
    raw, _, X, _ = _fit_both("binary:logitraw", "hist", False)
    table = raw.trace_.instances(2)
    np.testing.assert_allclose(table["prob"], 1 / (1 + np.exp(-table["margin"])), rtol=1e-6)
    assert "ep_1_prob" in raw.trace_.epochs()
    hinge, _, _, _ = _fit_both("binary:hinge", "hist", False)
    assert "prob" not in hinge.trace_.instances(1)
    assert "ep_1_prob" not in hinge.trace_.epochs()
