"""Dask partitions read as a local fit reads X (issue 26, item 6): a partition whose columns
are in another order trained on the wrong columns (probabilities off by up to 0.47), a
renamed column was accepted, an inf trained where a local fit refuses it, and a closed
client raised a raw ClosedClientError. Each is now one sentence naming the partition."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import teachgbt.dask as tgd  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                 dashboard_address=None, silence_logs=logging.CRITICAL) as c,
        distributed.Client(c) as client,
    ):  # fmt: skip
        yield client


def _frame(parts):
    meta = parts[0].iloc[:0]
    return dd.from_delayed([dask.delayed(p) for p in parts], meta=meta, verify_meta=False)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(600, 3)), columns=list("abc"))
    y = (X.a + 0.5 * X.b > 0).astype(int)
    return X, dd.from_pandas(y, npartitions=2, sort=False)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda p: p[["c", "b", "a"]], "partition 1 of X has its columns in another order"),
        (lambda p: p.rename(columns={"c": "d"}), "partition 1 of X has other columns"),
        (lambda p: p.assign(a=np.where(np.arange(len(p)) == 5, np.inf, p.a)),
         "partition 1 of X contains an infinite value in column 'a'"),
    ],
    ids=["order", "renamed", "inf"],
)  # fmt: skip
def test_a_partition_unlike_the_data_is_refused_by_number(client, data, change, words):
    X, y = data
    parts = [X.iloc[:300], change(X.iloc[300:].copy())]
    with pytest.raises(ValueError, match=words):
        tgd.DaskBoostingClassifier(n_estimators=2, max_depth=2, client=client).fit(_frame(parts), y)


def test_partitions_like_the_data_train(client, data):
    X, y = data
    model = tgd.DaskBoostingClassifier(n_estimators=2, max_depth=2, client=client)
    model.fit(_frame([X.iloc[:300], X.iloc[300:]]), y)
    assert len(model.trees_) == 2


def test_a_closed_client_is_one_sentence(data):
    X, y = data
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                 dashboard_address=None, silence_logs=logging.CRITICAL) as c,
        distributed.Client(c) as closed,
    ):  # fmt: skip
        closed.close()
        with pytest.raises(ValueError, match="the Dask client is closed"):
            tgd.DaskBoostingClassifier(n_estimators=2, client=closed).fit(
                dd.from_pandas(X, npartitions=2), y
            )
