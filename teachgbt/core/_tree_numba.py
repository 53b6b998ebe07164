"""The compiled tree walks (optional: needs numba; see ``teachgbt.utils.kernels``): the twins
of ``Tree.apply``, of the margin sum over many trees, of a round's leaf values put into the
step, and of TreeSHAP's per-row lookup (``explain.attributions.tree_shap`` builds its table).

X and the cut points come prepared by ``teachgbt.core.routing`` (float32 for XGBoost's rule,
float64 for the rules that compare float64 values); numba compiles one version of each
kernel per precision. ``goes_left`` is ``routing.goes_left`` compiled.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True, inline="always")
def goes_left(x, threshold, default_left):
    """x < T, or the default direction when x is missing (``routing.goes_left``): as one expression
    (NaN compares False both ways), so that it compiles without a branch; with
    ``np.isnan`` in a conditional the prediction took 1.8 times as long."""
    return (x < threshold) | (default_left & (x != x))


@njit(parallel=True, cache=True, nogil=True)
def apply_tree(X, feature, threshold, default_left, left, right, depth):
    """Tree.apply: ``depth`` steps from the root, x < threshold left, NaN by default.

    Leaves must point to themselves (``left[leaf] == right[leaf] == leaf``).
    Eight rows take each step together, which lets the processor overlap
    their memory reads; the child is picked by arithmetic, not a branch.
    """
    n = X.shape[0]
    u = np.uint64  # unsigned indices: no handling of negative ones in the inner loop
    out = np.empty(n, dtype=np.int32)
    for block in prange((n + 7) // 8):
        lo = block * 8
        m = min(n, lo + 8) - lo
        nodes = np.zeros(8, dtype=np.int32)
        for _ in range(depth):
            for t in range(m):
                node = u(nodes[t])
                x = X[u(lo + t), u(feature[node])]
                go = goes_left(x, threshold[node], default_left[node])
                a, b = left[node], right[node]
                nodes[t] = b + (a - b) * go
        for t in range(m):
            out[lo + t] = nodes[t]
    return out


@njit(parallel=True, cache=True, nogil=True)
def add_trees(X, margin, feature, threshold, default_left, left, right, value, offsets, depth):
    """``tree.add_tree_values``: every tree's leaf value added to ``margin``, tree after tree.

    The trees' node arrays are concatenated, tree t's nodes from ``offsets[t]`` (node ids
    within a tree, leaves pointing to themselves). Eight rows go through every tree
    while they are in cache, taking each step together as in ``apply_tree``; each row
    adds the trees in order, in margin's precision.
    """
    n = X.shape[0]
    u = np.uint64  # unsigned indices: no handling of negative ones in the inner loop
    for block in prange((n + 7) // 8):
        lo = block * 8
        m = min(n, lo + 8) - lo
        nodes = np.zeros(8, dtype=np.int32)
        for t in range(offsets.shape[0] - 1):
            off = offsets[t]
            nodes[:] = 0
            for _ in range(depth[t]):
                for k in range(m):
                    g = u(off + nodes[k])
                    x = X[u(lo + k), u(feature[g])]
                    go = goes_left(x, threshold[g], default_left[g])
                    a, b = left[g], right[g]
                    nodes[k] = b + (a - b) * go
            for k in range(m):
                margin[lo + k] = margin[lo + k] + value[off + nodes[k]]


@njit(cache=True, nogil=True)
def put_leaf_values(out, rows, leaf, value):
    """``out[rows[i]] = value[leaf[i]]``: a tree's step for the rows whose leaf growing it
    found (numpy's fancy indexing takes three times as long on a million rows)."""
    for i in range(rows.shape[0]):
        out[np.uint64(rows[i])] = value[np.uint64(leaf[i])]


@njit(parallel=True, cache=True, nogil=True)
def add_tree_shap(X, feature, threshold, default_left, node, went_left, bit, slot_feature,
                  table, n_slots, phi):  # fmt: skip
    """phi[r] += Σ_leaves table[leaf·2^S + pattern(r, leaf)] into the slots' columns.

    pattern(r, leaf): bit s set when row r follows every edge of the leaf's path that
    splits on the leaf's s-th feature (edges with ``bit == 0`` are padding).
    """
    n = X.shape[0]
    n_nodes = feature.shape[0]
    n_leaves, n_edges = node.shape
    all_ones = (1 << n_slots) - 1
    for r in prange(n):
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
