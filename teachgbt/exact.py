"""Exact greedy split finding: sort each feature, scan left to right.

Seed 000 ("Learn the tree structure"): place the instances of a node in
sorted order of one feature; a left-to-right scan that accumulates G_L and
H_L gives every candidate split of that feature, and

    Gain = ½ [ G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ) ] − γ.

The scan is a cumulative sum: G_L after the k-th sorted instance is
``cumsum(g)[k]``. We run it for all features of a node at once, one row of a
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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import formulas
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


class SortedColumns:
    """Per-fit data for the exact trainer: features in float32, each sorted once.

    ``XT[f]`` is feature f; ``order[f]`` the row ids sorted by it with missing
    values last; ``n_present[f]`` how many are not missing.
    """

    def __init__(self, X32):
        self.XT = np.ascontiguousarray(X32.T)
        self.n_rows = X32.shape[0]
        self.n_features = X32.shape[1]
        # argsort puts NaN last; a stable sort keeps row order among equal values
        self.order = np.argsort(self.XT, axis=1, kind="stable").astype(np.int32)
        present = ~np.isnan(self.XT)
        self.n_present = present.sum(axis=1)
        self.has_missing = self.n_present < self.n_rows
        lo = np.where(present, self.XT, np.inf).min(axis=1)
        hi = np.where(present, self.XT, -np.inf).max(axis=1)
        self.constant = ~(lo < hi)


@dataclass
class NodeRows:
    """The rows of one node: ``idx[j]`` sorted by feature ``features[j]``, missing last."""

    idx: np.ndarray  # (n_features_used, n_rows_in_node) int32
    n_present: np.ndarray  # (n_features_used,)


class ExactSplitter:
    """Finds the best split of a node by the sorted scan; partitions its rows.

    ``g``, ``h``: per-row gradient statistics (float32 for XGBoost parity).
    ``h_cover``: optional per-row values whose sums ``min_child_weight``
    applies to instead of ``h`` (Friedman GBDT checks Σp(1−p) while it ranks
    splits with unit hessians).
    """

    def __init__(
        self, cols, g, h, params, rows=None, features=None, h_cover=None, chunk_elems=1 << 20
    ):
        self.cols = cols
        self.g = np.asarray(g, dtype=np.float64)
        self.h = np.asarray(h, dtype=np.float64)
        self.h_cover = None if h_cover is None else np.asarray(h_cover, dtype=np.float64)
        self.p = params
        self.rows = rows  # None: every row; else sorted int array of sampled rows
        self.features = (
            np.arange(cols.n_features) if features is None else np.sort(np.asarray(features))
        )
        self.chunk_elems = chunk_elems
        self._go_left = np.zeros(cols.n_rows, dtype=bool)

    # ------------------------------------------------------------ node data
    def root(self, keep=None):
        """The root's rows (the round's sample), or, with a boolean ``keep``, those of them."""
        idx = self.cols.order[self.features]
        n_present = self.cols.n_present[self.features]
        if self.rows is not None:
            sampled = np.zeros(self.cols.n_rows, dtype=bool)
            sampled[self.rows] = True
            keep = sampled if keep is None else (keep & sampled)
        if keep is not None:
            mask = keep[idx]
            pos_present = np.arange(idx.shape[1])[None, :] < n_present[:, None]
            n_present = (mask & pos_present).sum(axis=1)
            idx = idx[mask].reshape(len(self.features), -1)
        return NodeRows(idx, n_present)

    def node_rows(self, nd):
        """Row ids of a node."""
        return nd.idx[0]

    def node_sums(self, nd):
        """n, G, H of a node. Summed one row at a time in row order, as XGBoost does,
        so that the float rounding of G and H is XGBoost's too."""
        r = np.sort(nd.idx[0])
        if len(r) == 0:
            return 0, 0.0, 0.0
        return len(r), float(np.cumsum(self.g[r])[-1]), float(np.cumsum(self.h[r])[-1])

    def cover_sum(self, nd):
        h = self.h if self.h_cover is None else self.h_cover
        return float(h[nd.idx[0]].sum())

    def partition(self, nd, cand):
        j = int(np.searchsorted(self.features, cand.feature))
        rows = nd.idx[j]
        x = self.cols.XT[cand.feature, rows]
        # the same routing rule as Tree.apply: x < threshold, missing → default
        self._go_left[rows] = np.where(np.isnan(x), cand.default_left, x < F32(cand.threshold))
        mask = self._go_left[nd.idx]
        n_left = int(mask[0].sum())
        pos_present = np.arange(nd.idx.shape[1])[None, :] < nd.n_present[:, None]
        left = NodeRows(
            nd.idx[mask].reshape(len(self.features), n_left), (mask & pos_present).sum(axis=1)
        )
        right = NodeRows(
            nd.idx[~mask].reshape(len(self.features), -1), (~mask & pos_present).sum(axis=1)
        )
        return left, right

    # ------------------------------------------------------------- the scan
    def _score(self, G, H):
        """G²/(H+λ) of one side (formulas.leaf_score).

        With ``float32`` it is computed as XGBoost computes it: at the side's
        float32 weight w, as −(2·G·w + (H+λ)·w²) in float32 arithmetic. That
        equals G²/(H+λ) exactly in real numbers; doing it XGBoost's way makes
        float rounding, which decides between candidates whose true gains tie
        (pure nodes when λ = 0), fall the same way.
        """
        p = self.p
        if not p.float32:
            return np.asarray(
                formulas.leaf_score(G, H, p.reg_lambda, p.reg_alpha, p.max_delta_step)
            )
        w = np.asarray(
            formulas.leaf_weight(G, H, p.reg_lambda, p.reg_alpha, p.max_delta_step)
        ).astype(F32)
        G32 = np.asarray(G).astype(F32)
        H32 = np.asarray(H).astype(F32)
        s = -(F32(2.0) * G32 * w + (H32 + F32(p.reg_lambda)) * (w * w))
        if p.reg_alpha:
            s = s - F32(2.0) * F32(p.reg_alpha) * np.abs(w)
        return np.where(H32 > 0, s, F32(0.0)).astype(F32)

    def _root_score(self, G, H, H_cover):
        p = self.p
        if H_cover < p.min_child_weight:
            return F32(0.0) if p.float32 else 0.0
        s = self._score(np.float64(G), np.float64(H))
        return F32(s) if p.float32 else float(s)

    def scan_feature_block(self, nd, js, G, H, H_cover):
        """Evaluate every candidate split on the features ``self.features[js]`` of one node.

        Returns 1-D arrays, one entry per valid candidate: its feature, threshold,
        default direction, G_L, H_L, loss_chg, and ``key`` — the candidate's place
        in XGBoost's scan order (by feature; within a feature the forward scan
        upwards, its end, the backward scan downwards, its end).
        """
        p = self.p
        I = nd.idx[js]
        m = I.shape[1]
        f = self.features[js]
        v = self.cols.XT[f[:, None], I]  # each feature's values in sorted order, float32
        n_present = nd.n_present[js]
        gs, hs = self.g[I], self.h[I]
        cs = hs if self.h_cover is None else self.h_cover[I]

        # Seed 000's left-to-right scan: G_L and H_L after each sorted instance.
        cg, ch = np.cumsum(gs, axis=1), np.cumsum(hs, axis=1)
        cc = ch if self.h_cover is None else np.cumsum(cs, axis=1)
        rows = np.arange(len(js))
        last = np.maximum(n_present - 1, 0)
        has = n_present > 0
        G_present = np.where(has, cg[rows, last], 0.0)
        H_present = np.where(has, ch[rows, last], 0.0)
        C_present = np.where(has, cc[rows, last], 0.0)

        # Candidates sit between sorted positions q and q+1 holding two distinct values.
        boundary = (np.arange(m - 1)[None, :] + 1 < n_present[:, None]) & (v[:, :-1] != v[:, 1:])
        r, q = np.nonzero(boundary)
        lo, hi = v[r, q], v[r, q + 1]
        mid = ((lo + hi) * F32(0.5)).astype(F32)
        thr = np.where(mid > lo, mid, hi)  # the midpoint, unless float32 rounds it onto lo

        # The end candidates (every present value on one side, every missing value on
        # the other) exist only where some rows miss the feature.
        ends = np.flatnonzero(has & (n_present < m))
        vmin = v[ends, 0]
        gap = lambda x: (np.abs(x) + F32(KRT_EPS)).astype(F32)  # noqa: E731

        parts = []  # (feature row, phase, position, threshold, default_left, G_L, H_L, C_L)
        # forward scan: present values below the threshold go left, missing go right;
        # XGBoost runs it only for features with missing values somewhere
        fwd = self.cols.has_missing[f] & ~self.cols.constant[f]
        if fwd.any():
            s = fwd[r]
            parts.append(
                (r[s], 0, q[s], thr[s], False, cg[r[s], q[s]], ch[r[s], q[s]], cc[r[s], q[s]])
            )
            e = ends[fwd[ends]]
            parts.append(
                (
                    e,
                    1,
                    np.zeros(len(e), int),
                    (v[e, last[e]] + gap(v[e, last[e]])),
                    False,
                    G_present[e],
                    H_present[e],
                    C_present[e],
                )
            )
        # backward scan: present values at or above the threshold go right, missing go left
        G_R = G_present[r] - cg[r, q]
        H_R = H_present[r] - ch[r, q]
        C_R = C_present[r] - cc[r, q]
        parts.append((r, 2, -q, thr, True, G - G_R, H - H_R, H_cover - C_R))
        parts.append(
            (
                ends,
                3,
                np.zeros(len(ends), int),
                (vmin - gap(vmin)),
                True,
                G - G_present[ends],
                H - H_present[ends],
                H_cover - C_present[ends],
            )
        )

        cat = lambda i: np.concatenate([np.broadcast_to(pt[i], len(pt[0])) for pt in parts])  # noqa: E731
        fr, phase, pos = cat(0), cat(1), cat(2)
        thresholds, default_left = cat(3).astype(F32), cat(4).astype(bool)
        G_L, H_L, C_L = cat(5), cat(6), cat(7)
        G_R, H_R, C_R = G - G_L, H - H_L, H_cover - C_L
        mcw = p.min_child_weight
        ok = (C_L >= mcw) & (C_R >= mcw)
        G_L, H_L, G_R, H_R = G_L[ok], H_L[ok], G_R[ok], H_R[ok]
        root = self._root_score(G, H, H_cover)
        loss = (self._score(G_L, H_L) + self._score(G_R, H_R)) - root
        fr, phase, pos = fr[ok], phase[ok], pos[ok]
        return {
            "feature": f[fr],
            "threshold": thresholds[ok],
            "default_left": default_left[ok],
            "G_L": G_L,
            "H_L": H_L,
            "loss": loss,
            "key": (fr, phase, pos),
        }

    def _blocks(self, nd):
        m = max(nd.idx.shape[1], 1)
        step = max(1, self.chunk_elems // m)
        d = len(self.features)
        for s in range(0, d, step):
            yield np.arange(s, min(d, s + step))

    def find_split(self, nd, G, H):
        """The best split of a node, or None when no candidate lowers the loss."""
        if nd.idx.shape[1] < 2:
            return None
        H_cover = H if self.h_cover is None else self.cover_sum(nd)
        best = None
        best_loss = 0.0  # XGBoost starts from loss_chg 0: only positive reductions count
        for js in self._blocks(nd):
            c = self.scan_feature_block(nd, js, G, H, H_cover)
            if len(c["loss"]) == 0:
                continue
            top = c["loss"].max()
            if not top > best_loss:  # later blocks hold higher feature indices: ties stay
                continue
            tied = np.flatnonzero(c["loss"] == top)
            fr, phase, pos = (k[tied] for k in c["key"])
            i = tied[np.lexsort((pos, phase, fr))[0]]  # first in scan order
            best_loss = top
            best = (
                int(c["feature"][i]),
                float(c["threshold"][i]),
                bool(c["default_left"][i]),
                float(c["G_L"][i]),
                float(c["H_L"][i]),
                float(top),
            )
        if best is None:
            return None
        feature, threshold, default_left, G_L, H_L, lc = best
        if not self._really_lowers_loss(G_L, H_L, G, H):
            return None
        return self._candidate(feature, threshold, default_left, G_L, H_L, G, H, lc)

    def _really_lowers_loss(self, G_L, H_L, G, H):
        """False when the best candidate's gain is float32 rounding noise.

        A node whose instances all have the same g and h (a pure node when λ = 0)
        gains exactly nothing from any split; in float32 the gain can still come
        out one rounding step above zero. XGBoost then splits on that noise
        (into leaves of equal weight); teachgbt checks the gain in float64 and
        keeps such a node a leaf. Predictions are the same either way.
        """
        p = self.p
        exact = formulas.loss_chg(
            G_L, H_L, G - G_L, H - H_L, p.reg_lambda, p.reg_alpha, p.max_delta_step
        )
        return exact > p.min_split_loss_eps

    def _candidate(self, feature, threshold, default_left, G_L, H_L, G, H, lc):
        p = self.p
        G_R, H_R = G - G_L, H - H_L
        gain = formulas.split_gain(
            G_L, H_L, G_R, H_R, p.reg_lambda, p.gamma, p.reg_alpha, p.max_delta_step
        )
        return Candidate(feature, threshold, default_left, G_L, H_L, G_R, H_R, float(lc), gain)

    def candidates(self, nd, G, H, feature_names=None, chosen=None):
        """Every candidate evaluated at a node, as the ``splits(t, node)`` table, in scan order."""
        p = self.p
        H_cover = H if self.h_cover is None else self.cover_sum(nd)
        frames = []
        for js in self._blocks(nd):
            c = self.scan_feature_block(nd, js, G, H, H_cover)
            order = np.lexsort(c["key"][::-1])
            G_L, H_L = c["G_L"][order], c["H_L"][order]
            frames.append(pd.DataFrame({
                "feature": c["feature"][order],
                "threshold": c["threshold"][order].astype(np.float64),
                "default_left": c["default_left"][order],
                "G_L": G_L, "H_L": H_L, "G_R": G - G_L, "H_R": H - H_L,
            }))  # fmt: skip
        df = pd.concat(frames, ignore_index=True)
        df["gain"] = formulas.split_gain(
            df["G_L"].to_numpy(), df["H_L"].to_numpy(), df["G_R"].to_numpy(),
            df["H_R"].to_numpy(), p.reg_lambda, p.gamma, p.reg_alpha, p.max_delta_step,
        )  # fmt: skip
        return finish_split_table(df, feature_names, chosen)


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
