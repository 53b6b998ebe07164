"""Plots: each draws on the Axes it is given, with numbers computed here independently."""

import math
from itertools import product

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hist_data import few_values  # noqa: E402

import teachgbt as tg  # noqa: E402
import teachgbt.show.plot as P  # noqa: E402
from teachgbt.teach.datasets import troll2_xy as troll2  # noqa: E402

MODELS = ["xgboost", "gbdt"]


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def _labelled(ax):
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()


def _logloss(y, p):
    return float(np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p))))


@pytest.mark.parametrize("algorithm", MODELS)
def test_loss_curve_is_the_logloss_of_each_round(ax, algorithm, troll2_model):
    m, X, y = troll2_model(algorithm)
    assert P.loss_curve(m, ax=ax) is ax
    _labelled(ax)
    yy = y.to_numpy(float)
    expected = [_logloss(yy, 4 / 6)] + [
        _logloss(yy, m.predict_proba(X, iteration_range=(0, k))[:, 1]) for k in (1, 2)
    ]
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-6)
    assert ax.get_legend() is not None


def test_loss_curve_shows_the_eval_set(ax):
    X, y = troll2()
    m = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y, eval_set=[(X, y)])
    P.loss_curve(m, ax=ax)
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert labels == ["training", "validation_0"]
    train, val = ax.get_lines()
    # the eval set is the training set: the curves agree after every round
    np.testing.assert_allclose(val.get_ydata(), train.get_ydata()[1:], rtol=1e-5)


def test_split_scan_plots_every_gain_of_the_sorted_scan(ax, troll2_model):
    m, X, y = troll2_model()
    assert P.split_scan(m, 1, 0, "age", ax=ax) is ax
    _labelled(ax)
    # independent: sort the six ages, accumulate g = p0 − y and h = p0(1 − p0) left to right
    p0 = 4 / 6
    age = X["age"].to_numpy()
    order = np.argsort(age)
    g = (p0 - y.to_numpy(float))[order]
    h = np.full(6, p0 * (1 - p0))
    a = age[order]
    G, H = g.sum(), h.sum()
    thr, gains, GL = [], [], []
    for k in range(5):
        G_L, H_L = g[: k + 1].sum(), h[: k + 1].sum()
        G_R, H_R = G - G_L, H - H_L
        gains.append(0.5 * (G_L**2 / H_L + G_R**2 / H_R - G**2 / H))
        thr.append((a[k] + a[k + 1]) / 2)
        GL.append(G_L)
    gain_line = ax.get_lines()[0]
    np.testing.assert_allclose(gain_line.get_xdata(), thr)
    np.testing.assert_allclose(gain_line.get_ydata(), gains, atol=1e-6)
    twin = next(a2 for a2 in ax.figure.axes if a2 is not ax)
    np.testing.assert_allclose(twin.get_lines()[0].get_ydata(), GL, atol=1e-6)
    assert "the node splits on favorite_color_red" in ax.get_title()
    with pytest.raises(ValueError, match="no candidate split on 'height'"):
        P.split_scan(m, 1, 0, "height")


def test_split_scan_marks_the_chosen_split(ax, troll2_model):
    m, X, y = troll2_model()
    P.split_scan(m, 1, 1, 1, ax=ax)  # node 1 splits on age (feature index 1)
    star = [ln for ln in ax.get_lines() if ln.get_marker() == "*"]
    assert len(star) == 1
    tree = m.trees_[0]
    assert star[0].get_xdata()[0] == pytest.approx(tree.threshold[1])
    assert star[0].get_ydata()[0] == pytest.approx(tree.gain[1])
    assert "age < 38" in star[0].get_label()


def test_staircase_draws_the_model_exactly(ax):
    rng = np.random.default_rng(1)
    x = np.sort(rng.uniform(0, 10, 40))
    y = np.where(x < 3, 1.0, np.where(x < 7, 3.0, 2.0)) + rng.normal(0, 0.3, 40)
    X = pd.DataFrame({"time": x})
    m = tg.BoostingRegressor(n_estimators=5, max_depth=2).fit(X, y)
    assert P.staircase(m, X, y, rounds=[0, 1, 5], ax=ax) is ax
    _labelled(ax)
    steps = [ln for ln in ax.get_lines() if ln.get_drawstyle() == "steps-post"]
    assert [ln.get_label() for ln in steps] == [
        "base_score only",
        "after 1 round",
        "after 5 rounds",
    ]
    # inside every step the line is the model's prediction at the step's midpoint
    for ln, k in zip(steps, [0, 1, 5]):
        edges, values = ln.get_xdata(), ln.get_ydata()
        mids = (edges[:-1] + edges[1:]) / 2
        want = m.model_.margins_after(mids.astype(np.float32).reshape(-1, 1), k)
        np.testing.assert_allclose(values[:-1], want, rtol=1e-6)
    assert len(steps[0].get_xdata()) == 2  # round 0: a flat line, base_score = mean of y
    np.testing.assert_allclose(steps[0].get_ydata(), np.mean(y), rtol=1e-6)
    with pytest.raises(ValueError, match="rounds must be from 0 to 5"):
        P.staircase(m, X, y, rounds=[6])


def test_compare_fits_leaves_unfitted_models_alone(ax):
    x = np.linspace(0, 10, 30)
    y = (x > 5).astype(float) + np.sin(3 * x) * 0.2
    models = [
        tg.BoostingRegressor(n_estimators=10, max_depth=6, reg_lambda=0.0, min_child_weight=0.0),
        tg.BoostingRegressor(n_estimators=10, max_depth=1, gamma=2.0),
    ]
    assert P.compare_fits(models, x.reshape(-1, 1), y, ax=ax) is ax
    _labelled(ax)
    assert not any(hasattr(mm, "trees_") for mm in models)
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert labels[0].startswith("max_depth=6, reg_lambda=0, gamma=0, min_child_weight=0")
    assert labels[1].startswith("max_depth=1, reg_lambda=1, gamma=2, min_child_weight=1")
    # the unregularized deep model steps far more often than the pruned stump
    n = [int(lab.rsplit("(", 1)[1].split()[0]) for lab in labels]
    assert n[0] > 10 * max(n[1], 1)


@pytest.mark.parametrize("algorithm", MODELS)
def test_probabilities_follow_every_instance(ax, algorithm, troll2_model):
    m, X, y = troll2_model(algorithm)
    assert P.probabilities(m, ax=ax) is ax
    _labelled(ax)
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 3]
    assert len(lines) == 6
    got = sorted(tuple(np.round(ln.get_ydata(), 9)) for ln in lines)
    expected = sorted(
        tuple(
            np.round(
                [
                    4 / 6,
                    *(m.predict_proba(X.iloc[[i]], iteration_range=(0, k))[0, 1] for k in (1, 2)),
                ],
                9,
            )
        )
        for i in range(6)
    )
    np.testing.assert_allclose(got, expected, atol=1e-6)
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"0.5", "y = True", "y = False"}


def test_probabilities_refuse_a_regressor():
    m = tg.BoostingRegressor(n_estimators=1).fit(np.arange(6.0).reshape(-1, 1), np.arange(6.0))
    with pytest.raises(ValueError, match="for classifiers"):
        P.probabilities(m)


def test_residuals_are_y_minus_p(ax, troll2_model):
    m, X, y = troll2_model()
    P.residuals(m, ax=ax)
    _labelled(ax)
    # epoch 1 is ep_1_residual: y − p before tree 1, p = base_score = 4/6
    lines = [ln for ln in ax.get_lines() if list(ln.get_xdata()) == [1, 2]]
    first = sorted(np.round([ln.get_ydata()[0] for ln in lines], 9))
    np.testing.assert_allclose(first, sorted(y.to_numpy(float) - 4 / 6), atol=1e-7)


def test_residuals_of_many_rows_draw_bands(ax):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2))
    y = X[:, 0] + rng.normal(0, 0.1, 300)
    m = tg.BoostingRegressor(n_estimators=4, max_depth=2).fit(X, y)
    P.residuals(m, ax=ax)
    median = next(ln for ln in ax.get_lines() if "median" in ln.get_label())
    # epoch k = 1..4: the residual tree k is fitted to, after k − 1 trees
    want = [np.median(y - m.model_.margins_after(X.astype(np.float32), k)) for k in range(4)]
    np.testing.assert_allclose(median.get_ydata(), want, atol=1e-5)
    assert list(median.get_xdata()) == [1, 2, 3, 4]
    assert len(ax.collections) == 1  # one 10–90 % band, not 300 lines


def test_structure_score_bars(ax, troll2_model):
    m, X, y = troll2_model()
    assert P.structure_score(m, ax=ax) is ax
    _labelled(ax)
    grown = ax.containers[1]
    expected = []
    for t in (1, 2):
        inst = m.trace_.instances(t)
        sums = inst.groupby("leaf")[["g", "h"]].sum()
        expected.append(-0.5 * float(np.sum(sums["g"] ** 2 / sums["h"])))  # λ = 0, γ = 0
    np.testing.assert_allclose([b.get_height() for b in grown], expected, rtol=1e-5)


def test_importance_matches_xgboost(ax):
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "d"])
    y = X["a"] * 2 + np.sin(X["b"] * 3) + rng.normal(0, 0.1, 200)
    params = dict(
        n_estimators=4,
        max_depth=3,
        learning_rate=0.3,
        reg_lambda=1.0,
        min_child_weight=1.0,
        base_score=0.0,
    )
    ours = tg.BoostingRegressor(**params).fit(X, y)
    ref = xgb.XGBRegressor(tree_method="exact", **params).fit(X, y).get_booster()
    for kind in ("weight", "gain", "cover", "total_gain"):
        want = pd.Series(ref.get_score(importance_type=kind)).sort_index()
        got = P.importance_values(ours, kind).sort_index()
        assert list(got.index) == list(want.index)
        np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-4)
    assert P.importance(ours, "cover", ax=ax) is ax
    _labelled(ax)
    bars = ax.containers[0]
    assert len(bars) == len(P.importance_values(ours, "cover"))
    with pytest.raises(ValueError, match="kind='size'"):
        P.importance(ours, kind="size")


def _brute_force_vote_error(p, n):
    """Enumerate every pattern of right/wrong votes (independent of the closed form)."""
    total = 0.0
    for wrong in product([0, 1], repeat=n):
        k = sum(wrong)
        prob = math.prod(p if w else 1 - p for w in wrong)
        total += prob if 2 * k > n else (0.5 * prob if 2 * k == n else 0.0)
    return total


def test_majority_vote_error_reproduces_seed_002():
    assert round(100 * P.majority_vote_error(0.3, 3), 1) == 21.6
    assert round(100 * P.majority_vote_error(0.6, 3), 1) == 64.8
    assert round(100 * P.majority_vote_error(0.3, 21), 1) == 2.6
    assert round(100 * P.majority_vote_error(0.6, 21), 1) == 82.6
    for n in (1, 2, 3, 4, 5, 8):
        for p in (0.1, 0.45, 0.7):
            assert P.majority_vote_error(p, n) == pytest.approx(_brute_force_vote_error(p, n))
    with pytest.raises(ValueError, match="n_voters"):
        P.majority_vote_error(0.3, 0)


def test_vote_error_marks_the_seed_numbers(ax):
    assert P.vote_error([0.3, 0.6], [3, 21], ax=ax) is ax
    _labelled(ax)
    texts = {t.get_text() for t in ax.texts}
    assert {"21.6 %", "64.8 %", "2.6 %", "82.6 %"} <= texts
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "one voter",
        "3 voters",
        "21 voters",
    ]


def test_plots_make_their_own_axes_when_none_is_given(troll2_model):
    m, X, y = troll2_model()
    for ax in (P.loss_curve(m), P.vote_error(0.3, 3), P.importance(m)):
        assert ax.figure is not None
        plt.close(ax.figure)


@pytest.mark.parametrize(
    "kw",
    [dict(tree_method="hist", reg_lambda=0.0, min_child_weight=0.0, base_score=4 / 6)]
    + [dict(algorithm="gbdt")],
    ids=lambda kw: kw.get("algorithm", kw.get("tree_method")),
)
def test_every_plot_draws_for_other_algorithms_and_tree_methods(kw):
    X, y = troll2()
    m = tg.BoostingClassifier(n_estimators=2, learning_rate=0.8, max_depth=2, **kw).fit(X, y)
    tree = m.trees_[0]
    root_feature = tree.feature_name(int(tree.feature[0]))
    calls = {
        "loss_curve": lambda ax: P.loss_curve(m, ax=ax),
        "split_scan": lambda ax: P.split_scan(m, 1, 0, root_feature, ax=ax),
        "probabilities": lambda ax: P.probabilities(m, ax=ax),
        "residuals": lambda ax: P.residuals(m, ax=ax),
        "structure_score": lambda ax: P.structure_score(m, ax=ax),
        "importance": lambda ax: P.importance(m, "weight", ax=ax),
        "staircase": lambda ax: P.staircase(m1, X[["age"]], y, ax=ax),
    }
    m1 = tg.BoostingClassifier(n_estimators=3, max_depth=1, **kw).fit(X[["age"]], y)
    for name, call in calls.items():
        fig, ax = plt.subplots()
        try:
            assert call(ax) is ax, name
            _labelled(ax)
            if name == "split_scan":
                star = [ln for ln in ax.get_lines() if ln.get_marker() == "*"]
                assert star and star[0].get_xdata()[0] == pytest.approx(tree.threshold[0])
            if name == "importance":
                n_splits = sum(int((~t.is_leaf).sum()) for t in m.trees_)
                assert sum(b.get_width() for b in ax.containers[0]) == n_splits
        finally:
            plt.close(fig)


def test_plots_diagrams_explanations_and_files_work_on_hist_models(tmp_path):
    X, y, logit = few_values(seed=16, n=300, d=4, nan=0.1)
    clf = tg.BoostingClassifier(tree_method="hist", n_estimators=4, max_depth=3)
    clf.fit(X, y, eval_set=[(X, y)])
    for ax in (
        tg.plot.loss_curve(clf),
        tg.plot.split_scan(clf, 1, 0, int(clf.trees_[0].feature[0])),
        tg.plot.probabilities(clf),
        tg.plot.importance(clf),
        clf.trees_[0].plot(),
    ):
        assert ax is not None
    assert clf.trees_[0].to_dot().startswith("digraph")
    assert "Gain" in str(tg.explain.split(clf, 1, 0))
    assert "w*" in str(tg.explain.leaf(clf, 1, int(clf.trees_[0].left[0])))
    clf.save(tmp_path / "m.json")
    np.testing.assert_array_equal(
        tg.load(tmp_path / "m.json").predict_proba(X), clf.predict_proba(X)
    )
    x1 = X[:, :1]
    reg = tg.BoostingRegressor(tree_method="hist", n_estimators=3).fit(x1, np.nan_to_num(logit))
    assert tg.plot.staircase(reg, x1, np.nan_to_num(logit)) is not None
    plt.close("all")
