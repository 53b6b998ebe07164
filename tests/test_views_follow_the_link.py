"""Every view shows what the model's objective and link say a margin means, held against the
library that made the model: the real XGBoost / LightGBM / scikit-learn model is fitted
here, imported (or trained again by teachgbt), and what the view shows is compared with the
library's own predictions: binary:logitraw (σ of a margin its predict leaves raw),
binary:hinge (no probability: the class), scikit-learn's exponential loss (σ(2·margin)),
LightGBM's multiclassova (K sigmoids), a random forest (the class fractions themselves),
Poisson and gamma (a log link: e^margin)."""

import json
import re

import numpy as np
import pytest

import teachgbt as tg
from teachgbt import check as C
from teachgbt.core.format import format_number

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")
ensemble = pytest.importorskip("sklearn.ensemble")

N = 40  # rows: few enough that the plots draw one line per row and the tables list all


def _data(seed=3, n=N):
    rng = np.random.default_rng(seed)
    # two decimals: few distinct values, so that hist cuts are exact (XGBoost's and ours)
    X = np.round(rng.normal(size=(n, 1)), 2).astype(np.float32)
    yb = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    y3 = np.digitize(X[:, 0] + rng.normal(size=n), [-0.5, 0.5])
    yc = rng.poisson(np.exp(0.8 * X[:, 0])).astype(float)
    yg = rng.gamma(2.0, np.exp(0.5 * X[:, 0]))
    return X, yb, y3, yc, yg


def _sigmoid(m):
    return 1.0 / (1.0 + np.exp(-np.asarray(m, dtype=np.float64)))


XGB = dict(n_estimators=4, max_depth=2, learning_rate=0.5)


def _logitraw(X, yb, y3, yc, yg):
    m = xgb.XGBClassifier(objective="binary:logitraw", **XGB).fit(X, yb)
    return tg.from_xgboost(m), yb, lambda Z: _sigmoid(m.predict(Z, output_margin=True))


def _hinge(X, yb, y3, yc, yg):
    m = xgb.XGBClassifier(objective="binary:hinge", **XGB).fit(X, yb)
    return tg.from_xgboost(m), yb, lambda Z: m.predict(Z).astype(float)


def _exponential(X, yb, y3, yc, yg):
    m = ensemble.GradientBoostingClassifier(loss="exponential", n_estimators=4, max_depth=2)
    m.fit(X, yb)
    return tg.from_sklearn(m), yb, lambda Z: m.predict_proba(Z)[:, 1]


def _multiclassova(X, yb, y3, yc, yg):
    m = lgb.LGBMClassifier(objective="multiclassova", n_estimators=4, num_leaves=4,
                           min_child_samples=5, verbose=-1).fit(X, y3)  # fmt: skip
    return tg.from_lightgbm(m), y3, m.predict_proba


def _forest(X, yb, y3, yc, yg):
    m = ensemble.RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, yb)
    return tg.from_sklearn(m), yb, lambda Z: m.predict_proba(Z)[:, 1]


def _poisson(X, yb, y3, yc, yg):
    m = xgb.XGBRegressor(objective="count:poisson", **XGB).fit(X, yc)
    return tg.from_xgboost(m), yc, m.predict


def _gamma(X, yb, y3, yc, yg):
    m = xgb.XGBRegressor(objective="reg:gamma", **XGB).fit(X, yg)
    return tg.from_xgboost(m), yg, m.predict


def _hgb_poisson(X, yb, y3, yc, yg):
    m = ensemble.HistGradientBoostingRegressor(loss="poisson", max_iter=4, max_depth=2)
    m.fit(X, yc)
    return tg.from_sklearn(m), yc, m.predict


KINDS = {
    "binary:logitraw": _logitraw,
    "binary:hinge": _hinge,
    "sklearn exponential": _exponential,
    "lightgbm multiclassova": _multiclassova,
    "random forest": _forest,
    "count:poisson": _poisson,
    "reg:gamma": _gamma,
    "hist poisson": _hgb_poisson,
}
ONE_MARGIN = [k for k in KINDS if k != "lightgbm multiclassova"]


@pytest.fixture(scope="module")
def kinds():
    data = _data()
    return {name: (*make(*data), data[0]) for name, make in KINDS.items()}


@pytest.mark.parametrize("kind", ONE_MARGIN)
def test_the_staircase_is_what_the_library_predicts(kinds, kind):
    """Each step of the fitted step function (read inside the step) is the library's
    prediction there: σ(margin) for logitraw, the class for hinge, e^margin for Poisson."""
    model, y, predict, X = kinds[kind]
    ax = tg.plot.staircase(model, X, y)
    steps = ax.lines[-1]  # the last round's
    edges, values = steps.get_xdata(), steps.get_ydata()
    inside = ((edges[:-1] + edges[1:]) / 2).astype(np.float32).reshape(-1, 1)
    np.testing.assert_allclose(values[:-1], predict(inside), rtol=1e-5, atol=1e-6)
    label = ax.get_ylabel()
    if kind == "binary:hinge":
        assert label == "prediction = 1 if margin > 0 else 0"
    elif model.loss_.has_probability:
        assert label.startswith("P(y = 1) = ") and ("σ(2·margin)" in label) == ("exp" in kind)
    else:
        assert label == "prediction = e^margin"


def test_the_staircase_refuses_k_margins(kinds):
    model, y, _, X = kinds["lightgbm multiclassova"]
    with pytest.raises(ValueError, match="3 classes has one margin per class"):
        tg.plot.staircase(model, X, y)


@pytest.mark.parametrize("kind", ["binary:hinge", "sklearn exponential", "random forest"])
def test_the_diagrams_say_log_odds_only_of_log_odds(kinds, kind):
    model = kinds[kind][0]
    text = tg.draw.text(model.trees_[0]) + tg.draw.draw_model(model, rounds=1).source
    assert "moves the log-odds" not in text
    assert "moves the log-odds" in tg.draw.draw_model(kinds["binary:logitraw"][0], 1).source


# ---------------------------------------------------------------- trained here, against XGBoost
def _pair(objective, y, tree_method="exact"):
    X = _data()[0]
    clf = objective.startswith("binary")
    params = dict(objective=objective, tree_method=tree_method, **XGB)
    ours = (tg.BoostingClassifier if clf else tg.BoostingRegressor)(**params).fit(X, y)
    lib = (xgb.XGBClassifier if clf else xgb.XGBRegressor)(**params)
    lib.fit(X, y, eval_set=[(X, y)], verbose=False)
    return ours, lib, X


def _xgb_base_score(lib):
    config = json.loads(lib.get_booster().save_config())
    return float(config["learner"]["learner_model_param"]["base_score"].strip("[]"))


OBJECTIVES = {  # objective: which of _data()'s targets
    "binary:logistic": 1,
    "binary:logitraw": 1,
    "binary:hinge": 1,
    "count:poisson": 3,
    "reg:gamma": 4,
    "reg:tweedie": 3,
}


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_the_loss_curve_is_xgboost_s_training_metric(objective):
    y = _data()[OBJECTIVES[objective]]
    ours, lib, _ = _pair(objective, y, "hist")
    ax = tg.plot.loss_curve(ours)
    metric = ours.loss_.metric_name
    assert ax.get_ylabel() == metric
    np.testing.assert_allclose(
        ax.lines[0].get_ydata()[1:], lib.evals_result()["validation_0"][metric], rtol=1e-5
    )


def test_probabilities_of_logitraw_are_sigma_of_xgboost_s_margin():
    ours, lib, X = _pair("binary:logitraw", _data()[1])
    ax = tg.plot.probabilities(ours)
    assert ax.get_ylabel() == "ep_t_prob = σ(ep_t_pre)"
    last = sorted(line.get_ydata()[-1] for line in ax.lines[1:])  # one line per row
    want = sorted(_sigmoid(lib.predict(X, output_margin=True)))
    np.testing.assert_allclose(last, want, rtol=1e-5)


def test_probabilities_refuses_hinge_in_one_sentence():
    ours, _, _ = _pair("binary:hinge", _data()[1])
    with pytest.raises(ValueError, match=r"binary:hinge mean no probability .*residuals"):
        tg.plot.probabilities(ours)


@pytest.mark.parametrize("objective", ["count:poisson", "reg:gamma", "binary:hinge"])
def test_residuals_subtract_xgboost_s_prediction(objective):
    """ep_k_residual = y − the prediction before tree k: e^margin (log link), the class
    (hinge); the plot's last epoch against XGBoost's prediction of its first T − 1 trees."""
    y = _data()[OBJECTIVES[objective]]
    ours, lib, X = _pair(objective, y)
    T = ours.model_.n_rounds
    before = lib.predict(X, iteration_range=(0, T - 1)).astype(float)
    want = y - before
    ep = ours.trace_.epochs()
    np.testing.assert_allclose(ep[f"ep_{T}_residual"], want, rtol=1e-5, atol=1e-6)
    ax = tg.plot.residuals(ours)
    last = sorted(line.get_ydata()[-1] for line in ax.lines[1:])
    np.testing.assert_allclose(last, sorted(want), rtol=1e-5, atol=1e-6)
    symbol = "ŷ" if objective != "binary:logistic" else "p"
    assert ax.get_ylabel() == f"ep_k_residual = y − {symbol} of epoch k − 1"
    # check.epoch takes the library's number as the right answer, and names the slip of
    # subtracting the margin
    assert C.epoch(float(want[0]), ours, f"ep_{T}_residual", 0).correct
    margin = float(ep[f"ep_{T - 1}_pre"][0])
    slip = C.epoch(float(y[0]) - margin, ours, f"ep_{T}_residual", 0)
    if not np.isclose(float(y[0]) - margin, want[0], atol=1e-2):
        assert "subtracts the margin" in slip.slip


@pytest.mark.parametrize(
    "objective, start",
    [("count:poisson", np.log), ("binary:logitraw", float), ("binary:logistic", None)],
)
def test_the_start_margin_is_worked_by_the_link(objective, start):
    y = _data()[OBJECTIVES[objective]]
    ours, lib, X = _pair(objective, y)
    base = _xgb_base_score(lib)
    want = float(np.log(base / (1 - base))) if start is None else float(start(base))
    r = C.epoch(want, ours, "ep_0_pre", 0, reveal=True)
    assert r.correct, str(r)
    link = {"count:poisson": "log(base_score)", "binary:logitraw": "base_score = "}
    assert link.get(objective, "log(odds)") in str(r)


# ---------------------------------------------------------------- the explorer, in a browser
def _open(browser, path):
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(f"file://{path}")
    pg.wait_for_selector("body[data-ready='1']", timeout=15_000)
    return pg, errors


def _column(pg, col):
    return pg.eval_on_selector_all(
        f"#rows-table td[data-col='{col}']", "ts => ts.map(t => parseFloat(t.textContent))"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_explorer_shows_what_the_library_predicts(kinds, kind, browser, tmp_path):
    """The Rows tab after the last round: the probability (by the link) or the prediction,
    to 4 decimals, is the library's."""
    model, y, predict, X = kinds[kind]
    pg, errors = _open(browser, tg.explore(model, X, y).save(tmp_path / "x.html"))
    pg.evaluate(f"teachgbtExplorer.app.go({model.model_.n_rounds})")
    pg.click("#tab-rows")
    want = predict(X)
    K = model.model_.n_outputs
    for k in range(K):
        if K > 1:
            pg.select_option("#class-select", str(k))
        col = "prob" if model.loss_.has_probability else "prediction"
        head = pg.eval_on_selector_all("#rows-table th", "ts => ts.map(t => t.dataset.col)")
        assert head[-1] == col
        got = np.array(_column(pg, col))
        np.testing.assert_allclose(got, want[:, k] if K > 1 else want, atol=0.5e-4 + 1e-6)
    pg.close()
    assert errors == []


OBJECTIVE_LINES = {
    "count:poisson": "count:poisson — a leaf adds to the log of the mean: e^value multiplies "
    "the prediction; prediction = e^margin",
    "binary:hinge": "binary:hinge — a leaf adds to a score whose sign is the class",
    "random forest": "forest:mean — a leaf adds to the average",
    "sklearn exponential": "sklearn:exponential — a leaf adds to half the log-odds",
}


@pytest.mark.parametrize("kind", OBJECTIVE_LINES)
def test_round_zero_and_about_name_the_objective_and_its_link(kinds, kind, browser, tmp_path):
    model, y, predict, X = kinds[kind]
    pg, errors = _open(browser, tg.explore(model, X, y).save(tmp_path / "x.html"))
    first = pg.text_content("#start p.start-line.objective")
    assert first.startswith(OBJECTIVE_LINES[kind])
    pg.click("#tab-about")
    assert pg.text_content("#objective") == "Objective: " + first
    # round 0's numbers: the model's start margin and what the library predicts from it
    lines = pg.eval_on_selector_all("#start p.start-line", "ps => ps.map(p => p.textContent)")
    margin0 = float(np.atleast_1d(model.model_.base_margin)[0])
    assert any(f"= {format_number(margin0, 4)}" in t for t in lines if "margin₀ =" in t)
    if kind in ("count:poisson",):
        p0 = [t for t in lines if t.startswith("prediction₀")][0]
        assert p0.endswith(f"= {format_number(float(np.exp(margin0)), 4)}")
    pg.close()
    assert errors == []


def test_a_quantile_leaf_shows_both_numbers_and_says_which_the_model_uses(browser, tmp_path):
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(80, 2)), 1).astype(np.float32)
    y = X[:, 0] + rng.normal(size=80)
    params = dict(objective="reg:quantileerror", quantile_alpha=0.9, tree_method="hist",
                  n_estimators=2, max_depth=2)  # fmt: skip
    ours = tg.BoostingRegressor(**params).fit(X, y)
    lib = xgb.XGBRegressor(**params).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), lib.predict(X), rtol=1e-5, atol=1e-6)
    pg, errors = _open(browser, tg.explore(ours).save(tmp_path / "q.html"))
    assert "reg:quantileerror (α = 0.9)" in pg.text_content("#start p.objective")
    assert "both shown, the model uses q" in pg.text_content("#start p.objective")
    pg.click("#next")
    tree = ours.trees_[0]
    leaf = int(tree.leaves[0])
    box = pg.eval_on_selector_all(
        f"g.node[data-node='{leaf}'] > text", "ts => ts.map(t => t.textContent)"
    )
    q, newton = tree.weight[leaf], tree.extra["newton_weight"][leaf]
    assert f"q {format_number(q, 3)}" in box and f"−G/(H+λ) {format_number(newton, 3)}" in box
    pg.click(f"g.node[data-node='{leaf}'] rect")
    stats = dict(
        pg.eval_on_selector_all(
            "#node-stats tr", "rs => rs.map(r => [r.cells[0].textContent, r.cells[1].textContent])"
        )
    )
    assert stats["q (the refreshed quantile: the model uses it)"] == format_number(q, 3)
    assert stats["w* = −G/(H+λ) (the tree was grown with it; not used)"] == format_number(newton, 3)
    assert re.search(r"the model uses q = \S+, not w\* = ", pg.text_content("#leaf-formula"))
    pg.close()
    assert errors == []
