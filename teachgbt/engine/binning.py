"""Binning for the histogram trainer (``hist.py``): once per fit, every feature's cut points
and every row's bin code.

Each feature gets at most ``max_bin`` bins. A feature with at most
``max_bin`` distinct values gets its distinct values as cut points, exactly as
XGBoost does, and then the trees match XGBoost ``hist`` split for split. A
feature with more distinct values gets cut points at its quantiles, estimated
from a sample of rows on large data. Bin ``c`` holds the values
``cut[c-1] <= x < cut[c]``; missing values (NaN) get a bin of their own, the
last one. The bin codes are stored feature by feature (XGBoost's column
blocks, seed 003's "blocked data") as uint8, or uint16 when more than 256
codes are needed.

A categorical feature (``categorical``: their positions) is binned by its codes: bin c holds
category c, for every code 0 … max (``categorical.category_cuts``, as XGBoost); the numeric
scan skips it (``scan_bins``) and ``categorical.py`` splits it into sets.
"""

from __future__ import annotations

import numpy as np

from ..utils import kernels
from .categorical import category_cuts

__all__ = ["HistData", "numba_kernels", "SAMPLE_ROWS"]

F32 = np.float32

#: cut points of a feature with many distinct values come from this many sampled rows
SAMPLE_ROWS = 200_000
#: the columns' extremes are found by several threads from this many cells on
PARALLEL_EXTREMES = 1 << 20

# XGBoost's margin above the largest value (and below the smallest) of a feature
_CUT_EPS = 1e-5


def numba_kernels(cells=None, bins_dtype=np.uint8, stats_dtype=np.float32, trees=1):
    """The compiled histogram kernels (``engine._hist_numba``) for bin codes and g, h of
    these dtypes, or None to use numpy: on small work (``cells`` of data scanned by
    ``trees`` trees; see ``teachgbt.utils.kernels.load``), and while they compile in the
    background."""
    spec = (np.dtype(bins_dtype).name, np.dtype(stats_dtype).name)
    return kernels.load("engine._hist_numba", cells, spec, trees)


def _above(v):
    """XGBoost's last cut: ``v + (|v| + 1e-5)``, in float64 and then rounded to float32."""
    v = float(v)
    return F32(v + (abs(v) + _CUT_EPS))


def _below(v):
    """XGBoost's minimum: ``v - (|v| + 1e-5)``, in float64 and then rounded to float32."""
    v = float(v)
    return F32(v - (abs(v) + _CUT_EPS))


def _column_extremes(X32):
    """Every column's smallest and largest value (NaN only if all missing) and whether it
    has missing values, reduced along the rows of X at once (X is stored by row): in parts
    of the rows, one a thread, then the parts' results (minima and maxima are exact, so
    the same values whatever the parts)."""
    n = X32.shape[0]
    parts = min(kernels.n_threads(), n) if X32.size >= PARALLEL_EXTREMES else 1
    found = [None] * parts

    def reduce(lo, hi):
        for p in range(lo, hi):
            block = X32[n * p // parts : n * (p + 1) // parts]
            # (maximum, unlike fmax, keeps a NaN)
            found[p] = [np.fmin.reduce(block), np.fmax.reduce(block), np.maximum.reduce(block)]

    kernels.share(reduce, (), parts, parts)
    lows, highs, most = (np.stack([f[k] for f in found]) for k in range(3))
    return np.fmin.reduce(lows), np.fmax.reduce(highs), np.isnan(np.maximum.reduce(most))


def _all_among(col, distinct, chunk=1 << 16):
    """Whether every value of ``col`` but NaN is one of the sorted ``distinct`` values,
    looked up ``chunk`` rows at a time (small temporaries, which stay in cache)."""
    for lo in range(0, len(col), chunk):
        part = col[lo : lo + chunk]
        present = part[~np.isnan(part)]
        if len(present) == 0:
            continue
        if len(distinct) == 0:
            return False
        pos = np.minimum(np.searchsorted(distinct, present), len(distinct) - 1)
        if not np.array_equal(distinct[pos], present):
            return False
    return True


def _quantile_cuts(values, max_bin):
    """Inner cut points at the quantiles of sorted ``values``: at most max_bin − 1 of them.

    Each cut is itself a data value, so a threshold reads as one; the
    smallest value always stays in bin 0.
    """
    m = len(values)
    pos = (np.arange(1, max_bin, dtype=np.int64) * m) // max_bin
    cuts = np.unique(values[pos])
    return cuts[cuts > values[0]]


class HistData:
    """Per-fit binning of the features (float32, as XGBoost compares them).

    ``bins[f, i]`` is the bin code of row i in feature f: ``c`` for
    ``cut(f)[c-1] <= x < cut(f)[c]``, ``missing_code`` for NaN.
    ``cuts[f, :n_bins[f]]`` are feature f's cut points (the last one lies
    above every value); ``min_val[f]`` lies below every value.
    ``exact_cuts[f]`` is True when the cuts are all of the feature's distinct
    values (then splits are those XGBoost ``hist`` finds).
    """

    def __init__(
        self, X32, max_bin=256, sample_rows=SAMPLE_ROWS, random_state=0, categorical=(), trees=1
    ):
        X32 = np.asarray(X32, dtype=np.float32)
        n, d = X32.shape
        self.n_rows, self.n_features, self.max_bin = n, d, int(max_bin)
        self.trees = trees  # how many trees the fit grows on these bins (compiled or not)
        self.row_space = None  # hist.RowSpace: the row arrays a tree's growth works in
        self.is_categorical = np.zeros(d, dtype=bool)
        self.is_categorical[list(categorical)] = True
        sample = None
        if n > sample_rows:
            rng = np.random.default_rng(random_state)
            sample = np.sort(rng.choice(n, size=sample_rows, replace=False))

        cut_list, min_val = [], np.zeros(d, dtype=F32)
        self.exact_cuts = np.zeros(d, dtype=bool)
        lows, highs, self.has_missing = _column_extremes(X32)
        if not self.is_categorical.any() and self._codes_dtype(self.max_bin) == np.uint8:
            # at most max_bin bins a feature: the codes will be uint8, so ask for their
            # kernels now (a fresh installation's background compile starts before the cuts)
            numba_kernels(n * d, np.uint8)
        X_sample = None if sample is None else X32[sample]  # the sampled rows, gathered once
        for f in range(d):
            col = X32[:, f]
            lo, hi = lows[f], highs[f]
            if np.isnan(lo):  # an all-missing feature: one empty bin, never split
                cut_list.append(np.array([_above(0.0)], dtype=F32))
                min_val[f] = _below(0.0)
                continue
            if self.is_categorical[f]:  # categories: a bin per code (categorical.py)
                cut_list.append(category_cuts(col, f"categorical feature {f}"))
                min_val[f], self.exact_cuts[f] = F32(-1), True
                continue
            inner, self.exact_cuts[f] = self._inner_cuts(
                col, None if sample is None else X_sample[:, f]
            )
            cut_list.append(np.append(inner.astype(F32), _above(hi)))
            min_val[f] = _below(lo)
        self._bin(X32, cut_list, min_val)

    @classmethod
    def from_cuts(cls, X32, cuts, min_val, has_missing, exact_cuts=None, max_bin=256):
        """Bin ``X32`` with cut points found elsewhere, e.g. over data spread across machines
        (``teachgbt.dask``): ``cuts[f]`` is feature f's increasing cut points, the last one
        above every value; ``min_val[f]`` lies below every value; ``has_missing[f]``: whether
        the whole data (not only these rows) has NaN in feature f, so that every part binned
        with the same cuts gets the same codes and dtype."""
        X32 = np.asarray(X32, dtype=np.float32)
        self = cls.__new__(cls)
        self.n_rows, self.n_features = X32.shape
        self.max_bin = int(max_bin)
        self.trees = 1  # each part picks its kernels by its own size
        self.row_space = None  # hist.RowSpace: the row arrays a tree's growth works in
        d = self.n_features
        if len(cuts) != d or len(min_val) != d or len(has_missing) != d:
            raise ValueError(f"from_cuts needs cuts, min_val and has_missing for {d} features")
        self.has_missing = np.asarray(has_missing, dtype=bool)
        self.is_categorical = np.zeros(d, dtype=bool)
        self.exact_cuts = np.zeros(d, dtype=bool) if exact_cuts is None else exact_cuts
        self._bin(X32, [np.asarray(c, dtype=F32) for c in cuts], np.asarray(min_val, dtype=F32))
        return self

    def _bin(self, X32, cut_list, min_val):
        """Store the cut points and every row's bin code in each feature."""
        n, d = X32.shape
        self.n_bins = np.array([len(c) for c in cut_list], dtype=np.int64)
        K = int(self.n_bins.max())
        self.missing_code = K  # the last bin of every feature's histogram
        self.n_slots = K + 1  # bins per feature in a histogram: K value bins + missing
        self.cuts = np.full((d, K), np.inf, dtype=F32)
        for f, c in enumerate(cut_list):
            self.cuts[f, : len(c)] = c
        self.min_val = min_val
        dtype = self._codes_dtype(K)
        # one contiguous block of codes per feature: a node's rows are looked up in it
        self.bins = np.empty((d, n), dtype=dtype)
        kernels = numba_kernels(n * d, dtype)
        if kernels is not None:
            kernels.bin_codes(
                np.ascontiguousarray(X32), self.cuts, self.n_bins, self.missing_code, self.bins
            )
            return
        for f in range(d):
            col = X32[:, f]
            # bin code = number of cuts <= x (XGBoost's upper_bound search)
            code = np.searchsorted(cut_list[f], col, side="right")
            code[np.isnan(col)] = self.missing_code
            self.bins[f] = code

    def _codes_dtype(self, n_value_bins):
        """The bin codes' dtype for at most ``n_value_bins`` bins a feature (codes 0 ..
        n − 1) and the missing code after them, where any feature has missing values."""
        return np.uint8 if n_value_bins - 1 + self.has_missing.any() <= 255 else np.uint16

    def _inner_cuts(self, col, sampled=None):
        """Cut points below the last one, and whether they are all the distinct values
        (``sampled``: the column's values in the sampled rows, on large data)."""
        values = col if sampled is None else sampled
        v = np.sort(values[~np.isnan(values)])
        first = np.ones(len(v), dtype=bool)
        first[1:] = v[1:] != v[:-1]  # the first of each run of equal values
        if np.count_nonzero(first) > self.max_bin:
            return _quantile_cuts(v, self.max_bin), False
        distinct = v[first]
        if sampled is not None and not _all_among(col, distinct):  # did the sample see all?
            return self._inner_cuts(col)
        # XGBoost: every distinct value but the smallest is a cut point
        return distinct[1:], True

    @property
    def scan_bins(self):
        """The bins the numeric scan walks per feature: none for a categorical feature."""
        return np.where(self.is_categorical, 0, self.n_bins)

    def feature_cuts(self, f):
        """The cut points of feature f (bin c holds cut[c-1] <= x < cut[c])."""
        return self.cuts[f, : self.n_bins[f]].copy()

    def __repr__(self):
        return (
            f"<teachgbt.HistData: {self.n_rows} rows × {self.n_features} features, "
            f"up to {int(self.n_bins.max())} bins, codes {self.bins.dtype}>"
        )
