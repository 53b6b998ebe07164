"""What every importer shares: a description of the imported model, the step from another
library's node arrays to a ``tg.Tree`` (which keeps the library's threshold and the name of
its comparison, ``teachgbt.core.routing``), the one place that builds the fitted teachgbt model
(``from_trees``), and the self-check against the library's own margins.

An importer reads the other library's trees into ``Imported`` and calls ``build``.
``Imported.trees`` is a flat list in boosting order; with K ≥ 3 classes that is round by
round, one tree per class (the order of all three libraries), ``tree_class`` says each
tree's class and ``base_score`` holds the K starting margins.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..core import Model, ModelFileError, check_structure, shorten
from ..core.losses import get_loss
from ..core.model import round_and_class
from ..core.tree import Tree
from ..estimators import BoostingClassifier, BoostingRegressor
from ._categories import set_probes

__all__ = [
    "Imported",
    "named",
    "check_margins",
    "ImportAssumptionWarning",
    "build",
    "make_tree",
    "start_scores",
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
    categories: dict = field(default_factory=dict)  # feature -> the names of its codes
    # the library's own margin is this multiple of teachgbt's (LightGBM's rf sums its trees
    # in raw_score and pred_contrib, where its prediction averages them)
    library_margin_scale: float = 1.0


def start_scores(objective, margins, is_classifier, objective_params=None):
    """The base score of a model whose trees start from ``margins`` (one per output): in
    the space the objective stores it (its prediction: σ(margin), e^margin, ...), or the
    margins themselves for K outputs."""
    margins = [float(m) for m in margins]
    if len(margins) > 1:
        return margins
    loss = get_loss(objective, is_classifier, 2, **(objective_params or {}))
    return float(loss.transform(margins[0]))


def multiclass_order(library, n_trees, n_classes, tree_class=None):
    """The class of each tree of a K-class model whose trees go round by round, one per
    class (XGBoost's order, ``core.model.round_and_class``); ``tree_class``, when the file
    states it, must agree.
    A model with one margin (regression, a sigmoid over two classes) has every tree in
    class 0."""
    if n_classes < 2:
        return [0] * n_trees
    if n_trees % n_classes:
        raise ValueError(
            f"this {library} model has {n_trees} trees for {n_classes} classes: not whole "
            "rounds of one tree per class"
        )
    expected = [round_and_class(i, n_classes)[1] for i in range(1, n_trees + 1)]
    if tree_class is not None and [int(k) for k in tree_class] != expected:
        raise ValueError(
            f"this {library} model's trees are not round by round, one per class "
            f"(tree classes {list(tree_class)[: 2 * n_classes]}...)"
        )
    return expected


def unknown_count(n_nodes):
    return np.full(n_nodes, UNKNOWN_COUNT, dtype=np.int64)


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
    sets=None,
    **routing_kw,
):
    """A ``tg.Tree`` from a library's node arrays (indexed by the library's node ids).

    Only the nodes reachable from the root (node 0) are kept (XGBoost keeps pruned nodes in its
    arrays), renumbered in the order of ``order`` (default: the library's ids), so that
    node ids match the library's wherever nothing was deleted. ``stats``: n, G, H,
    weight, value, gain, loss_chg and cover (the library's TreeSHAP weight), one entry per
    library node. ``sets``: {library node: category codes} of its set splits (they go
    left). ``routing_kw``: the tree's ``rule``, ``missing``, ``zero_missing``,
    ``category_names``.
    """
    left, right = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
    n_lib = len(left)
    depth = check_structure(left, right, left >= 0, all_reached=False)  # -1: not reached
    keep = depth >= 0
    parent = np.full(n_lib, -1, dtype=np.int64)
    ids = np.flatnonzero(keep & (left >= 0))
    parent[left[ids]], parent[right[ids]] = ids, ids
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
        "left": np.where(split, relink(left), -1),
        "right": np.where(split, relink(right), -1),
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
    cover = np.asarray(stats["cover"], dtype=np.float64)[ids]
    # set splits (library ids -> codes) under the new ids
    sets = {int(new[i]): c for i, c in (sets or {}).items() if keep[i]}
    return Tree(arrays, n_features, feature_names, learning_rate, extra, cover=cover,
                sets=sets, **routing_kw)  # fmt: skip


def named(shown, read, *args):
    """``read(*args)``, every refusal naming the file ``shown``: a ``ValueError`` becomes
    one ``ModelFileError`` "FILE: why"; a structure no check foresaw (a KeyError, TypeError,
    IndexError or AttributeError from deep inside) is still refused, naming the file."""
    try:
        return read(*args)
    except ValueError as e:
        msg = str(e)
        raise ModelFileError(msg if msg.startswith(shown) else f"{shown}: {msg}") from None
    except KeyError as e:
        raise ModelFileError(f"{shown}: a corrupted model file (it lacks {e.args[0]!r})") from None
    except (TypeError, IndexError, AttributeError) as e:
        raise ModelFileError(f"{shown}: a corrupted model file ({e})") from None


def check_margins(model):
    """Refuse a model whose margins can leave the precision its trees' values are added
    in (float32 for XGBoost's kind, float64 for scikit-learn's GBDT): a leaf value or base
    score of 1e308 would predict inf, or NaN probabilities, with no error. The largest
    margin a class can reach is |its base margin| + Σ over its trees of max |leaf value|."""
    inner = model.model_
    top = float(np.finfo(inner.margin_dtype).max)
    K = inner.n_outputs
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.abs(np.asarray(inner.base_margin, dtype=np.float64).reshape(-1)) * np.ones(K)
    if not np.all(reach <= top):
        raise ModelFileError(
            f"its base score {shorten(inner.base_score)} gives a starting margin beyond "
            f"{np.dtype(inner.margin_dtype).name}, the precision its margins are added in"
        )
    for k, tree in enumerate(inner.trees):
        leaves = np.abs(tree.value[tree.is_leaf])
        i = int(np.flatnonzero(tree.is_leaf)[np.argmax(leaves)])
        reach[k % K] += leaves.max()
        if not reach[k % K] <= top:
            raise ModelFileError(
                f"tree {k + 1}, node {i}: its leaf value {float(tree.value[i]):.4g} takes "
                f"the margin beyond {np.dtype(inner.margin_dtype).name}, the precision the "
                "trees' values are added in (predictions would be inf or NaN)"
            )


def build(imp):
    """The fitted teachgbt model an ``Imported`` describes."""
    cls = BoostingClassifier if imp.is_classifier else BoostingRegressor
    n_classes = len(np.atleast_1d(imp.base_score))
    # trees come in the library's order, round by round, one per class (multiclass_order
    # checked it), which is how the model numbers them
    model = cls.from_trees(
        imp.trees,
        base_score=imp.base_score,
        feature_names=imp.feature_names,
        classes=list(range(n_classes)) if imp.classes is None and n_classes > 1 else imp.classes,
        n_features=imp.n_features,
        best_iteration=imp.best_iteration,
        origin=f"imported from {imp.library} ({imp.source})",
        categories=imp.categories or None,
        **imp.params,
    )
    model.import_notes_ = list(imp.notes)
    check_margins(model)
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


_MAX_PROBE_ROWS = 4096
_TINY = 1e-36  # inside LightGBM's zero band (|x| ≤ 1e-35 reads as 0)
_SELF_CHECK_TOL = 1e-4  # margins; float32 sums of many leaves differ in the last bits


def threshold_probes(t):
    """Inputs at which a split on threshold ``t`` can go either way: t itself, one float64
    step either side, t + 1e-9·|t| and t + 1e-7·|t| (within a float32 step of t)."""
    t = np.asarray(t, dtype=np.float64)
    t = t[np.isfinite(t)]  # HistGradientBoosting splits NaN off with x ≤ inf
    return np.concatenate(
        [
            t,
            np.nextafter(t, -np.inf),
            np.nextafter(t, np.inf),
            t + 1e-9 * np.abs(t),
            t + 1e-7 * np.abs(t),
        ]
    )


def probe_rows(trees, n_features, seed=0, missing=True):
    """Rows on which an import can go wrong: every feature takes, row after row, the
    probes of every threshold the trees split it at (``threshold_probes``), 0 and a
    near-zero, the probes in a random order per feature (so rows mix them); with
    ``missing`` some values are NaN. At most ``_MAX_PROBE_ROWS`` rows (then a random
    share of the probes)."""
    rng = np.random.default_rng(seed)
    cuts = [[] for _ in range(n_features)]
    for tree in trees:
        split = ~tree.is_leaf
        for j, t in zip(tree.feature[split], tree.threshold[split]):
            cuts[j].append(t)
    columns = []
    for c, codes in zip(cuts, set_probes(trees, n_features)):  # codes: of set splits
        values = np.concatenate([threshold_probes(np.unique(c)), [0.0, _TINY, -_TINY], codes])
        columns.append(rng.permutation(values))
    n = min(_MAX_PROBE_ROWS, max(len(v) for v in columns))
    X = np.empty((n, n_features))
    for j, v in enumerate(columns):
        X[:, j] = v[np.arange(n) % len(v)] if len(v) <= n else rng.choice(v, n, replace=False)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X


def _narrowed(tree, column):
    """A copy of ``tree`` reading only the features it splits on, renumbered by
    ``column`` (old feature → new)."""
    out = copy.copy(tree)
    out.feature = np.where(tree.feature >= 0, column[np.maximum(tree.feature, 0)], -1)
    out.feature = out.feature.astype(tree.feature.dtype)
    out.n_features = int(column.max()) + 1
    out.feature_names = None
    out.zero_missing = tuple(int(column[j]) for j in tree.zero_missing if column[j] >= 0)
    out.category_names = {int(column[j]): v for j, v in tree.category_names.items()
                          if column[j] >= 0}  # fmt: skip
    out.round = out.class_ = None
    return out


def probe(model, missing=True):
    """(teachgbt's margins, the probe rows) for the self-check. Only the features the
    trees split on get probe columns (a model may declare a million features; 4096 probe
    rows as wide as that would ask for 34 GB): the margins are teachgbt's on those
    columns, the rows a scipy CSR matrix as wide as the model holding just them, which the
    library reads as its full input (a value it does not hold is one no tree reads)."""
    from scipy.sparse import csr_matrix

    inner = model.model_
    used = np.unique(np.concatenate([t.feature[t.feature >= 0] for t in inner.trees] + [[0]]))
    column = np.full(inner.n_features, -1, dtype=np.int64)
    column[used] = np.arange(len(used))
    trees = [_narrowed(t, column) for t in inner.trees]
    X = probe_rows(trees, len(used), missing=missing)
    narrow = Model(
        trees,
        inner.base_score,
        inner.loss,
        n_features=len(used),
        margin_dtype=inner.margin_dtype,
        best_iteration=inner.best_iteration,
        categories={int(column[j]): v for j, v in inner.categories.items() if column[j] >= 0},
    )
    ours = narrow.margins(narrow.check_X(X)[0])
    n = len(X)
    rows = csr_matrix(
        (X.reshape(-1), np.tile(used, n), np.arange(n + 1) * len(used)),
        shape=(n, inner.n_features),
    )
    return ours, rows


DENSE_CELLS = 1 << 22  # values in one dense block of probe rows (32 MB)


def dense_chunks(rows, cells=DENSE_CELLS):
    """The CSR probe rows as dense blocks of at most ``cells`` values (unstored: 0), for a
    library that takes or reads dense input differently: a wide model is read a few rows
    at a time."""
    step = max(1, cells // max(rows.shape[1], 1))
    for start in range(0, rows.shape[0], step):
        yield rows[start : start + step].toarray()


def margin_gap(ours, theirs):
    """The worst relative gap between two margin arrays (NaN on one side only: inf)."""
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    gap = np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs))
    both_nan = np.isnan(ours) & np.isnan(theirs)
    gap = np.where(both_nan, 0.0, np.where(np.isnan(gap), np.inf, gap))
    return float(gap.max()) if gap.size else 0.0


def self_check(model, library_margin, library):
    """Warn unless the imported model's margins equal the library's own on probe rows
    (``probe``); the warning gives the worst gap over every row checked. A library
    that cannot read a model file at all refuses it (``ModelFileError`` from
    ``library_margin``, see ``_library``)."""
    if library_margin is None:
        return
    ours, rows = probe(model, missing=getattr(library_margin, "missing", True))
    try:
        theirs = np.asarray(library_margin(rows), dtype=np.float64).reshape(ours.shape)
    except ModelFileError:
        raise
    except Exception as e:  # the check is a safety net: it must not stop an import
        warnings.warn(
            f"could not compare the imported margins with {library}'s own ({e})",
            ImportAssumptionWarning,
            stacklevel=3,
        )
        return
    gap = margin_gap(ours, theirs)
    if not gap <= _SELF_CHECK_TOL:
        warnings.warn(
            f"the imported model's margins differ from {library}'s own by up to {gap:.3g} "
            f"(relative, over {len(ours)} probe rows); please report this with the model",
            ImportAssumptionWarning,
            stacklevel=3,
        )
