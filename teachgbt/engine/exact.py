"""Exact greedy split finding: sort each feature, scan left to right.

Seed 000 ("Learn the tree structure"): place the instances of a node in
sorted order of one feature; a left-to-right scan that accumulates G_L and
H_L gives every candidate split of that feature, and

    Gain = ½ [ G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ) ] − γ

(each term a ``formulas.leaf_score``; the bracket is XGBoost's ``loss_chg``,
and γ is the model's ``gamma`` / 2, so Gain = ½(loss_chg − gamma)).

The scan is a cumulative sum: G_L after the k-th sorted instance is
``cumsum(g)[k]``. We run it for many features of a node at once, one row of a
2-D array per feature, which is what makes the readable trainer fast.

Missing values (seed 003, "sparsity-aware split finding"): they are left out
of the sorted order and sent, as a block, to whichever side gives the larger
gain. Following XGBoost's exact updater:

* the backward scan (from the largest value down) sends missing values
  left; it always runs;
* the forward scan (from the smallest value up) sends them right; it runs
  only for features that have missing values somewhere in the data;
* each scan ends with one more candidate: every present value on one side,
  every missing value on the other;
* a threshold is the midpoint of two adjacent distinct values, computed in
  float32, and ``x < threshold`` goes left;
* ties: the first strictly better candidate wins in scan order (forward
  candidates before backward ones), and a lower feature index wins across
  features.

Speed: everything here is numpy. When numba is installed, the scan and the
partition use compiled twins from ``_exact_numba`` that walk the same
candidates in the same order and add the same numbers, so they grow the same
trees, bit for bit; set ``teachgbt.utils.kernels.KERNEL = "numpy"`` (or the
environment variable ``TEACHGBT_KERNEL=numpy``) to use numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core import formulas, routing
from ..utils import kernels
from .grow import KRT_EPS, Candidate

F32 = np.float32
SPLIT_COLUMNS = [
    "feature",
    "threshold",
    "default_left",
    "G_L",
    "H_L",
    "G_R",
    "H_R",
    "gain",
    "chosen",
]


def numba_kernels(cells=None, stats_dtype=np.float32, trees=1):
    """The compiled twins of the scan and the partition (``engine._exact_numba``) for g and
    h of ``stats_dtype``, or None to use numpy: on small work (``cells`` of data scanned by
    ``trees`` trees; see ``teachgbt.utils.kernels.load``), and while they compile in the
    background."""
    spec = ("float32", np.dtype(stats_dtype).name)
    return kernels.load("engine._exact_numba", cells, spec, trees)


class SortedColumns:
    """Per-fit data for the exact trainer: features in float32, each sorted once.

    ``order[f]`` are the row ids sorted by feature f with missing values last, and
    ``values[f]`` the feature's values in that order; ``n_present[f]`` how many are
    not missing. Sorted one feature at a time, straight from X: no other copy of X
    is kept (a node's partition reads its split feature's values from the node's own
    sorted ``values``).
    """

    def __init__(self, X32, trees=1):
        n, d = X32.shape
        self.n_rows, self.n_features = n, d
        self.trees = trees  # how many trees the fit grows on these columns (compiled or not)
        self.order = np.empty((d, n), dtype=np.int32)
        self.values = np.empty((d, n), dtype=np.float32)
        self.n_present = np.empty(d, dtype=np.int64)
        self.constant = np.empty(d, dtype=bool)
        for f in range(d):
            col = np.asarray(X32[:, f], dtype=np.float32)
            # argsort puts NaN last; a stable sort keeps row order among equal values
            self.order[f] = np.argsort(col, kind="stable")
            np.take(col, self.order[f], out=self.values[f])
            m = self.n_present[f] = n - np.count_nonzero(np.isnan(col))
            self.constant[f] = not (m > 0 and self.values[f, 0] < self.values[f, m - 1])
        self.has_missing = self.n_present < self.n_rows


@dataclass
class NodeRows:
    """The rows of one node: ``idx[j]`` sorted by feature ``features[j]``, missing last.

    ``values[j]`` are that feature's values in the same order. They travel with
    the row ids (a partition keeps both in step) because reading them in order
    from the previous node's copy is much cheaper than looking every row up
    again, scattered over the whole column, at every node.
    """

    idx: np.ndarray  # (n_features_used, n_rows_in_node) int32
    values: np.ndarray  # (n_features_used, n_rows_in_node) float32
    n_present: np.ndarray  # (n_features_used,)
    depth: int = 0  # the node's depth: a node at max_depth keeps one line (its rows)

    def subset(self, mask):
        """The rows where ``mask`` (aligned with ``idx``) is True, each feature's order kept.

        Every line of ``idx`` holds the same rows, so every line keeps as many;
        the positions of the kept ones, read in order, give a stable partition
        in one pass over the whole array (no per-feature loop, no reshape of
        a masked copy).
        """
        d = self.idx.shape[0]
        at = np.flatnonzero(mask)
        kept = self.idx.ravel().take(at).reshape(d, -1)
        n_present = np.full(d, kept.shape[1])
        # only features missing in this node need their present rows counted
        for j in np.flatnonzero(self.n_present < self.idx.shape[1]):
            n_present[j] = np.count_nonzero(mask[j, : self.n_present[j]])
        values = self.values.ravel().take(at).reshape(d, -1)
        return NodeRows(kept, values, n_present, self.depth)


@dataclass
class ScanPart:
    """One family of candidates of a block of features, as 2-D arrays (feature × position).

    ``phase`` orders the families as XGBoost scans them: 0 forward scan, 1 its
    end, 2 backward scan, 3 its end; ``position`` orders candidates inside one.
    ``exists`` is False where there is no candidate (no boundary between two
    distinct values there, or no missing value to send one way).
    """

    phase: int
    default_left: bool
    exists: np.ndarray
    G_L: np.ndarray
    H_L: np.ndarray
    C_L: np.ndarray  # what min_child_weight is checked on (H, or the cover)
    position: np.ndarray
    threshold: object  # (rows, cols) -> float32 thresholds


class ExactSplitter:
    """Finds the best split of a node by the sorted scan; partitions its rows.

    ``g``, ``h``: per-row gradient statistics (float32 for XGBoost parity).
    ``h_cover``: optional per-row values whose sums ``min_child_weight``
    applies to instead of ``h`` (Friedman GBDT checks Σp(1−p) while it ranks
    splits with unit hessians).
    """

    def __init__(
        self, cols, g, h, params, rows=None, features=None, h_cover=None, chunk_elems=1 << 17
    ):
        self.cols = cols
        # kept in their own precision (float32 for XGBoost-style training); summed in float64;
        # contiguous, as the compiled scan is compiled for (a round may give g and h as the
        # columns of one (n, 2) array, the histograms' layout)
        self.g = np.ascontiguousarray(g)
        self.h = np.ascontiguousarray(h)
        self.h_cover = None if h_cover is None else np.ascontiguousarray(h_cover)
        self.params = params
        self.rows = rows  # None: every row; else sorted int array of sampled rows
        self.features = (
            np.arange(cols.n_features) if features is None else np.sort(np.asarray(features))
        )
        self.chunk_elems = chunk_elems
        # (g, h) of each row as one complex number: one cumulative sum adds both, in
        # float64, exactly as two would (complex addition adds the parts apart)
        self._gh = np.empty(cols.n_rows, dtype=np.complex128)
        self._gh.real, self._gh.imag = self.g, self.h
        self._go_left = np.zeros(cols.n_rows, dtype=bool)
        # XGBoost runs the forward scan only for features with missing values in the data
        self._forward = cols.has_missing[self.features] & ~cols.constant[self.features]
        self.kernels = numba_kernels(cols.n_rows * cols.n_features, self.g.dtype, cols.trees)

    # ------------------------------------------------------------ node data
    def root(self, keep=None):
        """The root's rows (the round's sample), or, with a boolean ``keep``, those of them."""
        cols, every = self.cols, len(self.features) == self.cols.n_features
        # all features: the fit's arrays themselves (a node never writes into its arrays)
        idx = cols.order if every else cols.order[self.features]
        values = cols.values if every else cols.values[self.features]
        n_present = cols.n_present[self.features]
        if self.rows is not None:
            sampled = np.zeros(self.cols.n_rows, dtype=bool)
            sampled[self.rows] = True
            keep = sampled if keep is None else (keep & sampled)
        nd = NodeRows(idx, values, n_present)
        return nd if keep is None else nd.subset(keep[idx])

    def node_rows(self, nd):
        """Row ids of a node."""
        return nd.idx[0]

    def node_sums(self, nd):
        """n, G, H of a node."""
        r = nd.idx[0]
        G = float(self.g[r].sum(dtype=np.float64))
        return len(r), G, float(self.h[r].sum(dtype=np.float64))

    def cover_sum(self, nd):
        c = self.h if self.h_cover is None else self.h_cover
        return float(c[nd.idx[0]].sum(dtype=np.float64))

    def partition(self, nd, cand):
        j = int(np.searchsorted(self.features, cand.feature))
        rows, x = nd.idx[j], nd.values[j]  # the node's rows and their split-feature values
        # the same routing rule as Tree.apply (teachgbt's own trees: float32 x < t)
        self._go_left[rows] = routing.goes_left(x, F32(cand.threshold), cand.default_left)
        depth = nd.depth + 1
        lines = nd
        if 0 < self.params.max_depth <= depth:
            # the children are at max_depth, never scanned: their rows are all they need
            # (line 0, in whose order node_sums adds them), not every feature's order
            lines = NodeRows(nd.idx[:1], nd.values[:1], nd.n_present[:1], nd.depth)
        if self.kernels is not None:  # both sides in one compiled pass
            li, lv, ri, rv, n_left = self.kernels.partition(
                lines.idx, lines.values, self._go_left, lines.n_present
            )
            children = (
                NodeRows(li, lv, n_left, depth),
                NodeRows(ri, rv, lines.n_present - n_left, depth),
            )
        else:
            go_left = self._go_left.take(lines.idx)  # each row's side, in every feature's order
            children = lines.subset(go_left), lines.subset(~go_left)
            for child in children:
                child.depth = depth
        # the children hold its rows now: let the node's copy go (one level's copies
        # at a time, not two)
        nd.idx, nd.values = nd.idx[:, :0], nd.values[:, :0]
        return children

    # ------------------------------------------------------------- the scan
    def _blocks(self, nd):
        """Features in blocks (slices of ``self.features``) small enough that a block's
        arrays stay in the processor's cache: numpy then makes its many passes over them
        several times faster than over arrays that must come from main memory."""
        m = max(nd.idx.shape[1], 1)
        step = max(1, self.chunk_elems // m)
        d = len(self.features)
        for s in range(0, d, step):
            yield slice(s, min(d, s + step))

    def scan(self, nd, js, G, H, H_cover):
        """Seed 000's left-to-right scan over the features ``self.features[js]`` of one node.

        Returns the block's features and its candidate families (``ScanPart``):
        for every boundary between two distinct sorted values, the sums G_L, H_L
        on the left, for either direction the missing values may take.
        """
        I = nd.idx[js]
        m = I.shape[1]
        f = self.features[js]
        v = nd.values[js]  # sorted values, float32
        n_present = nd.n_present[js]
        cover = self.h_cover is not None  # else min_child_weight applies to H itself

        # G_L and H_L after each sorted instance: the running sums of the scan
        cgh = np.cumsum(self._gh.take(I), axis=1)
        cg, ch = cgh.real, cgh.imag
        cc = np.cumsum(self.h_cover.take(I), axis=1, dtype=np.float64) if cover else ch
        rows = np.arange(len(f))
        last = np.maximum(n_present - 1, 0)
        has = n_present > 0
        G_pres = np.where(has, cg[rows, last], 0.0)[:, None]
        H_pres = np.where(has, ch[rows, last], 0.0)[:, None]
        C_pres = np.where(has, cc[rows, last], 0.0)[:, None] if cover else H_pres

        # a boundary between sorted positions q and q+1 holding two distinct present values
        q = np.arange(m - 1)[None, :]
        boundary = v[:, :-1] != v[:, 1:]
        some_missing = n_present < m
        if some_missing.any():  # missing values (NaN, sorted last) are no boundary
            boundary &= q + 1 < n_present[:, None]

        # the end candidates (every present value on one side, every missing one on the
        # other) exist only where some of the node's rows miss the feature
        end_ok = (has & some_missing)[:, None]
        vmin, vmax = v[:, :1], v[rows, last][:, None]
        end = np.zeros_like(end_ok, dtype=int)  # an end family's one position

        def midpoint(r, c):
            return _midpoint(v[r, c], v[r, c + 1])

        def above(r, c):
            return _above(vmax[r, c])

        def below(r, c):
            return _below(vmin[r, c])

        parts = []
        # forward scan: values below the threshold go left, missing values go right;
        # XGBoost runs it only for features with missing values somewhere in the data
        fwd = self._forward[js][:, None]
        if fwd.any():
            H_L = ch[:, :-1]
            C_L = cc[:, :-1] if cover else H_L
            positions = np.broadcast_to(q, boundary.shape)
            parts.append(
                ScanPart(0, False, boundary & fwd, cg[:, :-1], H_L, C_L, positions, midpoint)
            )
            parts.append(ScanPart(1, False, end_ok & fwd, G_pres, H_pres, C_pres, end, above))
        # backward scan: values at or above the threshold go right, missing values go left
        G_miss, H_miss = G - G_pres, H - H_pres
        C_miss = H_cover - C_pres if cover else H_miss
        H_L = ch[:, :-1] + H_miss
        C_L = cc[:, :-1] + C_miss if cover else H_L
        positions = np.broadcast_to(-q, boundary.shape)
        parts.append(
            ScanPart(2, True, boundary, cg[:, :-1] + G_miss, H_L, C_L, positions, midpoint)
        )
        parts.append(ScanPart(3, True, end_ok, G_miss, H_miss, C_miss, end, below))
        return f, parts

    def _valid(self, part, H_cover, H_R):
        """Candidates that exist and give both children enough cover (H, or the cover sums
        of ``h_cover``; ``H_R`` = H − H_L is the right side's when they are H)."""
        mcw = self.params.formula_params["min_child_weight"]
        C_R = H_R if part.C_L is part.H_L else H_cover - part.C_L
        return part.exists & (part.C_L >= mcw) & (C_R >= mcw)

    def find_split(self, nd, G, H):
        """The best split of a node, or None when no candidate lowers the loss."""
        if nd.idx.shape[1] < 2:
            return None
        H_cover = H if self.h_cover is None else self.cover_sum(nd)
        kw = self.params.formula_params
        # the leaf we keep without splitting (a node lighter than min_child_weight has
        # no valid candidate, whatever its score)
        root64 = formulas.leaf_score(G, H, **kw)
        if self.kernels is not None:
            best = self._best_compiled(nd, G, H, H_cover, root64)
        else:
            best = self._best_numpy(nd, G, H, H_cover, root64)
        if best is None or not best[-1] > 0:
            return None
        feature, threshold, default_left, G_L, H_L, lc = best
        if not self._really_lowers_loss(G_L, H_L, G, H):
            return None
        return self._candidate(feature, threshold, default_left, G_L, H_L, G, H, lc)

    def _best_numpy(self, nd, G, H, H_cover, root64):
        """The best candidate, block of features by block: (feature, threshold,
        default_left, G_L, H_L, loss_chg in XGBoost's float32), or None."""
        kw = self.params.formula_params
        best = None
        for js in self._blocks(nd):
            f, parts = self.scan(nd, js, G, H, H_cover)
            # loss_chg (the tutorial's gain ×2, before γ) of every candidate, in float64
            losses = []
            for part in parts:
                G_R, H_R = G - part.G_L, H - part.H_L
                ok = self._valid(part, H_cover, H_R)
                lc = formulas.leaf_score(part.G_L, part.H_L, **kw)
                lc += formulas.leaf_score(G_R, H_R, **kw)
                lc -= root64
                losses.append(np.where(ok, lc, -np.inf))
            # XGBoost ranks candidates by float32 gains: among those whose float64 gains
            # are within float32 rounding of their feature's top, let its arithmetic decide
            top = np.max([lc.max(axis=1, initial=-np.inf) for lc in losses], axis=0)
            floor = np.where(np.isfinite(top), top - _near_tol(root64, top), np.inf)[:, None]
            near = [np.nonzero(lc >= floor) for lc in losses]
            cand = self._rank_near_ties(f, parts, near, G, H)
            if cand is not None and (best is None or cand[-1] > best[-1]):
                best = cand  # a later block has higher feature indices: ties stay earlier
        return best

    def _best_compiled(self, nd, G, H, H_cover, root64):
        """``_best_numpy`` with the compiled scan (``_exact_numba.best_splits``): each
        feature's winner, then the first feature whose winner is best."""
        kw = self.params.formula_params
        names = ("reg_lambda", "reg_alpha", "max_delta_step", "min_child_weight")
        params = (*(kw[n] for n in names), self.params.float32)
        c = self.h if self.h_cover is None else self.h_cover
        root32 = float(self.params.side_score(np.float64(G), np.float64(H)))
        lc, phase, q, G_L, H_L = self.kernels.best_splits(
            nd.idx, nd.values, nd.n_present, self.g, self.h, c, self._forward,
            G, H, H_cover, root64, root32, params,
        )  # fmt: skip
        j = int(np.argmax(lc))  # the first of equals: a lower feature index wins
        if phase[j] < 0:
            return None
        phase, q, v, n_present = phase[j], q[j], nd.values[j], nd.n_present[j]
        if phase in (0, 2):
            threshold = _midpoint(v[q : q + 1], v[q + 1 : q + 2])
        else:
            threshold = _above(v[n_present - 1 : n_present]) if phase == 1 else _below(v[:1])
        feature, threshold = int(self.features[j]), float(threshold[0])
        return (feature, threshold, phase >= 2, float(G_L[j]), float(H_L[j]), float(lc[j]))

    def _rank_near_ties(self, f, parts, near, G, H):
        """The winner among near-tied candidates, by XGBoost's float32 gain and scan order."""
        recs = []
        for part, (r, c) in zip(parts, near):
            if len(r) == 0:
                continue
            GL, HL = part.G_L[r, c], np.broadcast_to(part.H_L, part.G_L.shape)[r, c]
            lc32 = self._loss32(GL, HL, G, H)
            pos = np.broadcast_to(part.position, part.G_L.shape)[r, c]
            thr, phase, left = part.threshold(r, c), part.phase, part.default_left
            recs += [
                ((int(rk), phase, int(pk)), float(lk), float(tk), left, float(gk), float(hk))
                for rk, pk, lk, tk, gk, hk in zip(r, pos, lc32, thr, GL, HL)
            ]
        if not recs:
            return None
        top = max(rec[1] for rec in recs)
        key, lc, thr, default_left, GL, HL = min(rec for rec in recs if rec[1] == top)
        return (int(f[key[0]]), thr, default_left, GL, HL, lc)

    def _loss32(self, G_L, H_L, G, H):
        """loss_chg as XGBoost computes it: side scores (``GrowParams.side_score``) added
        and the parent's subtracted, in float32 when ``float32``."""
        side_score = self.params.side_score
        root = side_score(np.float64(G), np.float64(H))
        return (side_score(G_L, H_L) + side_score(G - G_L, H - H_L)) - root

    def _really_lowers_loss(self, G_L, H_L, G, H):
        """False when the best candidate's gain is float32 rounding noise.

        A node whose instances all have the same g and h (a pure node when λ = 0)
        gains exactly nothing from any split; in float32 the gain can still come
        out one rounding step above zero. XGBoost then splits on that noise
        (into leaves of equal weight); teachgbt checks the gain in float64 and
        keeps such a node a leaf. Predictions are the same either way.
        """
        exact = self.params.loss_chg(G_L, H_L, G - G_L, H - H_L)
        return exact > self.params.min_split_loss_eps

    def _candidate(self, feature, threshold, default_left, G_L, H_L, G, H, lc):
        G_R, H_R = G - G_L, H - H_L
        lc = float(lc)
        return Candidate(
            feature, threshold, default_left, G_L, H_L, G_R, H_R, lc, self.params.gain(lc)
        )

    def candidates(self, nd, G, H, feature_names=None, chosen=None):
        """Every candidate evaluated at a node, as the ``splits(t, node)`` table, in scan order."""
        params = self.params
        H_cover = H if self.h_cover is None else self.cover_sum(nd)
        recs = []
        for js in self._blocks(nd):
            f, parts = self.scan(nd, js, G, H, H_cover)
            for part in parts:
                r, c = np.nonzero(self._valid(part, H_cover, H - part.H_L))
                shape = part.G_L.shape
                recs.append(pd.DataFrame({
                    "_r": r, "_phase": part.phase,
                    "_pos": np.broadcast_to(part.position, shape)[r, c],
                    "feature": f[r],
                    "threshold": part.threshold(r, c).astype(np.float64),
                    "default_left": part.default_left,
                    "G_L": part.G_L[r, c],
                    "H_L": np.broadcast_to(part.H_L, shape)[r, c],
                }))  # fmt: skip
        df = pd.concat(recs, ignore_index=True)
        df = df.sort_values(["feature", "_phase", "_pos"], kind="stable").reset_index(drop=True)
        df["G_R"] = G - df["G_L"]
        df["H_R"] = H - df["H_L"]
        df["gain"] = params.gain(params.loss_chg(
            df["G_L"].to_numpy(), df["H_L"].to_numpy(), df["G_R"].to_numpy(), df["H_R"].to_numpy()
        ))  # fmt: skip
        return finish_split_table(df, feature_names, chosen)


def _near_tol(root64, top):
    """How far below the top float64 loss_chg a candidate may be and still tie with it
    once XGBoost's float32 arithmetic rounds both."""
    return 1e-6 * (np.abs(root64) + np.abs(top)) + 1e-12


def _midpoint(lo, hi):
    """XGBoost's threshold between two adjacent distinct values: their midpoint in
    float32, or the upper value when float32 rounds the midpoint onto the lower one."""
    mid = ((lo + hi) * F32(0.5)).astype(F32)
    return np.where(mid > lo, mid, hi)


def _gap(x):
    return (np.abs(x) + F32(KRT_EPS)).astype(F32)


def _above(vmax):
    """The forward scan's end threshold: just above the largest present value."""
    return (vmax + _gap(vmax)).astype(F32)


def _below(vmin):
    """The backward scan's end threshold: just below the smallest present value."""
    return (vmin - _gap(vmin)).astype(F32)


def finish_split_table(df, feature_names, chosen):
    """Mark the chosen split and name the features; shared by every split finder."""
    chosen_mask = np.zeros(len(df), dtype=bool)
    if chosen is not None and len(df):
        feature, threshold, default_left = chosen
        chosen_mask = (
            (df["feature"].to_numpy() == feature)
            & (df["threshold"].to_numpy() == threshold)
            & (df["default_left"].to_numpy() == default_left)
        )
    df["chosen"] = chosen_mask
    if feature_names is not None and len(df):
        df["feature"] = [str(feature_names[j]) for j in df["feature"]]
    elif len(df):
        df["feature"] = [f"f{j}" for j in df["feature"]]
    return df[SPLIT_COLUMNS].reset_index(drop=True)
