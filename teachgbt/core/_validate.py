"""What a valid tree is: checked on every tree built from numbers read from a file.

A model file is data someone else wrote: a child index out of range sends the compiled
predict outside its arrays, a cycle makes every walk spin, a huge count asks for all the
memory there is. These checks run on the numbers as read (teachgbt JSON, XGBoost JSON or
UBJSON, LightGBM text), so that what comes after may trust them: every child index is in
range, every node is reached exactly once from the root, depths and parents agree with
the children, features lie in 0..n_features-1, leaf values are finite. A broken file
raises ``ModelFileError`` (a ``ValueError``) naming the tree, the node and what is wrong.

File-level fields (counts, an XGBoost learner's fields) are ``teachgbt.io``'s checks, which
end here for each tree. The checks are vectorized: a model of a million nodes is checked in
well under a second.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import routing

__all__ = [
    "ModelFileError",
    "MAX_FEATURES",
    "MAX_DEPTH",
    "check_tree",
    "check_structure",
    "check_count",
    "check_imported_tree",
    "check_values",
    "check_sets",
    "int_array",
    "float_array",
    "shorten",
]

MAX_FEATURES = 1 << 20  # a million features: more is a corrupted count (every view lists them)
MAX_DEPTH = 100_000  # no trained tree is this deep; a file saying so is corrupted
_SHOWN = 80  # characters of a value a message shows
_STATS = ("G", "H", "weight", "gain", "loss_chg", "cover")  # per-node numbers besides the routing


class ModelFileError(ValueError):
    """A model file whose content cannot be a model: the message says where and why."""


def shorten(value, limit=_SHOWN):
    """``repr(value)``, cut to ``limit`` characters (a 20 MB cell is not echoed whole)."""
    text = value if isinstance(value, str) and value.startswith("'") else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_count(name, value, low=0, high=None, where=""):
    """``value`` as an int in ``low..high``; a float such as 3.0 passes, "3" does not."""
    at = f"{where}: " if where else ""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float)):
        raise ModelFileError(f"{at}{name} is {shorten(value)}, not a whole number")
    if isinstance(value, float) and not (math.isfinite(value) and value == int(value)):
        raise ModelFileError(f"{at}{name} is {shorten(value)}, not a whole number")
    v = int(value)
    if v < low or (high is not None and v > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ModelFileError(f"{at}{name} is {v}; it must be {bound}")
    return v


def int_array(values, name, where):
    try:
        a = np.asarray(values)
    except (TypeError, ValueError):
        raise ModelFileError(f"{where}: {name} is not a list of numbers") from None
    if a.ndim != 1:
        raise ModelFileError(f"{where}: {name} is not a flat list of numbers")
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    if a.dtype.kind == "b" or a.size == 0:
        return a.astype(np.int64)
    if a.dtype.kind != "f":
        raise ModelFileError(f"{where}: {name} holds something that is not a whole number")
    bad = ~np.isfinite(a) | (a != np.round(a)) | (np.abs(a) > 2**62)
    if bad.any():
        i = int(np.argmax(bad))
        raise ModelFileError(f"{where}, node {i}: {name} is {float(a[i])!r}, not a node id")
    return a.astype(np.int64)


def float_array(values, name, where):
    try:
        a = np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ModelFileError(f"{where}: {name} holds something that is not a number") from None
    if a.ndim != 1:
        raise ModelFileError(f"{where}: {name} is not a flat list of numbers")
    return a


def check_structure(left, right, split, where="the tree", all_reached=True):
    """The depth of every node (-1: not reached), after checking that the children of
    the ``split`` nodes make one tree rooted at node 0: walking from the root level by
    level, every child is in range and reached for the first time (no cycle, no
    self-link, no node with two parents); with ``all_reached`` every node must be reached
    (XGBoost keeps pruned nodes in its arrays: there only what the root reaches counts).
    Leaves' own child entries are not looked at."""
    left, right = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
    split = np.asarray(split, dtype=bool)
    n = len(split)
    if n == 0:
        raise ModelFileError(f"{where} has no nodes")
    depth = np.full(n, -1, dtype=np.int64)
    depth[0] = 0
    frontier, level = np.array([0]), 0
    while frontier.size:  # each level reaches new nodes only, so this ends
        owner = frontier[split[frontier]]
        owner = np.concatenate([owner, owner])
        kids = np.concatenate([left[owner[: len(owner) // 2]], right[owner[: len(owner) // 2]]])
        out = (kids < 0) | (kids >= n)
        if out.any():
            i = int(np.argmax(out))
            side = "left" if i < len(kids) // 2 else "right"
            raise ModelFileError(
                f"{where}, node {int(owner[i])}: its {side} child {int(kids[i])} is not one of "
                f"the tree's {n} nodes"
            )
        again = depth[kids] >= 0
        if again.any():
            i = int(np.argmax(again))
            o, c = int(owner[i]), int(kids[i])
            what = "itself" if o == c else "the root" if c == 0 else f"node {c}, reached before"
            raise ModelFileError(
                f"{where}, node {o}: it links to {what} (a cycle, or a node with two parents)"
            )
        uniq, first, counts = np.unique(kids, return_index=True, return_counts=True)
        if (counts > 1).any():
            c = int(uniq[np.argmax(counts > 1)])
            raise ModelFileError(
                f"{where}, node {c}: it is the child of two links (node "
                f"{int(owner[first[np.argmax(counts > 1)]])} and another)"
            )
        level += 1
        depth[kids] = level
        frontier = kids
    if all_reached and (depth < 0).any():
        raise ModelFileError(
            f"{where}, node {int(np.argmax(depth < 0))}: it is not reached from the root "
            "(a cycle, or a node no split leads to)"
        )
    return depth


def check_tree(d, n_features, where="the tree", leaf_marker="negative"):
    """Check one tree of a teachgbt model file (the dict ``Tree.to_dict`` writes).

    ``left``, ``right``, ``parent``, ``feature``, ``depth``, ``threshold``, ``value``
    must have one entry per node; a split (``feature`` >= 0) names a feature below
    ``n_features`` and two children; a leaf has feature -1; the stored depths and parents
    must be the ones the children imply; split thresholds must not be NaN and leaf values
    must be finite."""
    if not isinstance(d, dict):
        raise ModelFileError(f"{where} is not a JSON object")
    n_features = check_count("n_features", n_features, 1, MAX_FEATURES, where)
    missing = [k for k in ("left", "right", "feature", "threshold", "value") if k not in d]
    if missing:
        raise ModelFileError(f"{where} lacks {', '.join(missing)}")
    arrays = {k: d[k] for k in ("left", "right", "feature", "parent", "depth") if k in d}
    per_node = ("threshold", "value", "default_left", "n") + _STATS
    for k, v in list(arrays.items()) + [(k, d[k]) for k in per_node if k in d]:
        if not isinstance(v, (list, tuple, np.ndarray)):
            raise ModelFileError(f"{where}: {k} is {shorten(v)}, not a list")
    n = len(d["feature"])
    for k, v in d.items():
        per_node = k not in ("feature_names", "zero_missing")  # those are per feature
        if isinstance(v, (list, tuple, np.ndarray)) and per_node and len(v) != n:
            raise ModelFileError(f"{where}: {k} has {len(v)} entries for {n} nodes")
    ints = {k: int_array(v, k, where) for k, v in arrays.items()}
    feature = ints["feature"]
    odd = feature < -1
    if odd.any():
        i = int(np.argmax(odd))
        raise ModelFileError(f"{where}, node {i}: feature {int(feature[i])} (a leaf has -1)")
    split = feature >= 0
    wide = feature >= n_features
    if wide.any():
        i = int(np.argmax(wide))
        raise ModelFileError(
            f"{where}, node {i}: it splits on feature {int(feature[i])}, but the model has "
            f"{n_features} features (0 to {n_features - 1})"
        )
    for side in ("left", "right"):
        stray = ~split & (ints[side] != -1)
        if stray.any():
            i = int(np.argmax(stray))
            raise ModelFileError(
                f"{where}, node {i}: a leaf (feature -1) with {side} child {int(ints[side][i])} "
                "(a leaf has -1)"
            )
    depth = check_structure(ints["left"], ints["right"], split, where)
    if "depth" in ints and not np.array_equal(ints["depth"], depth):
        i = int(np.argmax(ints["depth"] != depth))
        raise ModelFileError(
            f"{where}, node {i}: its depth is {int(ints['depth'][i])}, but the links put it "
            f"at depth {int(depth[i])}"
        )
    if "parent" in ints:
        parent = np.full(n, -1, dtype=np.int64)
        ids = np.flatnonzero(split)
        parent[ints["left"][ids]] = ids
        parent[ints["right"][ids]] = ids
        wrong = ints["parent"] != parent
        if wrong.any():
            i = int(np.argmax(wrong))
            raise ModelFileError(
                f"{where}, node {i}: its parent is {int(ints['parent'][i])}, but the links "
                f"make it {int(parent[i])}"
            )
    threshold = float_array(d["threshold"], "threshold", where)
    on_set = check_sets(d.get("sets"), d.get("category_names"), split, n_features, where)
    check_values(threshold, float_array(d["value"], "value", where), split & ~on_set, where)
    for k in _STATS:  # what the Tree stores as numbers must be numbers
        if k in d:
            float_array(d[k], k, where)
    if "n" in d:
        int_array([-1 if v is None else v for v in d["n"]], "n", where)
    _check_routing(d, n_features, where)
    extra = d.get("extra") or {}
    if not isinstance(extra, dict):
        raise ModelFileError(f"{where}: extra is not an object")
    for k, v in extra.items():
        if not isinstance(v, list) or len(v) != n:
            raise ModelFileError(f"{where}: extra column {shorten(k)} has not one entry per node")

    return depth


def _check_routing(d, n_features, where):
    """The tree's comparison (``routing``): a known rule, a number or null for the missing
    marker, and features (not nodes) whose 0 is read as missing."""
    rule = d.get("rule", routing.DEFAULT_RULE)
    if rule not in routing.RULES:
        raise ModelFileError(f"{where}: rule {shorten(rule)} is not one of {sorted(routing.RULES)}")
    missing = d.get("missing")
    if missing is not None and (isinstance(missing, bool) or not isinstance(missing, (int, float))):
        raise ModelFileError(f"{where}: missing is {shorten(missing)}, not a number or null")
    zero = d.get("zero_missing", [])
    if not isinstance(zero, list):
        raise ModelFileError(f"{where}: zero_missing is not a list of features")
    bad = [j for j in int_array(zero, "zero_missing", where) if not 0 <= j < n_features]
    if bad:
        raise ModelFileError(
            f"{where}: zero_missing names feature {bad[0]}, but the model has {n_features} "
            f"features (0 to {n_features - 1})"
        )


MAX_CATEGORY = 2**31 - 1  # a category code is a C int in every library
MAX_SET_CODES = 1 << 24  # codes in one tree's sets, at most (XGBoost's codes are below 2^24)


def check_sets(sets, category_names, split, n_features, where="the tree"):
    """The set splits of a tree file (``{node: [codes]}``, each on a split node, codes whole
    numbers in 0 … 2^31 − 1, not too many) and its category names (``{feature: [names]}``,
    features in range). Returns the mask of set-split nodes."""
    split = np.asarray(split, dtype=bool)
    on_set = np.zeros(len(split), dtype=bool)
    if category_names is not None:
        if not isinstance(category_names, dict):
            raise ModelFileError(f"{where}: category_names is not an object")
        for j, names in category_names.items():
            f = check_count("a feature of category_names", _as_int(j), 0, n_features - 1, where)
            if not isinstance(names, list) or not all(
                isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in names
            ):
                raise ModelFileError(
                    f"{where}: the categories of feature {f} are not a list of names or numbers"
                )
            if len(set(names)) != len(names):
                raise ModelFileError(f"{where}: feature {f} lists a category twice")
    if sets is None:
        return on_set
    if not isinstance(sets, dict):
        raise ModelFileError(f"{where}: sets is not an object (node: [category codes])")
    total = 0
    for key, codes in sets.items():
        i = check_count("a node of sets", _as_int(key), 0, len(split) - 1, where)
        if not split[i]:
            raise ModelFileError(f"{where}, node {i}: a set of categories on a leaf")
        if not isinstance(codes, list) or not codes:
            raise ModelFileError(f"{where}, node {i}: its set is not a list of category codes")
        total += len(codes)
        if total > MAX_SET_CODES:
            raise ModelFileError(f"{where}: its sets hold more than {MAX_SET_CODES} codes")
        a = int_array(codes, "its set", f"{where}, node {i}")
        bad = a[(a < 0) | (a > MAX_CATEGORY)]
        if bad.size:
            raise ModelFileError(
                f"{where}, node {i}: its set holds the code {int(bad[0])}; category codes are "
                f"whole numbers from 0 to {MAX_CATEGORY}"
            )
        on_set[i] = True
    return on_set


def _as_int(key):
    """A JSON object's key as the whole number it spells ("3" -> 3), else the key itself."""
    try:
        return int(key) if isinstance(key, str) and key.strip().lstrip("-").isdigit() else key
    except ValueError:
        return key


def check_values(threshold, value, split, where="the tree"):
    """Split thresholds must be numbers (±inf allowed: all or no values pass) and leaf
    values finite: a NaN there makes every prediction through it NaN."""
    nan = split & np.isnan(threshold)
    if nan.any():
        raise ModelFileError(f"{where}, node {int(np.argmax(nan))}: its threshold is NaN")
    bad = ~split & ~np.isfinite(value)
    if bad.any():
        i = int(np.argmax(bad))
        raise ModelFileError(
            f"{where}, node {i}: its leaf value is {float(value[i])!r}; every prediction "
            "reaching it would be that"
        )


def check_imported_tree(left, right, feature, leaf_value, n_features, where, all_reached=True):
    """One tree of another library's model as node arrays (a leaf's ``left`` is negative):
    one tree from the root, features in range, leaf values finite (of the nodes the root
    reaches). Returns the depths (-1: a node not reached)."""
    left = np.asarray(left, dtype=np.int64)
    depth = check_structure(left, right, left >= 0, where, all_reached)
    split = (left >= 0) & (depth >= 0)
    feature = np.asarray(feature, dtype=np.int64)
    wide = split & ((feature < 0) | (feature >= n_features))
    if wide.any():
        i = int(np.argmax(wide))
        raise ModelFileError(
            f"{where}, node {i}: it splits on feature {int(feature[i])}, but the model has "
            f"{n_features} features (0 to {n_features - 1})"
        )
    value = np.asarray(leaf_value, dtype=np.float64)
    if value.shape == split.shape:  # one array: thresholds on splits, values on leaves
        check_values(value, np.where(depth >= 0, value, 0.0), split, where)
    elif not np.isfinite(value).all():
        i = int(np.argmax(~np.isfinite(value)))
        raise ModelFileError(f"{where}, leaf {i}: its value is {float(value[i])!r}")
    return depth
