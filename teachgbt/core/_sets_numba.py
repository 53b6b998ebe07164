"""The compiled walk of a tree with set splits (optional: needs numba; see
``teachgbt.utils.kernels``): ``Tree.apply``'s steps, ``x < T`` at a threshold split and
``x ∈ S`` at a set split, for trees the kernels of ``_tree_numba`` do not walk.

A set split's codes are a sorted slice ``codes[start[i]:stop[i]]`` (start == stop on every
other node), searched by bisection. A value reads as a category code by the tree's library's
rule (``routing.category_codes``), given as ``rule``: 0 XGBoost (x < 0 or x ≥ 2^24: no
category), 1 LightGBM (truncated, negative: no category), 2 HistGradientBoosting (x < 0,
not whole or ≥ ``n_known[feature]``: missing).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._tree_numba import goes_left  # the numeric rule, compiled (routing.goes_left)

RULE_IDS = {"xgboost": 0, "sklearn-gb": 0, "lightgbm": 1, "sklearn-hist": 2}

_NOT_A_CATEGORY = -1  # routing.NOT_A_CATEGORY
_MISSING = -2  # routing.MISSING_CATEGORY
_XGBOOST_LIMIT = 2.0**24
_INT_LIMIT = 2.0**31


@njit(cache=True, nogil=True, inline="always")
def category_code(x, rule, n_known):
    """``routing.category_codes`` for one value that is not NaN."""
    if rule == 0:
        if x < 0 or x >= _XGBOOST_LIMIT:
            return _NOT_A_CATEGORY
        return np.int64(x)
    c = np.int64(min(max(x, -_INT_LIMIT), _INT_LIMIT))  # truncates toward 0, as C's cast
    if rule == 1:
        return _NOT_A_CATEGORY if c < 0 or x >= _INT_LIMIT else c
    return _MISSING if x < 0 or c >= n_known or c != x else c


@njit(cache=True, nogil=True, inline="always")
def in_codes(codes, lo, hi, c):
    """Whether ``c`` is in the sorted ``codes[lo:hi]`` (bisection)."""
    end = hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes[mid] < c:
            lo = mid + 1
        else:
            hi = mid
    return lo < end and codes[lo] == c


@njit(parallel=True, cache=True, nogil=True)
def apply_tree(X, feature, threshold, default_left, left, right, depth, start, stop, codes,
               rule, n_known):  # fmt: skip
    """Tree.apply for a tree with set splits: ``depth`` steps from the root (leaves point to
    themselves); a missing value goes the default way at either kind of split."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int32)
    for r in prange(n):
        node = 0
        for _ in range(depth):
            f = feature[node]
            x = X[r, f]
            if x != x:
                go = default_left[node]
            elif start[node] < stop[node]:
                c = category_code(x, rule, n_known[f])
                if c == _MISSING:
                    go = default_left[node]
                else:
                    go = c >= 0 and in_codes(codes, start[node], stop[node], c)
            else:
                go = goes_left(x, threshold[node], default_left[node])
            node = left[node] if go else right[node]
        out[r] = node
    return out
