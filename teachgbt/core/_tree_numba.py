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

BLOCK = 1024  # rows a thread takes at a time (eight of them step through a tree together)


@njit(cache=True, nogil=True, inline="always")
def goes_left(x, threshold, default_left):
    """x < T, or the default direction when x is missing (``routing.goes_left``): as one expression
    (NaN compares False both ways), so that it compiles without a branch; with
    ``np.isnan`` in a conditional the prediction took 1.8 times as long."""
    return (x < threshold) | (default_left & (x != x))


def apply_tree(X, feature, threshold, default_left, left, right, depth):
    """Tree.apply: ``depth`` steps from the root, x < threshold left, NaN by default.

    Leaves must point to themselves (``left[leaf] == right[leaf] == leaf``).
    Eight rows take each step together, which lets the processor overlap
    their memory reads; the child is picked by arithmetic, not a branch. Blocks
    of rows are shared between threads (``_kernels.share``).
    """
    out = np.empty(X.shape[0], dtype=np.int32)
    args = (X, feature, threshold, default_left, left, right, depth, out)
    kernels.share(_apply_blocks, args, (X.shape[0] + BLOCK - 1) // BLOCK)
    return out


@njit(cache=True, nogil=True)
def _apply_blocks(X, feature, threshold, default_left, left, right, depth, out, lo, hi):
    """``apply_tree`` for the blocks of rows lo..hi."""
    n = X.shape[0]
    u = np.uint64  # unsigned indices: no handling of negative ones in the inner loop
    nodes = np.zeros(8, dtype=np.int32)
    for row in range(lo * BLOCK, min(n, hi * BLOCK), 8):
        m = min(n, row + 8) - row
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
    within a tree, leaves pointing to themselves). Eight rows go through every tree
    while they are in cache, taking each step together as in ``apply_tree``; each row
    adds the trees in order, in margin's precision. Blocks of rows are shared between
    threads.
    """
    args = (X, margin, feature, threshold, default_left, left, right, value, offsets, depth)
    kernels.share(_add_blocks, args, (X.shape[0] + BLOCK - 1) // BLOCK)


@njit(cache=True, nogil=True)
def _add_blocks(
    X, margin, feature, threshold, default_left, left, right, value, offsets, depth, lo, hi
):
    """``add_trees`` for the blocks of rows lo..hi."""
    n = X.shape[0]
    u = np.uint64  # unsigned indices: no handling of negative ones in the inner loop
    nodes = np.zeros(8, dtype=np.int32)
    for row in range(lo * BLOCK, min(n, hi * BLOCK), 8):
        m = min(n, row + 8) - row
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


@njit(cache=True, nogil=True)
def put_leaf_values(out, rows, leaf, value):
    """``out[rows[i]] = value[leaf[i]]``: a tree's step for the rows whose leaf growing it
    found (numpy's fancy indexing takes three times as long on a million rows)."""
    for i in range(rows.shape[0]):
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
