"""The compiled tree walks (optional: needs numba; see ``teachgbt.utils.kernels``): the twins
of ``Tree.apply``, of the margin sum over many trees, of a round's leaf values put into the
step, and of TreeSHAP's per-row lookup (``explain.attributions.tree_shap`` builds its table).

X and the cut points come prepared by ``teachgbt.core.routing`` (float32 for XGBoost's rule,
float64 for the rules that compare float64 values); numba compiles one version of each
kernel per precision. ``goes_left`` is ``routing.goes_left`` compiled.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..utils import kernels

BLOCK = 1024  # rows a thread takes at a time
# rows that step through a tree together: 32 keep more of the processor's memory reads in
# flight than 8 (1M rows × 100 trees of depth 6, one thread: 0.79 s instead of 1.05)
STEP = 32


@njit(cache=True, nogil=True, inline="always")
def goes_left(x, threshold, default_left):
    """x < T, or the default direction when x is missing (``routing.goes_left``): as one expression
    (NaN compares False both ways), so that it compiles without a branch; with
    ``np.isnan`` in a conditional the prediction took 1.8 times as long."""
    return (x < threshold) | (default_left & (x != x))


def apply_tree(X, feature, threshold, default_left, left, right, depth):
    """Tree.apply: ``depth`` steps from the root, x < threshold left, NaN by default.

    Leaves must point to themselves (``left[leaf] == right[leaf] == leaf``).
    ``STEP`` rows take each step together, which lets the processor overlap
    their memory reads; the child is picked by arithmetic, not a branch. Blocks
    of rows are shared between threads (``_kernels.share``).
    """
    out = np.empty(X.shape[0], dtype=np.int32)
    n_blocks = (X.shape[0] + BLOCK - 1) // BLOCK
    args = (X, feature, threshold, default_left, left, right, depth, out, _scratch(n_blocks))
    kernels.share(_apply_blocks, args, n_blocks)
    return out


def _scratch(n_blocks):
    """``STEP`` node ids for each block of rows: the kernels allocate nothing (numba compiles
    numpy's allocators, which a first fit would wait for)."""
    return np.empty((n_blocks, STEP), dtype=np.int32)


@njit(cache=True, nogil=True)
def _apply_blocks(X, feature, threshold, default_left, left, right, depth, out, scratch, lo, hi):
    """``apply_tree`` for the blocks of rows lo..hi."""
    n = X.shape[0]
    u = np.uint64  # unsigned indices: no handling of negative ones in the inner loop
    for row in range(lo * BLOCK, min(n, hi * BLOCK), STEP):
        nodes = scratch[row // BLOCK]
        m = min(n, row + STEP) - row
        nodes[:] = 0
        for _ in range(depth):
            for t in range(m):
                node = u(nodes[t])
                x = X[u(row + t), u(feature[node])]
                go = goes_left(x, threshold[node], default_left[node])
                a, b = left[node], right[node]
                nodes[t] = b + (a - b) * go
        for t in range(m):
            out[row + t] = nodes[t]


def add_trees(X, margin, feature, threshold, default_left, left, right, value, offsets, depth):
    """``tree.add_tree_values``: every tree's leaf value added to ``margin``, tree after tree.

    The trees' node arrays are concatenated, tree t's nodes from ``offsets[t]`` (node ids
    within a tree, leaves pointing to themselves). ``STEP`` rows go through every tree
    while they are in cache, taking each step together as in ``apply_tree``; each row
    adds the trees in order, in margin's precision. Blocks of rows are shared between
    threads.
    """
    n_blocks = (X.shape[0] + BLOCK - 1) // BLOCK
    args = (X, margin, feature, threshold, default_left, left, right, value, offsets, depth)
    kernels.share(_add_blocks, (*args, _scratch(n_blocks)), n_blocks)


@njit(cache=True, nogil=True)
def _add_blocks(
    X, margin, feature, threshold, default_left, left, right, value, offsets, depth, scratch,
    lo, hi,
):  # fmt: skip
    """``add_trees`` for the blocks of rows lo..hi."""
    n = X.shape[0]
    u = np.uint64  # unsigned indices: no handling of negative ones in the inner loop
    for row in range(lo * BLOCK, min(n, hi * BLOCK), STEP):
        nodes = scratch[row // BLOCK]
        m = min(n, row + STEP) - row
        for t in range(offsets.shape[0] - 1):
            off = offsets[t]
            nodes[:] = 0
            for _ in range(depth[t]):
                for k in range(m):
                    g = u(off + nodes[k])
                    x = X[u(row + k), u(feature[g])]
                    go = goes_left(x, threshold[g], default_left[g])
                    a, b = left[g], right[g]
                    nodes[k] = b + (a - b) * go
            for k in range(m):
                margin[row + k] = margin[row + k] + value[off + nodes[k]]


def put_leaf_values(out, rows, leaf, value):
    """``out[rows[i]] = value[leaf[i]]``: a tree's step for the rows whose leaf growing it
    found (numpy's fancy indexing takes three times as long on a million rows). The rows
    are distinct: shared between threads from ``PUT_PARALLEL`` rows on."""
    n = rows.shape[0]
    kernels.share(_put_leaf_values, (out, rows, leaf, value), n, None if n >= PUT_PARALLEL else 1)


#: put_leaf_values shares its rows between threads from this many on
PUT_PARALLEL = 1 << 17


@njit(cache=True, nogil=True)
def _put_leaf_values(out, rows, leaf, value, lo, hi):
    """``put_leaf_values`` for the rows lo..hi."""
    for i in range(lo, hi):
        out[np.uint64(rows[i])] = value[np.uint64(leaf[i])]


def add_tree_shap(X, feature, threshold, default_left, node, went_left, bit, slot_feature,
                  table, n_slots, phi):  # fmt: skip
    """phi[r] += Σ_leaves table[leaf·2^S + pattern(r, leaf)] into the slots' columns.

    pattern(r, leaf): bit s set when row r follows every edge of the leaf's path that
    splits on the leaf's s-th feature (edges with ``bit == 0`` are padding). The rows
    are shared between threads.
    """
    args = (X, feature, threshold, default_left, node, went_left, bit, slot_feature, table)
    kernels.share(_shap_rows, (*args, n_slots, phi), X.shape[0])


@njit(cache=True, nogil=True)
def _shap_rows(X, feature, threshold, default_left, node, went_left, bit, slot_feature,
               table, n_slots, phi, lo, hi):  # fmt: skip
    """``add_tree_shap`` for the rows lo..hi."""
    n_nodes = feature.shape[0]
    n_leaves, n_edges = node.shape
    all_ones = (1 << n_slots) - 1
    for r in range(lo, hi):
        left = np.empty(n_nodes, dtype=np.bool_)
        for i in range(n_nodes):
            f = feature[i]
            if f < 0:
                left[i] = False
            else:
                left[i] = goes_left(X[r, f], threshold[i], default_left[i])
        for leaf in range(n_leaves):
            missed = 0
            for e in range(n_edges):
                if left[node[leaf, e]] != went_left[leaf, e]:
                    missed |= bit[leaf, e]
            code = (leaf << n_slots) + (all_ones & ~missed)
            for s in range(n_slots):
                f = slot_feature[leaf, s]
                if f >= 0:
                    phi[r, f] += table[code, s]


def warm_up(x_dtype="float32", margin_dtype=None):
    """Call kernels once, on a few rows of the types their callers pass (X of ``x_dtype``;
    margins of ``margin_dtype``), so that numba compiles each one or loads it from its
    disk cache: what ``utils.kernels``' background compile runs, and what its probe tries
    to load without compiling. Without ``margin_dtype``: ``apply_tree`` (``Tree.apply``);
    with it, what a fit and its predictions call, ``add_trees`` and ``put_leaf_values``.
    TreeSHAP's kernel is left to its first call."""
    n = 16
    X = np.zeros((n, 1), dtype=x_dtype)
    feature = np.zeros(3, dtype=np.int32)
    left, right = np.array([1, 1, 2], dtype=np.int32), np.array([2, 1, 2], dtype=np.int32)
    threshold, default_left = np.zeros(3, dtype=x_dtype), np.zeros(3, dtype=bool)
    if margin_dtype is None:
        apply_tree(X, feature, threshold, default_left, left, right, 1)
        return
    value = np.zeros(3, dtype=margin_dtype)
    offsets, depth = np.array([0, 3], dtype=np.int32), np.ones(1, dtype=np.int32)
    add_trees(X, np.zeros(n, margin_dtype), feature, threshold, default_left, left, right,
              value, offsets, depth)  # fmt: skip
    rows, leaf = np.arange(n, dtype=np.int32), np.ones(n, dtype=np.int32)
    step = np.zeros((n, 3), dtype=margin_dtype)
    for out in (step[:, 0].copy(), step[:, 1]):  # one class (contiguous), several (strided)
        put_leaf_values(out, rows, leaf, np.zeros(3))
