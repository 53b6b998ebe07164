"""teachgbt.dask on a LocalCluster of two worker processes started here: the same trees as
the single-machine hist trainer, predictions as dask arrays, to_local, the trace, a worker
killed mid-fit, and the same predictions as xgboost.dask."""

import logging
import os
import signal
import time

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("dask.distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import teachgbt as tg  # noqa: E402
from teachgbt.core import Model  # noqa: E402
from teachgbt.dask import DaskBoostingClassifier, DaskBoostingRegressor  # noqa: E402
from teachgbt.dask.rows import TRAINED_ON_DASK  # noqa: E402
from teachgbt.engine.binning import HistData  # noqa: E402
from teachgbt.engine.training import TrainParams  # noqa: E402

# a wait in these tests longer than this means the cluster hangs: fail instead
TIMEOUT = 120
MARGIN_ATOL = 1e-6


@pytest.fixture(scope="module")
def cluster():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield cluster, client


@pytest.fixture
def client(cluster):
    return cluster[1]


def _data(n=1500, d=5, seed=0, nan=0.0, classes=2, decimals=1):
    """Features of few distinct values (rounded), so that hist cuts are exact: every
    distinct value, as the single-machine trainer and XGBoost cut them."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), decimals).astype(np.float32)
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    score = np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) + rng.normal(size=n)
    if classes == 2:
        y = (score > 0).astype(int)
    elif classes:
        y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    else:
        y = score
    return X, y


def _dask(a, chunk=400):
    return da.from_array(a, chunks=(chunk,) + a.shape[1:])


def _assert_same_trees(ours, theirs):
    assert len(ours) == len(theirs)
    for t, (a, b) in enumerate(zip(ours, theirs)):
        fa, fb = a.to_frame(), b.to_frame()
        assert len(fa) == len(fb), f"tree {t}: {len(fa)} nodes vs {len(fb)}"
        for col in ("node", "parent", "is_leaf", "feature", "default_left", "n"):
            assert fa[col].tolist() == fb[col].tolist(), f"tree {t}, column {col}"
        for col in ("threshold", "G", "H", "weight", "value", "gain", "loss_chg"):
            np.testing.assert_allclose(
                fa[col].to_numpy(float), fb[col].to_numpy(float), rtol=1e-9, atol=1e-9
            )


def test_classifier_with_missing_values_grows_the_local_trees(client):
    X, y = _data(nan=0.1)
    params = dict(n_estimators=4, max_depth=4, learning_rate=0.5)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT).fit(_dask(X), _dask(y))
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y)
    _assert_same_trees(ours.trees_, local.trees_)
    assert ours.base_score_ == local.base_score_
    margin = ours.decision_function(_dask(X))
    assert isinstance(margin, da.Array)
    np.testing.assert_allclose(margin.compute(), local.decision_function(X), atol=MARGIN_ATOL)
    proba = ours.predict_proba(X)  # numpy in, numpy out
    assert isinstance(proba, np.ndarray) and proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba, local.predict_proba(X), atol=MARGIN_ATOL)
    labels = ours.predict(_dask(X))
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), local.predict(X))


def test_regressor_with_weights_from_a_dask_dataframe(client):
    X, y = _data(seed=1, classes=0)
    w = np.random.default_rng(2).integers(1, 4, size=len(y)).astype(float)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["target"], frame["weight"] = y, w
    ddf = dd.from_pandas(frame, npartitions=3)
    params = dict(n_estimators=4, max_depth=3, reg_lambda=2.0, min_child_weight=2.0)
    ours = DaskBoostingRegressor(**params, timeout=TIMEOUT)
    ours.fit(ddf[frame.columns[:5].tolist()], ddf["target"], sample_weight=ddf["weight"])
    local = tg.BoostingRegressor(tree_method="hist", **params)
    local.fit(frame.iloc[:, :5], y, sample_weight=w)
    _assert_same_trees(ours.trees_, local.trees_)
    assert list(ours.feature_names_in_) == [f"x{j}" for j in range(5)]
    np.testing.assert_allclose(ours.base_score_, local.base_score_, rtol=1e-12)
    pred = ours.predict(ddf[frame.columns[:5].tolist()[::-1]])  # columns found by name
    assert isinstance(pred, da.Array)
    np.testing.assert_allclose(pred.compute(), local.predict(frame.iloc[:, :5]), atol=1e-5)


def test_multiclass_grows_one_local_tree_per_class(client):
    X, y = _data(seed=3, classes=3)
    params = dict(n_estimators=3, max_depth=3)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT).fit(_dask(X, 500), _dask(y, 500))
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y)
    assert len(ours.trees_) == 9
    _assert_same_trees(ours.trees_, local.trees_)
    proba = ours.predict_proba(_dask(X))
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), local.predict_proba(X), atol=MARGIN_ATOL)


@pytest.mark.parametrize(
    "growth",
    [
        dict(max_leaves=5, max_depth=0, colsample_bytree=0.5),
        dict(gamma=2.0, pruning="post", subsample=0.7),
    ],
    ids=["best-first-colsample", "post-pruning-subsample"],
)
def test_growth_options_text_labels_and_an_empty_partition(client, growth):
    X, y = _data(n=1000, seed=12)
    labels = np.where(y == 1, "yes", "no")
    chunks = (0, 500, 500)  # a partition without rows
    dX, dy = da.from_array(X, chunks=(chunks, 5)), da.from_array(labels, chunks=(chunks,))
    params = dict(n_estimators=2, random_state=1, **growth)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT).fit(dX, dy)
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, labels)
    _assert_same_trees(ours.trees_, local.trees_)
    np.testing.assert_array_equal(ours.predict(dX).compute(), local.predict(X))
    pd.testing.assert_frame_equal(ours.trace_.splits(2, 0), local.trace_.splits(2, 0), rtol=1e-9)


def test_many_distinct_values_use_quantile_cuts_of_the_whole_data(client):
    """More distinct values than max_bin: the cuts are read off the merged summary; with
    every partition summarised exactly (few rows) they are the local trainer's quantiles."""
    X, y = _data(n=1200, seed=4, decimals=4)
    params = dict(n_estimators=3, max_depth=3, max_bin=16)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT).fit(_dask(X, 300), _dask(y, 300))
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y)
    data = HistData(X, max_bin=16)
    cuts, min_val, has_missing, exact, _ = ours.cuts_
    assert not exact.any()
    for f in range(X.shape[1]):
        np.testing.assert_array_equal(cuts[f], data.feature_cuts(f))
    _assert_same_trees(ours.trees_, local.trees_)


def test_to_local_and_the_trace(client, tmp_path):
    X, y = _data(seed=5)
    params = dict(n_estimators=3, max_depth=3)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT).fit(_dask(X), _dask(y))
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y)
    # a Model like any other, trained through the engine's loop; where says its origin
    assert isinstance(ours.model_, Model) and ours.model_.origin == TRAINED_ON_DASK
    assert "Dask" in TRAINED_ON_DASK and ours.trace_ is ours.model_.trace
    model = ours.to_local()
    assert type(model) is tg.BoostingClassifier
    assert model.model_.origin == TRAINED_ON_DASK
    np.testing.assert_allclose(model.decision_function(X), local.decision_function(X), atol=1e-6)
    model.save(tmp_path / "m.json")
    back = tg.load(tmp_path / "m.json")
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    assert back.model_.origin == TRAINED_ON_DASK
    with pytest.raises(AttributeError, match="trained on a Dask cluster"):
        back.trace_  # noqa: B018 (the trace needs the training data)
    ours.save(tmp_path / "dask.json")
    assert (tmp_path / "dask.json").read_text() == (tmp_path / "m.json").read_text()
    trace = ours.trace_
    pd.testing.assert_frame_equal(trace.nodes(2), local.trace_.nodes(2))
    ours_splits, local_splits = trace.splits(2, 1), local.trace_.splits(2, 1)
    assert ours_splits["chosen"].sum() == 1
    pd.testing.assert_frame_equal(ours_splits, local_splits, rtol=1e-9)
    rows = trace.instances(2)
    assert isinstance(rows, dd.DataFrame)
    pd.testing.assert_frame_equal(
        rows.compute().reset_index(drop=True), local.trace_.instances(2), rtol=1e-9
    )


def _margins(payload):
    """The running margins the explorer page carries, (rows, rounds + 1)."""
    import base64

    p = payload["rows"]["margins"]
    a = np.frombuffer(base64.b64decode(p["b64"]), dtype="<f4" if p["bytes"] == 4 else "<f8")
    return a.reshape(payload["rows"]["margin_rows"], payload["rounds"] + 1)


def test_explore_shows_the_local_twin_with_the_rows_given_or_gathered(client, monkeypatch):
    from teachgbt.show.explorer import data as explorer_data

    X, y = _data(n=600, seed=8)
    params = dict(n_estimators=3, max_depth=3)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT).fit(_dask(X, 250), _dask(y, 250))
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y)
    # no rows given: the training rows, gathered from the workers in their order
    d = tg.explore(ours).data
    assert d["rows"]["n"] == len(X) and d["rows"]["y"] == y.tolist()
    assert d["title"].startswith("DaskBoostingClassifier")
    assert any("local twin" in n and "gathered" in n for n in d["notes"])
    np.testing.assert_allclose(_margins(d)[:, -1], local.decision_function(X), atol=1e-6)
    for tree, packed in zip(local.trees_, d["rows"]["leaf"]):
        assert packed == explorer_data._packed(tree.apply(X), tree.n_nodes)
    # rows given: those rows, nothing gathered
    d = tg.explore(ours, X[:40], y[:40]).data
    assert d["rows"]["n"] == 40 and any("the rows given" in n for n in d["notes"])
    np.testing.assert_allclose(_margins(d)[:, 0], local.model_.base_margin, atol=1e-7)
    np.testing.assert_allclose(_margins(d)[:, -1], local.decision_function(X[:40]), atol=1e-6)
    # too many rows to gather: one sentence, before anything is gathered
    monkeypatch.setattr(explorer_data, "MAX_X_VALUES", 100)
    with pytest.raises(ValueError, match=r"600 training rows × 5 features .* a sample of them"):
        tg.explore(ours)
    assert tg.explore(ours, X[:10], y[:10]).data["rows"]["n"] == 10


def test_eval_set_scores_as_the_local_fit(client):
    X, y = _data(seed=6)
    Xe, ye = _data(n=600, seed=7)
    params = dict(n_estimators=3, max_depth=3)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT)
    ours.fit(_dask(X), _dask(y), eval_set=[(_dask(Xe, 300), _dask(ye, 300))])
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y, eval_set=[(Xe, ye)])
    np.testing.assert_allclose(
        ours.evals_result_["validation_0"]["logloss"],
        local.evals_result_["validation_0"]["logloss"],
        rtol=1e-9,
    )


def test_a_worker_killed_mid_fit_is_survived(cluster):
    """A callback kills the worker process that holds a shard after round 2; Dask replays
    the lost shard's chain on the restarted (or the other) worker and the fit ends with the
    same trees, within the timeout."""
    _, client = cluster
    X, y = _data(seed=8)
    params = dict(n_estimators=5, max_depth=3)
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y)
    pids = client.run(os.getpid)
    killed = []

    def kill_a_worker(model, t):
        if t == 2:  # the worker holding a shard: its latest step is an end_tree task
            holding = [
                address
                for address, keys in client.has_what().items()
                if any(str(key).startswith("end_tree-") for key in keys)
            ]
            os.kill(pids[holding[0]], signal.SIGKILL)
            killed.append(holding[0])

    start = time.monotonic()
    ours = DaskBoostingClassifier(**params, callbacks=[kill_a_worker], timeout=TIMEOUT)
    ours.fit(_dask(X), _dask(y))
    assert killed and time.monotonic() - start < TIMEOUT
    _assert_same_trees(ours.trees_, local.trees_)
    client.wait_for_workers(2, timeout=TIMEOUT)


def test_same_predictions_as_xgboost_dask(client):
    xgb_dask = pytest.importorskip("xgboost.dask")
    X, y = _data(seed=9)
    params = dict(n_estimators=4, max_depth=3, learning_rate=0.3)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT).fit(_dask(X), _dask(y))
    theirs = xgb_dask.DaskXGBClassifier(tree_method="hist", n_jobs=1, **params)
    theirs.client = client
    theirs.fit(_dask(X), _dask(y))
    p_theirs = theirs.predict_proba(_dask(X)).compute()
    np.testing.assert_allclose(ours.predict_proba(_dask(X)).compute(), p_theirs, atol=1e-5)


def test_early_stopping_on_an_eval_set(client):
    X, y = _data(seed=10)
    Xe, ye = _data(n=400, seed=11)
    params = dict(n_estimators=30, max_depth=4, learning_rate=0.8, early_stopping_rounds=2)
    ours = DaskBoostingClassifier(**params, timeout=TIMEOUT)
    ours.fit(_dask(X), _dask(y), eval_set=[(_dask(Xe), _dask(ye))])
    local = tg.BoostingClassifier(tree_method="hist", **params).fit(X, y, eval_set=[(Xe, ye)])
    assert ours.best_iteration_ == local.best_iteration_ < 29
    assert len(ours.trees_) == len(local.trees_)


def test_a_wait_longer_than_the_timeout_fails_instead_of_hanging(client):
    from teachgbt.dask.driver import Driver

    slow = client.submit(time.sleep, 3, pure=False)
    with pytest.raises(TimeoutError, match="did not finish within timeout=0.5 s"):
        Driver(client, 0.5).result(slow, "a slow step")
    slow.result()


def test_bad_input_is_named(client):
    X, y = _data(n=200)
    with pytest.raises(ValueError, match="X has 200 rows but y has 150"):
        DaskBoostingClassifier(n_estimators=1).fit(_dask(X, 100), _dask(y[:150], 50))
    frame = dd.from_pandas(pd.DataFrame(X), npartitions=2)
    with pytest.raises(ValueError, match="X has 2 partitions but y has 3"):
        DaskBoostingClassifier(n_estimators=1).fit(frame, dd.from_pandas(pd.Series(y), 3))
    with pytest.raises(ValueError, match="subsample"):
        DaskBoostingClassifier(subsample=1.5).fit(_dask(X), _dask(y))
    with pytest.raises(ValueError, match="learning_rate"):
        DaskBoostingClassifier(learning_rate=-1).fit(_dask(X), _dask(y))
    with pytest.raises(ValueError, match="not split into sets on a Dask cluster"):
        DaskBoostingClassifier(enable_categorical=True).fit(_dask(X), _dask(y))
    with pytest.raises(ValueError, match="not fitted"):
        DaskBoostingRegressor().predict(X)


def test_the_parameters_are_the_training_parameters_declared_once():
    """Both the local and the Dask estimators take TrainParams' names (the Dask ones all
    but the algorithm and tree method they fix), then their own hooks."""
    from sklearn.base import clone

    train = set(TrainParams.defaults())
    assert set(tg.BoostingClassifier().get_params()) == train | {"callbacks", "verbose"}
    dask_names = set(DaskBoostingRegressor().get_params())
    assert dask_names == train - {"algorithm", "tree_method"} | {
        "callbacks", "verbose", "client", "timeout"
    }  # fmt: skip
    est = DaskBoostingClassifier(max_depth=3, timeout=7.0)
    assert clone(est).get_params() == est.get_params()
    assert repr(est) == "DaskBoostingClassifier(max_depth=3, timeout=7.0)"
