"""LightGBM models as teachgbt trees: a Booster, an LGBMClassifier/LGBMRegressor, or a
model ``.txt`` (read without LightGBM).

The model text holds, per tree, ``split_feature``, ``threshold`` (``x ≤ t`` goes left),
``decision_type`` bits (1: categorical, 2: missing values go left, bits 2–3: missing
type None/Zero/NaN), ``left_child``/``right_child`` (a negative child ~j is leaf j),
``leaf_value`` (× shrinkage), ``leaf_weight`` (H), ``leaf_count``, ``internal_weight``,
``internal_count``, ``split_gain`` (no ½, no ``min_gain_to_split``: XGBoost's loss_chg)
and the tree's
``shrinkage``; the training parameters follow in a ``parameters:`` section. LightGBM
adds its initial score into every value of the first tree and stamps it shrinkage=1;
teachgbt takes it out again (the first tree's root value) and shows it as the base score.

Multiclass (``multiclass``, softmax over K classes): ``num_tree_per_iteration`` = K trees
a round, tree index = round·K + class; the initial score of class k (log of its share,
not centred) is folded into tree k of the first round. With ``num_class=2`` it stays a
softmax over two margins (two trees a round; ``predict_proba`` is LightGBM's).

Thresholds are kept as written, with LightGBM's rule (``teachgbt.core.routing``): x ≤ t in
float64, |x| ≤ 1e-35 read as 0, NaN read as 0 unless the split's missing type is NaN,
and with missing type Zero (``zero_as_missing=true``) 0 routed as the missing value.
A single-leaf tree is written with empty ``leaf_weight=``/``leaf_count=`` lines.
``multiclassova`` (K separate
one-vs-all sigmoids, whose probabilities do not sum to 1) is refused: it is not softmax.
"""

from __future__ import annotations

import warnings
from collections import deque

import numpy as np

from ..core import ModelFileError, check_count, check_imported_tree, shorten
from ._categories import lightgbm_category_names, lightgbm_sets
from ._common import (
    ImportAssumptionWarning,
    Imported,
    dense_chunks,
    make_tree,
    multiclass_order,
    start_scores,
)
from ._validate import check_lightgbm_layout, check_model_counts, check_tree_sizes

__all__ = ["read_lightgbm", "lightgbm_file", "lightgbm_source"]

_LGB_DEFAULTS = {"learning_rate": 0.1, "reg_lambda": 0.0, "gamma": 0.0}
_PARAM_NAMES = {
    "learning_rate": "learning_rate",
    "reg_lambda": "lambda_l2",
    "gamma": "min_gain_to_split",
}
_MISSING_NONE, _MISSING_ZERO, _MISSING_NAN = 0, 1, 2
_SPLIT_KEYS = (
    "split_feature",
    "split_gain",
    "threshold",
    "decision_type",
    "left_child",
    "right_child",
    "leaf_weight",
    "leaf_count",
    "internal_weight",
    "internal_count",
)


def _sections(text):
    """(header dict, list of tree dicts, parameters dict) of a model text, read as
    LightGBM reads it: the header, then ``Tree=0``, ``Tree=1``, ... up to ``end of
    trees``, then the importances and parameters. Anything that would make LightGBM read
    other trees than these is refused (``check_lightgbm_layout``)."""
    stripped = [ln.strip() for ln in text.splitlines()]  # one copy of a large text, not two
    if "end of trees" not in stripped or (
        "parameters:" in stripped and "end of parameters" not in stripped
    ):
        raise ValueError(
            "the LightGBM model text ends early (no 'end of trees' or 'end of "
            "parameters'): a truncated file?"
        )
    check_lightgbm_layout(text, stripped)
    header, trees, params = {}, [], {}
    current = header
    in_params = False
    for ln in stripped:
        if ln == "end of trees":
            current = None
        elif ln == "parameters:":
            in_params = True
        elif ln == "end of parameters":
            in_params = False
        elif in_params and ln.startswith("[") and ln.endswith("]") and ":" in ln:
            k, _, v = ln[1:-1].partition(":")
            params[k.strip()] = v.strip()
        elif ln.startswith("Tree="):
            current = {}
            trees.append(current)
        elif current is not None and "=" in ln:
            k, _, v = ln.partition("=")
            current[k] = v
    return header, trees, params


def _numbers(tree, key, k, dtype=np.float64, n=None):
    try:
        text = tree[key]
    except KeyError:
        raise ValueError(f"tree {k} of the LightGBM model lacks {key!r}: corrupted?") from None
    try:
        out = np.array(text.split(), dtype=dtype)
    except (ValueError, OverflowError):
        raise ValueError(f"tree {k}: {key!r} holds something that is not a number") from None
    if n is not None and len(out) != n:
        raise ValueError(f"tree {k}: {key!r} has {len(out)} entries, expected {n}")
    return out


def _leaf_stat(t, key, k, dtype):
    """A single-leaf tree's leaf_weight / leaf_count: LightGBM writes the line empty."""
    if not t.get(key, "").strip():
        return np.full(1, np.nan if dtype == np.float64 else -1, dtype=dtype)
    return _numbers(t, key, k, dtype, 1)


def _zero_missing_features(trees):
    """The features that some split reads with missing type Zero (zero_as_missing): on
    them 0 (and NaN, read as 0) is the missing value."""
    out = set()
    for k, t in enumerate(trees):
        if t.get("num_leaves", "").strip() == "1":  # no split
            continue
        dt = _numbers(t, "decision_type", k, np.int64)
        feature = _numbers(t, "split_feature", k, np.int64, len(dt))
        numeric = (dt & 1) == 0  # a set split reads its value whatever its missing type
        out.update(int(j) for j in feature[numeric & (((dt >> 2) & 3) == _MISSING_ZERO)])
    return tuple(sorted(out))


def _split_columns(t, k, L, names, zero_missing):
    """The node arrays of a tree with ``L`` ≥ 2 leaves, splits first (LightGBM's split ids),
    then the leaves: children, features, thresholds, where NaN goes, gains, H and n; and
    its set splits {split: codes}."""
    n_int = L - 1
    c = {key: _numbers(t, key, k, n=L if key.startswith("leaf") else n_int) for key in _SPLIT_KEYS}
    _check_splits(t, c, k, L)
    dt = c["decision_type"].astype(np.int64)
    feature = c["split_feature"].astype(np.int64)
    # set splits (decision_type bit 1): the set goes left, NaN and other codes right
    sets = lightgbm_sets(t, k, dt, c["threshold"], _numbers)
    t_le = np.where(dt & 1, np.nan, c["threshold"])
    missing = (dt >> 2) & 3
    default_left = (dt & 2).astype(bool)
    zero_left = 0.0 <= t_le  # where 0 goes by the comparison
    # NaN: by the default for missing type NaN; else read as 0 (NumericalDecision), which
    # goes the default way for type Zero and by 0 ≤ t for type None
    nan_left = np.where(missing == _MISSING_NONE, zero_left, default_left) & ((dt & 1) == 0)
    # on a zero_missing feature 0 is routed as NaN: a NaN-type split there must send 0
    # where its comparison does
    clash = (missing == _MISSING_NAN) & np.isin(feature, zero_missing) & ((dt & 1) == 0)
    clash &= default_left != zero_left
    if clash.any():
        i = int(np.flatnonzero(clash)[0])
        raise ValueError(
            f"tree {k}, split {i}: feature {int(feature[i])} has 0 as its missing value in "
            "another split but NaN here, with NaN and 0 going different ways: not supported"
        )

    def child(v):  # a negative child ~j is leaf j, numbered after the n_int splits
        v = v.astype(np.int64)
        return np.where(v < 0, n_int + (~v), v)

    leaves = np.full(L, -1)
    cols = dict(
        left=np.concatenate([child(c["left_child"]), leaves]),
        right=np.concatenate([child(c["right_child"]), leaves]),
        feature=np.concatenate([feature, leaves]),
        threshold=np.concatenate([t_le, np.full(L, np.nan)]),
        default_left=np.concatenate([nan_left, np.ones(L, bool)]),
        split_gain=np.concatenate([c["split_gain"], np.full(L, np.nan)]),
        H=np.concatenate([c["internal_weight"], c["leaf_weight"]]),
        n=np.concatenate([c["internal_count"], c["leaf_count"]]).astype(np.int64),
    )
    return cols, sets


def _check_splits(t, c, k, L):
    """What LightGBM indexes with, checked before it is used: children (a split id below
    L − 1, or ~j for leaf j below L), decision types (missing type 0, 1 or 2), thresholds
    (a number; for a set split an index into its ``num_cat`` category sets) and the
    category sets themselves (``cat_boundaries`` into ``cat_threshold``)."""
    n_int = L - 1
    for side in ("left_child", "right_child"):
        v = c[side]
        bad = (v != np.round(v)) | np.where(v >= 0, v >= n_int, ~v.astype(np.int64) >= L)
        if bad.any():
            i = int(np.argmax(bad))
            raise ModelFileError(
                f"tree {k}, split {i}: its {side} {v[i]:g} is neither a split (0 to "
                f"{n_int - 1}) nor a leaf (-1 to {-L})"
            )
    dt = c["decision_type"]
    odd = (dt != np.round(dt)) | (dt < 0) | (dt > 15) | ((dt.astype(np.int64) >> 2) & 3 == 3)
    if odd.any():
        i = int(np.argmax(odd))
        raise ModelFileError(
            f"tree {k}, split {i}: decision_type {dt[i]:g} is not one LightGBM writes"
        )
    categorical = (dt.astype(np.int64) & 1).astype(bool)
    nan = ~categorical & np.isnan(c["threshold"])
    if nan.any():
        raise ModelFileError(f"tree {k}, split {int(np.argmax(nan))}: its threshold is NaN")
    n_cat = _whole(t, "num_cat", k, 0)
    if not n_cat and not categorical.any():
        return
    bounds = _numbers(t, "cat_boundaries", k, np.int64, n_cat + 1)
    words = _numbers(t, "cat_threshold", k, np.int64)
    if bounds[0] != 0 or bounds[-1] != len(words) or (np.diff(bounds) < 0).any():
        raise ModelFileError(f"tree {k}: cat_boundaries do not split its cat_threshold")
    if ((words < 0) | (words >= 2**32)).any():
        raise ModelFileError(f"tree {k}: cat_threshold holds a value beyond 32 bits")
    index = c["threshold"][categorical]
    if ((index != np.round(index)) | (index < 0) | (index >= n_cat)).any():
        raise ModelFileError(f"tree {k}: a set split names no category set of its {n_cat}")


def _whole(t, key, k, default):
    """A tree's count ``key`` (num_leaves, num_cat, is_linear): a whole number ≥ 0."""
    text = t.get(key, str(default)).strip() or str(default)
    if not text.isdigit() or len(text) > 12:
        raise ModelFileError(f"tree {k}: {key}={shorten(text)} is not a whole number")
    return int(text)


def _leaf_columns(t, k):
    """The node arrays of a single-leaf tree (no split)."""
    return dict(
        left=[-1],
        right=[-1],
        feature=[-1],
        threshold=[np.nan],
        default_left=[True],
        split_gain=[np.nan],
        H=_leaf_stat(t, "leaf_weight", k, np.float64),
        n=_leaf_stat(t, "leaf_count", k, np.int64),
    )


def _tree(t, k, p, n_features, names, bias, zero_missing):
    """One LightGBM tree; ``bias``: the initial score folded into it (0 for later trees);
    ``zero_missing``: the model's features on which 0 is missing."""
    if "num_leaves" not in t:
        raise ModelFileError(f"tree {k} lacks num_leaves")
    L = _whole(t, "num_leaves", k, 0)
    if L < 1:
        raise ModelFileError(f"tree {k}: num_leaves={L}")
    if _whole(t, "is_linear", k, 0):
        raise ValueError(
            f"tree {k} is a linear tree (linear_tree=true): its leaves hold linear models of "
            "the features, not one number each, so it is not a tree of teachgbt's kind"
        )
    leaf_value = _numbers(t, "leaf_value", k, n=L) - bias
    lr, lam = p["learning_rate"], p["reg_lambda"]
    n_int = L - 1
    if L == 1:
        cols, sets = _leaf_columns(t, k), {}
    else:
        cols, sets = _split_columns(t, k, L, names, zero_missing)
    left, right = np.asarray(cols["left"]), np.asarray(cols["right"])
    n_nodes = len(left)
    H = np.asarray(cols["H"], dtype=np.float64)
    weight = np.full(n_nodes, np.nan)
    weight[n_int:] = leaf_value / lr
    G = -weight * (H + lam)  # leaves: w* = −G/(H+λ) solved for G
    if not p["G_recoverable"]:
        G[:] = np.nan
    # a split's G is the sum of its leaves' G; that children have larger ids than their
    # parents is not guaranteed in LightGBM, so go up level by level from the deepest
    depth = check_imported_tree(left, right, cols["feature"], leaf_value, n_features, f"tree {k}")
    for d in range(int(depth.max()) - 1, -1, -1):
        at = np.flatnonzero((depth == d) & (left >= 0))
        G[at] = G[left[at]] + G[right[at]]
        weight[at] = -G[at] / (H[at] + lam)
    order = _bfs(left, right)
    value = lr * weight
    value[n_int:] = leaf_value
    split_gain = np.asarray(cols["split_gain"], dtype=np.float64)
    loss_chg = split_gain  # LightGBM 4.7 does not subtract min_gain_to_split (checked)
    stats = {
        "n": cols["n"],
        "G": G,
        "H": H,
        "weight": weight,
        "value": value,
        "loss_chg": loss_chg,
        "gain": 0.5 * (split_gain - p["gamma"]),
        "cover": np.asarray(cols["n"], dtype=np.float64),  # LightGBM's TreeSHAP weighs by rows
    }
    extra = {"split_gain": split_gain}
    rank = np.empty(n_nodes, dtype=np.int64)
    rank[order] = np.arange(n_nodes)
    return make_tree(
        left,
        right,
        cols["feature"],
        cols["threshold"],
        cols["default_left"],
        stats,
        n_features,
        names,
        lr,
        extra,
        order=rank,
        rule="lightgbm",
        zero_missing=zero_missing,
        sets=sets,
    )


def _bfs(left, right):
    """The nodes in breadth-first order (a deque: popping a list's front is linear, which
    made a 200k-leaf tree take seconds)."""
    out, queue = [], deque([0])
    while queue:
        i = queue.popleft()
        out.append(i)
        if left[i] >= 0:
            queue.extend((int(left[i]), int(right[i])))
    return np.asarray(out, dtype=np.int64)


def _float(params, key, default):
    try:
        v = float(params.get(key, default))
    except (TypeError, ValueError):
        v = np.nan
    if not np.isfinite(v):
        raise ValueError(f"its {key}={shorten(params.get(key))} is not a finite number")
    return v


def _initial_score(first, p, lp):
    """The initial score LightGBM folded into a first-round tree (0 if none): it stamps
    such a tree shrinkage=1; its root value is the initial score."""
    if _float(first, "shrinkage", 1) != 1.0 or (
        p["learning_rate"] == 1.0 and not _float(lp, "boost_from_average", 1)
    ):
        return 0.0
    key = "internal_value" if _whole(first, "num_leaves", 0, 1) > 1 else "leaf_value"
    return float(_numbers(first, key, 0)[0])


# LightGBM's objective -> (teachgbt's objective, its parameters: (LightGBM name, teachgbt name))
_OBJECTIVES = {
    "regression": ("reg:squarederror", ()),
    "regression_l1": ("reg:absoluteerror", ()),
    "huber": ("lightgbm:huber", ()),
    "fair": ("lightgbm:fair", ()),
    "poisson": ("count:poisson", ()),
    "quantile": ("reg:quantileerror", (("alpha", "quantile_alpha"),)),
    "mape": ("lightgbm:mape", ()),
    "gamma": ("reg:gamma", ()),
    "tweedie": ("reg:tweedie", (("tweedie_variance_power", "tweedie_variance_power"),)),
    "binary": ("binary:logistic", ()),
    "cross_entropy": ("lightgbm:cross_entropy", ()),
    "cross_entropy_lambda": ("lightgbm:cross_entropy_lambda", ()),
    "multiclass": ("multi:softprob", ()),
    "multiclassova": ("lightgbm:multiclassova", ()),
    "lambdarank": ("lightgbm:lambdarank", ()),
    "rank_xendcg": ("lightgbm:rank_xendcg", ()),
}
_ALIASES = {"softmax": "multiclass", "multiclass_ova": "multiclassova", "ova": "multiclassova",
            "ovr": "multiclassova", "xendcg": "rank_xendcg"}  # fmt: skip
_CLASSIFIERS = ("binary", "multiclass", "multiclassova")
# the objectives whose first-tree root value is the initial score itself (Σg = 0 there)
# and whose leaves are −G/(H+λ): elsewhere G cannot be recovered from the leaves
_NEWTON_AT_INIT = ("regression", "poisson", "gamma", "tweedie", "binary", "cross_entropy",
                   "multiclass", "multiclassova", "lambdarank", "rank_xendcg")  # fmt: skip
_OBJECTIVE_NOTES = {
    "regression_l1": "regression_l1: LightGBM refreshed each leaf to the median of its rows' "
    "residuals after growing the tree",
    "quantile": "quantile: LightGBM refreshed each leaf to the α-quantile of its rows' "
    "residuals after growing the tree",
    "mape": "mape: LightGBM refreshed each leaf to a weighted median of its rows' residuals "
    "(weights 1/|y|)",
    "cross_entropy_lambda": "cross_entropy_lambda: predict is log(1 + e^margin)",
    "multiclassova": "multiclassova: one sigmoid per class, p_k = σ(margin_k); the K "
    "probabilities need not sum to 1 (LightGBM does not normalise them)",
}
_RANKING_NOTE = (
    "{name}: a ranking model; the margins are scores whose order within a query is the "
    "ranking. Its g and h came from pairs of rows within a query, not from one row's "
    "label, so they are not shown"
)


def _objective(header, lp, K, classes):
    """(LightGBM's objective name, teachgbt's objective, its parameters, is a classifier,
    notes) from the ``objective=`` line and the parameters section; refusals say why."""
    words = header["objective"].split()
    name = _ALIASES.get(words[0], words[0]) if words else ""
    said = header["objective"]
    if name not in _OBJECTIVES:
        why = {
            "custom": "trained with a Python objective function, whose link teachgbt cannot know",
            "none": "trained with a Python objective function, whose link teachgbt cannot know",
        }.get(name, f"teachgbt imports {', '.join(_OBJECTIVES)}")
        raise ValueError(f"this LightGBM model's objective is {said!r}: {why}")
    if name == "regression" and len(words) > 1:
        raise ValueError(
            f"this LightGBM model's objective is {said!r}: it trained on √y and predicts "
            "sign(margin)·margin²; teachgbt imports regression without sqrt"
        )
    sigmoid_words = [w for w in words if w.startswith("sigmoid:")]
    if sigmoid_words and float(sigmoid_words[0].split(":")[1]) != 1.0:
        raise ValueError(
            f"this LightGBM model's objective is {said!r}: its probabilities are "
            "σ(sigmoid·margin); teachgbt imports sigmoid:1"
        )
    multi = name in ("multiclass", "multiclassova")
    stated = [int(w.split(":")[1]) for w in words if w.startswith("num_class:")]
    if multi and (K < 2 or (stated and stated[0] != K)):
        raise ValueError(f"this LightGBM {name} model has {K} trees a round: corrupted?")
    if not multi and K != 1:
        raise ValueError(f"this LightGBM {name} model has {K} trees a round: not supported")
    objective, wanted = _OBJECTIVES[name]
    params = {ours: _float(lp, theirs, None) for theirs, ours in wanted if theirs in lp}
    notes = [_OBJECTIVE_NOTES[name]] if name in _OBJECTIVE_NOTES else []
    if objective.endswith(("lambdarank", "rank_xendcg")):
        notes.append(_RANKING_NOTE.format(name=name))
    is_clf = name in _CLASSIFIERS or (name == "cross_entropy" and classes is not None)
    return name, objective, params, is_clf, notes


def _booster(header, lp, name, notes):
    """LightGBM's boosting: "gbdt" (and goss), "dart" or "rf"; its notes."""
    boosting = {"random_forest": "rf"}.get(lp.get("boosting"), lp.get("boosting", "gbdt"))
    if "average_output" in header:
        boosting = "rf"
    if boosting == "rf":
        notes.append(
            "boosting='rf': a forest, not boosting; every tree was grown at the initial score, "
            "which it holds, and the trees are averaged (each adds its leaf / n, the tree's "
            "learning rate is 1/n). LightGBM's raw_score and pred_contrib give the sum, n "
            "times the margin here"
        )
    elif boosting == "dart":
        notes.append(
            "boosting='dart': the trees were rescaled when others were dropped; the file's "
            "leaf values are final"
        )
    return boosting


def _check_header(header, n_trees):
    """The header's counts, as whole numbers in range and agreeing (LightGBM sizes its
    arrays by them): classes, trees a round (the same number), the last feature's index,
    the label's. Returns (the number of features, trees a round)."""
    counts = {}
    for key, default in (("num_class", None), ("num_tree_per_iteration", "1"),
                         ("max_feature_idx", None), ("label_index", "0")):  # fmt: skip
        text = header.get(key, default)
        if text is None:
            raise ModelFileError(f"its header lacks {key}")
        text = text.strip()
        if not text.lstrip("-").isdigit() or len(text) > 12:
            raise ModelFileError(f"its {key}={shorten(text)} is not a whole number")
        counts[key] = int(text)
    K = counts["num_tree_per_iteration"]
    if counts["num_class"] != K or K < 1:
        raise ModelFileError(
            f"its num_class={counts['num_class']} and num_tree_per_iteration={K} disagree "
            "(LightGBM writes one tree a round per class, at least one)"
        )
    for token in header.get("objective", "").split():
        head, _, value = token.partition(":")
        if head == "num_class" and not value.isdigit():
            raise ModelFileError(f"its objective's {shorten(token)} is not a whole number")
    n_features = counts["max_feature_idx"] + 1
    check_model_counts("LightGBM", n_features, K, n_trees)
    check_count("label_index", counts["label_index"], 0, None, "this LightGBM model")
    return n_features, K


def read_lightgbm(text, source="model file", classes=None, **given):
    """``Imported`` from a LightGBM model text."""
    header, trees, lp = _sections(text)
    if header.get("version") is None or "objective" not in header:
        raise ValueError("not a complete LightGBM model: its header lacks version or objective")
    n_features, K = _check_header(header, len(trees))
    name, objective, objective_params, is_clf, notes = _objective(header, lp, K, classes)
    boosting = _booster(header, lp, name, notes)
    names = header.get("feature_names", "").split() or None
    if names is not None and len(names) != n_features:
        raise ValueError(f"{len(names)} feature names for {n_features} features")
    p, l1, mds = _train_params(lp, given, notes)
    if name not in _NEWTON_AT_INIT or boosting != "gbdt":
        p["G_recoverable"] = False
        notes.append(
            "G is not recoverable: the leaves are not −G/(H+λ) of the stored H "
            f"({'refreshed or shifted by the initial score' if boosting == 'gbdt' else boosting})"
        )
    n_rounds = len(trees) // K
    if boosting == "rf":
        bias = [0.0] * K
        p["learning_rate"] = 1.0
    else:
        bias = [_initial_score(t, p, lp) for t in trees[:K]] + [0.0] * (K - len(trees[:K]))
    zero_missing = _zero_missing_features(trees)
    out = [
        _tree(t, k, p, n_features, names, bias[k] if k < K else 0.0, zero_missing)
        for k, t in enumerate(trees)
    ]
    check_tree_sizes(text, header, len(trees))
    if boosting == "rf" and n_rounds:
        for tree in out:  # a forest averages: each tree adds its leaf / n
            tree.value = tree.value / n_rounds
            tree.learning_rate = 1.0 / n_rounds
    if K == 2 and name == "multiclass":
        notes.append("a softmax over two classes: two margins, two trees a round")
    params = {
        "objective": objective,
        **objective_params,
        "tree_method": "hist",
        "learning_rate": p["learning_rate"],
        "reg_lambda": p["reg_lambda"],
        "gamma": p["gamma"],
        "reg_alpha": l1,
        "max_delta_step": max(mds, 0.0),
        "min_child_weight": _float(lp, "min_sum_hessian_in_leaf", 1e-3),
        "max_depth": max(int(_float(lp, "max_depth", -1)), 0),
        "max_leaves": int(_float(lp, "num_leaves", 31)),
        "pruning": "pre",
    }
    return Imported(
        library="LightGBM",
        source=source,
        is_classifier=is_clf,
        trees=out,
        base_score=start_scores(objective, bias, is_clf, objective_params),
        n_features=n_features,
        params=params,
        feature_names=names,
        classes=classes if is_clf else None,
        tree_class=multiclass_order("LightGBM", len(out), K),
        notes=notes,
        categories=lightgbm_category_names(text, header.get("feature_infos", ""), n_features),
        library_margin_scale=float(n_rounds) if boosting == "rf" and n_rounds else 1.0,
    )


def _train_params(lp, given, notes):
    """(λ, η, γ as ``p``, lambda_l1, max_delta_step) from the parameters section or the
    arguments (LightGBM's defaults, with a warning, when the text has neither)."""
    missing = {
        k: v for k, v in _LGB_DEFAULTS.items() if given.get(k) is None and _PARAM_NAMES[k] not in lp
    }
    p = {
        k: float(given[k]) if given.get(k) is not None else _float(lp, _PARAM_NAMES[k], v)
        for k, v in _LGB_DEFAULTS.items()
    }
    if missing:
        said = ", ".join(f"{k}={v:g}" for k, v in missing.items())
        notes.append(f"assumed {said} (the model text has no parameters section)")
        warnings.warn(
            f"this LightGBM model text has no parameters; assumed {said}. weight, G "
            "and gain depend on them. Pass learning_rate=, reg_lambda=, gamma=",
            ImportAssumptionWarning,
            stacklevel=4,
        )
    l1, mds = _float(lp, "lambda_l1", 0), _float(lp, "max_delta_step", 0)
    smooth = _float(lp, "path_smooth", 0)
    p["G_recoverable"] = not (l1 or mds > 0 or smooth)
    if not p["G_recoverable"]:
        notes.append("G is not recoverable: lambda_l1, max_delta_step or path_smooth shaped w*")
    return p, l1, mds


def lightgbm_file(text, data, shown, **given):
    """``Imported`` from a model text already read (``data`` its bytes, ``shown`` its
    name), and LightGBM's own margins on the file (None without LightGBM)."""
    imp = read_lightgbm(text, f"model file {shown}", **given)
    return imp, _per_tree(_file_margin(data), imp)


def lightgbm_source(model, **given):
    """``Imported`` from a Booster or an LGBMModel, and LightGBM's own margin function."""
    classes = None
    if hasattr(model, "booster_"):  # LGBMClassifier / LGBMRegressor
        if getattr(model, "classes_", None) is not None:
            classes = np.asarray(model.classes_).tolist()
        source = type(model).__name__
        model = model.booster_
    elif type(model).__module__.startswith("lightgbm") and type(model).__name__ == "Booster":
        source = "lightgbm.Booster"
    else:
        raise TypeError(
            "from_lightgbm takes a lightgbm.Booster, an LGBMClassifier/LGBMRegressor or the "
            f"path of a model .txt; got {type(model).__name__}"
        )
    imp = read_lightgbm(model.model_to_string(), source, classes=classes, **given)
    return imp, _per_tree(_margin(model), imp)


def _per_tree(margin, imp):
    """LightGBM's margin function on teachgbt's scale: its rf raw scores are sums where
    its predictions, and teachgbt's margins, average."""
    scale = imp.library_margin_scale
    if margin is None or scale == 1.0:
        return margin
    return lambda X: np.asarray(margin(X), dtype=np.float64) / scale


def _file_margin(data):
    """LightGBM's margins for the model file's own bytes ``data`` (never a text rebuilt
    from teachgbt's parse: that would hide a part LightGBM reads differently), computed in
    a child process (``_library``: a crafted file can crash LightGBM's parser), when
    LightGBM is installed (else None)."""
    from ._library import installed, library_margins

    if not installed("lightgbm"):
        return None

    def margin(rows):
        return library_margins("lightgbm", data, rows)

    return margin


def _margin(booster):
    def margin(rows):  # the probe rows, as dense blocks: LightGBM reads a CSR value at
        # the edge of its zero band (|x| about 1e-35) otherwise than the same dense value
        return np.concatenate([booster.predict(X, raw_score=True) for X in dense_chunks(rows)])

    return margin
