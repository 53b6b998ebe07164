"""What every importer shares: a description of the imported model, the step from another
library's node arrays to a ``tg.Tree``, the ``x ≤ t`` → ``x < t'`` threshold conversion,
and the one place that builds the fitted teachgbt model (``from_trees``).

An importer reads the other library's trees into ``Imported`` and calls ``build``.
``Imported.trees`` is a flat list in boosting order; with K ≥ 3 classes that is round by
round, one tree per class (the order of all three libraries), ``tree_class`` says each
tree's class and ``base_score`` holds the K starting margins.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..estimators import BoostingClassifier, BoostingRegressor
from ..tree import Tree

__all__ = [
    "Imported",
    "ImportAssumptionWarning",
    "build",
    "make_tree",
    "le_to_lt",
    "multiclass_order",
    "unknown_count",
]

#: ``n`` of a node whose row count the library does not store (XGBoost)
UNKNOWN_COUNT = -1


class ImportAssumptionWarning(UserWarning):
    """A number an imported model needed was not in the file; a default was assumed."""


@dataclass
class Imported:
    """An imported model before it becomes a teachgbt estimator."""

    library: str  # "XGBoost", "LightGBM", "scikit-learn"
    source: str  # what was read: "xgboost.Booster", "model file m.json", ...
    is_classifier: bool
    trees: list  # tg.Tree objects in the library's order
    base_score: float | list  # a probability (binary), a number (regression), K margins
    n_features: int
    params: dict  # teachgbt constructor parameters (learning_rate, reg_lambda, gamma, ...)
    feature_names: list | None = None
    classes: list | None = None
    best_iteration: int | None = None
    tree_class: list = field(default_factory=list)  # the class of each tree (0 unless K ≥ 3)
    notes: list = field(default_factory=list)  # assumptions and what could not be recovered


def multiclass_order(library, n_trees, n_classes, tree_class=None):
    """The class of each tree of a K-class model whose trees go round by round, one per
    class (tree i is class i mod K); ``tree_class``, when the file states it, must agree.
    A model with one margin (regression, two classes) has every tree in class 0."""
    if n_classes < 3:
        return [0] * n_trees
    if n_trees % n_classes:
        raise ValueError(
            f"this {library} model has {n_trees} trees for {n_classes} classes: not whole "
            "rounds of one tree per class"
        )
    expected = [i % n_classes for i in range(n_trees)]
    if tree_class is not None and [int(k) for k in tree_class] != expected:
        raise ValueError(
            f"this {library} model's trees are not round by round, one per class "
            f"(tree classes {list(tree_class)[: 2 * n_classes]}...)"
        )
    return expected


def unknown_count(n_nodes):
    return np.full(n_nodes, UNKNOWN_COUNT, dtype=np.int64)


def le_to_lt(threshold, inputs="float32"):
    """Thresholds ``t`` of a library's rule ``x ≤ t`` as float32 thresholds ``t'`` of the
    rule ``x < t'`` teachgbt applies to float32 inputs.

    ``inputs="float32"``: the library itself compares float32 inputs (scikit-learn's
    GradientBoosting): t' is the next float32 above the largest float32 ≤ t, and every
    input is routed as the library routes it. ``inputs="float64"``: the library compares
    float64 inputs (LightGBM, HistGradientBoosting), whose thresholds are often data
    values: t' is the next float32 above t rounded to float32, so a float64 input x ≤ t
    (x = t included) still goes left; only an input within one float32 step above t (two
    data values that close) can go left where the library sends it right.
    """
    t = np.asarray(threshold, dtype=np.float64)
    with np.errstate(over="ignore"):
        f = t.astype(np.float32)
    if inputs == "float32":
        f = np.where(f.astype(np.float64) > t, np.nextafter(f, np.float32(-np.inf)), f)
    return np.nextafter(f, np.float32(np.inf)).astype(np.float64)


def make_tree(
    left,
    right,
    feature,
    threshold,
    default_left,
    stats,
    n_features,
    feature_names=None,
    learning_rate=1.0,
    extra=None,
    order=None,
    root=0,
):
    """A ``tg.Tree`` from a library's node arrays (indexed by the library's node ids).

    Only the nodes reachable from ``root`` are kept (XGBoost keeps pruned nodes in its
    arrays), renumbered in the order of ``order`` (default: the library's ids), so that
    node ids match the library's wherever nothing was deleted. ``stats``: n, G, H,
    weight, value, gain, loss_chg, one entry per library node.
    """
    left, right = np.asarray(left), np.asarray(right)
    n_lib = len(left)
    keep = np.zeros(n_lib, dtype=bool)
    depth = np.zeros(n_lib, dtype=np.int32)
    parent = np.full(n_lib, -1, dtype=np.int32)
    stack = [root]
    while stack:
        i = stack.pop()
        if not 0 <= i < n_lib or keep[i]:
            raise ValueError(f"the tree's child links are broken at node {i}")
        keep[i] = True
        if left[i] >= 0:
            for c in (int(left[i]), int(right[i])):
                if not 0 <= c < n_lib:
                    raise ValueError(f"the tree's child links are broken at node {i}")
                depth[c], parent[c] = depth[i] + 1, i
                stack.append(c)
    ids = np.flatnonzero(keep)
    if order is not None:
        ids = ids[np.argsort(np.asarray(order)[ids], kind="stable")]
    new = np.full(n_lib, -1, dtype=np.int32)
    new[ids] = np.arange(len(ids), dtype=np.int32)

    def relink(v):
        v = np.asarray(v)[ids]
        return np.where(v >= 0, new[np.maximum(v, 0)], -1)

    split = np.asarray(left)[ids] >= 0
    arrays = {
        "left": relink(left),
        "right": relink(right),
        "parent": relink(parent),
        "feature": np.where(split, np.asarray(feature)[ids], -1),
        "threshold": np.where(split, np.asarray(threshold, dtype=np.float64)[ids], np.nan),
        "default_left": np.where(split, np.asarray(default_left, dtype=bool)[ids], True),
        "depth": depth[ids],
    }
    for k in ("n", "G", "H", "weight", "value", "gain", "loss_chg"):
        v = np.asarray(stats[k])[ids]
        arrays[k] = np.where(split, v, np.nan) if k in ("gain", "loss_chg") else v
    bad = arrays["feature"][split]
    if len(bad) and (bad.min() < 0 or bad.max() >= n_features):
        raise ValueError(f"the tree splits on a feature outside the model's {n_features}")
    extra = {k: np.asarray(v, dtype=np.float64)[ids] for k, v in (extra or {}).items()}
    return Tree(arrays, n_features, feature_names, learning_rate, extra)


def build(imp):
    """The fitted teachgbt model an ``Imported`` describes."""
    cls = BoostingClassifier if imp.is_classifier else BoostingRegressor
    n_classes = len(np.atleast_1d(imp.base_score))
    for i, (tree, k) in enumerate(zip(imp.trees, imp.tree_class or [0] * len(imp.trees))):
        tree.round = i // n_classes + 1
        tree.class_ = int(k) if n_classes > 1 else None
    model = cls.from_trees(
        imp.trees,
        base_score=imp.base_score,
        feature_names=imp.feature_names,
        classes=list(range(n_classes)) if imp.classes is None and n_classes > 1 else imp.classes,
        n_features=imp.n_features,
        best_iteration=imp.best_iteration,
        **imp.params,
    )
    model._origin = f"imported from {imp.library} ({imp.source})"
    model.import_notes_ = list(imp.notes)
    return model


def warn_assumed(library, assumed, depends, how):
    """Warn that training parameters were not in the file and defaults were assumed."""
    said = ", ".join(f"{k}={v:g}" for k, v in assumed.items())
    warnings.warn(
        f"{library} model files do not store the training parameters; assumed {said}. "
        f"{depends} Pass {how} to set them.",
        ImportAssumptionWarning,
        stacklevel=3,
    )


_PROBE_ROWS = 256
_TINY = 1e-30
_PROBE_NUDGE = 1e-5  # relative: well clear of float32 rounding (6e-8)
_SELF_CHECK_TOL = 1e-4  # margins; float32 sums of many leaves differ in the last bits


def probe_rows(trees, n_features, seed=0, missing=True):
    """Rows that reach many leaves: each feature drawn at, just below and just above the
    trees' own thresholds (the library's ``x ≤ t`` ones when the tree keeps them), with
    some values missing."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(_PROBE_ROWS, n_features))
    cuts = [[] for _ in range(n_features)]
    for tree in trees:
        split = ~tree.is_leaf
        own = tree.extra.get("threshold_le", tree.threshold)
        for j, t in zip(tree.feature[split], own[split]):
            if np.isfinite(t):  # HistGradientBoosting splits NaN off with x ≤ inf
                cuts[j].append(t)
    for j, c in enumerate(cuts):
        if c:
            pick = np.asarray(c)[rng.integers(len(c), size=_PROBE_ROWS)]
            nudge = np.maximum(np.abs(pick), 1.0) * _PROBE_NUDGE
            step = rng.integers(-1, 2, size=_PROBE_ROWS)  # below, at, above the threshold
            X[:, j] = pick + step * nudge
    X[np.abs(X) < _TINY] = 0.0  # LightGBM reads |x| ≤ 1e-35 as 0 (its zero thresholds ±1e-35)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X


def self_check(model, library_margin, library):
    """Warn unless the imported model's margins equal the library's own on probe rows."""
    if library_margin is None:
        return
    X = probe_rows(
        model.trees_, model.n_features_in_, missing=getattr(library_margin, "missing", True)
    )
    ours = model.decision_function(X)
    try:
        theirs = np.asarray(library_margin(X), dtype=np.float64).reshape(ours.shape)
    except Exception as e:  # the check is a safety net: it must not stop an import
        warnings.warn(
            f"could not compare the imported margins with {library}'s own ({e})",
            ImportAssumptionWarning,
            stacklevel=3,
        )
        return
    gap = np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs))
    if not np.all(gap <= _SELF_CHECK_TOL):
        warnings.warn(
            f"the imported model's margins differ from {library}'s own by up to "
            f"{float(np.nanmax(gap)):.3g}; please report this with the model",
            ImportAssumptionWarning,
            stacklevel=3,
        )
