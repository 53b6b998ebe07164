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

from ..core.losses import sigmoid
from ._common import Imported, dense_chunks, make_tree, multiclass_order

__all__ = ["sklearn_source"]

_GB_LOSSES = {"log_loss": True, "squared_error": False}


def _names(model):
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(c) for c in names]


def _classes(model, is_clf):
    return np.asarray(model.classes_).tolist() if is_clf else None


def _objective(is_clf, n_classes):
    if n_classes >= 3:
        return "multi:softprob"
    return "binary:logistic" if is_clf else "reg:squarederror"


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


def _gb_tree(tree, lr, is_clf, n_features, names):
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
    if is_clf:
        G = np.where(split, -residual_sum, np.nan)
        H = np.full(len(left), np.nan)
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
    if is_clf:
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
    if model.loss not in _GB_LOSSES or _GB_LOSSES[model.loss] != is_clf:
        raise ValueError(
            f"this {type(model).__name__} uses loss={model.loss!r}; teachgbt "
            "imports log_loss and squared_error"
        )
    classes = _classes(model, is_clf)
    K = len(classes) if is_clf and len(classes) >= 3 else 1
    init = model.init_
    if isinstance(init, str) and init == "zero":
        base_score = 0.5 if is_clf else 0.0
        base_score = [0.0] * K if K > 1 else base_score
    elif _is_dummy(init):  # the default start (init=None) or a Dummy*: the same for every X
        zero = np.zeros((1, int(model.n_features_in_)), dtype=np.float32)
        raw = np.asarray(model._raw_predict_init(zero), dtype=np.float64)[0]
        if K > 1:
            base_score = raw.tolist()
        else:
            base_score = float(sigmoid(raw[0])) if is_clf else float(raw[0])
    else:
        raise ValueError(
            f"this {type(model).__name__} starts from init={type(init).__name__}(), whose "
            "start differs from row to row; teachgbt imports models that start from one "
            "number (init=None, 'zero', or a DummyClassifier/DummyRegressor)"
        )
    n_features, names = int(model.n_features_in_), _names(model)
    lr = float(model.learning_rate)
    trees = [
        _gb_tree(est[k], lr, is_clf, n_features, names)
        for est in model.estimators_
        for k in range(K)
    ]
    params = {
        "algorithm": "gbdt",
        "tree_method": "exact",
        "objective": _objective(is_clf, K),
        "learning_rate": lr,
        "max_depth": int(model.max_depth or 0),
        "max_leaves": model.max_leaf_nodes,
    }
    notes = [] if not is_clf else ["the classifier's leaves store neither G nor H (NaN)"]
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


def _hgb_tree(nodes, lr, lam, is_clf, n_features, names):
    leaf = nodes["is_leaf"].astype(bool)
    left = np.where(leaf, -1, nodes["left"].astype(np.int64))
    right = np.where(leaf, -1, nodes["right"].astype(np.int64))
    value = nodes["value"].astype(np.float64)
    weight = np.where(leaf, value / lr, value)  # leaves are × η, splits are not
    n = nodes["count"].astype(np.int64)
    order = _preorder(left, right)
    if is_clf:
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
    )


def _hist_gradient_boosting(model):
    is_clf = hasattr(model, "classes_")
    loss = getattr(model, "loss", None)
    if (is_clf and loss != "log_loss") or (not is_clf and loss != "squared_error"):
        raise ValueError(
            f"this {type(model).__name__} uses loss={loss!r}; teachgbt imports "
            "log_loss and squared_error"
        )
    classes = _classes(model, is_clf)
    K = len(classes) if is_clf and len(classes) >= 3 else 1
    n_features, names = int(model.n_features_in_), _names(model)
    cat = getattr(model, "is_categorical_", None)
    if cat is not None and np.any(cat):
        which = [names[j] if names else f"x{j}" for j in np.flatnonzero(cat)]
        raise ValueError(
            f"this {type(model).__name__} has categorical features {which}; "
            "teachgbt's trees split numbers. One-hot encode them and retrain"
        )
    lr, lam = float(model.learning_rate), float(model.l2_regularization)
    trees = [
        _hgb_tree(pred[k].nodes, lr, lam, is_clf, n_features, names)
        for pred in model._predictors
        for k in range(K)
    ]
    raw = np.ravel(model._baseline_prediction).astype(np.float64)
    params = {
        "tree_method": "hist",
        "objective": _objective(is_clf, K),
        "learning_rate": lr,
        "reg_lambda": lam,
        "max_depth": int(model.max_depth or 0),
        "max_leaves": model.max_leaf_nodes,
        "pruning": "pre",
    }
    notes = (
        ["HistGradientBoosting stores no hessian sums: G and H are unknown (NaN)"]
        if is_clf
        else ["H = n: every h is 1 for squared error (unit sample weights assumed)"]
    )
    if K > 1:
        base = raw.tolist()
    else:
        base = float(sigmoid(raw[0])) if is_clf else float(raw[0])
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
    )


def sklearn_source(model):
    """``Imported`` and scikit-learn's own margin function."""
    kind = type(model).__name__
    if not type(model).__module__.startswith("sklearn") or kind not in (
        "GradientBoostingClassifier",
        "GradientBoostingRegressor",
        "HistGradientBoostingClassifier",
        "HistGradientBoostingRegressor",
    ):
        raise TypeError(
            "from_sklearn takes a fitted GradientBoostingClassifier/Regressor or "
            f"HistGradientBoostingClassifier/Regressor; got {kind}"
        )
    if not hasattr(model, "n_features_in_"):
        raise ValueError(f"this {kind} is not fitted yet; fit it before importing")
    if kind.startswith("Hist"):
        imp = _hist_gradient_boosting(model)
    else:
        imp = _gradient_boosting(model)
    is_clf = imp.is_classifier

    def margin(rows):  # the probe rows: a CSR matrix, read as dense blocks
        out = []
        for X in dense_chunks(rows):
            if getattr(model, "feature_names_in_", None) is not None:
                import pandas as pd

                X = pd.DataFrame(X, columns=model.feature_names_in_)
            out.append(model.decision_function(X) if is_clf else model.predict(X))
        return np.concatenate(out)

    margin.missing = kind.startswith("Hist")  # probe GradientBoosting without NaN
    return imp, margin
