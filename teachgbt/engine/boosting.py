"""Additive training, one tree per round (seed 000, "Additive Training").

    ŷ_i^(0) = base margin
    ŷ_i^(t) = ŷ_i^(t−1) + η·f_t(x_i)

With K ≥ 3 classes (softmax) every instance has K margins and a round grows K
trees, one per class, each on its class' column of g and h, all computed at
ŷ^(t−1) (XGBoost's ``multi:softprob``); ``trees`` holds them in XGBoost's
order, round by round, class by class.

``boost_round`` is one round of that loop (scikit-learn's ``_fit_stage``): compute
g, h at the current margins, grow a tree on them, add η·f_t. The loop itself,
with everything around it, is ``engine.training.train``.

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

from dataclasses import dataclass

import numpy as np

from ..core.losses import check_hessian
from ..utils import kernels
from .exact import ExactSplitter, SortedColumns
from .grow import grow_tree
from .hist import HistData, HistSplitter, pack_stats

F32 = np.float32

__all__ = [
    "Algorithm",
    "XGBoostAlgorithm",
    "TreeMethod",
    "TREE_METHODS",
    "RoundSampler",
    "boost_round",
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
        """ŷ^(t) = ŷ^(t−1) + η·f_t(x): leaves already hold η·w*. Written over ŷ^(t−1) when
        that is an array of the margins' precision (the trainers' own, which they replace
        by the result), else into a new array."""
        step = np.asarray(tree_values).astype(self.dtype, copy=False)
        own = isinstance(margin, np.ndarray) and margin.dtype == self.dtype
        if own and margin.flags.writeable and margin.shape == np.broadcast(margin, step).shape:
            return np.add(margin, step, out=margin)
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

    def uses_grown_rows(self, tree_method):
        """Whether ``after_grow`` needs the rows a tree was grown on and their leaves (else
        it is given None for them). No by default."""
        return False

    def after_grow(self, tree_method, tree, rows, leaf, y, margin, sample_weight):
        """Called on each tree once it is grown, before it joins the margins: ``rows``
        were grown on and reached ``leaf`` (None when ``uses_grown_rows`` says no);
        ``margin`` is the tree's output column of ŷ^(t−1). Nothing by default."""


#: the rows whose g and h are computed together (``XGBoostAlgorithm._blockwise_stats``):
#: two threads pass the interpreter to each other at every numpy call, so blocks are large
#: (1M rows, logistic, median of 15: one thread 4.7 ms in blocks of 32k rows; two threads
#: 5.2 ms in blocks of 32k, 3.3 ms in blocks of 128k; 4M rows 23.4 and 15.0 ms)
BLOCK_ROWS = 1 << 17


class XGBoostAlgorithm(Algorithm):
    """Second-order, regularized boosting as XGBoost does it, float32 as XGBoost is."""

    name = "xgboost"
    dtype = F32

    def round_stats(self, y, margin, sample_weight):
        if self.loss.elementwise and np.ndim(margin) == 1:
            g, h = self._blockwise_stats(y, margin, sample_weight)
            return {"g": g, "h": h, "h_cover": None, "h_leaf": None}
        # g_i, h_i: first and second derivative of the loss at ŷ^(t−1) (seed 000)
        g, h = self.loss.grad_hess(y, margin, dtype=F32)
        check_hessian(self.loss, h)
        if sample_weight is not None:
            sample_weight32 = sample_weight.astype(F32)
            if g.ndim == 2:  # (n, K): one weight per row, every class
                sample_weight32 = sample_weight32[:, None]
            g, h = g * sample_weight32, h * sample_weight32
        return {"g": g, "h": h, "h_cover": None, "h_leaf": None}

    def _blockwise_stats(self, y, margin, sample_weight):
        """``round_stats``' g and h of a loss that works row by row (``Loss.elementwise``),
        computed ``BLOCK_ROWS`` rows at a time, so that the loss's temporary arrays stay in the
        processor's cache, and written side by side into one (n, 2) array: the layout the
        histograms read (``hist.pack_stats`` then leaves them in place). The same numbers
        as ``grad_hess`` on every row at once. The blocks are shared between the kernels'
        threads (``kernels.share``): numpy lets go of the interpreter while it computes."""
        n, block = len(margin), BLOCK_ROWS
        both = np.empty((n, 2), dtype=F32)
        weight = None if sample_weight is None else np.asarray(sample_weight).astype(F32)
        n_blocks = -(-n // block)
        ok = np.ones(n_blocks, dtype=bool)  # block b's h all positive

        def blocks(first, last):
            for b in range(first, last):
                lo, hi = b * block, min(n, (b + 1) * block)
                g, h = self.loss.grad_hess(y[lo:hi], margin[lo:hi], dtype=F32)
                ok[b] = (h > 0).all()
                if weight is not None:
                    g, h = g * weight[lo:hi], h * weight[lo:hi]
                both[lo:hi, 0], both[lo:hi, 1] = g, h

        kernels.share(blocks, (), n_blocks)
        if not ok.all():  # the loss's error, naming the first row and how many
            check_hessian(self.loss, self.loss.grad_hess(y, margin, dtype=F32)[1])
        return both[:, 0], both[:, 1]

    def after_grow(self, tree_method, tree, rows, leaf, y, margin, sample_weight):
        """XGBoost's leaf refresh (absolute error, quantiles): the loss recomputes each leaf
        from its rows' residuals, where the tree method keeps the rows' leaves (hist; the
        exact method's last step, the pruner, does not, so XGBoost exact keeps −G/(H+λ))."""
        if self.uses_grown_rows(tree_method):
            self.loss.refresh_leaves(tree, rows, leaf, y, margin, sample_weight)

    def uses_grown_rows(self, tree_method):
        """The leaf refresh needs them: the tree method keeps them and the loss refreshes."""
        return tree_method.refreshes_leaves and self.loss.refreshes_leaves


# ------------------------------------------------------------------ tree methods
@dataclass(frozen=True)
class TreeMethod:
    """How splits are found: the per-fit data a split finder scans, and the split finder."""

    name: str
    prepare: object  # (X32, max_bin, categorical, trees) -> the data the split finders scan
    splitter_class: type  # (data, g, h, params, rows, features, h_cover) -> split finder
    refreshes_leaves: bool = False  # XGBoost refreshes leaves after growing (loss permitting)
    pack: object = None  # stats -> the same stats laid out as the split finder reads them

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


def _sorted_columns(X32, max_bin, categorical=(), trees=1):
    return SortedColumns(X32, trees=trees)  # the exact scan sees every distinct value; no bins


def _histogram_bins(X32, max_bin, categorical=(), trees=1):
    return HistData(X32, max_bin=int(max_bin), categorical=categorical, trees=trees)


TREE_METHODS = {
    "exact": TreeMethod("exact", _sorted_columns, ExactSplitter),
    "hist": TreeMethod(
        "hist", _histogram_bins, HistSplitter, refreshes_leaves=True, pack=pack_stats
    ),
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
        return self.rows(n_rows), self.features(n_features)

    def rows(self, n):
        if self.subsample >= 1.0:
            return None
        rows = np.flatnonzero(self.rng.random(n) < self.subsample)
        return rows if len(rows) else np.array([int(self.rng.integers(n))])

    def skip_rows(self, n):
        """The generator's state before a tree's row draws, then moved past them (one 64-bit
        draw a row, as ``Generator.random``): whoever holds rows a … b of the data draws their
        numbers from that state (a Dask worker, its own rows). None: every row is kept."""
        if self.subsample >= 1.0:
            return None
        state = self.rng.bit_generator.state
        self.rng.bit_generator.advance(n)
        return state

    def features(self, d):
        if self.colsample_bytree >= 1.0:
            return None
        k = max(1, int(self.colsample_bytree * d))
        return np.sort(self.rng.choice(d, size=k, replace=False))


def boost_round(
    tree_method, data, algorithm, X32, y, sample_weight, margin, samples, feature_names
):
    """One round: g, h at ŷ^(t−1), a tree f_t grown on them for each output (class k on
    column k), and ŷ^(t). ``data``: what ``tree_method.prepare`` made of X32;
    ``samples``: each tree's dict(rows, features). Returns ([f_t per class], ŷ^(t))."""
    n, d = X32.shape
    # g_i, h_i at the current margins (seed 000), in the algorithm's precision: (n,) or (n, K)
    stats = algorithm.round_stats(y, margin, sample_weight)
    if tree_method.pack is not None:
        stats = tree_method.pack(stats)
    # η·f_t(x_i) of class k's tree: step[k], in the precision it is added to the margins in
    K = len(samples)
    step = np.empty((K, n), dtype=algorithm.dtype)
    compiled = kernels.load("core._tree_numba", n, ("float32", np.dtype(algorithm.dtype).name))
    trees = []
    for k, sample in enumerate(samples):
        class_stats = algorithm.class_stats(stats, k)
        splitter = tree_method.splitter(
            data, class_stats, algorithm.scan_params(), sample["rows"], sample["features"]
        )
        own_margin = margin if np.ndim(margin) == 1 else margin[:, k]
        # every row is grown from, and the rows' leaves are not needed after growing: the
        # splitter writes each row's step itself (``grow_tree``'s ``out``)
        writes = sample["rows"] is None and hasattr(splitter, "put_values")
        writes = writes and not algorithm.uses_grown_rows(tree_method)
        # f_t: the structure by greedy gain, leaves w* (seed 000, "Learn the tree structure")
        tree, grown_rows, grown_leaf = grow_tree(
            splitter,
            algorithm.params,
            d,
            feature_names,
            algorithm.leaf_stats(splitter, class_stats),
            out=step[k] if writes else None,
        )
        algorithm.after_grow(
            tree_method, tree, grown_rows, grown_leaf, y, own_margin, sample_weight
        )
        if writes:
            pass  # step[k] holds every row's leaf value
        elif len(grown_rows) == n:  # every row's leaf is known from growing the tree
            if compiled is None:
                step[k][grown_rows] = tree.value[grown_leaf]
            else:
                compiled.put_leaf_values(step[k], grown_rows, grown_leaf, tree.value)
        else:  # rows left out by subsample are routed
            step[k] = tree.predict(X32)
        trees.append(tree)
    # the round's g, h, the split finder's work space and the grown rows are not needed
    # any more: let them go before ŷ^(t) is allocated (12 MB less at 1M rows)
    del stats, class_stats, splitter, grown_rows, grown_leaf
    # ŷ^(t) = ŷ^(t−1) + η·f_t(x)
    return trees, algorithm.add(margin, step[0] if np.ndim(margin) == 1 else step.T)
