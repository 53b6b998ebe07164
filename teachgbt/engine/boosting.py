"""Additive training, one tree per round (seed 000, "Additive Training").

    ŷ_i^(0) = base margin
    ŷ_i^(t) = ŷ_i^(t−1) + η·f_t(x_i)

``train`` is that loop and ``boost_round`` one round of it, as scikit-learn's
``_fit_stages`` and ``_fit_stage``: compute g, h at the current margins, grow
a tree on them, add η·f_t. Everything else a fit does — eval sets, early
stopping, user callbacks, the progress bar — is a hook ``train`` calls after
each round (``engine.callbacks``); the estimators are thin adapters over
``train``, as XGBoost's ``XGBModel`` is over ``xgboost.train``.

An *algorithm* decides what statistics each round's tree is grown from and
how its leaves are valued:

* ``XGBoostAlgorithm`` (seeds 000–003): g_i, h_i of the loss; splits ranked by
  the regularized gain; leaves w* = −G/(H+λ).
* ``gbdt.GBDTAlgorithm`` (seed 004): Friedman's GBDT; splits ranked by the
  squared error of the residuals; Newton leaves Σresidual / Σp(1−p).

A *tree method* decides how splits are found: ``exact`` (sorted scan) or
``hist`` (histograms of binned features). ``TREE_METHODS`` is the one place
that maps the name to the data preparation and the split finder; the loop and
the trace both use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..losses import check_hessian
from .exact import ExactSplitter, SortedColumns
from .grow import GrowParams, grow_tree
from .hist import HistData, HistSplitter

F32 = np.float32

__all__ = [
    "Algorithm",
    "XGBoostAlgorithm",
    "TreeMethod",
    "TREE_METHODS",
    "RoundSampler",
    "Booster",
    "train",
    "boost_round",
    "resolve_grow_params",
]


# ------------------------------------------------------------------ algorithms
class Algorithm:
    """Interface shared by the boosting algorithms."""

    name = ""
    dtype = np.float64  # precision of margins, g and h during training

    def __init__(self, loss, params):
        self.loss = loss
        self.params = params  # GrowParams: tree policy and leaf weights

    def initial_margin(self, base_margin, n):
        return np.full(n, base_margin, dtype=self.dtype)

    def add(self, margin, tree_values):
        """ŷ^(t) = ŷ^(t−1) + η·f_t(x): leaves already hold η·w*."""
        return (margin + np.asarray(tree_values).astype(self.dtype)).astype(self.dtype)

    def round_stats(self, y, margin, sample_weight):
        """Per-row statistics a round's tree is grown from: dict(g, h, h_cover, h_leaf)."""
        raise NotImplementedError

    def scan_params(self):
        """The parameters the split finder ranks candidates with."""
        return self.params

    def leaf_stats(self, splitter, stats):
        """``(node) -> (G, H, extra, may_split)`` for leaf weights, or None to use the
        split sums (see ``grow.grow_tree``)."""
        return None


class XGBoostAlgorithm(Algorithm):
    """Second-order, regularized boosting as XGBoost does it, float32 as XGBoost is."""

    name = "xgboost"
    dtype = F32

    def round_stats(self, y, margin, sample_weight):
        # g_i, h_i: first and second derivative of the loss at ŷ^(t−1) (seed 000)
        g, h = self.loss.grad_hess(y, margin, dtype=F32)
        check_hessian(self.loss, h)
        if sample_weight is not None:
            sample_weight32 = sample_weight.astype(F32)
            g, h = g * sample_weight32, h * sample_weight32
        return {"g": g, "h": h, "h_cover": None, "h_leaf": None}


def resolve_grow_params(est, algorithm):
    """GrowParams from an estimator's (possibly None) parameters."""
    gbdt = algorithm == "gbdt"
    return GrowParams(
        max_depth=0 if est.max_depth is None else int(est.max_depth),
        max_leaves=int(est.max_leaves or 0),
        reg_lambda=float(est.reg_lambda if est.reg_lambda is not None else (0.0 if gbdt else 1.0)),
        reg_alpha=float(est.reg_alpha or 0.0),
        gamma=float(est.gamma or 0.0),
        min_child_weight=float(
            est.min_child_weight if est.min_child_weight is not None else (0.0 if gbdt else 1.0)
        ),
        max_delta_step=float(est.max_delta_step or 0.0),
        learning_rate=float(
            est.learning_rate if est.learning_rate is not None else (0.1 if gbdt else 0.3)
        ),
        pruning=est.pruning or ("pre" if est.tree_method == "hist" else "post"),
        float32=not gbdt,
    )


# ------------------------------------------------------------------ tree methods
@dataclass(frozen=True)
class TreeMethod:
    """How splits are found: the per-fit data a split finder scans, and the split finder."""

    name: str
    prepare: object  # (X32, max_bin) -> the data every round's split finder scans
    splitter_class: type  # (data, g, h, params, rows, features, h_cover) -> split finder

    def splitter(self, data, stats, scan_params, rows=None, features=None):
        """The split finder of one round, over that round's g, h and sample."""
        return self.splitter_class(
            data,
            stats["g"],
            stats["h"],
            scan_params,
            rows=rows,
            features=features,
            h_cover=stats.get("h_cover"),
        )


def _sorted_columns(X32, max_bin):
    return SortedColumns(X32)  # the exact scan sees every distinct value; no bins


def _histogram_bins(X32, max_bin):
    return HistData(X32, max_bin=int(max_bin))


TREE_METHODS = {
    "exact": TreeMethod("exact", _sorted_columns, ExactSplitter),
    "hist": TreeMethod("hist", _histogram_bins, HistSplitter),
}


# ------------------------------------------------------------------ the loop
class RoundSampler:
    """Each round's rows (``subsample``) and features (``colsample_bytree``), drawn per tree
    as XGBoost's ``subsample`` and ``colsample_bytree``; None means all of them."""

    def __init__(self, subsample=1.0, colsample_bytree=1.0, random_state=None):
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.rng = np.random.default_rng(random_state)

    def draw(self, n_rows, n_features):
        return self._rows(n_rows), self._features(n_features)

    def _rows(self, n):
        if self.subsample >= 1.0:
            return None
        rows = np.flatnonzero(self.rng.random(n) < self.subsample)
        return rows if len(rows) else np.array([int(self.rng.integers(n))])

    def _features(self, d):
        if self.colsample_bytree >= 1.0:
            return None
        k = max(1, int(self.colsample_bytree * d))
        return np.sort(self.rng.choice(d, size=k, replace=False))


@dataclass
class Booster:
    """What training has produced so far: the trees, each round's sample, and the prepared
    data (the trace rescans it to show a node's candidate splits)."""

    tree_method: TreeMethod
    data: object
    trees: list = field(default_factory=list)
    samples: list = field(default_factory=list)  # per round: dict(rows=..., features=...)


def train(
    X32,
    y,
    algorithm,
    tree_method,
    n_rounds,
    base_margin,
    sample_weight=None,
    *,
    feature_names=None,
    max_bin=256,
    sampler=None,
    after_round=(),
):
    """Additive training (seed 000): ŷ^(0) = base margin, then ``n_rounds`` times
    ŷ^(t) = ŷ^(t−1) + η·f_t(x). Returns the ``Booster``.

    X32: (n, d) float32 features; y: (n,) target (0/1 for a classifier);
    ``algorithm``: an ``Algorithm``; ``tree_method``: an entry of ``TREE_METHODS``;
    ``sampler``: a ``RoundSampler`` (default: every row and feature each round);
    ``after_round``: hooks ``hook(t, booster)`` called after every round t, each of
    them, in order; training stops after a round where any returns True.
    """
    n, d = X32.shape
    sampler = sampler or RoundSampler()
    booster = Booster(tree_method, tree_method.prepare(X32, max_bin))
    margin = algorithm.initial_margin(base_margin, n)  # ŷ^(0): (n,)
    for t in range(1, n_rounds + 1):
        rows, features = sampler.draw(n, d)
        tree, margin = boost_round(
            booster, algorithm, X32, y, sample_weight, margin, rows, features, feature_names
        )
        booster.trees.append(tree)
        booster.samples.append({"rows": rows, "features": features})
        stops = [hook(t, booster) for hook in after_round]
        if any(stop is True for stop in stops):
            break
    return booster


def boost_round(booster, algorithm, X32, y, sample_weight, margin, rows, features, feature_names):
    """One round: g, h at ŷ^(t−1), the tree f_t grown on them, and ŷ^(t). Returns (f_t, ŷ^(t))."""
    n, d = X32.shape
    # g_i, h_i at the current margins (seed 000), in the algorithm's precision: (n,) each
    stats = algorithm.round_stats(y, margin, sample_weight)
    splitter = booster.tree_method.splitter(
        booster.data, stats, algorithm.scan_params(), rows, features
    )
    # f_t: the structure by greedy gain, leaves w* (seed 000, "Learn the tree structure")
    tree, grown_rows, grown_leaf = grow_tree(
        splitter, algorithm.params, d, feature_names, algorithm.leaf_stats(splitter, stats)
    )
    if len(grown_rows) == n:  # every row's leaf is known from growing the tree
        step = np.empty(n, dtype=np.float64)  # η·f_t(x_i): (n,)
        step[grown_rows] = tree.value[grown_leaf]
    else:  # rows left out by subsample are routed
        step = tree.predict(X32)
    # ŷ^(t) = ŷ^(t−1) + η·f_t(x)
    return tree, algorithm.add(margin, step)
