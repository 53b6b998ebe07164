"""Additive training, one tree per round (seed 000, "Additive Training").

    ŷ_i^(0) = base margin
    ŷ_i^(t) = ŷ_i^(t−1) + η·f_t(x_i)

With K ≥ 3 classes (softmax) every instance has K margins and a round grows K
trees, one per class, each on its class' column of g and h, all computed at
ŷ^(t−1) (XGBoost's ``multi:softprob``); ``trees`` holds them in XGBoost's
order, round by round, class by class.

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

from .. import _kernels
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
    "round_step",
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

    @property
    def n_outputs(self):
        """Margins per instance, and trees per round: K for softmax, else 1."""
        return self.loss.n_outputs

    def initial_margin(self, base_margin, n):
        """ŷ^(0): (n,), or (n, K) with K base margins."""
        if self.n_outputs == 1:
            return np.full(n, base_margin, dtype=self.dtype)
        return np.tile(np.asarray(base_margin, dtype=self.dtype), (n, 1))

    def add(self, margin, tree_values):
        """ŷ^(t) = ŷ^(t−1) + η·f_t(x): leaves already hold η·w*."""
        step = np.asarray(tree_values).astype(self.dtype, copy=False)
        return (margin + step).astype(self.dtype, copy=False)

    def default_base_score(self, y, sample_weight=None):
        """The base score when none is given: the loss's estimate (XGBoost's)."""
        return self.loss.default_base_score(y, sample_weight)

    def round_stats(self, y, margin, sample_weight):
        """Per-row statistics a round's trees are grown from: dict(g, h, h_cover, h_leaf),
        each (n,), or (n, K) with one column per class."""
        raise NotImplementedError

    def class_stats(self, stats, k):
        """The statistics class k's tree grows from: column k of every (n, K) array."""
        if self.n_outputs == 1:
            return stats

        def column(v):
            return np.ascontiguousarray(v[:, k]) if isinstance(v, np.ndarray) and v.ndim == 2 else v

        return {name: column(v) for name, v in stats.items()}

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
            if g.ndim == 2:  # (n, K): one weight per row, every class
                sample_weight32 = sample_weight32[:, None]
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
    """What training has produced so far: the trees (XGBoost's order: round by round, one
    per class within a round), each tree's sample, and the prepared data (the trace
    rescans it to show a node's candidate splits)."""

    tree_method: TreeMethod
    data: object
    n_outputs: int = 1  # trees per round
    trees: list = field(default_factory=list)
    samples: list = field(default_factory=list)  # per tree: dict(rows=..., features=...)
    margin: object = None  # ŷ^(t) of the training rows after the last round

    @property
    def n_rounds(self):
        return len(self.trees) // self.n_outputs

    def round_trees(self, t):
        """The trees of round t (1-based): one, or one per class."""
        return self.trees[(t - 1) * self.n_outputs : t * self.n_outputs]


def round_step(trees, X32):
    """η·f_t(x) of one round's trees: (n,), or (n, K) with one column per class' tree."""
    if len(trees) == 1:
        return trees[0].predict(X32)
    return np.column_stack([tree.predict(X32) for tree in trees])


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

    X32: (n, d) float32 features; y: (n,) target (0/1 for a classifier, class indices
    0 … K−1 for softmax); ``algorithm``: an ``Algorithm``; ``tree_method``: an entry of
    ``TREE_METHODS``; ``sampler``: a ``RoundSampler`` (default: every row and feature
    each tree); ``after_round``: hooks ``hook(t, booster)`` called after every round t,
    each of them, in order; training stops after a round where any returns True.
    """
    n, d = X32.shape
    sampler = sampler or RoundSampler()
    K = algorithm.n_outputs
    booster = Booster(tree_method, tree_method.prepare(X32, max_bin), K)
    margin = algorithm.initial_margin(base_margin, n)  # ŷ^(0): (n,) or (n, K)
    for t in range(1, n_rounds + 1):
        samples = [dict(zip(("rows", "features"), sampler.draw(n, d))) for _ in range(K)]
        trees, margin = boost_round(
            booster, algorithm, X32, y, sample_weight, margin, samples, feature_names
        )
        for k, tree in enumerate(trees):
            tree.round, tree.class_ = t, (k if K > 1 else None)
        booster.trees.extend(trees)
        booster.samples.extend(samples)
        booster.margin = margin
        stops = [hook(t, booster) for hook in after_round]
        if any(stop is True for stop in stops):
            break
    return booster


def boost_round(booster, algorithm, X32, y, sample_weight, margin, samples, feature_names):
    """One round: g, h at ŷ^(t−1), a tree f_t grown on them for each output (class k on
    column k), and ŷ^(t). ``samples``: each tree's dict(rows, features). Returns
    ([f_t per class], ŷ^(t))."""
    n, d = X32.shape
    # g_i, h_i at the current margins (seed 000), in the algorithm's precision: (n,) or (n, K)
    stats = algorithm.round_stats(y, margin, sample_weight)
    # η·f_t(x_i): (n,) or (n, K), in the precision it is added to the margins in
    step = np.empty(np.shape(margin), dtype=algorithm.dtype)
    column = step.reshape(n, -1)  # a view: column k is class k's step
    kernels = _kernels.load("_tree_numba", n)
    trees = []
    for k, sample in enumerate(samples):
        class_stats = algorithm.class_stats(stats, k)
        splitter = booster.tree_method.splitter(
            booster.data, class_stats, algorithm.scan_params(), sample["rows"], sample["features"]
        )
        # f_t: the structure by greedy gain, leaves w* (seed 000, "Learn the tree structure")
        tree, grown_rows, grown_leaf = grow_tree(
            splitter,
            algorithm.params,
            d,
            feature_names,
            algorithm.leaf_stats(splitter, class_stats),
        )
        if len(grown_rows) == n:  # every row's leaf is known from growing the tree
            if kernels is None:
                column[:, k][grown_rows] = tree.value[grown_leaf]
            else:
                kernels.put_leaf_values(column[:, k], grown_rows, grown_leaf, tree.value)
        else:  # rows left out by subsample are routed
            column[:, k] = tree.predict(X32)
        trees.append(tree)
    # ŷ^(t) = ŷ^(t−1) + η·f_t(x)
    return trees, algorithm.add(margin, step)
