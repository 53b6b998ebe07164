"""The trace of a fit on a cluster: per-node tables from the trees, the rest on demand.

``nodes(t)`` is the tree's own table (G, H, w*, gain, loss_chg, n), kept from
training as a local fit keeps it. ``splits(t, node)`` recomputes the node's
histogram on the workers, each over its own partition (margins replayed from the
trees, g and h as in training), sums it through Dask and lists the candidates
with the single-machine split finder. ``instances(t)`` is a dask DataFrame
computed partition by partition where the data lives: never gathered unless
you call ``.compute()`` on it.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from ..engine.binning import HistData
from ..engine.hist import HistSplitter
from ..engine.trace import INSTANCE_COLUMNS
from . import shard as S

__all__ = ["DaskTrace"]


def _replay(X, y, weight, fit, t):
    """One partition as trained on before round t: X32, y (class indices), weights and the
    margins after round t − 1, the model's (``fit``: what the workers need of the fit)."""
    X32, y, weight = S.as_arrays(X, y, weight)
    model = fit["model"]
    if model.classes is not None:
        y = np.searchsorted(model.classes, y)
    # float64 holds the model's float32 margins exactly: g and h are those of training
    return X32, y.astype(np.float64), weight, model.margins_after(X32, t - 1)


def _node_histogram(X, y, weight, fit, t, k, node, features, draw, offset):
    """The histogram of the rows of ``node`` of round t's tree of class k, over one
    partition (whose first row is row ``offset`` of the whole data; ``draw``: the tree's
    subsample)."""
    X32, y, weight, margins = _replay(X, y, weight, fit, t)
    algorithm, model = fit["algorithm"], fit["model"]
    stats = algorithm.class_stats(algorithm.round_stats(y, margins, weight), k)
    tree = model.tree(t, k if model.n_outputs > 1 else None)
    data = HistData.from_cuts(X32, *fit["cuts"])
    splitter = HistSplitter(data, stats["g"], stats["h"], algorithm.scan_params(), None, features)
    keep = tree.node_mask(X32, node)
    if draw is not None:  # only the tree's sample was grown on
        in_sample = np.zeros(len(X32), dtype=bool)
        in_sample[S.sample([(offset, len(X32))], draw)] = True
        keep &= in_sample
    nd = splitter.root(keep=keep)
    return {0: (nd.hist, nd.n_missing, nd.n, nd.sums)}


def _instances(X, y, weight, fit, t, k):
    """The ``instances(t)`` table of one partition."""
    X32, y, weight, margin = _replay(X, y, weight, fit, t)
    algorithm, model = fit["algorithm"], fit["model"]
    K = model.n_outputs
    stats = algorithm.class_stats(algorithm.round_stats(y, margin, weight), k)
    tree = model.tree(t, k if K > 1 else None)
    prob = model.link(margin)
    column = (lambda a: a[:, k]) if K > 1 else (lambda a: a)
    df = pd.DataFrame(
        {
            "y": (y == k).astype(np.float64) if K > 1 else y,
            "margin": column(margin),
            "prob": column(prob),
            "g": np.asarray(stats["g"], dtype=np.float64),
            "h": np.asarray(stats["h"], dtype=np.float64),
            "leaf": tree.apply(X32),
        }
    )
    return df if model.is_classifier else df.drop(columns="prob")


def _rows(X, y):
    """One partition's rows as numpy: X32 as trained on, y as given."""
    X32, y, _ = S.as_arrays(X, y)
    return X32, y


class DaskTrace:
    """Tables of a ``DaskBoostingClassifier`` / ``DaskBoostingRegressor`` fit: ``model``,
    the fitted ``Model``; ``algorithm``, ``meta`` and ``cuts``: what it trained with;
    ``parts`` and ``offsets``: the training data's partitions (Delayed) and each one's first
    row; ``samples``: each tree's features and subsample, by tree number − 1."""

    def __init__(self, model, algorithm, meta, cuts, parts, offsets, samples, client, timeout):
        self._model, self._algo, self._meta, self._cuts = model, algorithm, meta, cuts
        self._parts, self._offsets, self._samples = parts, offsets, samples
        self._client, self._timeout = client, timeout

    @property
    def n_rounds(self):
        return self._model.n_rounds

    def _tree(self, t, class_):
        """Round t's tree of class ``class_`` (both checked), its tree number and class."""
        model = self._model
        i = model.tree_number(t, class_)
        return model.trees[i - 1], i, model.check_class(class_)

    def _fit(self):
        """What the workers need of the fit (the model without this trace)."""
        model = copy.copy(self._model)
        model.trace = None
        return {"model": model, "algorithm": self._algo, "cuts": self._cuts}

    def nodes(self, t, class_=None):
        """Round t's tree, one row per node, as ``Trace.nodes``: kept from training."""
        return self._tree(t, class_)[0].to_frame()

    def splits(self, t, node, class_=None):
        """Every candidate split evaluated at ``node`` of round t's tree, the chosen one
        marked; the node's histogram is recomputed on the workers and summed through Dask."""
        from dask import delayed

        from .driver import ClusterNode, Driver

        tree, i, k = self._tree(t, class_)
        if not isinstance(node, (int, np.integer)) or not 0 <= node < tree.n_nodes:
            raise ValueError(
                f"the tree of round {t} has nodes 0 to {tree.n_nodes - 1}; got node={node!r}"
            )
        parts, sample = self._parts, self._samples[i - 1]
        features, draw = sample["features"], sample["draw"]
        driver = Driver(self._client, self._timeout)
        fit = delayed(self._fit(), pure=True)
        weights = parts.weight or [None] * len(parts)
        futures = [
            driver.client.compute(
                delayed(_node_histogram)(x, y, w, fit, t, k, int(node), features, draw, offset),
                optimize_graph=False,
            )
            for x, y, w, offset in zip(parts.X, parts.y, weights, self._offsets)
        ]
        hist, n_missing, n, sums = driver.reduce(futures)[0]
        scanner = HistSplitter(self._meta, None, None, self._algo.scan_params(), None, features)
        nd = ClusterNode(0, sums, n, hist, n_missing)
        chosen = None
        if tree.feature[node] >= 0:
            chosen = (int(tree.feature[node]), float(tree.threshold[node]))
            chosen += (bool(tree.default_left[node]),)
        return scanner.candidates(nd, sums[0], sums[1], tree.feature_names, chosen)

    def instances(self, t, class_=None):
        """Round t per row (y, margin, prob, g, h, leaf) as a dask DataFrame, one partition
        per partition of the training data: nothing is computed until you ask."""
        import dask.dataframe as dd
        from dask import delayed

        _, _, k = self._tree(t, class_)
        parts = self._parts
        fit = delayed(self._fit(), pure=True)
        weights = parts.weight or [None] * len(parts)
        columns = [c for c in INSTANCE_COLUMNS if c != "prob" or self._model.is_classifier]
        meta = pd.DataFrame(
            {c: pd.Series(dtype=np.int32 if c == "leaf" else np.float64) for c in columns}
        )
        frames = [
            delayed(_instances)(x, y, w, fit, t, k) for x, y, w in zip(parts.X, parts.y, weights)
        ]
        return dd.from_delayed(frames, meta=meta, verify_meta=False)

    def rows(self):
        """The training rows gathered from the workers: (X32, y), numpy, in the order the
        fit numbered them (y as given: labels, not class indices). Every row comes to this
        machine: ask only for data that fits it."""
        from dask import delayed

        parts = self._parts
        client = self._client
        if getattr(client, "status", "running") in ("closing", "closed"):
            raise ValueError(
                "the Dask client of the fit is closed: its training rows cannot be gathered"
            )
        futures = client.compute(
            [delayed(_rows)(x, y) for x, y in zip(parts.X, parts.y)], optimize_graph=False
        )
        blocks = [f.result(timeout=self._timeout) for f in futures]
        X = np.concatenate([b[0] for b in blocks]) if blocks else np.empty((0, 0), np.float32)
        return X, np.concatenate([b[1] for b in blocks])

    def __repr__(self):
        return (
            f"<teachgbt.dask.DaskTrace: {self.n_rounds} rounds; nodes(t), splits(t, node), "
            "instances(t) as a dask DataFrame>"
        )
