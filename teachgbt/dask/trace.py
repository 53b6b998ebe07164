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

import numpy as np
import pandas as pd

from ..engine.binning import HistData
from ..engine.boosting import round_step
from ..engine.hist import HistSplitter
from ..engine.trace import INSTANCE_COLUMNS
from . import shard as S

__all__ = ["DaskTrace"]


def _replay(X, y, weight, fit):
    """One partition as trained on: X32, y (class indices), weights, and the function giving
    the margins before round t (a dict ``fit`` holds what the model knows)."""
    X32, y, weight = S.as_arrays(X, y, weight)
    if fit["classes"] is not None:
        y = np.searchsorted(fit["classes"], y)
    y = y.astype(np.float64)
    algorithm, trees, K = fit["algorithm"], fit["trees"], fit["K"]

    def margin_before(t):
        m = algorithm.initial_margin(fit["base_margin"], len(X32))
        for r in range(1, t):
            m = algorithm.add(m, round_step(trees[(r - 1) * K : r * K], X32))
        return m

    return X32, y, weight, margin_before


def _node_histogram(X, y, weight, fit, t, k, node, features, draw, offset):
    """The histogram of the rows of ``node`` of round t's tree k, over one partition
    (whose first row is row ``offset`` of the whole data; ``draw``: the tree's subsample)."""
    X32, y, weight, margin_before = _replay(X, y, weight, fit)
    algorithm = fit["algorithm"]
    stats = algorithm.class_stats(algorithm.round_stats(y, margin_before(t), weight), k)
    tree = fit["trees"][(t - 1) * fit["K"] + k]
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
    X32, y, weight, margin_before = _replay(X, y, weight, fit)
    algorithm = fit["algorithm"]
    m = margin_before(t)
    stats = algorithm.class_stats(algorithm.round_stats(y, m, weight), k)
    tree = fit["trees"][(t - 1) * fit["K"] + k]
    K = fit["K"]
    margin = np.asarray(m, dtype=np.float64)
    prob = algorithm.loss.transform(margin)
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
    return df if fit["classes"] is not None else df.drop(columns="prob")


class DaskTrace:
    """Tables of a ``DaskBoostingClassifier`` / ``DaskBoostingRegressor`` fit."""

    def __init__(self, model, algorithm, meta):
        self._model, self._algo, self._meta = model, algorithm, meta
        self._K = algorithm.n_outputs

    @property
    def n_rounds(self):
        return len(self._model.trees_) // self._K

    def _check(self, t, class_):
        if not isinstance(t, (int, np.integer)) or not 1 <= t <= self.n_rounds:
            raise ValueError(f"round t must be a whole number from 1 to {self.n_rounds}; got {t!r}")
        if self._K == 1:
            if class_ is not None:
                raise ValueError("class_ is for classifiers of three or more classes")
            return int(t), 0
        if class_ is None or not 0 <= int(class_) < self._K:
            raise ValueError(f"this model has {self._K} classes: pass class_= 0 to {self._K - 1}")
        return int(t), int(class_)

    def _tree(self, t, k):
        return self._model.trees_[(t - 1) * self._K + k]

    def _fit(self):
        model = self._model
        return {
            "algorithm": self._algo,
            "trees": list(model.trees_),
            "K": self._K,
            "classes": getattr(model, "classes_", None),
            "base_margin": model.base_margin_,
            "cuts": model.cuts_,
        }

    def nodes(self, t, class_=None):
        """Tree t, one row per node, as ``Trace.nodes``: kept from training."""
        return self._tree(*self._check(t, class_)).to_frame()

    def splits(self, t, node, class_=None):
        """Every candidate split evaluated at ``node`` of tree t, the chosen one marked;
        the node's histogram is recomputed on the workers and summed through Dask."""
        from dask import delayed

        from .driver import ClusterNode, Driver

        t, k = self._check(t, class_)
        tree = self._tree(t, k)
        if not isinstance(node, (int, np.integer)) or not 0 <= node < tree.n_nodes:
            raise ValueError(f"tree {t} has nodes 0 to {tree.n_nodes - 1}; got node={node!r}")
        model, parts = self._model, self._model._parts
        features = model._features[(t - 1) * self._K + k]
        draw = model._row_draws[(t - 1) * self._K + k]
        driver = Driver(model._get_client(), model.timeout)
        fit = delayed(self._fit(), pure=True)
        weights = parts.weight or [None] * len(parts)
        futures = [
            driver.client.compute(
                delayed(_node_histogram)(x, y, w, fit, t, k, int(node), features, draw, offset),
                optimize_graph=False,
            )
            for x, y, w, offset in zip(parts.X, parts.y, weights, model._offsets)
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

        t, k = self._check(t, class_)
        parts = self._model._parts
        fit = delayed(self._fit(), pure=True)
        weights = parts.weight or [None] * len(parts)
        columns = [
            c for c in INSTANCE_COLUMNS if c != "prob" or self._model.loss_.is_classification
        ]
        meta = pd.DataFrame(
            {c: pd.Series(dtype=np.int32 if c == "leaf" else np.float64) for c in columns}
        )
        frames = [
            delayed(_instances)(x, y, w, fit, t, k) for x, y, w in zip(parts.X, parts.y, weights)
        ]
        return dd.from_delayed(frames, meta=meta, verify_meta=False)

    def __repr__(self):
        return (
            f"<teachgbt.dask.DaskTrace: {self.n_rounds} rounds; nodes(t), splits(t, node), "
            "instances(t) as a dask DataFrame>"
        )
