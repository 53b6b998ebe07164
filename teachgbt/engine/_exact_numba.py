"""Compiled twins of the exact trainer's scan and partition (optional: needs numba).

``exact.py`` holds the readable numpy version. These kernels walk the same
candidates of a node, feature by feature in XGBoost's scan order, with the
same float64 running sums (added one sorted row after another, as
``np.cumsum``) and the same scores (``_hist_numba``'s scalar twins of
``formulas.leaf_score`` and of ``GrowParams.side_score``), so both grow the same
trees, bit for bit (``tests/test_exact_kernels.py`` checks). Importing this
module fails without numba, and ``exact.numba_kernels`` then gives None.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..utils import kernels
from ._hist_numba import loss_chg

# below this many (row, feature) pairs a node is scanned on one thread: waking the
# others would cost more than it saves
PARALLEL_WORK = 1 << 16


@njit(cache=True, nogil=True)
def _best_of_feature(rows, vals, n_present, g, h, c, fwd, node, float32):
    """The winner among one feature's candidates at a node (``ExactSplitter.scan``'s four
    families, ``_best_numpy``'s rule): (loss_chg32, phase, q, G_L, H_L), phase −1 if none,
    when min_child_weight applies to a cover statistic ``c`` of its own (GBDT's; with the
    cover H itself, ``_best_lines`` sums four features at once with ``_sums4``).

    ``rows``/``vals``: the node's row ids and values in sorted order, missing
    last; ``node`` holds G, H, the cover C, the parent's float64 and float32 scores and
    λ, α, max_delta_step, min_child_weight (see ``best_splits``). The running sums
    first, then ``_best_from_sums``.
    """
    n = n_present
    # G_L, H_L and the cover after each present sorted row: the scan's running sums
    cg, ch, cc = np.empty(n), np.empty(n), np.empty(n)
    sg, sh, sc = 0.0, 0.0, 0.0
    for i in range(n):
        r = rows[i]
        sg += g[r]
        sh += h[r]
        sc += c[r]
        cg[i], ch[i], cc[i] = sg, sh, sc
    return _best_from_sums(cg, ch, cc, vals, n, rows.shape[0], fwd, node, float32)


@njit(cache=True, nogil=True)
def _best_from_sums(cg, ch, cc, vals, n, m, fwd, node, float32):
    """``_best_of_feature`` from the running sums ``cg``, ``ch``, ``cc`` of the feature's
    n present sorted rows (of m). A first pass gives every valid candidate's float64
    loss_chg and the feature's top; a second, in scan order, lets XGBoost's float32
    loss_chg rank those within float32 rounding of the top, the first of equals winning.
    """
    G, H, C, root64, root32, lam, alpha, mds, mcw = node
    end_ok = 0 < n < m  # some values present, some missing: the two end candidates

    # every valid candidate's float64 loss_chg, in scan order: forward boundaries (q up)
    # and end (k = n − 1), then backward boundaries (q down) and end; a boundary lies
    # between two distinct values
    n_fwd = n if fwd else 0
    lc64 = np.empty(n_fwd + n)  # k < n_fwd: forward k; else backward n_fwd + b
    if alpha == 0.0 and not mds > 0:  # ``_boundaries`` writes every boundary: −inf the ends
        if n_fwd > 0:
            lc64[n_fwd - 1] = -np.inf
        if n > 0:
            lc64[n_fwd + n - 1] = -np.inf
    else:  # it writes the valid boundaries only
        lc64[:] = -np.inf
    args = (lam, alpha, mds, mcw, False)
    if n_fwd > 0:  # forward: the running sums are the left side, missing values right
        _boundaries(cg, ch, cc, vals, n, 0.0, 0.0, 0.0, node, lc64, 0, 1)
    if n_fwd > 0 and end_ok:
        GL, HL, CL = cg[n - 1], ch[n - 1], cc[n - 1]
        if CL >= mcw and C - CL >= mcw:
            lc64[n_fwd - 1] = loss_chg(GL, HL, G - GL, H - HL, root64, *args)
    if n > 0:  # backward: the missing values join the left side
        G_miss, H_miss, C_miss = G - cg[n - 1], H - ch[n - 1], C - cc[n - 1]
        _boundaries(cg, ch, cc, vals, n, G_miss, H_miss, C_miss, node, lc64, n_fwd + n - 2, -1)
        if end_ok and C_miss >= mcw and C - C_miss >= mcw:
            lc64[n_fwd + n - 1] = loss_chg(G_miss, H_miss, G - G_miss, H - H_miss, root64, *args)

    best = (-np.inf, -1, -1, 0.0, 0.0)
    top = lc64.max() if n_fwd + n > 0 else -np.inf
    if not np.isfinite(top):
        return best
    floor = top - (1e-6 * (abs(root64) + abs(top)) + 1e-12)  # exact._near_tol
    for k in range(n_fwd + n):
        if not lc64[k] >= floor:
            continue
        phase, q, GL, HL = _candidate(k, n_fwd, n, cg, ch, G, H)
        lc32 = loss_chg(GL, HL, G - GL, H - HL, root32, lam, alpha, mds, mcw, float32)
        if lc32 > best[0]:
            best = (lc32, phase, q, GL, HL)
    return best


@njit(cache=True, nogil=True, error_model="numpy")
def _boundaries(cg, ch, cc, vals, n, G_add, H_add, C_add, node, out, at, step):
    """The float64 loss_chg of every boundary q < n − 1 (between sorted present values q
    and q + 1) whose left side is the running sums at q plus (G_add, H_add, C_add), into
    ``out[at + step·q]``; −inf where the values are equal or a side's cover is below
    min_child_weight. The same numbers as ``loss_chg`` (score(L) + score(R) − parent).

    Without α and max_delta_step (the defaults) a side's score is G²/(H + λ), 0 when
    H <= 0: computed for every q and kept or dropped by a select rather than a branch,
    with numpy's error model (a division by zero gives inf, dropped, instead of raising),
    so that the processor scores several boundaries at once (1.1 ns a candidate instead
    of 4.9 on the benchmark machine).
    """
    G, H, C, root64, _, lam, alpha, mds, mcw = node
    if alpha == 0.0 and not mds > 0:
        for q in range(n - 1):
            GL, HL, CL = cg[q] + G_add, ch[q] + H_add, cc[q] + C_add
            GR, HR = G - GL, H - HL
            sL, sR = GL * GL / (HL + lam), GR * GR / (HR + lam)
            sL = 0.0 if HL <= 0.0 else sL
            sR = 0.0 if HR <= 0.0 else sR
            ok = (vals[q] != vals[q + 1]) & (CL >= mcw) & (C - CL >= mcw)
            out[at + step * q] = (sL + sR - root64) if ok else -np.inf
        return
    for q in range(n - 1):
        GL, HL, CL = cg[q] + G_add, ch[q] + H_add, cc[q] + C_add
        if vals[q] != vals[q + 1] and CL >= mcw and C - CL >= mcw:
            out[at + step * q] = loss_chg(
                GL, HL, G - GL, H - HL, root64, lam, alpha, mds, mcw, False
            )


@njit(cache=True, nogil=True)
def _candidate(k, n_fwd, n, cg, ch, G, H):
    """Candidate k of ``_best_of_feature``'s scan order: (phase, q, G_L, H_L)."""
    if k < n_fwd:  # forward: values < threshold left, missing right
        return (1, 0, cg[n - 1], ch[n - 1]) if k == n_fwd - 1 else (0, k, cg[k], ch[k])
    # backward: values >= threshold right, the rest and the missing ones left
    G_miss, H_miss = G - cg[n - 1], H - ch[n - 1]
    if k == n_fwd + n - 1:
        return 3, 0, G_miss, H_miss
    q = n_fwd + n - 2 - k
    return 2, q, cg[q] + G_miss, ch[q] + H_miss


@njit(cache=True, nogil=True)
def _keep(sums, where, j, best):
    """Line j's winner (``_best_from_sums``' tuple) into ``best_splits``' arrays."""
    lc, phase, q, G_L, H_L = best
    sums[j, 0], sums[j, 1], sums[j, 2] = lc, G_L, H_L
    where[j, 0], where[j, 1] = phase, q


@njit(cache=True, nogil=True)
def _sums4(idx, n_present, g, h, lines, cg, ch):
    """The running sums of g and h along four lines of a node at once (``lines``: their
    indices, one may repeat), into rows 0..3 of ``cg`` and ``ch``.

    A line's sums are two chains of additions, each waiting on the one before; four
    lines' chains are independent and the processor overlaps them, where one line alone
    leaves it idle between additions. Each line still adds its rows in sorted order, so
    the sums are those of a loop over one line, bit for bit.
    """
    j0, j1, j2, j3 = lines
    r0, r1, r2, r3 = idx[j0], idx[j1], idx[j2], idx[j3]
    common = min(min(n_present[j0], n_present[j1]), min(n_present[j2], n_present[j3]))
    a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
    for i in range(common):
        u0, u1, u2, u3 = r0[i], r1[i], r2[i], r3[i]
        a0 += g[u0]
        b0 += h[u0]
        a1 += g[u1]
        b1 += h[u1]
        a2 += g[u2]
        b2 += h[u2]
        a3 += g[u3]
        b3 += h[u3]
        cg[0, i], ch[0, i], cg[1, i], ch[1, i] = a0, b0, a1, b1
        cg[2, i], ch[2, i], cg[3, i], ch[3, i] = a2, b2, a3, b3
    for t in range(4):  # each line's rows after the shortest line's end, one line at a time
        rows = idx[lines[t]]
        sg = cg[t, common - 1] if common > 0 else 0.0
        sh = ch[t, common - 1] if common > 0 else 0.0
        for i in range(common, n_present[lines[t]]):
            r = rows[i]
            sg += g[r]
            sh += h[r]
            cg[t, i], ch[t, i] = sg, sh


@njit(cache=True, nogil=True)
def _best_lines(
    idx, values, n_present, g, h, c, c_is_h, fwd, node, float32, sums, where, j0, j1
):  # fmt: skip
    """The lines j0..j1: four at a time (``_sums4``) when the cover is H, else one by one."""
    if not c_is_h:
        for j in range(j0, j1):
            best = _best_of_feature(idx[j], values[j], n_present[j], g, h, c, fwd[j], node, float32)
            _keep(sums, where, j, best)
        return
    m = idx.shape[1]
    cg, ch = np.empty((4, m)), np.empty((4, m))
    for j in range(j0, j1, 4):
        k = min(4, j1 - j)  # a last block of fewer lines repeats its last one
        lines = (j, min(j + 1, j1 - 1), min(j + 2, j1 - 1), min(j + 3, j1 - 1))
        _sums4(idx, n_present, g, h, lines, cg, ch)
        for t in range(k):
            n = n_present[j + t]
            best = _best_from_sums(
                cg[t], ch[t], ch[t], values[j + t], n, m, fwd[j + t], node, float32
            )
            _keep(sums, where, j + t, best)


def best_splits(idx, values, n_present, g, h, c, fwd, G, H, C, root64, root32, params):
    """Every feature's winning candidate at a node (``_best_of_feature``), the features
    shared out between threads when the node is large: arrays loss_chg32 (−inf: none),
    phase, q, G_L, H_L, one entry per feature. ``params``: λ, α, max_delta_step,
    min_child_weight and whether XGBoost's float32 arithmetic ranks the candidates."""
    d = idx.shape[0]
    *penalties, float32 = params
    node = np.array([G, H, C, root64, root32, *penalties], dtype=np.float64)
    sums, where = np.empty((d, 3)), np.empty((d, 2), dtype=np.int64)
    args = (idx, values, n_present, g, h, c, c is h, fwd, node, bool(float32), sums, where)
    _share_lines(_best_lines, args, d, idx.size)
    return sums[:, 0], where[:, 0], where[:, 1], sums[:, 1], sums[:, 2]


@njit(cache=True, nogil=True)
def _partition_line(idx, values, go_left, n_present, n_left, ids, vals, left_present, j):
    """Line j of ``partition``: its left rows to line j of the left block of ``ids`` and
    ``vals``, its right rows to line j of the right block, each side in sorted order.

    Every row is written to the next free place of the side it goes to, chosen by
    arithmetic rather than a branch: which side a row goes to is a coin toss the
    processor cannot predict.
    """
    d, m = idx.shape
    at_l = j * n_left  # the left block: d lines of n_left
    at_r = d * n_left + j * (m - n_left)  # then the right block: d lines of m − n_left
    present = 0
    for i in range(m):
        r = idx[j, i]
        s = np.int64(go_left[r])
        to = at_r + (at_l - at_r) * s
        ids[to] = r
        vals[to] = values[j, i]
        at_l += s
        at_r += 1 - s
        present += s * (i < n_present[j])
    left_present[j] = present


@njit(cache=True, nogil=True)
def _partition_lines(idx, values, go_left, n_present, n_left, ids, vals, left_present, j0, j1):
    for j in range(j0, j1):
        _partition_line(idx, values, go_left, n_present, n_left, ids, vals, left_present, j)


def partition(idx, values, go_left, n_present):
    """``NodeRows.subset`` of both sides at once: each line of ``idx``/``values`` split
    into the rows with ``go_left[row]`` and the others, order kept. Returns left ids,
    left values, right ids, right values (each side C-contiguous, the two sharing one
    buffer) and how many of each line's present values go left."""
    d, m = idx.shape
    n_left = int(np.count_nonzero(go_left[idx[0]])) if d else 0
    ids = np.empty(d * m, dtype=idx.dtype)
    vals = np.empty(d * m, dtype=values.dtype)
    left_present = np.empty(d, dtype=np.int64)
    args = (idx, values, go_left, n_present, n_left, ids, vals, left_present)
    _share_lines(_partition_lines, args, d, idx.size)
    cut = d * n_left
    return (
        ids[:cut].reshape(d, n_left),
        vals[:cut].reshape(d, n_left),
        ids[cut:].reshape(d, m - n_left),
        vals[cut:].reshape(d, m - n_left),
        left_present,
    )


def _share_lines(kernel, args, d, work):
    """``kernel(*args, j0, j1)`` for the lines j0..j1 of [0, d), shared out between
    threads (``_kernels.share``) when the work is large."""
    kernels.share(kernel, args, d, 1 if work < PARALLEL_WORK else None)


def warm_up(values_dtype="float32", stats_dtype="float32"):
    """Call the scan and the partition once, on a few rows of the types a fit passes them
    (sorted values of ``values_dtype``, g and h of ``stats_dtype``, row ids int32), so that
    numba compiles each one or loads it from its disk cache: what ``utils.kernels``'
    background compile runs, and what its probe tries to load without compiling. Every
    call stays on this thread."""
    n = 16
    idx = np.arange(n, dtype=np.int32).reshape(1, n)
    values = np.arange(n, dtype=values_dtype).reshape(1, n)
    n_present = np.array([n - 2], dtype=np.int64)
    g, h = np.linspace(-1.0, 1.0, n).astype(stats_dtype), np.ones(n, dtype=stats_dtype)
    params = (1.0, 0.0, 0.0, 1.0, True)
    best_splits(idx, values, n_present, g, h, h, np.ones(1, dtype=bool),
                0.0, float(n), float(n), 0.0, 0.0, params)  # fmt: skip
    partition(idx, values, np.arange(n) % 2 == 0, n_present)
