"""Cut points from data spread over many partitions: one pass, small summaries, one merge.

The single-machine binning (``engine.binning.HistData``) looks at a whole column.
Here each partition sends, per feature, a summary no larger than a few thousand
numbers, and the summaries are merged pairwise on the workers (a tree
reduction), so the driver only ever holds one merged summary:

* **exact** when a feature has at most ``max_bin`` distinct values over the whole
  data: each partition sends its distinct values (while it has at most
  ``max_bin``); their union is the feature's distinct values, and the cut
  points are those of the single-machine trainer (and of XGBoost ``hist``).
* otherwise a **merged quantile summary**: each partition sends its sorted values
  at ``SUMMARY_SIZE`` evenly spaced ranks, each with the number of rows it
  stands for; merging sorts two summaries together and prunes the result back to
  ``SUMMARY_SIZE`` entries. Cut points are read off the merged summary at the
  ranks ``k·n/max_bin``, as the single-machine trainer reads them off the sorted
  column, so each is a data value. A partition of at most ``SUMMARY_SIZE`` rows
  is summarised exactly; the rank of a cut read off a pruned summary is off by at
  most about n/``SUMMARY_SIZE`` per merge level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Summary", "summarize", "merge", "cut_points", "SUMMARY_SIZE"]

F32 = np.float32

#: entries kept per feature by a quantile summary
SUMMARY_SIZE = 1 << 14

# XGBoost's margin above the largest value (and below the smallest) of a feature,
# as engine.binning adds it
_CUT_EPS = 1e-5


@dataclass
class Summary:
    """Per feature of some rows: their distinct values (None once there are more than
    ``max_bin``), a quantile summary (values, rows each stands for), min, max, missing."""

    n_rows: int
    distinct: list  # per feature: sorted float32 values, or None
    values: list  # per feature: sorted float32 summary values
    weights: list  # per feature: int64, rows each summary value stands for
    low: np.ndarray  # (d,) float32, NaN when every value is missing
    high: np.ndarray
    has_missing: np.ndarray  # (d,) bool


def _distinct_sorted(a):
    """The distinct values of a sorted array (faster than np.unique, which sorts or hashes)."""
    first = np.ones(len(a), dtype=bool)
    first[1:] = a[1:] != a[:-1]
    return a[first]


def _prune(values, weights, size):
    """At most ``size`` entries of a sorted summary, at evenly spaced ranks; each keeps the
    rows of the entries it replaces."""
    if len(values) <= size:
        return values, weights
    start = np.concatenate([[0], np.cumsum(weights)[:-1]])  # rank of each entry's first row
    total = int(weights.sum())
    targets = (np.arange(size, dtype=np.int64) * total) // size
    keep = _distinct_sorted(np.searchsorted(start, targets, side="right") - 1)
    ends = np.append(start[keep[1:]], total)
    return values[keep], ends - start[keep]


def summarize(X32, max_bin, size=SUMMARY_SIZE):
    """The Summary of one partition's rows (X32: (n, d) float32)."""
    n, d = X32.shape
    distinct, values, weights = [], [], []
    with np.errstate(all="ignore"):
        low = np.fmin.reduce(X32, axis=0) if n else np.full(d, np.nan, F32)
        high = np.fmax.reduce(X32, axis=0) if n else np.full(d, np.nan, F32)
    has_missing = np.isnan(X32).any(axis=0) if n else np.zeros(d, dtype=bool)
    for f in range(d):
        v = np.sort(X32[:, f][~np.isnan(X32[:, f])])
        u = _distinct_sorted(v)
        distinct.append(u if len(u) <= max_bin else None)
        sv, sw = _prune(v, np.ones(len(v), dtype=np.int64), size)
        values.append(sv)
        weights.append(sw)
    return Summary(n, distinct, values, weights, low, high, has_missing)


def merge(a, b, max_bin, size=SUMMARY_SIZE):
    """The Summary of the rows of two Summaries."""
    distinct, values, weights = [], [], []
    for f in range(len(a.values)):
        da, db = a.distinct[f], b.distinct[f]
        u = None if da is None or db is None else np.union1d(da, db)
        distinct.append(u if u is not None and len(u) <= max_bin else None)
        v = np.concatenate([a.values[f], b.values[f]])
        w = np.concatenate([a.weights[f], b.weights[f]])
        order = np.argsort(v, kind="stable")
        sv, sw = _prune(v[order], w[order], size)
        values.append(sv)
        weights.append(sw)
    return Summary(
        a.n_rows + b.n_rows,
        distinct,
        values,
        weights,
        np.fmin(a.low, b.low),
        np.fmax(a.high, b.high),
        a.has_missing | b.has_missing,
    )


def _above(v):
    """XGBoost's last cut, v + (|v| + 1e-5), in float64 then float32 (as engine.binning)."""
    return F32(float(v) + (abs(float(v)) + _CUT_EPS))


def _below(v):
    return F32(float(v) - (abs(float(v)) + _CUT_EPS))


def cut_points(summary, max_bin):
    """(cuts, min_val, has_missing, exact) for ``HistData.from_cuts``: the single-machine
    trainer's rules (see ``engine.binning``) applied to the merged summary."""
    cuts, min_val = [], np.zeros(len(summary.values), dtype=F32)
    exact = np.zeros(len(summary.values), dtype=bool)
    for f, (v, w) in enumerate(zip(summary.values, summary.weights)):
        lo, hi = summary.low[f], summary.high[f]
        if np.isnan(lo):  # an all-missing feature: one empty bin, never split
            cuts.append(np.array([_above(0.0)], dtype=F32))
            min_val[f] = _below(0.0)
            continue
        if summary.distinct[f] is not None:
            inner, exact[f] = summary.distinct[f][1:], True  # every distinct value but the least
        else:
            # the value at rank k·n/max_bin, read off the summary as off a sorted column
            m = int(w.sum())
            ranks = (np.arange(1, max_bin, dtype=np.int64) * m) // max_bin
            start = np.concatenate([[0], np.cumsum(w)[:-1]])
            inner = _distinct_sorted(v[np.searchsorted(start, ranks, side="right") - 1])
            inner = inner[inner > lo]
        cuts.append(np.append(inner.astype(F32), _above(hi)))
        min_val[f] = _below(lo)
    return cuts, min_val, summary.has_missing.copy(), exact
