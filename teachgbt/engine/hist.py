"""Histogram split finding: bin the features once, then scan bins instead of rows.

The exact trainer (``exact.py``) sorts a node's rows by every feature and
tries a split between every two distinct values. On a million rows that is
too slow. Seed 003 lists what XGBoost does instead ("weighted quantile split
search", "blocked data"); LightGBM and XGBoost's ``hist`` method do it this
way:

1. **Binning** (``binning.HistData``, once per fit): each feature gets at
   most ``max_bin`` bins; a feature with at most ``max_bin`` distinct values
   gets its distinct values as cut points, exactly as XGBoost does, and then
   the trees match XGBoost ``hist`` split for split.
2. **Histograms** (``HistSplitter._histograms``). For one node and every
   feature: the sums G and H of g_i and h_i over the node's rows in each bin.
   A split "bins 0..b left, the rest right" then has G_L = Σ of the first
   b+1 bins, whatever the number of rows.
3. **The subtraction trick** (``HistSplitter.partition`` and
   ``_ensure_histogram``). A parent's rows are exactly its two children's
   rows, so hist(parent) = hist(left) + hist(right): build the histogram of
   the smaller child from its rows and get its sibling by subtraction.
4. **The cumsum scan** (``HistSplitter._scan``). ``cumsum`` along the bins
   gives G_L, H_L at every bin boundary of every feature at once; the gain of
   seed 000 is then one array expression over a (features × boundaries)
   array.
5. **Learned default direction** (seed 003, "sparse data"): as XGBoost's
   ``hist``, a forward scan sends the missing values right; a backward scan,
   run only for features with missing values in the node, sends them left.
   The better of the two directions is the split's ``default_left``.

A split's threshold is a cut point, a data value: ``x < threshold`` goes
left, compared in float32 as ``Tree.apply`` does. ``partition`` routes rows
by their bin code with that same rule, so a trace can recompute every node.

Tie rules are XGBoost's: loss reductions are computed in float32; within a
feature the first strictly better candidate wins (forward candidates in
increasing bin order, then backward ones in decreasing order); across
features the lower index wins.

A node's G and H: the root's are added up over its rows; a child's are the
sums its split's scan found (left) and the parent's minus them (right), as
XGBoost takes them, so partitioning a node only moves its row ids.

Categorical features (``HistData.is_categorical``) are not scanned by threshold: their
histograms go to ``categorical.py``, which splits the categories into two sets (one-hot or
the sorted partition, as XGBoost); the best of both kinds wins, the lower feature on a tie.

Speed: everything here is numpy. When numba is installed, the binning, the
histograms, the partition and the scan use compiled twins from
``_hist_numba`` that add the same numbers in the same order, so they grow
the same trees, bit for bit; set ``teachgbt.utils._kernels.KERNEL = "numpy"`` (or the
environment variable ``TEACHGBT_KERNEL=numpy``) to use numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import categorical
from .binning import HistData, numba_kernels
from .exact import finish_split_table
from .grow import Candidate

__all__ = ["HistData", "HistSplitter", "HistNode", "numba_kernels", "pack_stats"]

F32 = np.float32

#: the compiled histogram uses threads from this many (row, feature) additions on
PARALLEL_HISTOGRAM = 1 << 17
#: a level's partitions are shared between threads from this many rows on
PARALLEL_PARTITION = 1 << 16


# ------------------------------------------------------------------- node data
@dataclass
class HistNode:
    """One node: ``order[start:stop]`` are its rows (sorted), ``hist`` their histogram.

    ``sums`` are the node's (G, H[, cover]): the root's added up from its rows, a
    child's taken from the split that made it (the left side's sums the scan found,
    the right side's the parent's minus them, as XGBoost does). ``hist[j, c]`` holds
    (Σg, Σh[, Σcover]) over the node's rows in bin c of the j-th used feature, the
    missing bin last; ``n_missing[j]`` counts the node's rows with that feature
    missing.

    A tree's nodes share two arrays of row ids: partitioning a node writes its
    children's rows into the same slice of the other one (``spare``), left rows
    first. Only the row ids move; row r's (g, h[, cover]) stay at ``stats[r]``.
    """

    order: np.ndarray | None  # None: a leaf whose rows were never moved (partition_leaves)
    stats: np.ndarray
    start: int
    stop: int
    sums: tuple
    spare: np.ndarray
    hist: np.ndarray | None = None
    n_missing: np.ndarray | None = None
    best: tuple | None = None  # ((G, H), the numpy scan's best split) once scanned
    # where ``hist`` and ``n_missing`` lie: (hists, n_missings, index) of the arrays a
    # level's histograms are built in; ``parent_slot``: the parent's
    slot: tuple | None = None
    parent_slot: tuple | None = None

    @property
    def n(self):
        return self.stop - self.start

    @property
    def rows(self):
        return self.order[self.start : self.stop]


def pack_stats(stats):
    """A round's statistics with g, h (and h_cover) as the columns of one (n, q) array, the
    layout the histograms read (row r's values side by side at ``[r]``): a splitter given
    these columns reads them in place instead of copying them (8 MB a tree at 1M rows).
    The separate arrays are not kept. Only for one output (K columns stay as they are)."""
    names = [k for k in ("g", "h", "h_cover") if stats.get(k) is not None]
    columns = [np.asarray(stats[k]) for k in names]
    if any(c.ndim != 1 for c in columns):
        return stats
    dtype = np.result_type(*columns, np.float32)
    if _packed_array(columns, dtype) is not None:  # laid out so already (round_stats)
        return stats
    packed = np.empty((len(columns[0]), len(columns)), dtype)
    for q, c in enumerate(columns):
        packed[:, q] = c
    return {**stats, **{k: packed[:, q] for q, k in enumerate(names)}}


def _packed_array(columns, dtype):
    """The (n, q) array whose columns ``columns`` are, in order, when ``pack_stats`` made
    them (C order, ``dtype``); else None."""
    base = columns[0].base if isinstance(columns[0], np.ndarray) else None
    if not (isinstance(base, np.ndarray) and base.ndim == 2 and base.dtype == dtype):
        return None
    if base.shape[1] != len(columns) or not base.flags.c_contiguous:
        return None
    for q, c in enumerate(columns):
        if not (isinstance(c, np.ndarray) and c.base is base and c.shape == base.shape[:1]):
            return None
        if c.strides != base.strides[:1] or c.ctypes.data != base.ctypes.data + q * base.itemsize:
            return None
    return base


def _row_order_sums(stats, chunk=1 << 16):
    """Column sums in float64, added one row after another (the order the kernels add in)."""
    total = np.zeros((1, stats.shape[1]))
    for lo in range(0, len(stats), chunk):
        block = np.concatenate([total, stats[lo : lo + chunk]])
        total = np.add.accumulate(block, axis=0, dtype=np.float64)[-1:]
    return tuple(float(v) for v in total[0])


class RowSpace:
    """The arrays the compiled kernels grow a tree in: two arrays of row ids (a node's rows
    and, partitioned, its children's, in turn), and the histograms' merge's (each row's
    node, ``NO_NODE`` where none, and the merged rows and their nodes). A fit's trees on
    every row take them in turn (``borrow``, ``give_back``) from their data instead of
    making new ones every tree (a million-row arange and a fill of NO_NODE each)."""

    def __init__(self, n_rows, n_data_rows, index, kernels):
        # after the root, a call has a level's smaller children: at most half the rows
        room = (n_rows + 1) // 2 + kernels.MERGE_PARTS  # (a spare place for each part)
        self.shape = (n_rows, n_data_rows, np.dtype(index))
        self.order = self.spare = None  # a tree's arrays of row ids, when it has every row
        self.node_of = np.full(n_data_rows, kernels.NO_NODE, dtype=np.uint16)
        self.merged_rows = np.empty(room, dtype=index)
        self.merged_nodes = np.empty(room, dtype=np.uint16)
        self.clean = True  # node_of holds no marks (a merge stopped midway leaves some)

    @classmethod
    def borrow(cls, data, index, kernels):
        """The data's free space for trees on all its rows, or a new one."""
        n = data.n_rows
        space, data.row_space = getattr(data, "row_space", None), None
        if space is None or space.shape != (n, n, np.dtype(index)):
            space = cls(n, n, index, kernels)
            space.order, space.spare = np.empty(n, dtype=index), np.empty(n, dtype=index)
        return space

    def give_back(self, data):
        """Leave the space with the data for its next tree, unless a merge left marks."""
        if self.clean and self.order is not None:
            data.row_space = self


class HistSplitter:
    """Finds the best split of a node from its histograms; partitions its rows.

    Same interface as ``exact.ExactSplitter``. ``g``, ``h``: per-row gradient
    statistics; ``h_cover``: optional per-row values whose sums
    ``min_child_weight`` applies to instead of ``h``.

    Histograms are built when a node is first scanned, not when it is made:
    growing depth by depth, all nodes of a level are partitioned before any
    is scanned, so the smaller children of the whole level are histogrammed
    together, in one sweep.
    """

    def __init__(self, data, g, h, params, rows=None, features=None, h_cover=None):
        self.data = data
        self.params = params
        self.rows = None if rows is None else np.sort(np.asarray(rows, dtype=np.intp))
        self.features = (
            np.arange(data.n_features, dtype=np.intp)
            if features is None
            else np.sort(np.asarray(features, dtype=np.intp))
        )
        self.has_cover = h_cover is not None
        self._columns = [g, h] + ([h_cover] if self.has_cover else [])
        # row r's g, h (and cover statistic) side by side, at stats[r]: float32 when they
        # are (XGBoost's), else float64; every sum of them is float64
        self._dtype = np.result_type(*[np.asarray(c).dtype for c in self._columns], np.float32)
        self._packed = _packed_array(self._columns, self._dtype)  # given side by side already
        cells = data.n_rows * data.n_features
        self.kernels = numba_kernels(cells, data.bins.dtype, self._dtype, data.trees)
        self._count_missing = data.has_missing[self.features]  # features with any NaN
        self._any_categorical = bool(data.is_categorical.any())
        self._scan_bins = data.scan_bins[self.features]
        self._pending = []  # (child to build, its sibling, their parent's histogram)
        self._unscanned = []  # nodes with a histogram whose numpy scan is still owed

    # ------------------------------------------------------------ node data
    def root(self, keep=None):
        """The root: the round's rows (its sample), or, with a boolean ``keep``, those of them."""
        n = self.data.n_rows
        index = np.int32 if n < 2**31 else np.int64
        stats = self._packed
        if stats is None:
            stats = np.empty((n, len(self._columns)), dtype=self._dtype)
            for q, col in enumerate(self._columns):
                stats[:, q] = col
        if self.kernels is not None and self.rows is None and keep is None:
            # every row: the row arrays of the data's last tree, when they are free
            self._space = RowSpace.borrow(self.data, index, self.kernels)
            order, spare = self._space.order, self._space.spare
            self.kernels.count_up(order)  # 0 .. n − 1
        else:
            order = np.arange(n, dtype=index) if self.rows is None else self.rows.astype(index)
            if keep is not None:
                order = order[np.asarray(keep, dtype=bool)[order]]
            spare = np.empty_like(order)
            if self.kernels is not None:
                self._space = RowSpace(len(order), n, index, self.kernels)
        if self.kernels is None:
            sums = _row_order_sums(stats if len(order) == n else stats[order])
        else:
            # (added up in row order while the root's histogram is built: see below)
            sums = np.empty(stats.shape[1])
        one = [0], [len(order)]
        hist, n_missing = self._histograms(order, stats, *one, sums=sums)
        nd = HistNode(order, stats, 0, len(order), tuple(float(v) for v in sums), spare)
        nd.hist, nd.n_missing, nd.slot = hist[0], n_missing[0], (hist, n_missing, 0)
        return nd

    def __del__(self):
        space = getattr(self, "_space", None)
        if space is not None:
            space.give_back(self.data)

    def node_rows(self, nd):
        """Row ids of a node."""
        return nd.rows

    def node_sums(self, nd):
        """n, G, H of a node."""
        return nd.n, nd.sums[0], nd.sums[1]

    def cover_sum(self, nd):
        """The sum ``min_child_weight`` applies to (H, or Σ h_cover)."""
        return nd.sums[-1]

    # ------------------------------------------------------------ histograms
    def _histograms(self, order, stats, starts, stops, sums=None):
        """For each node ``order[start:stop]``: Σg, Σh (and Σcover) per bin of every used
        feature, and per feature the number of missing values. The compiled kernels also
        fill ``sums`` with one node's column sums in row order (``build_histograms``)."""
        data = self.data
        starts = np.asarray(starts, dtype=np.intp)
        stops = np.asarray(stops, dtype=np.intp)
        if self.kernels is not None:
            work = int((stops - starts).sum()) * len(self.features)
            k, space = self.kernels, self._space
            kernel = k.build_histograms if work >= PARALLEL_HISTOGRAM else k.build_histograms_serial
            space.clean = False  # (until the merge, if any, has put back its marks)
            built = kernel(
                data.bins,
                order,
                stats,
                starts,
                stops,
                self.features,
                data.n_slots,
                data.missing_code,
                self._count_missing,
                space.node_of,
                space.merged_rows,
                space.merged_nodes,
                sums=sums,
            )
            space.clean = True
            return built
        return self._histograms_numpy(order, stats, starts, stops)

    def _histograms_numpy(self, order, stats, starts, stops):
        """``_histograms`` with numpy: every node's histograms of a feature in one
        ``bincount`` of the nodes' rows side by side, row r of node s adding into place
        s·W + (r's bin). A bin still adds its node's rows in the node's order, so the sums
        are those of one ``bincount`` a node."""
        data = self.data
        d, W, k, S = len(self.features), data.n_slots, stats.shape[1], len(starts)
        every = S == 1 and stops[0] - starts[0] == data.n_rows  # nothing to gather
        rows = None if every else np.concatenate([order[a:b] for a, b in zip(starts, stops)])
        # each row's node and where its histogram starts (a single node needs neither)
        node = np.repeat(np.arange(S, dtype=np.intp), stops - starts) if S > 1 else None
        first = None if S == 1 else node * W
        # (bincount adds float64: converted once here rather than at every call)
        picked = stats if every else stats.take(rows, axis=0)
        weights = [picked[:, q].astype(np.float64) for q in range(k)]
        hist = np.zeros((S, d, W, k))
        n_missing = np.zeros((S, d), dtype=np.int64)
        for j, f in enumerate(self.features):
            codes = data.bins[f] if every else data.bins[f].take(rows)
            place = codes if S == 1 else first + codes  # node s's bin c: place s·W + c
            for q in range(k):
                # the histogram: add each row's g (h, cover) into the bin of its value
                sums = np.bincount(place, weights=weights[q], minlength=S * W)
                hist[:, j, :, q] = sums.reshape(S, W)
            if self._count_missing[j]:
                missing = codes == data.missing_code
                n_missing[:, j] = (
                    np.count_nonzero(missing) if S == 1 else np.bincount(node[missing], minlength=S)
                )
        return hist, n_missing

    def _ensure_histogram(self, nd):
        """Build the histograms still owed: the pending smaller children in one sweep, then
        their siblings by the subtraction trick."""
        if nd.hist is not None:
            return
        pending, self._pending = self._pending, []
        # nodes of one depth share their (order, stats) arrays: one sweep per pair
        for order in {id(e[0].order): e[0].order for e in pending}.values():
            pend = [e for e in pending if e[0].order is order]
            small = [e[0] for e in pend]
            hist, n_missing = self._histograms(
                order, small[0].stats, [c.start for c in small], [c.stop for c in small]
            )
            # (the siblings' histograms side by side, as the children's are)
            sib_hist, sib_missing = np.empty_like(hist), np.empty_like(n_missing)
            for s, (child, sibling, _, _) in enumerate(pend):
                child.hist, child.n_missing = hist[s], n_missing[s]
                sibling.hist, sibling.n_missing = sib_hist[s], sib_missing[s]
                child.slot, sibling.slot = (hist, n_missing, s), (sib_hist, sib_missing, s)
                self._unscanned += [child, sibling]
            if self.kernels is not None:  # subtracted and scanned at once, on the threads
                self._scan_compiled(pend, (hist, n_missing), (sib_hist, sib_missing))
                continue
            for child, sibling, parent_hist, parent_missing in pend:
                # the subtraction trick: the sibling's histogram is the parent's minus the child's
                np.subtract(parent_hist, child.hist, out=sibling.hist)
                np.subtract(parent_missing, child.n_missing, out=sibling.n_missing)

    def histogram(self, nd):
        """A node's (hist, n_missing), built now if it is still owed: what one machine of a
        distributed fit (``teachgbt.dask``) adds to the other machines' for the same node."""
        self._ensure_histogram(nd)
        return nd.hist, nd.n_missing

    # ------------------------------------------------------------- partition
    def _left_table(self, cand):
        """Which bin codes of the split feature go left: the rule ``x < threshold`` in bins.

        Bin c holds cut[c-1] <= x < cut[c], so all of its values are below a
        threshold t (itself a cut point) exactly when cut[c] <= t.
        """
        data = self.data
        table = np.zeros(data.n_slots, dtype=bool)
        if cand.categories is not None:  # a set split: bin c holds category c
            table[np.asarray(cand.categories, dtype=np.intp)] = True
        else:
            table[: data.missing_code] = data.cuts[cand.feature] <= F32(cand.threshold)
        table[data.missing_code] = cand.default_left
        return table

    def partition(self, nd, cand):
        """Split a node's rows by ``cand`` (found by ``find_split`` for this node). The
        smaller child's histogram is owed until a child is scanned; the larger one's is
        then the parent's minus the smaller's."""
        table = self._left_table(cand)
        lo, hi = nd.start, nd.stop
        order = nd.spare  # the children's rows go here, same slice
        codes = self.data.bins[cand.feature]
        if self.kernels is not None:
            n_left = self.kernels.partition(nd.order, lo, hi, codes, table, order)
        else:
            # (take and compress: a third of the time of [] indexing here)
            go_left = table.take(codes.take(nd.rows))
            n_left = int(np.count_nonzero(go_left))
            np.compress(go_left, nd.rows, out=order[lo : lo + n_left])  # stable: left first
            np.compress(~go_left, nd.rows, out=order[lo + n_left : hi])
        return self._children(nd, cand, int(n_left))

    def partition_level(self, pairs):
        """``partition`` of several nodes, (node, cand) each: a level's splits, made together.
        The compiled kernels share them out between threads; numpy does one after another."""
        order = pairs[0][0].order if pairs else None
        if self.kernels is None or len(pairs) < 2 or any(nd.order is not order for nd, _ in pairs):
            return [self.partition(nd, cand) for nd, cand in pairs]
        starts, stops, features, tables, threads = self._level_splits(pairs)
        n_left = self.kernels.partition_nodes(
            order, starts, stops, self.data.bins, features, tables, pairs[0][0].spare, threads
        )
        return [self._children(nd, cand, int(k)) for (nd, cand), k in zip(pairs, n_left)]

    def _level_splits(self, pairs):
        """A level's splits (node, cand) as the compiled partitions take them: the nodes'
        starts and stops, the split features, which bins go left (``_left_table``), and
        the threads to use (None: all, from ``PARALLEL_PARTITION`` rows on)."""
        starts = np.array([nd.start for nd, _ in pairs], dtype=np.int64)
        stops = np.array([nd.stop for nd, _ in pairs], dtype=np.int64)
        features = np.array([cand.feature for _, cand in pairs], dtype=np.intp)
        tables = np.stack([self._left_table(cand) for _, cand in pairs])
        threads = None if stops[-1] - starts[0] >= PARALLEL_PARTITION else 1
        return starts, stops, features, tables, threads

    def partition_leaves(self, pairs, leaf_value, out):
        """``partition_level`` for a level whose children are leaves, each one's value,
        ``leaf_value(G, H)`` of its sums, written into ``out`` at once: ``out[r]`` is the
        value of the leaf row r goes to. The children's rows are never moved (``node_rows``
        of them is not available): their values are all a tree needs of them."""
        sides = [self._child_sums(nd, cand) for nd, cand in pairs]
        values = np.array([[leaf_value(*sums[:2]) for sums in both] for both in sides])
        values = values.astype(np.float64).reshape(len(pairs), 2)
        order = pairs[0][0].order if pairs else None
        if self.kernels is None or any(nd.order is not order for nd, _ in pairs):
            n_left = []
            for (nd, cand), (v_left, v_right) in zip(pairs, values):
                rows = nd.rows
                go_left = self._left_table(cand).take(self.data.bins[cand.feature].take(rows))
                out[rows] = np.where(go_left, v_left, v_right)
                n_left.append(int(np.count_nonzero(go_left)))
        else:
            starts, stops, features, tables, threads = self._level_splits(pairs)
            n_left = self.kernels.route_to_leaves(
                order, starts, stops, self.data.bins, features, tables, values, out, threads
            )
        return [self._children(nd, c, int(k), moved=False) for (nd, c), k in zip(pairs, n_left)]

    def put_values(self, nodes, values, out):
        """``out[r] = values[i]`` for every row r of ``nodes[i]``: a tree's leaves' values
        written where their rows are, which is each row's step."""
        for order in {id(nd.order): nd.order for nd in nodes}.values():
            mine = [i for i, nd in enumerate(nodes) if nd.order is order]
            if self.kernels is None:
                for i in mine:
                    out[nodes[i].rows] = values[i]
                continue
            starts = np.array([nodes[i].start for i in mine], dtype=np.int64)
            stops = np.array([nodes[i].stop for i in mine], dtype=np.int64)
            vals = np.array([values[i] for i in mine], dtype=np.float64)
            work = int((stops - starts).sum())
            threads = None if work >= PARALLEL_PARTITION else 1
            self.kernels.put_values(out, order, starts, stops, vals, threads=threads)

    def _child_sums(self, nd, cand):
        """The (G, H[, cover]) of a split's two children: the left side's as the scan found
        them, the rest the right's."""
        left = (cand.G_L, cand.H_L) + ((cand.cover_L,) if self.has_cover else ())
        right = (cand.G_R, cand.H_R) + ((nd.sums[-1] - cand.cover_L,) if self.has_cover else ())
        return left, right

    def _children(self, nd, cand, n_left, moved=True):
        """The two children of a node whose rows are partitioned, ``n_left`` of them left.
        ``moved=False``: the rows were counted, not moved (``partition_leaves``); the
        children then have no rows (``order`` None) and no histogram is owed for them."""
        lo, hi = nd.start, nd.stop
        left_sums, right_sums = self._child_sums(nd, cand)
        mid = lo + n_left
        order = nd.spare if moved else None
        left = HistNode(order, nd.stats, lo, mid, left_sums, nd.order)
        right = HistNode(order, nd.stats, mid, hi, right_sums, nd.order)
        small, big = (left, right) if n_left <= hi - mid else (right, left)
        if moved:
            small.parent_slot = nd.slot
            self._pending.append((small, big, nd.hist, nd.n_missing))
        nd.hist = nd.n_missing = nd.slot = None  # the pending entry holds it until it is used
        return left, right

    # ------------------------------------------------------------- the scan
    def _scan(self, hist, n_missing, js, G, H, C):
        """Every candidate split of the used features ``js`` of N nodes at once.

        ``hist``, ``n_missing``: the nodes' histograms stacked, (N, d, W, k) and (N, d);
        ``G``, ``H``, ``C``: their sums, arrays of N. Returns ``(loss, forward,
        backward)``. ``loss`` has shape (N, len(js), 2K): columns 0..K−1 are the forward
        scan (bins 0..b left, missing right, b = 0, 1, ...); columns K..2K−1 the backward
        scan in its own order (bins i.. right, the rest and the missing values left,
        i = K−1, K−2, ..., 0); invalid candidates have loss −inf. ``forward`` holds G_L,
        H_L, C_L of every forward candidate; ``backward`` G_R, H_R, C_R of "bins i..
        right", in bin order, or None where no node has missing values in these features
        (then every backward candidate is invalid and is not computed). Each node's
        numbers are those of a scan of that node alone.
        """
        data, params = self.data, self.params
        K = data.missing_code
        f = self.features[js]
        hist = hist[:, js]
        Gb, Hb = hist[..., :K, 0], hist[..., :K, 1]
        Cb = hist[..., :K, 2] if self.has_cover else Hb
        in_range = np.arange(K)[None, None, :] < data.scan_bins[f][None, :, None]
        G, H, C = (np.asarray(v, dtype=np.float64)[:, None, None] for v in (G, H, C))
        root = self._root_score(G, H)
        mcw = params.formula_params["min_child_weight"]

        # The cumsum scan, forward: G_L, H_L of "bins 0..b left" for every boundary b
        fGL, fHL = np.cumsum(Gb, axis=2), np.cumsum(Hb, axis=2)
        fCL = np.cumsum(Cb, axis=2) if self.has_cover else fHL
        f_ok = in_range & (fCL >= mcw) & (C - fCL >= mcw)
        loss = np.full(fGL.shape[:2] + (2 * K,), -np.inf)
        loss[..., :K] = self._loss(fGL, fHL, G - fGL, H - fHL, f_ok, root)

        # backward: the right side "bins i.." summed from the top bin down
        has_missing = (n_missing[:, js] > 0)[..., None]
        if not has_missing.any():
            return loss, (fGL, fHL, fCL), None
        rev = slice(None, None, -1)
        bGR = np.cumsum(Gb[..., rev], axis=2)[..., rev]
        bHR = np.cumsum(Hb[..., rev], axis=2)[..., rev]
        bCR = np.cumsum(Cb[..., rev], axis=2)[..., rev] if self.has_cover else bHR
        b_ok = in_range & has_missing & (bCR >= mcw) & (C - bCR >= mcw)
        loss[..., K:] = self._loss(G - bGR, H - bHR, bGR, bHR, b_ok, root)[..., rev]
        return loss, (fGL, fHL, fCL), (bGR, bHR, bCR)

    def _threshold(self, f, q):
        """The threshold of candidate q (``_scan``'s columns) of feature f: a cut point."""
        K = self.data.missing_code
        if q < K:  # forward: bins 0..q left
            return self.data.cuts[f, q]
        i = 2 * K - 1 - q  # backward: bins i.. right, x < cut[i-1] left (i = 0: none left)
        return self.data.min_val[f] if i == 0 else self.data.cuts[f, i - 1]

    def _root_score(self, G, H):
        """The score of the node left unsplit (a node lighter than min_child_weight has no
        valid candidate, whatever its score)."""
        s = self.params.side_score(G, H)
        return s.astype(F32) if self.params.float32 else np.asarray(s, dtype=np.float64)

    def _loss(self, G_L, H_L, G_R, H_R, ok, root):
        """loss_chg = score(L) + score(R) − score(parent), −inf where the split is not allowed."""
        with np.errstate(invalid="ignore", over="ignore"):
            loss = (self.params.side_score(G_L, H_L) + self.params.side_score(G_R, H_R)) - root
        return np.where(ok & ~np.isnan(loss), loss, -np.inf)

    def _blocks(self, n_nodes=1):
        """Used features in blocks small enough to scan at once for ``n_nodes`` nodes."""
        d = len(self.features)
        step = max(1, (1 << 20) // (2 * self.data.n_slots * n_nodes))
        for s in range(0, d, step):
            yield np.arange(s, min(d, s + step))

    def find_split(self, nd, G, H):
        """The best split of a node, or None when no candidate lowers the loss."""
        if nd.n < 2:
            return None
        self._ensure_histogram(nd)
        C = nd.sums[-1] if self.has_cover else H
        if getattr(nd, "best", None) is not None and nd.best[0] == (G, H):
            best = nd.best[1]  # scanned with the other nodes of its level
        elif self.kernels is not None:
            best = self._find_split_numba(nd, G, H, C)
        else:
            # this node and the level's others still to be scanned, at once: the numpy
            # scan's work is a few array operations whatever the number of nodes
            batch = [nd] + [o for o in self._unscanned if o is not nd and o.n >= 2]
            self._unscanned = []
            sums = [(G, H, C)] + [(o.sums[0], o.sums[1], o.sums[-1]) for o in batch[1:]]
            for o, s, b in zip(batch, sums, self._best_numpy(batch, sums)):
                o.best = (s[:2], b)
            best = nd.best[1]
        if self._any_categorical:  # the categorical features' sets (categorical.py)
            chosen = self._categorical_split(nd, G, H, C, best)
            if chosen is not None:
                return chosen
        if best is None:
            return None
        feature, threshold, default_left, G_L, H_L, lc, C_L = best
        G_R, H_R = G - G_L, H - H_L
        gain = self.params.gain(lc)
        return Candidate(
            feature, threshold, bool(default_left), G_L, H_L, G_R, H_R, lc, gain, cover_L=C_L
        )

    def _best_numpy(self, nodes, sums):
        """Each node's best split (feature, threshold, default_left, G_L, H_L, loss_chg,
        C_L), or None: first maximum in (feature, scan order), XGBoost's tie rules."""
        hist = np.stack([o.hist for o in nodes])
        n_missing = np.stack([o.n_missing for o in nodes])
        G, H, C = (np.array(v, dtype=np.float64) for v in zip(*sums))
        N, K = len(nodes), self.data.missing_code
        best, best_loss = [None] * N, np.zeros(N)  # as XGBoost: only a positive loss counts
        for js in self._blocks(N):
            loss, forward, backward = self._scan(hist, n_missing, js, G, H, C)
            flat = loss.reshape(N, -1)
            at = np.argmax(flat, axis=1)
            for s in np.flatnonzero(flat[np.arange(N), at] > best_loss):
                r, q = np.unravel_index(at[s], loss.shape[1:])
                best_loss[s] = loss[s, r, q]
                if q < K:
                    G_L, H_L, C_L = (v[s, r, q] for v in forward)
                else:  # the left side: everything but bins i.., missing values included
                    G_R, H_R, C_R = (v[s, r, 2 * K - 1 - q] for v in backward)
                    G_L, H_L, C_L = G[s] - G_R, H[s] - H_R, C[s] - C_R
                f = int(self.features[js[r]])
                best[s] = (f, float(self._threshold(f, q)), q >= K, float(G_L), float(H_L),
                           float(best_loss[s]), float(C_L))  # fmt: skip
        return best

    def _scan_compiled(self, pend, built, siblings):
        """The siblings' histograms and every best split of a level's pending pairs (child,
        sibling, parent's histogram, parent's missing counts) at once, by the compiled
        kernels on the threads (``best_splits``); each node's best kept in ``nd.best`` as
        ``_best_numpy`` keeps it. ``built``: the children's (hist, n_missing) as the sweep
        built them; ``siblings``: the arrays their siblings' go into."""
        # each parent's histogram as a place in at most two arrays (a level's parents are
        # the children and the siblings of the level before); else copied into one
        slots = [e[0].parent_slot for e in pend]
        arrays = list({id(sl[0]): sl[:2] for sl in slots if sl is not None}.values())
        if None in slots or len(arrays) > 2:
            stacked = (np.stack([e[2] for e in pend]), np.stack([e[3] for e in pend]))
            slots = [(*stacked, s) for s in range(len(pend))]
            arrays = [stacked]
        which = np.array([0 if sl[0] is arrays[0][0] else 1 for sl in slots], dtype=np.int8)
        at = np.array([sl[2] for sl in slots], dtype=np.int64)
        nodes = [e[0] for e in pend] + [e[1] for e in pend]
        sums = np.array([(nd.sums[0], nd.sums[1], nd.sums[-1]) for nd in nodes])
        if not self.has_cover:
            sums[:, 2] = sums[:, 1]
        found = self.kernels.best_splits(
            built, siblings, (arrays[0], arrays[-1]), which, at, self._scan_bins, sums,
            self._penalties(), bool(self.params.float32), self.has_cover,
            threads=None if len(pend) > 1 else 1,
        )  # fmt: skip
        for nd, (r, q, lc, G_L, H_L, C_L) in zip(nodes, found.tolist()):
            nd.best = (nd.sums[:2], self._best_of(int(r), int(q), lc, G_L, H_L, C_L))

    def _best_of(self, r, q, lc, G_L, H_L, C_L):
        """The compiled scan's best split of a node as ``_best_numpy`` gives it, or None."""
        if r < 0:
            return None
        f = int(self.features[r])
        return f, float(self._threshold(f, q)), q >= self.data.missing_code, G_L, H_L, lc, C_L

    def _penalties(self):
        """λ, α, max_delta_step, min_child_weight: the compiled scan's arguments."""
        kw = self.params.formula_params
        names = ("reg_lambda", "reg_alpha", "max_delta_step", "min_child_weight")
        return tuple(kw[k] for k in names)

    def _find_split_numba(self, nd, G, H, C):
        params, penalties = self.params, self._penalties()
        # the unsplit node's score, ``_root_score``'s number from its compiled twin
        side_score = self.kernels.side_score32 if params.float32 else self.kernels.side_score64
        root = float(side_score(float(G), float(H), *penalties))
        r, q, lc, G_L, H_L, C_L = self.kernels.best_split(
            nd.hist,
            nd.n_missing,
            self._scan_bins,
            G,
            H,
            C,
            root,
            *penalties,
            params.float32,
            self.has_cover,
        )
        return self._best_of(r, q, lc, G_L, H_L, C_L)

    def _categorical_scans(self, nd, G, H, C, only=None):
        """Every candidate of each categorical feature in use (``categorical.scan``), or
        of feature ``only``."""
        data, params = self.data, self.params
        root = self._root_score(G, H)
        out = []
        for j in np.flatnonzero(data.is_categorical[self.features]):
            f = int(self.features[j])
            if only is not None and f != only:
                continue
            out.append(
                categorical.scan(
                    f,
                    nd.hist[j],
                    int(data.n_bins[f]),
                    (G, H, C),
                    params,
                    root,
                    params.max_cat_to_onehot,
                    params.max_cat_threshold,
                )
            )
        return out

    def _categorical_split(self, nd, G, H, C, numeric):
        """The best set split, as a ``Candidate``, when it beats the best numeric split
        ``numeric`` (a larger loss_chg, or the same on a lower feature); else None."""
        best = categorical.best_of(self._categorical_scans(nd, G, H, C))
        if best is None:
            return None
        s, k = best
        lc = float(s.loss[k])
        if numeric is not None and not (
            lc > numeric[5] or (lc == numeric[5] and s.feature < numeric[0])
        ):
            return None
        return Candidate(
            s.feature,
            np.nan,
            bool(s.default_left[k]),
            float(s.G_L[k]),
            float(s.H_L[k]),
            float(s.G_R[k]),
            float(s.H_R[k]),
            lc,
            self.params.gain(lc),
            cover_L=float(s.C_L[k]),
            categories=tuple(int(c) for c in s.categories(k)),
        )

    def category_table(self, nd, feature):
        """The categories of categorical ``feature`` at a node, in the order its scan tries
        them, with each one's G, H, w* and the loss_chg of the cuts after it
        (``categorical.category_table``)."""
        self._ensure_histogram(nd)
        _, G, H = self.node_sums(nd)
        C = nd.sums[-1] if self.has_cover else H
        (s,) = self._categorical_scans(nd, G, H, C, only=int(feature))
        j = int(np.searchsorted(self.features, feature))
        return categorical.category_table(s, nd.hist[j][: self.data.n_bins[feature]], self.params)

    def candidates(self, nd, G, H, feature_names=None, chosen=None):
        """The candidates evaluated at a node (bin boundaries, both directions of the missing
        values), one per distinct partition of its rows, as the ``splits(t, node)`` table."""
        params = self.params
        self._ensure_histogram(nd)
        C = nd.sums[-1] if self.has_cover else H
        K = self.data.missing_code
        frames = []
        for js in self._blocks():
            loss, forward, backward = self._scan(
                nd.hist[None], nd.n_missing[None], js, [G], [H], [C]
            )
            r, q = np.nonzero(np.isfinite(loss[0]))
            fwd = q < K  # the others are backward: bins 2K−1−q.. right
            i = np.where(fwd, 0, 2 * K - 1 - q)
            G_L = np.where(fwd, forward[0][0, r, np.minimum(q, K - 1)], 0.0)
            H_L = np.where(fwd, forward[1][0, r, np.minimum(q, K - 1)], 0.0)
            if backward is not None:
                G_L = np.where(fwd, G_L, G - backward[0][0, r, i])
                H_L = np.where(fwd, H_L, H - backward[1][0, r, i])
            f = self.features[js][r]
            threshold = [self._threshold(fk, qk) for fk, qk in zip(f, q)]
            frames.append(
                pd.DataFrame(
                    {
                        "feature": f,
                        "threshold": np.asarray(threshold, dtype=np.float32).astype(np.float64),
                        "default_left": q >= K,
                        "G_L": G_L,
                        "H_L": H_L,
                        "G_R": G - G_L,
                        "H_R": H - H_L,
                    }
                )
            )
        df = pd.concat(frames, ignore_index=True)
        # A boundary of a bin that is empty in this node splits the node's rows as its
        # neighbour does, and the first and last boundaries can leave one side empty: the
        # scan evaluates those too, but each real partition is listed once, at the
        # threshold the scan reaches first (the one it would choose on a tie).
        tiny = 1e-12 * max(abs(H), 1.0)
        both_sides = (df["H_L"] > tiny) & (df["H_R"] > tiny)
        repeat = df.duplicated(subset=["feature", "default_left", "G_L", "H_L"], keep="first")
        df = df[both_sides & ~repeat].reset_index(drop=True)
        if self.data.is_categorical.any():  # one row per candidate set (categorical.py)
            scans = self._categorical_scans(nd, G, H, C)
            sets = [categorical.candidate_table(s) for s in scans]
            df = pd.concat([df.assign(categories=None), *sets], ignore_index=True)
            df = df.sort_values("feature", kind="stable").reset_index(drop=True)
        lc = params.loss_chg(*(df[k].to_numpy() for k in ("G_L", "H_L", "G_R", "H_R")))
        df["gain"] = np.asarray(params.gain(lc), dtype=np.float64).reshape(-1)
        if "categories" not in df:
            return finish_split_table(df, feature_names, chosen)
        return categorical.finish_table(df, feature_names, chosen)
