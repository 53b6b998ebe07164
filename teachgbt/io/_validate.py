"""What a model file of each library must hold before its trees are built.

``teachgbt.core``'s validator knows what a valid tree is (children in range, one tree from
the root, finite values); this module checks the rest of a file: the counts it declares
(features, classes, trees), the model-level fields of a teachgbt file and each field of an
XGBoost learner the importer will read. Every refusal is a ``ModelFileError`` naming the
tree and node.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import (
    MAX_FEATURES,
    ModelFileError,
    check_count,
    check_imported_tree,
    check_sets,
    float_array,
    int_array,
    shorten,
)

__all__ = ["check_model_dict", "check_model_counts", "check_xgboost"]


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


def check_xgboost(learner):
    """The counts and every tree of an XGBoost model (its ``learner`` object, from JSON
    or UBJSON) before the importer reads them."""
    try:
        lmp = learner["learner_model_param"]
        booster = learner["gradient_booster"]
        # dart keeps its gbtree one level down, beside the trees' weights
        trees = (booster["gbtree"] if booster.get("name") == "dart" else booster)["model"]["trees"]
    except (KeyError, TypeError, AttributeError):
        return  # the importer says what is missing
    if not isinstance(trees, list):
        raise ModelFileError("its trees are not a list")
    n_features = _number_text(lmp.get("num_feature"), "num_feature")
    n_classes = _number_text(lmp.get("num_class", 0) or 0, "num_class")
    check_model_counts("XGBoost", n_features, n_classes, len(trees))
    for k, t in enumerate(trees):
        where = f"tree {k}"
        if not isinstance(t, dict):
            raise ModelFileError(f"{where} is not an object")
        need = ("left_children", "right_children", "split_indices", "split_conditions")
        if any(key not in t for key in need):
            continue  # the importer names what is missing
        arrays = {key: np.asarray(t[key]) for key in need}
        lengths = {len(a) if a.ndim == 1 else -1 for a in arrays.values()}
        if len(lengths) != 1:
            raise ModelFileError(f"{where}: its node arrays have different lengths")
        left = int_array(arrays["left_children"], "left_children", where)
        right = int_array(arrays["right_children"], "right_children", where)
        feature = int_array(arrays["split_indices"], "split_indices", where)
        cond = float_array(arrays["split_conditions"].tolist(), "split_conditions", where)
        check_imported_tree(left, right, feature, cond, n_features, where, all_reached=False)


def _number_text(value, name):
    """XGBoost writes its counts as text ("3", "1E0"): the number, or an error."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ModelFileError(f"its {name} {shorten(value)} is not a number") from None
    if not math.isfinite(v) or v != int(v):
        raise ModelFileError(f"its {name} {shorten(value)} is not a whole number")
    return int(v)
