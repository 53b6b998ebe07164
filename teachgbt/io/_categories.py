"""Reading the set splits of other libraries' models: which category codes each set split
holds, which way it sends them, and the names of the codes.

=====================  ==============================  ===================  ================
library                a set split in the file          its set goes         missing / unseen
=====================  ==============================  ===================  ================
XGBoost JSON / UBJSON  ``split_type`` 1; codes in       **right**            default / right
                       ``categories`` (by node:                              (not in the set)
                       ``categories_nodes``,
                       ``_segments``, ``_sizes``)
LightGBM text          ``decision_type`` bit 1;         left                 right / right
                       ``threshold`` = i, the bitset
                       ``cat_threshold[cat_boundaries
                       [i]:cat_boundaries[i+1]]``
HistGradientBoosting   ``is_categorical``; the row      left                 default / default
                       ``bitset_idx`` of
                       ``raw_left_cat_bitsets``
=====================  ==============================  ===================  ================

A teachgbt tree sends its set left (``x ∈ S``? yes), so an XGBoost set split has its children
swapped and its default direction flipped; node ids stay XGBoost's. A bitset holds code c when
bit c % 32 of its word c // 32 is set. Names: XGBoost keeps the categories of a DataFrame's
columns (``cats``), LightGBM a ``pandas_categorical`` line, HistGradientBoosting its ordinal
encoder's sorted categories.
"""

from __future__ import annotations

import json

import numpy as np

from ..core import ModelFileError, int_array, routing

__all__ = [
    "bitset_codes",
    "xgboost_set_splits",
    "xgboost_category_names",
    "lightgbm_sets",
    "lightgbm_category_names",
    "hgb_categories",
    "decode_codes",
    "set_probes",
]

_MAX_WORDS = 1 << 19  # a bitset of 2^24 codes; more is a corrupted file


def bitset_codes(words, where):
    """The codes a bitset of uint32 ``words`` holds (bit c % 32 of word c // 32)."""
    w = np.asarray(words, dtype=np.int64)
    if w.size > _MAX_WORDS or (w < 0).any() or (w >= 2**32).any():
        raise ModelFileError(f"{where}: its category bitset is not a list of 32-bit words")
    bits = (w.astype(np.uint32)[:, None] >> np.arange(32, dtype=np.uint32)) & 1
    return np.flatnonzero(bits.reshape(-1)).astype(np.int64)


# ------------------------------------------------------------------ XGBoost
def xgboost_set_splits(t, k, left, right, default_left):
    """XGBoost tree ``t``'s set splits: ``(left, right, default_left, sets)`` with the
    children of each set split swapped and its default flipped (teachgbt sends the set
    left), and ``sets`` {node: codes}."""
    n = len(left)
    split_type = np.asarray(t.get("split_type", np.zeros(n)))
    if len(split_type) != n or not (split_type != 0).any():
        return left, right, default_left, {}
    where = f"tree {k}"
    nodes = int_array(t.get("categories_nodes", []), "categories_nodes", where)
    starts = int_array(t.get("categories_segments", []), "categories_segments", where)
    sizes = int_array(t.get("categories_sizes", []), "categories_sizes", where)
    codes = int_array(t.get("categories", []), "categories", where)
    if not len(nodes) == len(starts) == len(sizes):
        raise ModelFileError(f"{where}: its categories_nodes, _segments, _sizes differ in length")
    sets = {}
    for i, start, size in zip(nodes, starts, sizes):
        if not 0 <= i < n or left[i] < 0 or split_type[i] == 0:
            raise ModelFileError(f"{where}: categories_nodes names {int(i)}, not a set split")
        if start < 0 or size < 1 or start + size > len(codes):
            raise ModelFileError(f"{where}, node {int(i)}: its categories segment is out of range")
        c = codes[start : start + size]
        if (c < 0).any() or (c >= routing.XGBOOST_CATEGORY_LIMIT).any():
            raise ModelFileError(f"{where}, node {int(i)}: a category code outside 0 … 2^24 − 1")
        sets[int(i)] = np.unique(c)
    missed = [i for i in np.flatnonzero((split_type != 0) & (left >= 0)) if int(i) not in sets]
    if missed:
        raise ModelFileError(f"{where}, node {int(missed[0])}: a set split without categories")
    on = np.zeros(n, dtype=bool)
    on[list(sets)] = True
    new_left, new_right = np.where(on, right, left), np.where(on, left, right)
    return new_left, new_right, np.where(on, ~default_left.astype(bool), default_left), sets


def xgboost_category_names(booster_model, n_features):
    """{feature: categories} from XGBoost's ``cats`` (the DataFrame's categories, in code
    order): strings as UTF-8 bytes with offsets, numbers as values; {} when absent."""
    cats = booster_model.get("cats") if isinstance(booster_model, dict) else None
    enc = cats.get("enc") if isinstance(cats, dict) else None
    if not isinstance(enc, list):
        return {}
    out = {}
    for j, e in enumerate(enc[:n_features]):
        if not isinstance(e, dict):
            continue
        values = np.asarray(e.get("values", []))
        if "offsets" in e:
            offsets = np.asarray(e["offsets"], dtype=np.int64)
            raw = bytes(np.asarray(values, dtype=np.uint8))
            names = [raw[a:b].decode("utf-8", "replace") for a, b in zip(offsets, offsets[1:])]
        else:
            names = [v.item() for v in values]
        if names:
            out[j] = names
    return out


# ------------------------------------------------------------------ LightGBM
def lightgbm_sets(t, k, decision_type, threshold, numbers):
    """{split index: codes} of LightGBM tree ``t``'s set splits (``decision_type`` bit 1):
    the bitset ``cat_threshold[cat_boundaries[i]:cat_boundaries[i+1]]`` of i = threshold.
    ``numbers(t, key, k, dtype)``: the reader's field parser."""
    on = np.flatnonzero(decision_type & 1)
    if not len(on):
        return {}
    where = f"tree {k}"
    bounds = numbers(t, "cat_boundaries", k, np.int64)
    words = numbers(t, "cat_threshold", k, np.int64)
    if len(bounds) < 2 or bounds[0] != 0 or (np.diff(bounds) < 0).any() or bounds[-1] > len(words):
        raise ModelFileError(f"{where}: its cat_boundaries do not index cat_threshold")
    sets = {}
    for i in on:
        c = threshold[i]
        if c != int(c) or not 0 <= c < len(bounds) - 1:
            raise ModelFileError(f"{where}, split {int(i)}: its category set {c!r} is not listed")
        codes = bitset_codes(words[bounds[int(c)] : bounds[int(c) + 1]], f"{where}, split {int(i)}")
        if not len(codes):
            raise ModelFileError(f"{where}, split {int(i)}: an empty category set")
        sets[int(i)] = codes
    return sets


def lightgbm_category_names(text, feature_infos, n_features):
    """{feature: categories} from the model text's ``pandas_categorical`` line: its k-th
    list names the codes of the k-th categorical feature (``feature_infos`` a list of codes,
    not a [min:max] range); {} when the line is absent or does not fit."""
    line = next(
        (ln for ln in reversed(text.splitlines()) if ln.startswith("pandas_categorical:")), ""
    )
    try:
        lists = json.loads(line.partition(":")[2]) if line else None
    except json.JSONDecodeError:
        return {}
    infos = feature_infos.split()
    categorical = [j for j, info in enumerate(infos[:n_features]) if not info.startswith("[")
                   and info != "none"]  # fmt: skip
    if not isinstance(lists, list) or len(lists) != len(categorical):
        return {}
    return {j: list(v) for j, v in zip(categorical, lists) if isinstance(v, list)}


# ------------------------------------------------------------------ HistGradientBoosting
def hgb_categories(model):
    """``(original, names)`` for a HistGradientBoosting model: ``original[i]`` the column
    of X that the predictors' feature i is (categorical columns come first there, after
    its encoder), and {column: categories} (the encoder's, sorted; codes are their ranks).
    Without categorical features: (None, {})."""
    is_cat = getattr(model, "is_categorical_", None)
    if is_cat is None or not np.any(is_cat):
        return None, {}
    is_cat = np.asarray(is_cat, dtype=bool)
    original = np.concatenate([np.flatnonzero(is_cat), np.flatnonzero(~is_cat)])
    encoder = model._preprocessor.named_transformers_["encoder"]
    names = {}
    for j, cats in zip(np.flatnonzero(is_cat), encoder.categories_):
        values = [c.item() if hasattr(c, "item") else c for c in cats]
        names[int(j)] = [v for v in values if not (isinstance(v, float) and v != v)]
    return original, names


def decode_codes(X, categories):
    """X (codes) with each categorical column's codes as its categories (an object array);
    a code that names none of them (NaN, negative, too large, not whole) becomes NaN,
    which the library reads as missing, as it reads a category it never saw."""
    out = np.asarray(X, dtype=np.float64).astype(object)
    for j, names in categories.items():
        col = np.asarray(X, dtype=np.float64)[:, j]
        known = np.isfinite(col) & (col >= 0) & (col < len(names)) & (col == np.floor(col))
        out[:, j] = [names[int(c)] if ok else np.nan for c, ok in zip(col, known)]
    return out


# ------------------------------------------------------------------ self-check probes
def set_probes(trees, n_features):
    """Per feature, inputs that test its set splits: every code in a set, its neighbours,
    a code past the largest, −1, 2^24, a fraction; [] for features with no set split."""
    out = [[] for _ in range(n_features)]
    for tree in trees:
        for i, codes in tree.sets.items():
            out[int(tree.feature[i])].append(codes)
    probes = []
    for parts in out:
        if not parts:
            probes.append(np.zeros(0))
            continue
        codes = np.unique(np.concatenate(parts)).astype(np.float64)
        extra = [codes.max() + 1, -1.0, 2.0**24, codes.min() + 0.5]
        probes.append(np.concatenate([codes, codes - 1, codes + 1, extra]))
    return probes
