"""Compiled twins of the histogram trainer's inner loops (optional: needs numba).

``hist.py`` holds the readable numpy versions; these do the same arithmetic in
the same order, so both grow the same trees (``tests/test_hist.py`` checks).
Importing this module fails without numba, and ``hist.numba_kernels`` then
falls back to numpy.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..utils import kernels

F32 = np.float32
BIN_BLOCK = 4096  # rows binned together (a block of X stays in cache for every feature)
SWEEP_BLOCK = 1 << 14  # rows a histogram sweep takes through all its features at a time


@njit(cache=True, nogil=True)
def _bin_blocks(X, cuts, n_bins, missing_code, out, scratch, lo, hi):
    """``bin_codes`` for the blocks of rows lo..hi (``scratch[blk]``: eight places each)."""
    n, d = X.shape
    block = BIN_BLOCK
    for blk in range(lo, hi):
        base = scratch[blk]
        lo_row = blk * block
        hi_row = min(n, lo_row + block)
        for f in range(d):
            c = cuts[f]
            nb = n_bins[f]
            for i0 in range(lo_row, hi_row, 8):
                m = min(8, hi_row - i0)
                base[:] = 0
                width = nb
                while width > 1:
                    half = width >> 1
                    for t in range(m):
                        b = base[t]
                        base[t] = b + half if c[b + half] <= X[i0 + t, f] else b
                    width -= half
                for t in range(m):
                    x = X[i0 + t, f]
                    b = base[t]
                    out[f, i0 + t] = missing_code if np.isnan(x) else b + (1 if c[b] <= x else 0)


def bin_codes(X, cuts, n_bins, missing_code, out):
    """HistData's bin codes: ``out[f, i]`` = the number of cut points <= X[i, f], NaN → missing.

    A branch-free binary search; rows go in blocks so that a block of X stays
    in cache while every feature is binned, and eight rows take each step of
    the search together, which lets the processor overlap their memory reads
    (a NaN compares False and is given the missing code at the end). The
    blocks are shared between threads.
    """
    n_blocks = (X.shape[0] + BIN_BLOCK - 1) // BIN_BLOCK
    # (the kernels allocate nothing: numba compiles numpy's allocators for a second each)
    scratch = np.empty((n_blocks, 8), dtype=np.int64)
    kernels.share(_bin_blocks, (X, cuts, n_bins, missing_code, out, scratch), n_blocks)


def build_histograms(
    bins,
    order,
    stats,
    starts,
    stops,
    features,
    n_slots,
    missing_code,
    count_missing,
    node_of,
    merged_rows,
    merged_nodes,
    threads=None,
    sums=None,
):
    """For each node s, rows ``order[starts[s]:stops[s]]`` (row r's statistics are
    ``stats[r]``): Σ of each statistic per bin of every used feature, and per feature the
    number of missing values (where ``count_missing[j]``: features with any in the data).

    Every bin adds its rows in increasing row id, as the numpy version's ``bincount``
    does (a node's rows are kept sorted), so the sums are the same to the last bit.

    The rows are swept in one of two ways (``_merge_span``): node by node, or, when the
    nodes are many small ones spread over the data (deep in a tree), all of them in
    merged sweeps in increasing row id, each row adding into its own node's histogram.
    A small node's rows are far apart and each lookup of a bin code would fetch a
    memory line of its own; merged, the rows are close together again.

    The features are shared out evenly between ``threads`` threads (``_kernels.share``);
    each takes the rows a block at a time through its features, four at a time, and adds
    each row's (g, h), read from ``stats[row]``, into every feature's bin, both at once
    (``_add_pair``).

    ``sums``: for one node (a root), an array of two places to get its G and H in, the
    float64 sums of its rows' g and h in row order (``column_sums``' numbers): the
    first features' sweep adds them up on the way, where it can (two statistics, four
    features or more a thread: ``_add_pairs_summing``), else ``column_sums`` does.
    """
    threads = kernels.n_threads() if threads is None else threads
    span = _merge_span(order, starts, stops, merged_rows.shape[0] - MERGE_PARTS)
    if span[0] >= 0:  # merged, in parts of the span that threads merge side by side
        parts = min(threads, MERGE_PARTS)
        rows, seg_start, seg_stop = _merge(
            order, starts, stops, span, node_of, merged_rows, merged_nodes, parts
        )
        seg_node = np.full(len(seg_start), -1, dtype=np.intp)
    else:  # node by node
        rows, seg_start, seg_stop, seg_node = order, starts, stops, np.arange(len(starts))
    d, k = features.shape[0], stats.shape[1]
    hist = np.zeros((starts.shape[0], d, n_slots, k))
    n_missing = np.zeros((starts.shape[0], d), dtype=np.int64)
    # the thread with the first features adds up the node's sums where it sweeps them four
    # at a time: two statistics and at least four features of its own (``share``'s split)
    add_up = sums is not None and k == 2 and len(starts) == 1 and d // min(threads, d) >= 4
    sweep = (bins, features, rows, stats, seg_start, seg_stop, seg_node, merged_nodes)
    sweep += (n_slots, missing_code, count_missing, hist.reshape(-1), n_missing)
    sweep += (np.zeros(2 if add_up else 0),)
    kernels.share(_sweep_features, sweep, d, threads)
    if sums is not None:
        sums[:] = sweep[-1] if add_up else column_sums(stats, order[starts[0] : stops[0]])
    return hist, n_missing


def build_histograms_serial(*args, sums=None):
    """``build_histograms`` on this thread alone (small work is done before threads wake)."""
    return build_histograms(*args, threads=1, sums=sums)


@njit(cache=True, nogil=True)
def _sweep_features(
    bins,
    features,
    all_rows,
    stats,
    seg_start,
    seg_stop,
    seg_node,
    merged_nodes,
    n_slots,
    missing_code,
    count_missing,
    flat,
    n_missing,
    sums,
    j0,
    j1,
):
    """``build_histograms``' sweeps for the used features j0..j1: ``flat`` holds node s,
    feature j, bin c at pair (s·d + j)·W + c. Segment t's rows are
    ``all_rows[seg_start[t]:seg_stop[t]]``, and, when ``seg_node[t]`` is −1 (merged),
    their nodes ``merged_nodes`` from ``seg_start[t]`` on. ``sums`` (two places, or
    none): the one node's G and H, added up by the thread with the first features."""
    d, k = features.shape[0], stats.shape[1]
    node_size = d * n_slots  # pairs in one node's histogram
    for t in range(seg_start.shape[0]):
        # the segment's rows and (merged) nodes, both from 0 to hi
        lo, hi, s = 0, seg_stop[t] - seg_start[t], seg_node[t]
        rows = all_rows[seg_start[t] : seg_stop[t]]
        nodes = merged_nodes[seg_start[t] : seg_stop[t]] if s < 0 else merged_nodes[:0]
        # a segment of one node adds at that node's offset; a merged one reads each
        # row's node (stride 0 means "no per-row node")
        base, stride = (s * node_size, 0) if s >= 0 else (0, node_size)
        # a node of every row: its rows are 0, 1, ... (a node's rows are sorted, distinct)
        every = s >= 0 and hi == bins.shape[1]
        # the rows in blocks, each swept once per group of features while its statistics
        # (and its stretch of every bin column) stay in cache; blocks in row order, so
        # every bin still adds its rows in increasing row id
        for b0 in range(lo, hi, SWEEP_BLOCK):
            b1 = min(hi, b0 + SWEEP_BLOCK)
            j = j0
            while j < j1:
                at = (rows, stats, b0, b1, nodes, stride, base + j * n_slots)
                if k == 2 and j1 - j >= 4:
                    c = bins[features[j]], bins[features[j + 1]]
                    c4 = c + (bins[features[j + 2]], bins[features[j + 3]])
                    if j == 0 and sums.shape[0] == 2:  # (one node: see build_histograms)
                        _add_pairs_summing(
                            flat, n_slots, c4, rows, stats, b0, b1, base, sums, every
                        )
                    else:
                        _add_pairs(flat, n_slots, c4, *at, every)
                    j += 4
                elif k == 2 and j1 - j >= 2:  # (two threads share 28 features as 14 and 14)
                    c2 = bins[features[j]], bins[features[j + 1]]
                    _add_pairs(flat, n_slots, c2, *at, every)
                    j += 2
                else:
                    _add_column(flat, bins[features[j]], *at)
                    j += 1
        for j in range(j0, j1):
            if count_missing[j]:
                col = bins[features[j]]
                for i in range(lo, hi):
                    if col[rows[i]] == missing_code:
                        n_missing[s if s >= 0 else nodes[i], j] += 1


#: the most parts a merged sweep's rows are merged in (one a thread); each leaves a spare
#: place after its rows in the merge's arrays
MERGE_PARTS = 8
#: ``node_of``'s mark for a row in no node (its dtype is uint16: 2 bytes a row stay in
#: cache where 4 would not; a merge has fewer nodes than this)
NO_NODE = np.uint16(0xFFFF)


def _merge_span(order, starts, stops, room):
    """Whether a histogram call sweeps the rows node by node (returns (−1, −1)) or
    merged: then the smallest and largest row id of its nodes.

    Node by node, unless the nodes are many and small: each under an eighth of the span
    of row ids they cover, and together at least an eighth of it (and at most ``room``
    rows: the merge's arrays' size). (numpy: a few operations a level are not worth a
    compile on a fresh installation.)
    """
    n_nodes = len(starts)
    full = stops > starts
    if n_nodes < 2 or n_nodes >= NO_NODE or not full.any():
        return -1, -1
    total = int((stops - starts).sum())
    # the smallest and largest row id of any node (a node's rows are sorted)
    lo_row, hi_row = int(order[starts[full]].min()), int(order[stops[full] - 1].max())
    span = hi_row - lo_row + 1
    too_few = total * 8 < span or total * 8 > span * n_nodes  # or too large to merge
    if too_few or total > room:
        return -1, -1
    return lo_row, hi_row


def _merge(order, starts, stops, span, node_of, rows, nodes, parts):
    """The rows of the nodes ``order[starts[s]:stops[s]]`` in increasing row id, cut into
    ``parts`` parts of the span of row ids (part p: ``bounds[p]`` to ``bounds[p + 1]``),
    merged side by side by as many threads: part p's rows go to ``rows`` from ``at[p]``
    on, and their nodes to ``nodes`` at the same places. Returns (rows, where each part
    starts, where it stops).

    Each row's node is first written at ``node_of[row]`` (the nodes shared between the
    threads); then each part's rows are collected in one pass over its row ids, without
    a branch (``_collect``), which puts back the ``NO_NODE`` that marks "in no node".
    """
    bounds = np.linspace(span[0], span[1] + 1, parts + 1).astype(np.int64)
    count = np.zeros(parts, dtype=np.int64)
    _part_counts(order, starts, stops, bounds, count)
    # each part leaves one place spare after its rows: its collect's last write lands there
    at = np.concatenate([[0], np.cumsum(count + 1)[:-1]]).astype(np.int64)
    kernels.share(_mark, (order, starts, stops, node_of), len(starts), parts)
    kernels.share(_collect, (node_of, bounds, at, rows, nodes), parts, parts)
    return rows, at, at + count


@njit(cache=True, nogil=True)
def _part_counts(order, starts, stops, bounds, count):
    """``count[p]`` += how many of the nodes' rows lie in part [bounds[p], bounds[p + 1])
    of the row ids (a node's rows are sorted: a binary search a node and bound)."""
    parts = bounds.shape[0] - 1
    for s in range(starts.shape[0]):
        below = 0  # the node's rows below bounds[p]
        for p in range(parts + 1):
            lo, hi = starts[s], stops[s]  # the first of the node's rows >= bounds[p]
            while lo < hi:
                mid = (lo + hi) >> 1
                if order[mid] < bounds[p]:
                    lo = mid + 1
                else:
                    hi = mid
            if p > 0:
                count[p - 1] += lo - starts[s] - below
            below = lo - starts[s]


@njit(cache=True, nogil=True)
def _mark(order, starts, stops, node_of, lo, hi):
    """``node_of[row] = s`` for the rows of the nodes s = lo..hi."""
    for s in range(lo, hi):
        for i in range(starts[s], stops[s]):
            node_of[np.uint64(order[i])] = s


@njit(cache=True, nogil=True)
def _collect(node_of, bounds, at, rows, nodes, lo, hi):
    """The parts lo..hi of ``_merge``: every row id r of the part in turn is written at
    the part's next place with its node, and the place moves on only when r is in a node
    (then ``node_of[r]`` is reset to ``NO_NODE``)."""
    for p in range(lo, hi):
        m = np.uint64(at[p])
        for r in range(bounds[p], bounds[p + 1]):
            u = np.uint64(r)
            s = node_of[u]
            rows[m] = r
            nodes[m] = s
            m += np.uint64(s != NO_NODE)
            node_of[u] = NO_NODE


@intrinsic
def _add_pair(typingctx, flat, b, g, h):
    """``flat[2b] += g; flat[2b + 1] += h`` on a contiguous float64 array, as one 128-bit
    vector addition.

    The same two IEEE float64 additions, so the same bits; written as LLVM IR because
    numba otherwise emits two scalar loads, adds and stores, and the stores are what
    the histogram sweeps wait on. ``b`` is unsigned: no negative-index wraparound.
    """
    sig = types.void(flat, b, g, h)

    def codegen(context, builder, signature, args):
        flat_v, b_v, g_v, h_v = args
        data = context.make_array(signature.args[0])(context, builder, flat_v).data
        i64 = ir.IntType(64)
        at = builder.shl(builder.zext(b_v, i64) if b_v.type.width < 64 else b_v, i64(1))
        pair = ir.VectorType(ir.DoubleType(), 2)
        ptr = builder.bitcast(builder.gep(data, [at], inbounds=True), pair.as_pointer())
        v = builder.insert_element(ir.Constant(pair, ir.Undefined), g_v, ir.IntType(32)(0))
        v = builder.insert_element(v, h_v, ir.IntType(32)(1))
        builder.store(builder.fadd(builder.load(ptr, align=8), v), ptr, align=8)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _add_pairs(flat, W, columns, rows, stats, lo, hi, nodes, stride, at, every):
    """The histograms of a few features (``columns``: their bin codes, a tuple of two or
    four) over rows ``rows[lo:hi]``, in one sweep: row r's (g, h), ``stats[r]``, is added
    into every feature's bin with ``_add_pair``, the q-th feature's bin c being pair
    ``at + q·W + c`` of ``flat``, moved on by ``nodes[i]·stride`` (the row's node, when
    rows of several nodes are swept together).

    ``every``: the rows are every row of the data, in order (a root without sampling:
    ``rows[i]`` is i), swept without looking them up, which lets the processor work out
    the addresses of the rows ahead (a quarter faster)."""
    W, stride = np.uint64(W), np.uint64(stride)
    if every:
        for i in range(lo, hi):
            r = np.uint64(i)
            g, h = np.float64(stats[r, 0]), np.float64(stats[r, 1])
            for q in range(len(columns)):  # a fixed number: unrolled when compiled
                _add_pair(flat, np.uint64(at) + np.uint64(q) * W + columns[q][r], g, h)
        return
    for i in range(lo, hi):
        r = np.uint64(rows[i])
        o = np.uint64(at) + (np.uint64(nodes[i]) * stride if stride else np.uint64(0))
        g, h = np.float64(stats[r, 0]), np.float64(stats[r, 1])
        for q in range(len(columns)):  # a fixed number: unrolled when compiled
            _add_pair(flat, o + np.uint64(q) * W + columns[q][r], g, h)


@njit(cache=True, nogil=True)
def _add_pairs_summing(flat, W, columns, rows, stats, lo, hi, at, sums, every):
    """``_add_pairs`` of one node's rows that also adds their g and h to ``sums``, one row
    after another (``column_sums``' order): the additions of the sums wait on each other,
    and here the histograms' additions fill the time between them. (A function of its own:
    the same loop in ``_add_pairs`` behind a flag made every sweep a quarter slower.)"""
    W = np.uint64(W)
    s0, s1 = sums[0], sums[1]
    for i in range(lo, hi):
        r = np.uint64(i) if every else np.uint64(rows[i])
        g, h = np.float64(stats[r, 0]), np.float64(stats[r, 1])
        for q in range(len(columns)):  # a fixed number: unrolled when compiled
            _add_pair(flat, np.uint64(at) + np.uint64(q) * W + columns[q][r], g, h)
        s0 += g
        s1 += h
    sums[0], sums[1] = s0, s1


@njit(cache=True, nogil=True)
def _add_column(flat, codes, rows, stats, lo, hi, nodes, stride, at):
    """One feature's histogram, as ``_add_pairs``, with any number of statistics per
    row (two: added as a pair; three, with the cover statistic: one at a time)."""
    k = stats.shape[1]
    stride = np.uint64(stride)
    for i in range(lo, hi):
        r = np.uint64(rows[i])
        o = np.uint64(at) + (np.uint64(nodes[i]) * stride if stride else np.uint64(0))
        b = o + codes[r]
        if k == 2:
            _add_pair(flat, b, np.float64(stats[r, 0]), np.float64(stats[r, 1]))
        else:
            for q in range(k):
                flat[b * k + q] += stats[r, q]


def column_sums(stats, order):
    """Column sums of ``stats[order]`` in float64, added one row after another (two or
    three columns, each summed in a register of its own)."""
    return _column_sums(stats, order)[: stats.shape[1]]


@njit(cache=True, nogil=True)
def _column_sums(stats, order):
    k = stats.shape[1]
    s0, s1, s2 = 0.0, 0.0, 0.0
    for i in range(order.shape[0]):
        r = np.uint64(order[i])
        s0 += stats[r, 0]
        s1 += stats[r, 1]
        if k == 3:
            s2 += stats[r, 2]
    return s0, s1, s2


@njit(cache=True, nogil=True)
def partition(order, start, stop, codes, go_left, order_out):
    """Stable partition of ``order[start:stop]`` into the same slice of ``order_out``:
    rows r with ``go_left[codes[r]]`` first. Returns how many went left.

    One sweep writes every row id both to the next left place (from the front) and to
    the next right place (from the back) and moves on only the side the row belongs to
    (no branch to mispredict; the two places meet only at the last row, which both
    writes give the same id). The right rows, written back to front, are then turned
    round. Every index is unsigned (``u``), which spares numba's handling of negative
    indices: that made the sweep twice as slow.
    """
    u = np.uint64
    n_left, back = u(0), u(stop)  # order_out[back:stop]: the right rows so far, reversed
    for i in range(u(start), u(stop)):
        r = order[i]
        left = u(go_left[codes[u(r)]])  # 1 or 0
        order_out[u(start) + n_left] = r
        order_out[back - u(1)] = r
        n_left += left
        back -= u(1) - left
    lo, hi = back, u(stop) - u(1)
    while lo < hi:
        order_out[lo], order_out[hi] = order_out[hi], order_out[lo]
        lo += u(1)
        hi -= u(1)
    return n_left


@njit(cache=True, nogil=True)
def count_up(order):
    """``order[i] = i`` for every i: a root's rows, written into an array a tree reuses."""
    for i in range(order.shape[0]):
        order[i] = i


def partition_nodes(order, starts, stops, bins, features, tables, order_out, threads=None):
    """``partition`` of several nodes at once (a level's): node s's rows
    ``order[starts[s]:stops[s]]`` split by feature ``features[s]`` with ``tables[s]``.
    Returns how many of each node's rows went left. The nodes are shared out between
    threads in runs of about equal numbers of rows."""
    n_left = np.empty(len(starts), dtype=np.int64)
    bounds, threads = _runs(starts, stops, threads)
    args = (order, starts, stops, bins, features, tables, order_out, n_left, bounds)
    kernels.share(_partition_nodes, args, threads, threads)
    return n_left


def _runs(starts, stops, threads):
    """The nodes cut into runs of consecutive nodes with about equal numbers of rows, one
    a thread: (bounds, runs), run p being nodes bounds[p] .. bounds[p + 1]. Each cut lies
    at the boundary between nodes nearest its share of the rows (a first node of 710k
    rows out of 1M: 710k and 290k, not 0 and 1M)."""
    m = len(starts)
    threads = min(kernels.n_threads() if threads is None else threads, m)
    rows = np.concatenate([[0], np.cumsum(stops - starts)])  # rows before node s
    targets = rows[-1] * np.arange(1, threads) / threads
    below = np.searchsorted(rows, targets, side="right") - 1  # the boundary at or below
    above = np.minimum(below + 1, m)
    nearer = np.where(rows[above] - targets < targets - rows[below], above, below)
    cuts = np.maximum.accumulate(nearer)  # (in order, for more than two threads)
    return np.concatenate([[0], cuts, [m]]).astype(np.int64), threads


@njit(cache=True, nogil=True)
def _partition_nodes(
    order, starts, stops, bins, features, tables, order_out, n_left, bounds, lo, hi
):
    """``partition_nodes`` for the runs lo..hi of nodes (run p: bounds[p] .. bounds[p + 1])."""
    for p in range(lo, hi):
        for s in range(bounds[p], bounds[p + 1]):
            codes = bins[features[s]]
            n_left[s] = partition(order, starts[s], stops[s], codes, tables[s], order_out)


def route_to_leaves(order, starts, stops, bins, features, tables, values, out, threads=None):
    """The last level's splits, when their children are leaves: instead of partitioning
    node s's rows ``order[starts[s]:stops[s]]``, each row r gets its leaf's value,
    ``out[r] = values[s, 0]`` when ``tables[s][bins[features[s], r]]`` sends it left, else
    ``values[s, 1]``. Returns how many of each node's rows went left (``partition_nodes``'
    counts); the nodes are shared out between threads as there."""
    n_left = np.empty(len(starts), dtype=np.int64)
    bounds, threads = _runs(starts, stops, threads)
    args = (order, starts, stops, bins, features, tables, values, out, n_left, bounds)
    kernels.share(_route_to_leaves, args, threads, threads)
    return n_left


@njit(cache=True, nogil=True)
def _route_to_leaves(
    order, starts, stops, bins, features, tables, values, out, n_left, bounds, lo, hi
):
    """``route_to_leaves`` for the runs lo..hi of nodes."""
    u = np.uint64
    for p in range(lo, hi):
        for s in range(bounds[p], bounds[p + 1]):
            codes, table = bins[features[s]], tables[s]
            v_left, v_right = values[s, 0], values[s, 1]  # (stored in out's precision)
            count = u(0)
            for i in range(u(starts[s]), u(stops[s])):
                r = u(order[i])
                left = table[codes[r]]
                out[r] = v_left if left else v_right
                count += u(left)
            n_left[s] = count


def put_values(out, order, starts, stops, values, threads=None):
    """``out[r] = values[s]`` for every row r of node s, ``order[starts[s]:stops[s]]``: a
    tree's step for the rows of its leaves. The rows are shared between threads evenly,
    a node's rows split where a thread's share ends."""
    offsets = np.concatenate([[0], np.cumsum(stops - starts)]).astype(np.int64)
    args = (out, order, starts, stops, values, offsets)
    kernels.share(_put_values, args, int(offsets[-1]), threads)


@njit(cache=True, nogil=True)
def _put_values(out, order, starts, stops, values, offsets, lo, hi):
    """``put_values`` for rows lo..hi of the nodes' rows laid end to end (node s's from
    ``offsets[s]`` on)."""
    u = np.uint64
    for s in range(starts.shape[0]):
        a, b = max(lo, offsets[s]), min(hi, offsets[s + 1])
        v = values[s]
        shift = starts[s] - offsets[s]
        for i in range(a, b):
            out[u(order[u(i + shift)])] = v


@njit(cache=True)
def _weight(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight):
    """formulas.leaf_weight, one value, float64."""
    if H <= 0.0 or H < min_child_weight:
        return 0.0
    Gt = G
    if reg_alpha != 0.0:
        Gt = np.sign(G) * max(abs(G) - reg_alpha, 0.0)
    w = -Gt / (H + reg_lambda)
    if max_delta_step > 0:
        w = min(max(w, -max_delta_step), max_delta_step)
    return w


@njit(cache=True)
def side_score64(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight):
    """formulas.leaf_score, one value, float64."""
    if H <= 0.0:
        return 0.0
    if max_delta_step > 0:
        w = _weight(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight)
        return -(2.0 * G * w + (H + reg_lambda) * (w * w))
    Gt = G
    if reg_alpha != 0.0:
        Gt = np.sign(G) * max(abs(G) - reg_alpha, 0.0)
    return Gt * Gt / (H + reg_lambda)


@njit(cache=True)
def side_score32(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight):
    """GrowParams.side_score with float32, one value: XGBoost's float32 arithmetic."""
    if H <= 0.0:
        return F32(0.0)
    if max_delta_step > 0:
        w = F32(_weight(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight))
        return -(F32(2.0) * F32(G) * w + (F32(H) + F32(reg_lambda)) * (w * w))
    Gt = G
    if reg_alpha != 0.0:
        Gt = np.sign(G) * max(abs(G) - reg_alpha, 0.0)
    return F32(Gt * Gt) / F32(H + reg_lambda)


@njit(cache=True)
def loss_chg(G_L, H_L, G_R, H_R, root, lam, alpha, mds, mcw, float32):
    """score(L) + score(R) − score(parent), in float32 as XGBoost when ``float32``."""
    if float32:
        s = side_score32(G_L, H_L, lam, alpha, mds, mcw) + side_score32(
            G_R, H_R, lam, alpha, mds, mcw
        )
        return float(s - F32(root))
    return (
        side_score64(G_L, H_L, lam, alpha, mds, mcw)
        + side_score64(G_R, H_R, lam, alpha, mds, mcw)
        - root
    )


@njit(cache=True, nogil=True)
def best_split(
    hist,
    n_missing,
    n_bins,
    G,
    H,
    C,
    root,
    reg_lambda,
    reg_alpha,
    max_delta_step,
    min_child_weight,
    float32,
    has_cover,
):
    """HistSplitter._scan + the choice of the best candidate, one candidate at a time.

    Returns (j, q, loss_chg, G_L, H_L, C_L): the used-feature index and the column
    in ``_scan``'s layout (q < K: forward boundary q; q >= K: backward,
    bins 2K−1−q.. right), or j = −1 when nothing lowers the loss.
    """
    d = hist.shape[0]
    K = hist.shape[1] - 1
    c_col = 2 if has_cover else 1
    params = (reg_lambda, reg_alpha, max_delta_step, min_child_weight, float32)
    best = 0.0
    best_j, best_q = -1, -1
    best_GL, best_HL, best_CL = 0.0, 0.0, 0.0
    for j in range(d):
        nb = n_bins[j]
        # forward: bins 0..b left, missing right
        GL, HL, CL = 0.0, 0.0, 0.0
        for b in range(nb):
            GL += hist[j, b, 0]
            HL += hist[j, b, 1]
            CL += hist[j, b, c_col]
            if CL >= min_child_weight and C - CL >= min_child_weight:
                loss = loss_chg(GL, HL, G - GL, H - HL, root, *params)
                if loss > best:
                    best, best_j, best_q = loss, j, b
                    best_GL, best_HL, best_CL = GL, HL, CL
        if n_missing[j] == 0:
            continue
        # backward: bins i.. right (summed from the top), the rest and missing left
        GR, HR, CR = 0.0, 0.0, 0.0
        for i in range(nb - 1, -1, -1):
            GR += hist[j, i, 0]
            HR += hist[j, i, 1]
            CR += hist[j, i, c_col]
            if CR >= min_child_weight and C - CR >= min_child_weight:
                loss = loss_chg(G - GR, H - HR, GR, HR, root, *params)
                if loss > best:
                    best, best_j, best_q = loss, j, 2 * K - 1 - i
                    best_GL, best_HL, best_CL = G - GR, H - HR, C - CR
    return best_j, best_q, best, best_GL, best_HL, best_CL


def best_splits(built, siblings, parents, which, at, n_bins, sums, penalties, float32, has_cover,
                threads=None):  # fmt: skip
    """The histograms of a level's siblings by the subtraction trick, and ``best_split`` of
    every node of the level, shared between threads a pair of siblings at a time.

    ``built``: the (hist, n_missing) the sweep built for the N smaller children;
    ``siblings``: two arrays of the same shapes that get their siblings' (parent's minus
    child's); ``parents``: two pairs (hist, n_missing) holding the parents, child s's
    parent being ``parents[which[s]]``'s ``at[s]``-th. ``sums``: (2N, 3) the nodes' G, H,
    C, the built children first, then their siblings; each node's unsplit score is
    computed as ``HistSplitter`` computes it. Returns (2N, 6) float64: each node's (j, q,
    loss_chg, G_L, H_L, C_L)."""
    m = len(at)
    out = np.empty((2 * m, 6))
    (pa, ma), (pb, mb) = parents
    args = (*built, *siblings, pa, ma, pb, mb, which, at, n_bins, sums, *penalties)
    kernels.share(_best_splits, args + (float32, has_cover, out), m, threads)
    return out


@njit(cache=True, nogil=True)
def _best_splits(
    hist, missing, sib_hist, sib_missing, pa, ma, pb, mb, which, at, n_bins, sums,
    lam, alpha, mds, mcw, float32, has_cover, out, lo, hi,
):  # fmt: skip
    """``best_splits`` of the pairs lo..hi: the sibling's histogram (the parent's minus the
    child's, as numpy subtracts), then the child's best split and the sibling's."""
    m = hist.shape[0]
    for s in range(lo, hi):
        parent = pa[at[s]] if which[s] == 0 else pb[at[s]]
        parent_missing = ma[at[s]] if which[s] == 0 else mb[at[s]]
        child, sibling = hist[s], sib_hist[s]
        for j in range(child.shape[0]):
            sib_missing[s, j] = parent_missing[j] - missing[s, j]
            for c in range(child.shape[1]):
                for q in range(child.shape[2]):
                    sibling[j, c, q] = parent[j, c, q] - child[j, c, q]
        for t, h, h_missing in ((s, child, missing[s]), (m + s, sibling, sib_missing[s])):
            G, H, C = sums[t, 0], sums[t, 1], sums[t, 2]
            if float32:
                root = np.float64(side_score32(G, H, lam, alpha, mds, mcw))
            else:
                root = side_score64(G, H, lam, alpha, mds, mcw)
            j, q, lc, G_L, H_L, C_L = best_split(
                h, h_missing, n_bins, G, H, C, root, lam, alpha, mds, mcw, float32, has_cover
            )
            out[t, 0], out[t, 1], out[t, 2] = j, q, lc
            out[t, 3], out[t, 4], out[t, 5] = G_L, H_L, C_L


def warm_up(bins_dtype="uint8", stats_dtype="float32"):
    """Call every kernel once, on a few rows of the types a fit passes them (bin codes of
    ``bins_dtype``, g and h of ``stats_dtype``, row ids int32), so that numba compiles each
    one or loads it from its disk cache: what ``utils.kernels``' background compile runs,
    and what its probe tries to load without compiling. Every call stays on this thread."""
    n = 64
    X = np.linspace(-1.0, 1.0, n, dtype=F32).reshape(n, 1)
    X[::9] = np.nan
    cuts, n_bins, missing = np.array([[0.0, 2.0]], dtype=F32), np.array([2], dtype=np.int64), 2
    bins = np.empty((1, n), dtype=bins_dtype)
    bin_codes(X, cuts, n_bins, missing, bins)
    stats = np.ones((n, 2), dtype=stats_dtype)
    order = np.arange(n, dtype=np.int32)
    column_sums(stats, order)
    room = n + MERGE_PARTS
    work = (
        np.full(n, NO_NODE, dtype=np.uint16),  # a row's node
        np.empty(room, dtype=np.int32),  # merged rows
        np.empty(room, dtype=np.uint16),  # their nodes
    )
    features, count_missing = np.arange(1, dtype=np.intp), np.ones(1, dtype=bool)
    # the root; two nodes; eight nodes of every eighth row, merged
    interleaved = np.argsort(np.arange(n) % 8, kind="stable").astype(np.int32)
    for rows, starts, stops in ((order, [0], [n]), (order, [0, 40], [20, 60]),
                                (interleaved, range(0, n, 8), range(8, n + 1, 8))):  # fmt: skip
        hist, n_missing = build_histograms_serial(
            bins, rows, stats, np.array(starts, dtype=np.intp), np.array(stops, dtype=np.intp),
            features, missing + 1, missing, count_missing, *work,
            sums=np.empty(2) if len(starts) == 1 else None,
        )  # fmt: skip
    table = np.array([True, False, True])
    partition(order, 0, n, bins[0], table, np.empty_like(order))
    count_up(np.empty_like(order))
    two = np.array([0, 32], dtype=np.int64), np.array([32, 64], dtype=np.int64)
    partition_nodes(order, *two, bins, np.zeros(2, np.intp), np.stack([table, table]),
                    np.empty_like(order), threads=1)  # fmt: skip
    best_split(hist[0], n_missing[0], n_bins, 1.0, 2.0, 2.0, 0.5, 1.0, 0.0, 0.0, 1.0, True, False)
    parents = (hist, n_missing), (hist, n_missing)
    which, at = np.zeros(len(hist), dtype=np.int8), np.arange(len(hist))
    for float32 in (True, False):
        best_splits((hist, n_missing), (np.empty_like(hist), np.empty_like(n_missing)), parents,
                    which, at, n_bins, np.ones((2 * len(hist), 3)), (1.0, 0.0, 0.0, 1.0),
                    float32, False, threads=1)  # fmt: skip
    # a round's step is in the precision of its g and h (XGBoost's float32, GBDT's float64)
    out = np.empty(n, dtype=stats_dtype)
    route_to_leaves(order, *two, bins, np.zeros(2, np.intp), np.stack([table, table]),
                    np.ones((2, 2)), out, threads=1)  # fmt: skip
    put_values(out, order, *two, np.ones(2), threads=1)
