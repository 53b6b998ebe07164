"""The compiled twin of ``contributions.tree_shap``'s lookup (optional: needs numba).

The (leaf, pattern) table of SHAP values is built by numpy in ``contributions``;
this kernel only finds each row's pattern for every leaf and adds the table's
entries to the row's columns, the step numpy spends its time on.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._tree_numba import goes_left


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
