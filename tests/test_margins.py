"""Every margin comes from the model: the trace's, the eval sets', explain's and the command
line's are ``Model``'s, to the bit; and they equal the margins training itself used and a sum
made here from the trees' leaf values. Trees are numbered by round and class in one place."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.cli import main
from teachgbt.core.model import round_and_class, tree_number


def _data(n=300, d=4, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 2)
    X[rng.random(X.shape) < 0.1] = np.nan
    score = np.nan_to_num(X[:, 0]) - 0.7 * np.nan_to_num(X[:, 1]) + rng.normal(0, 0.7, n)
    if classes == 0:
        return X, score
    if classes == 2:
        return X, (score > 0).astype(int)
    return X, np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))


def _after(model, X32, t):
    """The margins after round t, summed here: the base margin, then every tree of the first
    t rounds, one after another, each leaf's value added in the model's precision."""
    fitted = model.model_
    dtype, K = fitted.margin_dtype, fitted.n_outputs
    base = np.ravel(fitted.base_margin).astype(dtype)
    out = np.empty((len(X32), K), dtype=dtype)
    for k in range(K):
        m = np.full(len(X32), base[k], dtype=dtype)
        for tree in model.trees_[: t * K][k::K]:
            m = (m + tree.value[tree.apply(X32)].astype(dtype)).astype(dtype)
        out[:, k] = m
    return out if K > 1 else out[:, 0]


FITS = {
    "xgboost-exact-binary": (tg.BoostingClassifier, 2, dict(n_estimators=5, max_depth=3)),
    "xgboost-hist-regression-subsample": (
        tg.BoostingRegressor,
        0,
        dict(tree_method="hist", n_estimators=5, subsample=0.6, random_state=1, max_depth=4),
    ),
    "xgboost-exact-best-first-3-classes": (
        tg.BoostingClassifier,
        3,
        dict(n_estimators=4, max_depth=0, max_leaves=5, colsample_bytree=0.5, random_state=2),
    ),
    "gbdt-exact-binary": (tg.BoostingClassifier, 2, dict(algorithm="gbdt", n_estimators=5)),
    "xgboost-hist-quantile-leaves-refreshed": (
        tg.BoostingRegressor,
        0,
        dict(tree_method="hist", objective="reg:quantileerror", quantile_alpha=0.3, n_estimators=4),
    ),
    "gbdt-hist-3-classes": (
        tg.BoostingClassifier,
        3,
        dict(algorithm="gbdt", tree_method="hist", n_estimators=3, max_depth=2),
    ),
}


@pytest.mark.parametrize("name", FITS)
def test_the_trace_margins_are_the_models_to_the_bit(name):
    Est, classes, params = FITS[name]
    X, y = _data(classes=classes)
    weights = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    model = Est(**params).fit(X, y, sample_weight=weights)
    X32, trace, fitted = model.trace_.X, model.trace_, model.model_
    K = fitted.n_outputs
    classes_ = [None] if K == 1 else list(range(K))
    epochs = {k: trace.epochs(class_=k) for k in classes_}
    for t in range(fitted.n_rounds + 1):
        ours = trace.margin(t)
        assert ours.dtype == fitted.margin_dtype
        np.testing.assert_array_equal(ours, _after(model, X32, t), err_msg=f"round {t}")
        np.testing.assert_array_equal(ours.astype(np.float64), fitted.margins_after(X32, t))
        for k in classes_:
            column = ours if K == 1 else ours[:, k]
            np.testing.assert_array_equal(epochs[k][f"ep_{t}_pre"], column.astype(np.float64))
            if t < fitted.n_rounds:  # instances(t + 1) shows the margin before round t + 1
                got = trace.instances(t + 1, class_=k)["margin"].to_numpy()
                np.testing.assert_array_equal(got, column.astype(np.float64))
    np.testing.assert_array_equal(model.decision_function(X), _after(model, X32, fitted.n_rounds))


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
def test_the_margins_training_used_are_the_traces(tree_method):
    """A custom objective sees the margins each round is grown at: those are the trace's
    (and the model's), bit for bit, rows left out by subsample included."""
    X, y = _data(n=400, classes=0, seed=4)
    seen = []

    def squared_error(y_true, margin):
        seen.append(margin.copy())
        return margin - y_true, np.ones_like(margin)

    model = tg.BoostingRegressor(
        tree_method=tree_method, objective=squared_error, n_estimators=4, subsample=0.7,
        random_state=5, base_score=0.25,
    ).fit(X, y)  # fmt: skip
    training = seen[: model.model_.n_rounds]  # the trace's tables call it again later
    for t, margin in enumerate(training):
        np.testing.assert_array_equal(margin, model.trace_.margin(t).astype(np.float64))


def test_large_data_sums_in_the_compiled_kernel_as_the_trace_does():
    """From 20 000 rows the model sums margins in its compiled kernel: still the trace's."""
    X, y = _data(n=20_500, classes=2, seed=6)
    model = tg.BoostingClassifier(tree_method="hist", n_estimators=3, max_depth=4).fit(X, y)
    X32 = model.trace_.X
    for t in range(4):
        np.testing.assert_array_equal(model.trace_.margin(t), _after(model, X32, t))
        np.testing.assert_array_equal(
            model.model_.margins_after(X32, t), _after(model, X32, t).astype(np.float64)
        )


def test_eval_set_scores_are_those_of_the_models_margins():
    X, y = _data(n=400, classes=3, seed=7)
    model = tg.BoostingClassifier(n_estimators=4, max_depth=2)
    model.fit(X[:300], y[:300], eval_set=[(X[300:], y[300:])])
    fitted, X32 = model.model_, X[300:].astype(np.float32)
    scores = model.evals_result_["validation_0"]["mlogloss"]
    for t, score in enumerate(scores, 1):
        assert score == fitted.loss.metric(y[300:], _after(model, X32, t))


def test_running_margins_follow_the_rounds_of_an_iteration_range():
    X, y = _data(classes=3, seed=8)
    model = tg.BoostingClassifier(n_estimators=5, max_depth=2).fit(X, y)
    fitted, X32 = model.model_, X.astype(np.float32)
    running = list(fitted.running_margins(X32))
    assert [t for t, _ in running] == list(range(6))
    for t, m in running:
        np.testing.assert_array_equal(m, _after(model, X32, t))
    part = list(fitted.running_margins(X32, (2, 4)))  # rounds 3 and 4 added to the base
    assert [t for t, _ in part] == [2, 3, 4]
    np.testing.assert_array_equal(part[0][1], fitted.start_margins(len(X32)))
    np.testing.assert_array_equal(part[-1][1], fitted.margins(X32, (2, 4)))
    with pytest.raises(ValueError, match="iteration_range"):
        list(fitted.running_margins(X32, (4, 2)))


@pytest.mark.parametrize("classes", [2, 3])
def test_tree_numbers_and_rounds_go_both_ways(classes):
    X, y = _data(classes=classes, seed=9)
    model = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y)
    fitted = model.model_
    K = fitted.n_outputs
    for i, tree in enumerate(model.trees_, 1):
        t, class_ = fitted.round_and_class(i)
        assert (t, class_) == (tree.round, tree.class_)
        assert fitted.tree(t, class_) is tree and fitted.tree_number(t, class_) == i
        assert tree_number(*round_and_class(i, K), K) == i
        assert fitted.round_trees(t)[0 if class_ is None else class_] is tree
    n = len(model.trees_)
    for bad in (0, n + 1, True, 1.0):
        with pytest.raises(ValueError, match=f"a tree number counts every tree, from 1 to {n}"):
            fitted.round_and_class(bad)


def test_prediction_reads_rounds_and_margins_off_the_model():
    X, y = _data(classes=3, seed=10)
    model = tg.BoostingClassifier(n_estimators=5, max_depth=2).fit(X, y)
    row = X[[7]]
    for rng, rounds in (((1, 4), [2, 3, 4]), (None, [1, 2, 3, 4, 5])):
        ex = tg.explain.prediction(model, row, iteration_range=rng, class_=2)
        assert ex.values["rounds"] == rounds
        assert [tree.class_ for tree in model.model_.used_trees(rng, 2)] == [2] * len(rounds)
        assert len(ex.values["margins"]) == len(rounds)
        assert ex.values["margins"][-1] == model.decision_function(row, iteration_range=rng)[0, 2]
    steps = np.diff([ex.values["base_margin"]] + ex.values["margins"])
    np.testing.assert_allclose(steps, ex.values["leaf_values"], atol=1e-6)  # float32 sums


def test_the_command_line_prints_the_models_running_margin(tmp_path, capsys):
    X, y = _data(n=200, classes=2, seed=11)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    data, path = tmp_path / "d.csv", tmp_path / "m.json"
    frame.to_csv(data, index=False)
    model = tg.BoostingClassifier(n_estimators=4, max_depth=2, learning_rate=0.9)
    model.fit(frame, y).save(path)
    assert main(["explain", str(path), "--data", str(data), "--row", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:2] == ["round", "leaf"])
    table = [ln.split() for ln in lines[start + 1 :]]
    assert [r[0] for r in table] == ["start", "1", "2", "3", "4"]
    running = model.model_.running_margins(model.model_.check_X(frame)[0])
    want = [float(m[3]) for _, m in running]
    after = [float(r[-2]) for r in table]  # the columns end: margin after, p after
    np.testing.assert_allclose(after, np.round(want, 4), atol=1e-12)
