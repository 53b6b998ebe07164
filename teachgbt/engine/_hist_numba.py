"""Compiled twins of the histogram trainer's inner loops (optional: needs numba).

``hist.py`` holds the readable numpy versions; these do the same arithmetic in
the same order, so both grow the same trees (``tests/test_hist.py`` checks).
Importing this module fails without numba, and ``hist.numba_kernels`` then
falls back to numpy.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

F32 = np.float32


@njit(parallel=True, cache=True, nogil=True)
def bin_codes(X, cuts, n_bins, missing_code, out):
    """HistData's bin codes: ``out[f, i]`` = the number of cut points <= X[i, f], NaN → missing.

    A branch-free binary search; rows go in blocks so that a block of X stays
    in cache while every feature is binned.
    """
    n, d = X.shape
    block = 4096
    for blk in prange((n + block - 1) // block):
        lo_row = blk * block
        hi_row = min(n, lo_row + block)
        for f in range(d):
            c = cuts[f]
            nb = n_bins[f]
            for i in range(lo_row, hi_row):
                x = X[i, f]
                if np.isnan(x):
                    out[f, i] = missing_code
                    continue
                base = 0
                width = nb
                while width > 1:
                    half = width >> 1
                    base = base + half if c[base + half] <= x else base
                    width -= half
                out[f, i] = base + (1 if c[base] <= x else 0)


def _build_histograms(
    bins, order, stats, starts, stops, features, n_slots, missing_code, count_missing
):
    """For each node s, rows ``order[starts[s]:stops[s]]`` with statistics
    ``stats[starts[s]:stops[s]]``: Σ of each statistic per bin of every used feature.

    Each feature (in parallel) adds the rows into its bins in row order, as
    the numpy version's ``bincount`` does. Missing values are counted where
    ``count_missing[j]`` (features with any in the data).
    """
    n_nodes = starts.shape[0]
    d = features.shape[0]
    k = stats.shape[1]
    hist = np.zeros((n_nodes, d, n_slots, k))
    n_missing = np.zeros((n_nodes, d), dtype=np.int64)
    for j in prange(d):
        col = bins[features[j]]
        for s in range(n_nodes):
            hj = hist[s, j]
            if k == 2:
                for i in range(starts[s], stops[s]):
                    b = col[order[i]]
                    hj[b, 0] += stats[i, 0]
                    hj[b, 1] += stats[i, 1]
            else:
                for i in range(starts[s], stops[s]):
                    b = col[order[i]]
                    for q in range(k):
                        hj[b, q] += stats[i, q]
            if count_missing[j]:
                c = 0
                for i in range(starts[s], stops[s]):
                    if col[order[i]] == missing_code:
                        c += 1
                n_missing[s, j] = c
    return hist, n_missing


@njit(cache=True, nogil=True)
def column_sums(stats):
    """Column sums of ``stats`` in float64, added one row after another."""
    sums = np.zeros(stats.shape[1])
    for i in range(stats.shape[0]):
        for q in range(stats.shape[1]):
            sums[q] += stats[i, q]
    return sums


# compiled twice: threads pay off on large work; small work is done before threads wake
build_histograms = njit(parallel=True, cache=True, nogil=True)(_build_histograms)
build_histograms_serial = njit(cache=True, nogil=True)(_build_histograms)


@njit(cache=True, nogil=True)
def partition(order, stats, start, stop, codes, go_left, order_out, stats_out):
    """Stable partition of ``order[start:stop]`` and ``stats[start:stop]`` into the same
    slice of ``order_out`` and ``stats_out``: rows r with ``go_left[codes[r]]`` first.
    Returns how many went left and the column sums of ``stats`` on each side (float64,
    added in row order).
    """
    m = stop - start
    k = stats.shape[1]
    side = np.empty(m, dtype=np.uint8)  # 0: left, 1: right
    n_left = 0
    for i in range(m):
        left = go_left[codes[order[start + i]]]
        side[i] = 0 if left else 1
        n_left += 1 if left else 0
    sums = np.zeros((2, k))
    at_left, at_right = start, start + n_left
    for i in range(m):
        s = side[i]
        to = at_left + (at_right - at_left) * s  # no branch to mispredict
        order_out[to] = order[start + i]
        for q in range(k):
            v = stats[start + i, q]
            stats_out[to, q] = v
            sums[s, q] += v
        at_left += 1 - s
        at_right += s
    return n_left, sums[0], sums[1]


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
def _loss_chg(G_L, H_L, G_R, H_R, root, lam, alpha, mds, mcw, float32):
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

    Returns (j, q, loss_chg, G_L, H_L): the used-feature index and the column
    in ``_scan``'s layout (q < K: forward boundary q; q >= K: backward,
    bins 2K−1−q.. right), or j = −1 when nothing lowers the loss.
    """
    d = hist.shape[0]
    K = hist.shape[1] - 1
    c_col = 2 if has_cover else 1
    params = (reg_lambda, reg_alpha, max_delta_step, min_child_weight, float32)
    best = 0.0
    best_j, best_q = -1, -1
    best_GL, best_HL = 0.0, 0.0
    for j in range(d):
        nb = n_bins[j]
        # forward: bins 0..b left, missing right
        GL, HL, CL = 0.0, 0.0, 0.0
        for b in range(nb):
            GL += hist[j, b, 0]
            HL += hist[j, b, 1]
            CL += hist[j, b, c_col]
            if CL >= min_child_weight and C - CL >= min_child_weight:
                loss = _loss_chg(GL, HL, G - GL, H - HL, root, *params)
                if loss > best:
                    best, best_j, best_q, best_GL, best_HL = loss, j, b, GL, HL
        if n_missing[j] == 0:
            continue
        # backward: bins i.. right (summed from the top), the rest and missing left
        GR, HR, CR = 0.0, 0.0, 0.0
        for i in range(nb - 1, -1, -1):
            GR += hist[j, i, 0]
            HR += hist[j, i, 1]
            CR += hist[j, i, c_col]
            if CR >= min_child_weight and C - CR >= min_child_weight:
                loss = _loss_chg(G - GR, H - HR, GR, HR, root, *params)
                if loss > best:
                    best, best_j, best_q = loss, j, 2 * K - 1 - i
                    best_GL, best_HL = G - GR, H - HR
    return best_j, best_q, best, best_GL, best_HL
