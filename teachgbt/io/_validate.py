"""What a model file of each library must hold before its trees are built.

``teachgbt.core``'s validator knows what a valid tree is (children in range, one tree from
the root, finite values); this module checks the rest of a file: the counts it declares
(features, classes, trees), the model-level fields of a teachgbt file, every field of an
XGBoost learner that XGBoost's own reader or the importer reads (a wrong ``tree_info``,
``iteration_indptr`` or ``parents`` made XGBoost's reader write outside its arrays), and
the layout of a LightGBM text (one model, trees in order, ``tree_sizes`` true to the
bytes). Every refusal is a ``ModelFileError`` naming the tree and node. What these checks
let through, the library still reads in a child process (``_library``).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..core import (
    MAX_FEATURES,
    ModelFileError,
    check_count,
    check_imported_tree,
    check_sets,
    float_array,
    shorten,
)

__all__ = [
    "check_model_dict",
    "check_model_counts",
    "check_xgboost",
    "check_lightgbm_layout",
    "check_tree_sizes",
]

_FLOAT32_MAX = float(np.finfo(np.float32).max)


# the longest origin a file may give ("imported from LightGBM (<a path>)", ...)
MAX_ORIGIN = 4096


def check_model_dict(d):
    """The model-level numbers of a teachgbt model file: counts in range and consistent,
    and each tree's own fields; its nodes are ``check_tree``'s (``Tree.from_dict`` calls
    it). Raises ``ModelFileError``."""
    n_features = check_count("n_features_in", d.get("n_features_in"), 1, MAX_FEATURES)
    trees = d.get("trees")
    if not isinstance(trees, list):
        raise ModelFileError("its 'trees' is not a list")
    names = d.get("feature_names_in")
    if names is not None and (not isinstance(names, list) or len(names) != n_features):
        raise ModelFileError(f"feature_names_in does not name the model's {n_features} features")
    classes = d.get("classes")
    if classes is not None and (not isinstance(classes, list) or len(classes) > len(trees) + 2):
        raise ModelFileError("its classes are not a list with one class per tree of a round")
    scores = np.atleast_1d(np.asarray(float_array(np.atleast_1d(d.get("base_score")).tolist(),
                                              "base_score", "the model")))  # fmt: skip
    if not np.isfinite(scores).all():
        raise ModelFileError(f"its base_score {shorten(d.get('base_score'))} is not finite")
    origin = d.get("origin")
    if origin is not None and (not isinstance(origin, str) or len(origin) > MAX_ORIGIN):
        raise ModelFileError(f"its origin {shorten(origin)} is not a line of text")
    per_round = max(len(scores), 1)
    n_rounds = len(trees) // per_round
    best = d.get("best_iteration")
    if best is not None:
        check_count("best_iteration", best, 0, max(n_rounds - 1, 0))
    check_sets(None, d.get("categories"), [], n_features, "the model")  # category names
    for k, t in enumerate(trees):
        where = f"tree {k + 1}"
        if not isinstance(t, dict):
            raise ModelFileError(f"{where} is not a JSON object")
        _check_tree_fields(t, n_features, per_round, where)
        tree_features = t.get("n_features", n_features)
        if tree_features != n_features:
            raise ModelFileError(
                f"{where}: it has {shorten(tree_features)} features; the model has {n_features}"
            )


def _check_tree_fields(t, n_features, per_round, where):
    """A tree's own fields beside its node arrays: names, learning rate, round, class."""
    names = t.get("feature_names")
    if names is not None and (not isinstance(names, list) or len(names) != n_features):
        raise ModelFileError(f"{where}: its feature_names do not name the {n_features} features")
    lr = t.get("learning_rate", 1.0)
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr):
        raise ModelFileError(f"{where}: its learning_rate {shorten(lr)} is not a finite number")
    if t.get("round") is not None:
        check_count("round", t["round"], 1, None, where)
    if t.get("class") is not None:
        check_count("class", t["class"], 0, max(per_round - 1, 0), where)


def check_model_counts(library, n_features, n_classes, n_trees):
    """Counts of an XGBoost or LightGBM model file: features within ``MAX_FEATURES``, and
    no more classes (trees a round) than the file has trees (a count of 10⁹ classes
    would ask for gigabytes before anything else is read)."""
    check_count("the number of features", n_features, 1, MAX_FEATURES, f"this {library} model")
    check_count("the number of classes", n_classes, 0, max(n_trees, 3), f"this {library} model")


_DELETED = 2**31 - 1  # XGBoost's split index of a pruned (deleted) node, with default_left
_MAX_CATEGORY = 2**24  # categories are read as float32: every code below 2**24 is exact
_FEATURE_TYPES = ("float", "int", "i", "q", "c")


def check_xgboost(learner):
    """Every field of an XGBoost model (its ``learner`` object, from JSON or UBJSON) that
    XGBoost's own reader or teachgbt's importer reads, before either does: counts as
    whole numbers in range and consistent with each other (trees, tree_info,
    iteration_indptr, classes, targets), each tree's node arrays (lengths, children,
    parents, features, default_left, statistics, categories), the feature names and types
    and the category container. A file that passes cannot send XGBoost's reader outside
    its arrays."""
    if not isinstance(learner, dict):
        raise ModelFileError("its 'learner' is not an object")
    lmp = _object(learner, "learner_model_param", "the model")
    gb = _object(learner, "gradient_booster", "the model")
    if gb.get("name") == "dart":  # dart keeps its gbtree one level down, beside the weights
        _weight_drop(gb)
        gb = _object(gb, "gbtree", "the dart booster")
    elif gb.get("name") != "gbtree":
        return  # gblinear (no trees) is refused by the importer, by name
    model = _object(gb, "model", "the gradient booster")
    n_features = _number_text(lmp.get("num_feature"), "num_feature", 1, MAX_FEATURES)
    n_classes = _number_text(lmp.get("num_class", "0"), "num_class", 0, None)
    n_targets = _number_text(lmp.get("num_target", "1"), "num_target", 1, None)
    gmp = _object(model, "gbtree_model_param", "the model")
    n_trees = _number_text(gmp.get("num_trees"), "num_trees", 0, None)
    n_parallel = _number_text(gmp.get("num_parallel_tree", "1"), "num_parallel_tree", 1, None)
    trees = model.get("trees")
    if not isinstance(trees, list):
        raise ModelFileError("its trees are not a list")
    if len(trees) != n_trees:
        raise ModelFileError(f"it says num_trees {n_trees} but holds {len(trees)} trees")
    check_model_counts("XGBoost", n_features, n_classes, n_trees)
    if n_targets > 1:
        return  # several targets (vector leaves): refused by the importer
    vector = [_check_xgboost_tree(t, k, n_features) for k, t in enumerate(trees)]
    if any(vector):
        return  # vector leaves (several outputs a tree): refused by the importer
    groups = max(n_classes, 1)  # margins, one tree each a round
    _check_tree_info(model, n_trees, groups, groups * n_parallel)
    _check_features(learner, n_features)
    _check_base_score(lmp, learner, groups)
    _check_best_iteration(learner, n_trees // (groups * n_parallel) if n_trees else 0)
    _check_cats(model.get("cats"), n_features)


def _weight_drop(dart):
    """dart's per-tree weights: numbers, no more of them than trees (XGBoost checks that
    much itself; the importer wants one per tree)."""
    weights = dart.get("weight_drop", [])
    a = _as_array(weights, "weight_drop", "the dart booster")
    if a.dtype.kind not in "iuf" and a.size:
        raise ModelFileError(f"its weight_drop holds {shorten(a.tolist()[:3])}, not numbers")


def _object(d, key, owner):
    v = d.get(key)
    if not isinstance(v, dict):
        what = "lacks" if v is None else "has something other than an object for"
        raise ModelFileError(f"{owner} {what} {key!r}")
    return v


def _check_tree_info(model, n_trees, groups, per_round):
    """``tree_info`` (each tree's margin) and ``iteration_indptr`` (where each round
    starts): XGBoost writes its predictions by them, so a value out of range writes
    outside its arrays."""
    _ints(model.get("tree_info"), "tree_info", "the model", n_trees, 0, groups - 1, "")
    if "iteration_indptr" not in model:
        return  # written since 2.0; older files have the rounds from tree_info
    ptr = _ints(model["iteration_indptr"], "iteration_indptr", "the model", None, 0, n_trees, "")
    rounds = n_trees // per_round if n_trees % per_round == 0 else None
    expected = None if rounds is None else np.arange(rounds + 1) * per_round
    if expected is None or not np.array_equal(ptr, expected):
        raise ModelFileError(
            f"its iteration_indptr {shorten(ptr.tolist())} does not mark rounds of "
            f"{per_round} tree{'s' * (per_round > 1)} (0, {per_round}, ... up to {n_trees})"
        )


def _check_features(learner, n_features):
    for key in ("feature_names", "feature_types"):
        v = learner.get(key, [])
        if v is None:
            continue
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ModelFileError(f"its {key} are not a list of texts")
        if len(v) not in (0, n_features):
            raise ModelFileError(f"it has {len(v)} {key} for {n_features} features")
        bad = [x for x in v if x not in _FEATURE_TYPES] if key == "feature_types" else []
        if bad:
            raise ModelFileError(f"its feature_types hold {shorten(bad[0])}, not a known type")


def _check_base_score(lmp, learner, groups):
    """One starting margin, or one per margin, each finite in float32 (the precision
    XGBoost adds margins in); a probability strictly between 0 and 1 for a logistic."""
    text = lmp.get("base_score", "0.5")
    if not isinstance(text, (str, int, float)) or isinstance(text, bool):
        raise ModelFileError(f"its base_score {shorten(text)} is not a number")
    try:
        values = [float(v) for v in str(text).strip().strip("[]").split(",") if v.strip()]
    except ValueError:
        raise ModelFileError(f"its base_score {shorten(text)} is not a number") from None
    if len(values) not in (1, groups):
        raise ModelFileError(f"it has {len(values)} base scores for {groups} margins")
    big = [v for v in values if not abs(v) <= _FLOAT32_MAX]
    if big:
        raise ModelFileError(
            f"its base_score {shorten(text)} holds {big[0]!r}: not a finite float32, the "
            "precision XGBoost adds margins in"
        )
    objective = (learner.get("objective") or {}).get("name")
    if objective == "binary:logistic" and not all(0 < v < 1 for v in values):
        raise ModelFileError(
            f"its base_score {shorten(text)} is a probability outside (0, 1): its margin "
            "would be infinite"
        )


def _check_best_iteration(learner, n_rounds):
    attributes = learner.get("attributes", {})
    if not isinstance(attributes, dict):
        raise ModelFileError("its attributes are not an object")
    if attributes.get("best_iteration") is not None:
        v = _number_text(attributes["best_iteration"], "best_iteration", 0, None)
        check_count("best_iteration", v, 0, max(n_rounds - 1, 0))


def _check_cats(cats, n_features):
    """The category container (3.1+): per feature its categories, written as texts
    (``offsets`` into ``values``) or numbers; ``feature_segments`` and ``sorted_idx``."""
    if cats is None:
        return
    if not isinstance(cats, dict):
        raise ModelFileError("its cats are not an object")
    enc = cats.get("enc", [])
    if not isinstance(enc, list) or len(enc) not in (0, n_features):
        raise ModelFileError(f"its cats.enc is not a list of {n_features} features")
    sizes = []
    for j, column in enumerate(enc):
        where = f"cats.enc[{j}]"
        if not isinstance(column, dict):
            raise ModelFileError(f"its {where} is not an object")
        values = _ints(column.get("values", []), "values", where, None, -(2**63), 2**63 - 1, "")
        if "offsets" in column:
            _ints(values, "values", where, None, -128, 255, "")
            offsets = _ints(column["offsets"], "offsets", where, None, 0, len(values), "")
            if len(offsets) and (offsets[0] != 0 or offsets[-1] != len(values)):
                raise ModelFileError(f"its {where}.offsets do not span its values")
            _increasing(offsets, f"{where}.offsets", strict=False)
            sizes.append(max(len(offsets) - 1, 0))
        else:
            check_count(f"{where}.type", column.get("type"), 0, 7)
            sizes.append(len(values))
    segments = _ints(cats.get("feature_segments", []), "feature_segments", "cats", None, 0,
                     2**31 - 1, "")  # fmt: skip
    sorted_idx = _ints(cats.get("sorted_idx", []), "sorted_idx", "cats", None, 0, 2**31 - 1, "")
    if len(segments):
        if len(segments) != len(enc) + 1 or segments[0] != 0 or segments[-1] != len(sorted_idx):
            raise ModelFileError("its cats.feature_segments do not span its features' categories")
        _increasing(segments, "cats.feature_segments", strict=False)
        for j, (a, b) in enumerate(zip(segments[:-1], segments[1:])):
            if b - a != sizes[j] or (b > a and sorted_idx[a:b].max() >= b - a):
                raise ModelFileError(f"its cats do not agree with feature {j}'s categories")
    elif len(sorted_idx):
        raise ModelFileError("its cats hold sorted_idx without feature_segments")


def _check_xgboost_tree(t, k, n_features):
    """One tree: its ``tree_param`` counts, then every node array. Returns whether it has
    vector leaves (whose arrays are another layout, not read here)."""
    where = f"tree {k}"
    if not isinstance(t, dict):
        raise ModelFileError(f"{where} is not an object")
    if t.get("id", k) != k or isinstance(t.get("id"), bool):
        raise ModelFileError(f"{where}: its id is {shorten(t.get('id'))}; XGBoost needs id {k}")
    tp = _object(t, "tree_param", where)
    n = _number_text(tp.get("num_nodes"), "num_nodes", 1, 2**31 - 1, where)
    if _number_text(tp.get("size_leaf_vector", "1"), "size_leaf_vector", 0, 2**16, where) > 1:
        return True
    _number_text(tp.get("num_feature", str(n_features)), "num_feature", 0, MAX_FEATURES, where)
    deleted = _number_text(tp.get("num_deleted", "0"), "num_deleted", 0, n, where)
    left = _ints(_field(t, "left_children", where), "left_children", where, n, -1, n - 1)
    right = _ints(_field(t, "right_children", where), "right_children", where, n, -1, n - 1)
    parents = _ints(_field(t, "parents", where), "parents", where, n, -(2**31), 2**31 - 1)
    feature = _ints(_field(t, "split_indices", where), "split_indices", where, n, 0, 2**32 - 1)
    cond = _floats(_field(t, "split_conditions", where), "split_conditions", where, n)
    default_left = _flags(_field(t, "default_left", where), "default_left", where, n)
    for key in ("loss_changes", "sum_hessian", "base_weights"):
        _floats(_field(t, key, where), key, where, n)
    stray = (parents[1:] < 0) | (parents[1:] >= n)  # XGBoost looks up every node's parent
    if stray.any():
        i = int(np.argmax(stray)) + 1
        raise ModelFileError(
            f"{where}, node {i}: its parent {int(parents[i])} is not one of the tree's {n} nodes"
        )
    marked = int(((feature == _DELETED) & default_left).sum())
    if marked != deleted:
        raise ModelFileError(
            f"{where}: num_deleted is {deleted} but {marked} nodes are marked deleted"
        )
    depth = check_imported_tree(left, right, feature, cond, n_features, where, all_reached=False)
    split = (left >= 0) & (depth >= 0)
    apart = split & (right != left + 1)
    if apart.any():
        i = int(np.argmax(apart))
        raise ModelFileError(
            f"{where}, node {i}: its children {int(left[i])} and {int(right[i])} are not "
            "side by side; XGBoost's prediction takes the right child to be left + 1"
        )
    ids = np.flatnonzero(split)
    parent = np.full(n, -1, dtype=np.int64)
    parent[left[ids]], parent[right[ids]] = ids, ids
    wrong = (depth > 0) & (parents != parent)
    if wrong.any():
        i = int(np.argmax(wrong))
        raise ModelFileError(
            f"{where}, node {i}: its parent is {int(parents[i])}, but the links make it "
            f"{int(parent[i])}"
        )
    _check_categories(t, where, n)
    return False


def _check_categories(t, where, n):
    """Categorical splits: which nodes (``categories_nodes``, in order, exactly those
    whose ``split_type`` is 1), and for each a non-empty run of category codes
    (``categories_segments``/``categories_sizes`` into ``categories``)."""
    split_type = t.get("split_type")
    types = np.zeros(n, dtype=np.int64)
    if split_type is not None:
        types = _ints(split_type, "split_type", where, n, 0, 1)
    nodes = _ints(t.get("categories_nodes", []), "categories_nodes", where, None, 0, n - 1, "")
    if not np.array_equal(nodes, np.flatnonzero(types == 1)):
        raise ModelFileError(
            f"{where}: categories_nodes {shorten(nodes.tolist())} are not the nodes whose "
            f"split_type is 1 ({shorten(np.flatnonzero(types == 1).tolist())})"
        )
    codes = _ints(t.get("categories", []), "categories", where, None, 0, _MAX_CATEGORY - 1, "")
    m = len(nodes)
    begin = _ints(t.get("categories_segments", []), "categories_segments", where, m, 0,
                  len(codes), "")  # fmt: skip
    size = _ints(t.get("categories_sizes", []), "categories_sizes", where, m, 1, len(codes), "")
    beyond = begin + size > len(codes)
    if beyond.any():
        i = int(np.argmax(beyond))
        raise ModelFileError(
            f"{where}, node {int(nodes[i])}: its categories run past the {len(codes)} written"
        )


def _field(t, key, where):
    if key not in t:
        raise ModelFileError(f"{where} lacks {key!r}")
    return t[key]


def _as_array(values, name, where):
    """A JSON list or a UBJSON typed array as a flat numpy array (its dtype tells whether
    every entry is a number), or a refusal naming what it is instead."""
    if isinstance(values, np.ndarray):
        a = values
    elif isinstance(values, list):
        try:
            a = np.asarray(values) if values else np.zeros(0, dtype=np.int64)
        except (ValueError, TypeError, OverflowError):
            a = np.asarray(values, dtype=object) if values else np.zeros(0)
    else:
        raise ModelFileError(f"{where}: {name} is {shorten(values)}, not a list")
    if a.ndim != 1:
        raise ModelFileError(f"{where}: {name} is not a flat list of numbers")
    return a


def _first_bad(a, ok):
    """Index and value of the first entry of object array ``a`` that ``ok`` refuses."""
    for i, v in enumerate(a.tolist()):
        if not ok(v):
            return i, v
    return None, None


def _ints(values, name, where, n=None, low=None, high=None, item="node"):
    """A list of whole numbers (JSON integers, not true/false or 1.0) as int64, ``n``
    long when given, each from ``low`` to ``high``; ``item`` names an entry in a message
    ("node" i, or "" for entry [i])."""
    a = _as_array(values, name, where)
    if a.dtype.kind not in "iu" and a.size:
        i, v = _first_bad(a, lambda v: type(v) is int and abs(v) <= 2**62)
        i = 0 if i is None else i
        v = a[i] if v is None else v
        why = "out of range" if type(v) is int else "not a whole number"
        raise ModelFileError(f"{_at(where, item, i, name)} is {shorten(v)}, {why}")
    if a.dtype.kind == "u" and a.size and a.max() > 2**62:
        i = int(np.argmax(a > 2**62))
        raise ModelFileError(f"{_at(where, item, i, name)} is {int(a[i])}, out of range")
    a = a.astype(np.int64)
    if n is not None and len(a) != n:
        what = "nodes" if item == "node" else "entries expected"
        raise ModelFileError(f"{where}: {name} has {len(a)} entries for {n} {what}")
    out = np.zeros(len(a), dtype=bool)
    if low is not None:
        out |= a < low
    if high is not None:
        out |= a > high
    if out.any():
        i = int(np.argmax(out))
        raise ModelFileError(
            f"{_at(where, item, i, name)} is {int(a[i])}; it must be from {low} to {high}"
        )
    return a


def _floats(values, name, where, n):
    """A list of numbers (not null, text or true/false), ``n`` long."""
    a = _as_array(values, name, where)
    if a.dtype.kind not in "iuf" and a.size:
        i, v = _first_bad(a, lambda v: type(v) in (int, float))
        i = 0 if i is None else i
        v = a[i] if v is None else v
        raise ModelFileError(f"{_at(where, 'node', i, name)} is {shorten(v)}, not a number")
    if len(a) != n:
        raise ModelFileError(f"{where}: {name} has {len(a)} entries for {n} nodes")
    with np.errstate(over="ignore"):
        return a.astype(np.float64)


def _flags(values, name, where, n):
    """A list of true/false (or 0/1), ``n`` long, as bools."""
    a = _as_array(values, name, where)
    if a.dtype.kind == "b":
        out = a
    else:
        ints = _ints(a, name, where, None, 0, 1)
        out = ints == 1
    if len(out) != n:
        raise ModelFileError(f"{where}: {name} has {len(out)} entries for {n} nodes")
    return out


def _increasing(a, name, strict=True):
    step = np.diff(a)
    if (step <= 0).any() if strict else (step < 0).any():
        raise ModelFileError(f"its {name} are not in increasing order")


def _at(where, item, i, name):
    return f"{where}, {item} {i}: {name}" if item else f"{where}: {name}[{i}]"


def _number_text(value, name, low=None, high=None, where="the model"):
    """XGBoost writes its counts as text ("3", "1E0"): the whole number, in
    ``low``..``high``, or one sentence saying what is wrong."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ModelFileError(f"{where}: its {name} {shorten(value)} is not a number")
    try:
        v = float(value)
    except (ValueError, OverflowError):
        raise ModelFileError(f"{where}: its {name} {shorten(value)} is not a number") from None
    if not math.isfinite(v) or v != int(v):
        raise ModelFileError(f"{where}: its {name} {shorten(value)} is not a whole number")
    return check_count(name, int(v), low if low is not None else -(2**63), high, where)


def check_lightgbm_layout(text, stripped):
    """The layout of a LightGBM model text as LightGBM reads it: one model (a second
    ``tree`` header, a ``Tree=`` block or another ``end of trees`` after the first is a
    model LightGBM ignores but a reader counting blocks would add: margins twice
    LightGBM's) and trees numbered 0, 1, ... in order. ``stripped``: the text's lines,
    stripped. (``check_tree_sizes`` comes after the trees: what is wrong inside a tree
    says more than a size that no longer matches.)"""
    starts = [i for i, ln in enumerate(stripped) if ln.startswith("Tree=")]
    end = stripped.index("end of trees")
    after = [i for i, ln in enumerate(stripped) if i > end and (
        ln.startswith("Tree=") or ln in ("tree", "end of trees"))]  # fmt: skip
    again = [i for i, ln in enumerate(stripped) if 0 < i < end and ln == "tree"]
    if after or again:
        i = (after or again)[0]
        raise ModelFileError(
            f"line {i + 1}: {shorten(stripped[i])} after the model's "
            f"{'end of trees' if after else 'first line'}: a second model in the same file "
            "(LightGBM reads only the first; teachgbt refuses rather than guess)"
        )
    for k, i in enumerate(starts):
        if stripped[i] != f"Tree={k}":
            raise ModelFileError(
                f"line {i + 1}: {shorten(stripped[i])} where Tree={k} comes next (trees out "
                "of order, or one missing)"
            )


def check_tree_sizes(text, header, n_trees):
    """``tree_sizes`` (when the header has it): one size per tree, each its block's exact
    length in bytes: LightGBM jumps by them to find each tree."""
    line = header.get("tree_sizes")
    if line is None:
        return
    line = f"tree_sizes={line}"
    try:
        sizes = [int(v) for v in line.partition("=")[2].split()]
    except ValueError:
        raise ModelFileError(f"its {shorten(line)} are not whole numbers") from None
    if len(sizes) != n_trees:
        raise ModelFileError(f"its tree_sizes name {len(sizes)} trees; it holds {n_trees}")
    data = text.encode("utf-8")
    starts = [m.start() for m in re.finditer(rb"^Tree=", data, re.MULTILINE)]
    end = re.search(rb"^end of trees", data, re.MULTILINE).start()
    found = np.diff(starts + [end])
    wrong = np.flatnonzero(found != np.asarray(sizes))
    if len(wrong):
        k = int(wrong[0])
        raise ModelFileError(
            f"tree {k}: tree_sizes says {sizes[k]} bytes, but its block has {int(found[k])} "
            "(LightGBM would read the trees from the wrong places)"
        )
