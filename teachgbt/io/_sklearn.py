"""scikit-learn's gradient boosting as teachgbt trees.

* ``GradientBoostingClassifier``/``Regressor`` (Friedman's GBDT, seed 004): each round is a
  squared-error regression tree on the residuals, ``estimators_[m, 0].tree_``, whose rule
  is ``x ≤ t`` (X compared in float32: the tree's rule ``sklearn-gb``). Leaf values are
  the Newton step, *not* × the learning rate; the raw prediction is link(init) + η·Σ
  tree outputs. Internal nodes hold the mean residual, so G = −Σ residual = −mean·n_w
  there; the regressor's leaves too (its Newton step is the mean residual, and H = Σ
  weights). The classifier's leaves keep only the step Σ residual / Σ p(1−p): their G
  and H are not stored (NaN).
* ``HistGradientBoostingClassifier``/``Regressor``: the private ``_predictors[m][0].nodes``
  (``x ≤ num_threshold`` in float64, NaN by ``missing_go_to_left``: rule
  ``sklearn-hist``); leaf values × η, split values not (the root's is 0); ``gain`` is
  loss_chg (no ½). Hessian sums are not stored: H is known for the squared-error
  regressor only, where every h is 1 (H = n, unit sample weights assumed), and then
  G = −w*·(H+λ) on leaves and sums of them on splits.
* K ≥ 3 classes (multinomial log loss): round m, class k is ``estimators_[m, k]`` /
  ``_predictors[m][k]``, in the order teachgbt keeps (round by round, one tree per class).
  GradientBoosting's start is ``_raw_predict_init``: the log class priors, centred
  (log π_k − mean_j log π_j, scikit-learn 1.9); HistGradientBoosting's is
  ``_baseline_prediction`` ((1, K) or (K,)). Both are the K starting margins.
"""

from __future__ import annotations

import numpy as np

from ._categories import bitset_codes, decode_codes, hgb_categories
from ._common import Imported, dense_chunks, make_tree, multiclass_order, start_scores

__all__ = ["sklearn_source"]

# GradientBoosting's loss -> (is a classifier, teachgbt's objective); log_loss is softmax
# with K >= 3 classes
_GB_LOSSES = {
    "squared_error": (False, "reg:squarederror"),
    "absolute_error": (False, "reg:absoluteerror"),
    "huber": (False, "sklearn:huber"),
    "quantile": (False, "reg:quantileerror"),
    "log_loss": (True, "binary:logistic"),
    "exponential": (True, "sklearn:exponential"),
}
# HistGradientBoosting's loss -> teachgbt's objective
_HGB_LOSSES = {
    "squared_error": "reg:squarederror",
    "absolute_error": "reg:absoluteerror",
    "quantile": "reg:quantileerror",
    "poisson": "count:poisson",
    "gamma": "reg:gamma",
    "log_loss": "binary:logistic",
}
_REFRESHED = {
    "absolute_error": "the median",
    "huber": "a Huber step around the median (δ: the α-quantile of |residual|)",
    "quantile": "the α-quantile",
}
_FORESTS = (
    "RandomForestClassifier",
    "RandomForestRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
)
_BOOSTERS = (
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "HistGradientBoostingClassifier",
    "HistGradientBoostingRegressor",
)


def _names(model):
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(c) for c in names]


def _classes(model, is_clf):
    return np.asarray(model.classes_).tolist() if is_clf else None


def _objective(objective, n_classes):
    return "multi:softprob" if n_classes >= 3 else objective


def _alpha(model, loss, attribute):
    """The quantile a quantile loss fits (``alpha`` / ``quantile``), as the objective's
    parameter."""
    return {"quantile_alpha": float(getattr(model, attribute))} if loss == "quantile" else {}


def _sums_up(left, right, G, order):
    """G of every split node as the sum over its children, leaves first."""
    for i in order[::-1]:
        if left[i] >= 0:
            G[i] = G[left[i]] + G[right[i]]
    return G


def _preorder(left, right):
    out, stack = [], [0]
    while stack:
        i = stack.pop()
        out.append(i)
        if left[i] >= 0:
            stack.extend((int(right[i]), int(left[i])))
    return np.asarray(out)


def _is_dummy(init):
    kind = type(init)
    return kind.__module__.startswith("sklearn.dummy") and kind.__name__ in (
        "DummyClassifier",
        "DummyRegressor",
    )


def _gb_tree(tree, lr, loss, n_features, names):
    """One GradientBoosting tree. Its leaves hold the loss's step: the mean residual
    (squared error), a Newton step (log_loss, exponential) or a value refreshed from the
    leaf's residuals (absolute error, huber, quantile); its splits the mean negative
    gradient the tree was fitted to."""
    t = tree.tree_
    left, right = t.children_left.astype(np.int64), t.children_right.astype(np.int64)
    split = left >= 0
    step = t.value[:, 0, 0].astype(np.float64)  # leaves: the Newton step; splits: mean residual
    nw = t.weighted_n_node_samples.astype(np.float64)
    impurity = t.impurity.astype(np.float64)
    residual_sum = step * nw
    L, R = np.maximum(left, 0), np.maximum(right, 0)
    # the drop in the residuals' squared error (teachgbt GBDT's loss_chg, λ = 0)
    loss_chg = np.where(split, nw * impurity - nw[L] * impurity[L] - nw[R] * impurity[R], np.nan)
    if loss in ("log_loss", "exponential"):
        G = np.where(split, -residual_sum, np.nan)
        H = np.full(len(left), np.nan)
        residual_sum = np.where(split, residual_sum, np.nan)
    elif loss in _REFRESHED:  # the fit's h is 1 a row; the leaf is not −G/H of it
        G, H = np.where(split, -residual_sum, np.nan), nw
        residual_sum = np.where(split, residual_sum, np.nan)
    else:
        G, H = -residual_sum, nw
    stats = {
        "n": t.n_node_samples.astype(np.int64),
        "G": G,
        "H": H,
        "weight": step,
        "value": lr * step,
        "loss_chg": loss_chg,
        "gain": 0.5 * loss_chg,
        "cover": nw,  # scikit-learn's TreeSHAP weight: the weighted row count
    }
    extra = {"residual_sum": residual_sum, "impurity": impurity}
    if loss in ("log_loss", "exponential"):
        extra["p(1-p)_sum"] = H
    return make_tree(
        left,
        right,
        t.feature,
        t.threshold,
        np.ones(len(left), bool),
        stats,
        n_features,
        names,
        lr,
        extra,
        rule="sklearn-gb",
    )


def _gradient_boosting(model):
    is_clf = hasattr(model, "classes_")
    loss = model.loss
    if loss not in _GB_LOSSES or _GB_LOSSES[loss][0] != is_clf:
        raise ValueError(
            f"this {type(model).__name__} uses loss={loss!r}; teachgbt imports "
            f"{', '.join(k for k, v in _GB_LOSSES.items() if v[0] == is_clf)}"
        )
    classes = _classes(model, is_clf)
    K = len(classes) if is_clf and len(classes) >= 3 else 1
    objective = _objective(_GB_LOSSES[loss][1], K)
    objective_params = _alpha(model, loss, "alpha")
    init = model.init_
    if isinstance(init, str) and init == "zero":
        raw = np.zeros(K)
    elif _is_dummy(init):  # the default start (init=None) or a Dummy*: the same for every X
        zero = np.zeros((1, int(model.n_features_in_)), dtype=np.float32)
        raw = np.asarray(model._raw_predict_init(zero), dtype=np.float64)[0]
    else:
        raise ValueError(
            f"this {type(model).__name__} starts from init={type(init).__name__}(), whose "
            "start differs from row to row; teachgbt imports models that start from one "
            "number (init=None, 'zero', or a DummyClassifier/DummyRegressor)"
        )
    base_score = start_scores(objective, raw, is_clf, objective_params)
    n_features, names = int(model.n_features_in_), _names(model)
    lr = float(model.learning_rate)
    trees = [
        _gb_tree(est[k], lr, loss, n_features, names) for est in model.estimators_ for k in range(K)
    ]
    params = {
        "algorithm": "gbdt",
        "tree_method": "exact",
        "objective": objective,
        **objective_params,
        "learning_rate": lr,
        "max_depth": int(model.max_depth or 0),
        "max_leaves": model.max_leaf_nodes,
    }
    notes = [] if not is_clf else ["the classifier's leaves store neither G nor H (NaN)"]
    if loss in _REFRESHED:
        notes.append(
            f"loss={loss!r}: each tree was fitted to the negative gradient (G on the splits is "
            f"its sum, H the row weights), then each leaf was set to {_REFRESHED[loss]} of "
            "its rows' residuals: the leaves' G is unknown (NaN)"
        )
    if loss == "exponential":
        notes.append("loss='exponential' (AdaBoost's): predict_proba is σ(2·margin)")
    notes.append("GradientBoosting rejects missing values; the imported trees send them left")
    return Imported(
        "scikit-learn",
        type(model).__name__,
        is_clf,
        trees,
        base_score,
        n_features,
        params,
        names,
        classes,
        None,
        multiclass_order("scikit-learn", len(trees), K),
        notes,
    )


def _hgb_tree(nodes, lr, lam, squared_error, n_features, names, categorical=(None, None)):
    """One HistGradientBoosting predictor's tree; ``categorical``: (the X column of each of
    its features, its ``raw_left_cat_bitsets``) when the model has categorical features."""
    leaf = nodes["is_leaf"].astype(bool)
    left = np.where(leaf, -1, nodes["left"].astype(np.int64))
    right = np.where(leaf, -1, nodes["right"].astype(np.int64))
    value = nodes["value"].astype(np.float64)
    weight = np.where(leaf, value / lr, value)  # leaves are × η, splits are not
    n = nodes["count"].astype(np.int64)
    order = _preorder(left, right)
    if not squared_error:  # no hessian sums stored; refreshed leaves are not −G/(H+λ)
        G, H = np.full(len(left), np.nan), np.full(len(left), np.nan)
    else:  # squared error: h = 1 for every row, so H = n
        H = n.astype(np.float64)
        G = _sums_up(left, right, -weight * (H + lam), order)
        weight = np.where(leaf, weight, -G / (H + lam))
    loss_chg = np.where(leaf, np.nan, nodes["gain"].astype(np.float64))
    t_le = np.where(leaf, np.nan, nodes["num_threshold"])
    value = np.where(leaf, value, lr * weight)
    stats = {
        "n": n,
        "G": G,
        "H": H,
        "weight": weight,
        "value": value,
        "loss_chg": loss_chg,
        "gain": 0.5 * loss_chg,
        "cover": n.astype(np.float64),  # HistGradientBoosting's TreeSHAP weight: rows
    }
    rank = np.empty(len(left), dtype=np.int64)
    rank[order] = np.arange(len(left))
    feature = nodes["feature_idx"].astype(np.int64)
    default_left = nodes["missing_go_to_left"].astype(bool)
    original, bitsets = categorical
    sets = {}
    if original is not None:  # its features are the encoder's columns first, then the rest
        feature = np.where(leaf, feature, original[feature])
        on = np.flatnonzero(nodes["is_categorical"].astype(bool) & ~leaf)
        sets = {int(i): bitset_codes(bitsets[nodes["bitset_idx"][i]], f"node {i}") for i in on}
        t_le = np.where(np.isin(np.arange(len(t_le)), on), np.nan, t_le)
    return make_tree(
        left,
        right,
        feature,
        t_le,
        default_left,
        stats,
        n_features,
        names,
        lr,
        order=rank,
        rule="sklearn-hist",
        sets=sets,
    )


def _hist_gradient_boosting(model):
    is_clf = hasattr(model, "classes_")
    loss = getattr(model, "loss", None)
    if loss not in _HGB_LOSSES or (loss == "log_loss") != is_clf:
        raise ValueError(
            f"this {type(model).__name__} uses loss={loss!r}; teachgbt imports "
            f"{'log_loss' if is_clf else ', '.join(k for k in _HGB_LOSSES if k != 'log_loss')}"
        )
    classes = _classes(model, is_clf)
    K = len(classes) if is_clf and len(classes) >= 3 else 1
    objective = _objective(_HGB_LOSSES[loss], K)
    objective_params = _alpha(model, loss, "quantile")
    n_features, names = int(model.n_features_in_), _names(model)
    # categorical features: the predictors' feature order, and the encoder's categories
    original, categories = hgb_categories(model)
    lr, lam = float(model.learning_rate), float(model.l2_regularization)
    trees = [
        _hgb_tree(
            pred[k].nodes,
            lr,
            lam,
            loss == "squared_error",
            n_features,
            names,
            (original, pred[k].raw_left_cat_bitsets),
        )  # fmt: skip
        for pred in model._predictors
        for k in range(K)
    ]
    raw = np.ravel(model._baseline_prediction).astype(np.float64)
    params = {
        "tree_method": "hist",
        "objective": objective,
        **objective_params,
        "max_delta_step": 0.0,  # HistGradientBoosting's poisson neither inflates h nor clips
        "learning_rate": lr,
        "reg_lambda": lam,
        "max_depth": int(model.max_depth or 0),
        "max_leaves": model.max_leaf_nodes,
        "pruning": "pre",
    }
    notes = (
        ["H = n: every h is 1 for squared error (unit sample weights assumed)"]
        if loss == "squared_error"
        else ["HistGradientBoosting stores no hessian sums: G and H are unknown (NaN)"]
    )
    if loss in _REFRESHED:
        notes.append(
            f"loss={loss!r}: each leaf was set to η × {_REFRESHED[loss]} of its rows' "
            "residuals after growing the tree (l2_regularization does not enter)"
        )
    base = start_scores(objective, raw, is_clf, objective_params)
    return Imported(
        "scikit-learn",
        type(model).__name__,
        is_clf,
        trees,
        base,
        n_features,
        params,
        names,
        classes,
        None,
        multiclass_order("scikit-learn", len(trees), K),
        notes,
        categories,
    )


def _forest_tree(tree, k, n_trees, n_features, names):
    """Tree ``k``'s values of one forest tree (k: the class, or 0): the tree's own
    prediction (a class fraction, or the mean y) as ``weight``, / n_trees as ``value``."""
    t = tree.tree_
    left, right = t.children_left.astype(np.int64), t.children_right.astype(np.int64)
    split = left >= 0
    own = t.value[:, 0, k].astype(np.float64)
    nw = t.weighted_n_node_samples.astype(np.float64)
    impurity = t.impurity.astype(np.float64)
    L, R = np.maximum(left, 0), np.maximum(right, 0)
    # the drop in impurity (squared error, or Gini / entropy), weighted by the rows
    loss_chg = np.where(split, nw * impurity - nw[L] * impurity[L] - nw[R] * impurity[R], np.nan)
    unknown = np.full(len(left), np.nan)
    stats = {
        "n": t.n_node_samples.astype(np.int64),
        "G": unknown,
        "H": unknown,
        "weight": own,
        "value": own / n_trees,
        "loss_chg": loss_chg,
        "gain": 0.5 * loss_chg,
        "cover": nw,  # shap's weight for scikit-learn trees: the weighted row count
    }
    default_left = np.asarray(getattr(t, "missing_go_to_left", np.ones(len(left))), dtype=bool)
    return make_tree(
        left,
        right,
        t.feature,
        t.threshold,
        default_left,
        stats,
        n_features,
        names,
        1.0 / n_trees,
        {"impurity": impurity},
        rule="sklearn-gb",
    )


def _forest(model):
    """A RandomForest / ExtraTrees model: each tree once (one per class for K >= 3
    classes, the positive class's fractions for two), averaged by 1/n on its leaves."""
    is_clf = hasattr(model, "classes_")
    if getattr(model, "n_outputs_", 1) != 1:
        raise ValueError(
            f"this {type(model).__name__} predicts {model.n_outputs_} targets at once: "
            "teachgbt reads models of one target"
        )
    classes = _classes(model, is_clf)
    K = len(classes) if is_clf and len(classes) >= 3 else 1
    columns = list(range(K)) if K > 1 else [1 if is_clf else 0]
    n_features, names = int(model.n_features_in_), _names(model)
    n = len(model.estimators_)
    trees = [
        _forest_tree(est, c, n, n_features, names) for est in model.estimators_ for c in columns
    ]
    notes = [
        f"a forest of {n} trees grown independently and averaged: each tree adds its leaf / "
        f"{n} (its learning rate is 1/{n}); no G or H (not boosting)",
    ]
    if is_clf:
        notes.append(
            "the margins are the class probabilities themselves: the mean over the trees of "
            "each leaf's class fractions"
            + (" (one margin, the positive class's)" if K == 1 else "")
        )
    return Imported(
        "scikit-learn",
        type(model).__name__,
        is_clf,
        trees,
        start_scores("forest:mean", np.zeros(K), is_clf),
        n_features,
        {
            "tree_method": "exact",
            "objective": "forest:mean",
            "max_depth": int(model.max_depth or 0),
        },
        names,
        classes,
        None,
        multiclass_order("scikit-learn", len(trees), K),
        notes,
    )


def sklearn_source(model):
    """``Imported`` and scikit-learn's own margin function."""
    kind = type(model).__name__
    if not type(model).__module__.startswith("sklearn") or kind not in _BOOSTERS + _FORESTS:
        raise TypeError(
            "from_sklearn takes a fitted GradientBoostingClassifier/Regressor, "
            "HistGradientBoostingClassifier/Regressor, RandomForestClassifier/Regressor or "
            f"ExtraTreesClassifier/Regressor; got {kind}"
        )
    if not hasattr(model, "n_features_in_"):
        raise ValueError(f"this {kind} is not fitted yet; fit it before importing")
    if kind in _FORESTS:
        imp = _forest(model)
    elif kind.startswith("Hist"):
        imp = _hist_gradient_boosting(model)
    else:
        imp = _gradient_boosting(model)
    return imp, _margin(model, imp)


def _margin(model, imp):
    """scikit-learn's own margins: the raw predictions before the link (``decision_function``,
    ``_raw_predict``), a forest's (positive class's) probabilities."""
    kind = type(model).__name__

    def margin(rows):  # the probe rows: a CSR matrix, read as dense blocks
        return np.concatenate([_margin_of(X) for X in dense_chunks(rows)])

    def _margin_of(X):
        X = np.asarray(X, dtype=np.float64)
        if imp.categories:  # the codes as the category values the model's encoder reads
            X = decode_codes(X, imp.categories)
        if getattr(model, "feature_names_in_", None) is not None:
            import pandas as pd

            X = pd.DataFrame(X, columns=model.feature_names_in_)
        if kind in _FORESTS:
            if not imp.is_classifier:
                return model.predict(X)
            proba = model.predict_proba(X)
            return proba[:, 1] if proba.shape[1] == 2 else proba
        if imp.is_classifier:
            return model.decision_function(X)
        if kind.startswith("Hist"):
            return model._raw_predict(X).ravel()  # the margin: predict applies the link
        return model._raw_predict(np.asarray(X, dtype=np.float32)).ravel()

    # GradientBoosting rejects missing values: probe it without NaN
    margin.missing = not kind.startswith("GradientBoosting")
    return margin
