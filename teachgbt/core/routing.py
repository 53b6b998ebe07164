"""Which way a row goes at a split: the one routing rule, in each library's own comparison.

A tree keeps its threshold ``t`` as its library writes it and the name of its library's
comparison (``tree.rule``):

=================  ==========================================  ========================
rule               goes left when                              a missing value (NaN)
=================  ==========================================  ========================
``xgboost``        float32(x) < float32(t)  (teachgbt too)     ``default_left``
``lightgbm``       x ≤ t in float64; |x| ≤ 1e-35 reads as 0    by the node's missing type
``sklearn-hist``   x ≤ t in float64                            ``missing_go_to_left``
``sklearn-gb``     float32(x) ≤ t  (t a float64)               (refused by scikit-learn)
=================  ==========================================  ========================

Every router (``Tree.apply``/``predict``/``path``, the compiled kernels, contributions)
applies them in ONE form, :func:`goes_left`: ``x < T``, NaN → ``default_left``, with
``T`` (:func:`cut_points`) and the precision of ``x`` (:func:`prepare`) chosen per rule
so that the comparison is exactly the library's:

* ``x ≤ t`` in float64 is ``x < nextafter(t, +inf)`` in float64;
* float32(x) ≤ t is float32(x) < T32, T32 the next float32 above the largest float32 ≤ t;
* LightGBM's missing types become input preparation plus ``default_left``: with type
  None or Zero a NaN is read as 0, so it goes where 0 goes (type None: by 0 ≤ t, which
  the importer stores as ``default_left``); with type Zero, 0 itself is the missing value
  (``zero_missing`` names those features: 0 is turned into NaN before routing).

XGBoost's ``missing`` (a value that stands for "missing", NaN unless the model says
otherwise) is input preparation as well: ``tree.missing``.

A set split (``x ∈ S``, S a set of category codes) sends the codes in S left, the other codes
right and a missing value the default way. How a value reads as a code is the library's
(:func:`category_codes`): XGBoost truncates float32(x) and reads x < 0 or x ≥ 2^24 as no
category (it goes right, with the codes outside S); LightGBM truncates toward zero and reads
a negative result as no category; HistGradientBoosting reads a code no category has
(negative, not whole, or beyond the ones it saw in training) as missing, as its encoder
reads a category it never saw. teachgbt's own trees read codes as XGBoost does, so a
category never seen in training goes where XGBoost sends an out-of-range code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Rule",
    "RULES",
    "DEFAULT_RULE",
    "rule_of",
    "input_dtype",
    "takes_beyond_float32",
    "cut_points",
    "prepare",
    "goes_left",
    "NOT_A_CATEGORY",
    "MISSING_CATEGORY",
    "category_codes",
]


@dataclass(frozen=True)
class Rule:
    name: str
    op: str  # how the rule is written: "<" or "≤"
    dtype: type  # the precision the library compares inputs in
    zero_band: bool = False  # LightGBM: |x| ≤ 1e-35 reads as 0
    # the library predicts for finite inputs beyond float32 (XGBoost reads 1e300 as
    # float32 inf, which goes right); scikit-learn's trees refuse them
    beyond_float32: bool = True


RULES = {
    r.name: r
    for r in (
        Rule("xgboost", "<", np.float32),
        Rule("lightgbm", "≤", np.float64, zero_band=True),
        Rule("sklearn-hist", "≤", np.float64),
        Rule("sklearn-gb", "≤", np.float32, beyond_float32=False),
    )
}
DEFAULT_RULE = "xgboost"  # teachgbt's own trees compare as XGBoost does

# LightGBM's kZeroThreshold, a C++ float: inputs this close to 0 are dropped as zeros
LIGHTGBM_ZERO = float(np.float32(1e-35))


def rule_of(name):
    """The ``Rule`` called ``name`` (a clear error for an unknown one)."""
    try:
        return RULES[name]
    except KeyError:
        raise ValueError(f"unknown routing rule {name!r}; the rules are {sorted(RULES)}") from None


def input_dtype(trees):
    """The precision a model's inputs are checked in: float64 when any of its trees
    compares float64 values (so 1e300 is a number there), else float32."""
    wide = any(rule_of(tree.rule).dtype == np.float64 for tree in trees)
    return np.float64 if wide else np.float32


def takes_beyond_float32(trees):
    """Whether every tree's library predicts for finite inputs beyond float32."""
    return all(rule_of(tree.rule).beyond_float32 for tree in trees)


def cut_points(rule, threshold):
    """The thresholds ``T`` of the canonical ``x < T``, in the rule's precision."""
    t = np.asarray(threshold, dtype=np.float64)
    r = rule_of(rule)
    if r.op == "<":
        return t.astype(np.float32)
    if r.dtype == np.float64:
        return np.nextafter(t, np.inf)
    # float32(x) ≤ t: the largest float32 ≤ t, then the next float32 above it
    with np.errstate(over="ignore"):
        f = t.astype(np.float32)
    f = np.where(f.astype(np.float64) > t, np.nextafter(f, np.float32(-np.inf)), f)
    return np.nextafter(f, np.float32(np.inf))


def prepare(X, rule, missing=np.nan, zero_missing=()):
    """X as the library reads it before comparing: in the rule's precision, values equal
    to ``missing`` made NaN, LightGBM's near-zeros made 0 and, on the ``zero_missing``
    features, 0 made NaN. Returns X itself when nothing changes (no copy)."""
    r = rule_of(rule)
    with np.errstate(over="ignore"):
        out = np.ascontiguousarray(X, dtype=r.dtype)
    if not np.isnan(missing):
        out = np.where(out == r.dtype(missing), r.dtype(np.nan), out)
    if r.op == "≤" and r.dtype == np.float64 and np.isposinf(out).any():
        # x = +inf: x ≤ t holds only for t = +inf (HistGradientBoosting splits NaN off with
        # x ≤ inf), and x < nextafter(t) cannot say so; the largest float does, for every
        # threshold but the largest float itself
        out = np.where(np.isposinf(out), np.finfo(np.float64).max, out)
    if r.zero_band and (np.abs(out[~np.isnan(out)]) <= LIGHTGBM_ZERO).any():
        out = np.where(np.abs(out) <= LIGHTGBM_ZERO, r.dtype(0), out)
    if len(zero_missing):
        cols = list(zero_missing)
        out = out.copy() if out is X else out
        part = out[:, cols]
        out[:, cols] = np.where(part == 0, r.dtype(np.nan), part)
    return np.ascontiguousarray(out)


def goes_left(x, T, default_left):
    """The rule itself: ``x < T`` goes left; a missing value goes the default way."""
    return np.where(np.isnan(x), default_left, x < T)


# what a value reads as at a set split, besides a category code (codes are >= 0)
NOT_A_CATEGORY = -1  # goes where the codes outside the set go (right)
MISSING_CATEGORY = -2  # goes the default way, as a missing value
XGBOOST_CATEGORY_LIMIT = 2**24  # XGBoost's InvalidCat: a code must be below 2^24
_INT_LIMIT = 2**31  # LightGBM casts to a C int: a value beyond it reads as negative


def category_codes(x, rule, n_known=None):
    """The category code each value of ``x`` reads as at a set split, as the tree's library
    reads it (x already ``prepare``d): an int64 code >= 0, ``NOT_A_CATEGORY`` or
    ``MISSING_CATEGORY``. ``n_known``: the number of categories known per value (codes
    0 … n_known − 1), which HistGradientBoosting's rule needs."""
    x = np.asarray(x, dtype=np.float64)
    nan = np.isnan(x)
    with np.errstate(invalid="ignore", over="ignore"):
        inner = np.clip(np.where(nan, 0.0, x), -_INT_LIMIT, _INT_LIMIT)
        code = np.trunc(inner).astype(np.int64)  # C's cast to an integer truncates toward 0
    name = rule_of(rule).name
    if name == "lightgbm":  # static_cast<int>, then int_fval < 0 goes right
        code = np.where((code < 0) | (x >= _INT_LIMIT), NOT_A_CATEGORY, code)
    elif name == "sklearn-hist":  # x < 0, and codes no known category has, are missing
        known = np.full(x.shape, np.inf) if n_known is None else np.asarray(n_known)
        code = np.where((x < 0) | (code >= known) | (code != inner), MISSING_CATEGORY, code)
    else:  # XGBoost's InvalidCat, checked on the float before the cast
        code = np.where((x < 0) | (x >= XGBOOST_CATEGORY_LIMIT), NOT_A_CATEGORY, code)
    return np.where(nan, MISSING_CATEGORY, code)
