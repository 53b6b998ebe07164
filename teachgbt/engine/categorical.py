"""Splitting a categorical feature into two sets of categories, as XGBoost ``hist`` does.

A numeric feature is split by a threshold: its values are ordered already. Categories
(colours, cities) have no order, and a set of k categories can be cut into two groups in
2^(k−1) − 1 ways. XGBoost (``src/tree/hist/evaluate_splits.h``, 3.2) tries few of them:

* **One-hot** (fewer than ``max_cat_to_onehot`` categories, 4 by default): one category
  against all the others, for each category in turn; missing values go once with the
  others, once with the category.
* **Partition** (otherwise): order the categories by their optimal weight
  w*_c = −G_c/(H_c+λ) (a category with H_c < ``min_child_weight`` weighs 0), then scan that
  order as if it were a numeric feature: every prefix of it against the rest. Fisher (1958)
  showed that for squared error the best grouping is always such a prefix; for other losses
  it is XGBoost's (and LightGBM's) heuristic. Two scans, as the missing values must go
  somewhere: forward (the first j categories against the rest and the missing values) and
  backward (the last j against the rest and the missing values), each moving at most
  ``max_cat_threshold`` − 1 categories (64 − 1 by default).

A category is a bin of its own (``binning.HistData``: bin c holds code c), so G_c and H_c
are the histogram's. The set of categories moved in a scan is the one XGBoost stores, and
sends **right**; a teachgbt tree sends its set **left** ("colour ∈ {red, blue}? yes"), so
each candidate here is written with that set as its left side: G_L, H_L are the set's sums
(and the missing values' when they go with it), ``default_left`` says whether the missing
values go with the set. The tree's node ids are still XGBoost's (``grow.grow_tree`` makes
the other side's child first). Sums, sort keys and loss changes are computed in the order
and precision XGBoost computes them (float64 sums, float32 weights and scores), so ties
fall the same way: within a feature the first strictly better candidate wins (one-hot in
category order, "with the others" before "with the category"; the forward scan before
the backward one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .exact import finish_split_table

__all__ = ["MAX_CODE", "check_codes", "category_cuts", "CategoricalScan", "scan", "best_of",
           "candidate_table", "finish_table", "category_table"]  # fmt: skip

#: the largest category code a feature may hold: with the missing values' bin, the codes
#: of a feature must fit the histogram's 16-bit bin codes
MAX_CODE = 65534


def check_codes(X32, categorical, feature_names=None):
    """Refuse, naming the column, a categorical feature of X32 holding something other than
    category codes (whole numbers 0 … ``MAX_CODE``; NaN for missing)."""
    for j in categorical:
        name = repr(str(feature_names[j])) if feature_names is not None else f"{j}"
        category_cuts(X32[:, j], f"the categorical column {name}")


def category_cuts(col, name="a categorical feature"):
    """The cut points that bin category codes as themselves (bin c holds code c): 1, 2, …,
    max + 1. The codes must be whole numbers 0 … ``MAX_CODE`` (NaN: missing)."""
    present = col[~np.isnan(col)]
    if present.size and (
        (present < 0).any() or (present != np.floor(present)).any() or present.max() > MAX_CODE
    ):
        bad = present[(present < 0) | (present != np.floor(present)) | (present > MAX_CODE)][0]
        raise ValueError(
            f"{name} holds {float(bad)!r}: category codes are whole numbers from 0 to "
            f"{MAX_CODE}, NaN for missing"
        )
    top = int(present.max()) if present.size else 0
    # XGBoost cuts a categorical feature at every code 0 … max (AddCategories), so a code
    # below the largest that no row has is a category too, with no rows
    return np.arange(1, top + 2, dtype=np.float32)


@dataclass
class CategoricalScan:
    """Every candidate of one categorical feature at one node, in XGBoost's scan order.

    ``kind``: "one-hot" or "partition"; ``order``: the codes as scanned (by w* for a
    partition); per candidate: ``loss`` (loss_chg in float32; −inf where not allowed),
    the set's sums ``G_L``, ``H_L``, ``C_L`` (missing values included when they go with
    it), the other side's ``G_R``, ``H_R`` (each side as XGBoost sums it: the one scanned
    added up, the other the node's minus it), ``default_left`` and ``size`` (the set is
    ``order[start:start + size]``, with ``start`` 0 for the partition and the candidate's
    category for one-hot).
    """

    feature: int
    kind: str
    order: np.ndarray
    loss: np.ndarray
    G_L: np.ndarray
    H_L: np.ndarray
    C_L: np.ndarray
    G_R: np.ndarray
    H_R: np.ndarray
    default_left: np.ndarray
    start: np.ndarray
    size: np.ndarray

    def categories(self, k):
        """The codes candidate k sends left (sorted)."""
        return np.sort(self.order[self.start[k] : self.start[k] + self.size[k]])

    def best(self):
        """Index of the first candidate with the largest loss_chg, or None if none is > 0."""
        if not len(self.loss):
            return None
        k = int(np.argmax(self.loss))
        return k if self.loss[k] > 0 else None


def _sequential_sum(a):
    """Column sums added one row after another, as XGBoost's std::accumulate does."""
    return np.cumsum(a, axis=0)[-1] if len(a) else np.zeros(a.shape[1:])


def scan(feature, hist, n_bins, sums, params, root, one_hot_below, max_threshold):
    """Every candidate of one categorical feature at one node (a ``CategoricalScan``).

    ``hist``: (slots, q) the node's histogram of the feature, (Σg, Σh[, Σcover]) per code;
    ``n_bins``: codes 0 … n_bins − 1; ``sums``: the node's (G, H, C); ``root``: its own
    score (float32); ``params``: ``GrowParams`` (the formulas, in XGBoost's float32)."""
    stats = np.asarray(hist[:n_bins], dtype=np.float64)[:, :3]
    if stats.shape[1] == 2:  # no cover statistic: min_child_weight applies to H
        stats = np.column_stack([stats, stats[:, 1]])
    parent = np.asarray(sums, dtype=np.float64)
    if n_bins < one_hot_below:
        return _one_hot(feature, stats, parent, params, root)
    return _partition(feature, stats, parent, params, root, max_threshold)


def _one_hot(feature, stats, parent, params, root):
    """Per category c: {c} against the rest with the missing values (XGBoost: missing
    left), then {c} with the missing values against the rest."""
    n = len(stats)
    missing = parent - _sequential_sum(stats)
    set_sums = np.empty((2 * n, 3))
    set_sums[0::2], set_sums[1::2] = stats, stats + missing
    codes = np.arange(n)
    return CategoricalScan(
        feature,
        "one-hot",
        codes,
        *_losses(set_sums, parent - set_sums, params, root),
        np.tile([False, True], n),
        np.repeat(codes, 2),
        np.ones(2 * n, dtype=np.int64),
    )


def sort_order(stats, params):
    """Codes sorted by w* = −G/(H+λ), in float32 as XGBoost's CalcWeightCat (stable: equal
    weights keep code order)."""
    w = np.asarray(params.leaf_weight(stats[:, 0], stats[:, 1]), dtype=np.float32)
    return np.argsort(w, kind="stable")


def _partition(feature, stats, parent, params, root, max_threshold):
    """The forward scan (prefixes of the sorted order; missing values with the rest), then
    the backward one (suffixes go with the missing values; the prefix left over is the
    set), each moving at most ``max_threshold`` − 1 categories."""
    n = len(stats)
    order = sort_order(stats, params)
    m = max(min(int(max_threshold), n) - 1, 0)  # candidates per direction
    ordered = stats[order]
    forward = np.cumsum(ordered, axis=0)[:m]  # the set: the first j + 1 categories
    # backward: the last categories (with the missing values) added up from the end; the
    # set is the rest of the sorted order and of the node
    backward = np.cumsum(ordered[::-1], axis=0)[:m]
    set_sums = np.concatenate([forward, parent - backward])
    other = np.concatenate([parent - forward, backward])
    sizes = np.concatenate([np.arange(1, m + 1), n - np.arange(1, m + 1)]).astype(np.int64)
    return CategoricalScan(
        feature,
        "partition",
        order,
        *_losses(set_sums, other, params, root),
        np.repeat([False, True], m),
        np.zeros(2 * m, dtype=np.int64),
        sizes,
    )


def _losses(set_sums, other, params, root):
    """loss_chg of each candidate (−inf where a side is lighter than min_child_weight),
    the set side's G, H, C and the other side's G, H."""
    G_L, H_L, C_L = set_sums.T
    G_R, H_R, C_R = other.T
    mcw = params.formula_params["min_child_weight"]
    ok = (C_L >= mcw) & (C_R >= mcw)
    with np.errstate(invalid="ignore", over="ignore"):
        loss = (params.side_score(G_L, H_L) + params.side_score(G_R, H_R)) - root
    loss = np.where(ok & ~np.isnan(loss), loss, -np.inf)
    return loss, G_L, H_L, C_L, G_R, H_R


def best_of(scans):
    """The best candidate over features (in feature order): ``(scan, k)`` or None. A larger
    loss_chg wins; on a tie the lower feature."""
    best = None
    for s in scans:
        k = s.best()
        if k is not None and (best is None or s.loss[k] > best[0].loss[best[1]]):
            best = (s, k)
    return best


def candidate_table(s):
    """One row per distinct partition a scan tries (both sides non-empty), as the columns of
    ``trace_.splits``: the set sent left in ``categories`` (codes), threshold NaN."""
    rows = np.flatnonzero(np.isfinite(s.loss))
    df = pd.DataFrame(
        {
            "feature": np.full(len(rows), s.feature),
            "threshold": np.nan,
            "default_left": s.default_left[rows],
            "G_L": s.G_L[rows],
            "H_L": s.H_L[rows],
            "G_R": s.G_R[rows],
            "H_R": s.H_R[rows],
            "categories": [tuple(int(c) for c in s.categories(k)) for k in rows],
        }
    )
    tiny = 1e-12 * max(abs(float(s.H_L[0] + s.H_R[0])) if len(s.loss) else 1.0, 1.0)
    both_sides = (df["H_L"] > tiny) & (df["H_R"] > tiny)
    # one row per partition of the node's rows: with no missing values there, a set with the
    # missing values and without them is the same partition (listed once, as scanned first)
    repeat = df.duplicated(subset=["categories", "G_L", "H_L"], keep="first")
    return df[both_sides & ~repeat].reset_index(drop=True)


def finish_table(df, feature_names, chosen):
    """``exact.finish_split_table`` for a table with set candidates: the ``categories``
    column (codes sent left; None on threshold rows) after ``threshold``, and the chosen
    row marked by its set when ``chosen`` is (feature, NaN, default_left, codes)."""
    sets = df.pop("categories").to_numpy()
    is_set = chosen is not None and len(chosen) == 4
    mark = np.zeros(len(df), dtype=bool)
    if is_set:
        feature, _, default_left, codes = chosen
        want = tuple(int(c) for c in codes)
        mark = (
            (df["feature"].to_numpy() == feature)
            & (df["default_left"].to_numpy() == default_left)
            & np.array([c == want for c in sets], dtype=bool)
        )
    out = finish_split_table(df, feature_names, None if is_set else chosen)
    out.insert(2, "categories", sets)
    if is_set:
        out["chosen"] = mark
    return out


def category_table(s, stats, params):
    """A node's categories as scan ``s`` tries them, one row per category: its ``code``, G,
    H, G/(H+λ) and w* = −G/(H+λ); for a partition, in the sorted order with the sums of the
    categories up to it (``G_L``, ``H_L``: the set if the cut is made after it) and the
    loss_chg of that cut, the missing values outside the set (``loss_chg``) and inside it
    (``loss_chg_missing_in``); for one-hot, in code order, the loss_chg of the category
    alone and with the missing values. NaN: a cut the scan does not try or allow."""
    stats = np.asarray(stats, dtype=np.float64)
    order = np.asarray(s.order)
    G, H = stats[order, 0], stats[order, 1]
    lam = params.formula_params["reg_lambda"]
    out_set = np.full(len(order), np.nan)
    in_set = np.full(len(order), np.nan)
    loss = np.where(np.isfinite(s.loss), s.loss, np.nan).astype(np.float64)
    # the position (in ``order``) of the last category of each candidate's set
    last = s.start + s.size - 1
    for k in range(len(loss)):
        (in_set if s.default_left[k] else out_set)[last[k]] = loss[k]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = G / (H + lam)
    table = pd.DataFrame(
        {
            "code": order,
            "G": G,
            "H": H,
            "G/(H+λ)": ratio,
            "weight": np.asarray(params.leaf_weight(G, H), dtype=np.float64),
        }
    )
    if s.kind == "partition":
        table["G_L"], table["H_L"] = np.cumsum(G), np.cumsum(H)
    table["loss_chg"], table["loss_chg_missing_in"] = out_set, in_set
    return table
