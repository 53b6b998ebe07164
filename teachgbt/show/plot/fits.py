"""Fits of 1-D data: the model as a step function, round by round or model against model."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from ._common import (
    axes,
    check_fitted,
    is_classifier,
    literal,
    shown,
    shown_name,
)

__all__ = ["staircase", "compare_fits"]


def _one_feature(model, X):
    if model.model_.n_outputs > 1:
        raise ValueError(
            f"staircase draws one step function; a model of {model.model_.n_outputs} classes "
            "has one margin per class: see probabilities(model, class_=k)"
        )
    if isinstance(X, pd.DataFrame):
        if X.shape[1] != 1:
            raise ValueError(f"staircase plots 1-D data: X has {X.shape[1]} columns")
        return X.iloc[:, 0].to_numpy(dtype=np.float64), str(X.columns[0])
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"staircase plots 1-D data: X has shape {np.shape(X)}")
    if model.n_features_in_ != 1:
        raise ValueError(f"staircase needs a model of one feature; it has {model.n_features_in_}")
    names = getattr(model, "feature_names_in_", None)
    return arr, (str(names[0]) if names is not None else "x")


def _as_model_input(model, x):
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return pd.DataFrame({str(names[0]): x})
    return x.reshape(-1, 1)


def _steps(model, x, t):
    """Edges and values of the step function after t rounds (exact: one value per piece)."""
    lo, hi = float(np.nanmin(x)), float(np.nanmax(x))
    pad = 0.05 * (hi - lo or 1.0)
    fitted = model.model_  # after t rounds, t = 0 included
    trees = [tree for r in range(1, t + 1) for tree in fitted.round_trees(r)]
    thr = np.unique(
        np.concatenate([tree.threshold[tree.feature == 0] for tree in trees] or [np.array([])])
    )
    thr = thr[(thr > lo - pad) & (thr < hi + pad)]
    edges = np.concatenate([[lo - pad], thr, [hi + pad]])
    # each piece's value read inside it: at a threshold itself a "≤" tree (LightGBM,
    # scikit-learn) still takes the piece on its left
    Xg = _as_model_input(model, (edges[:-1] + edges[1:]) / 2)
    v = shown(model, fitted.margins_after(fitted.check_X(Xg)[0], t))
    return edges, np.concatenate([v, [v[-1]]])


def _ylabel(model):
    """What the steps are, by the model's objective: P(y = …) = σ(margin), prediction = …"""
    symbol, formula = shown_name(model)
    if symbol == "p":
        return f"P(y = {model.classes_[1]}) = {formula}"
    return "prediction" if formula == "margin" else f"prediction = {formula}"


def _default_rounds(n):
    if n == 0:
        return [0]
    return sorted({int(r) for r in np.round(np.geomspace(1, n, min(n, 4)))})


def staircase(model, X, y, rounds=None, ax=None):
    """Seed 000's picture: 1-D data and the fitted step function after selected rounds.

    Each tree is a step function of x, so the model after t rounds is one
    too; its steps are the thresholds of the first t trees. ``rounds``:
    which rounds to draw (0 = base_score alone; default a few up to the last).
    A classifier's step function is the probability of the positive class, by the
    objective's link (σ(margin), σ(2·margin), ...; binary:hinge's is its class); a
    regressor's is its prediction (e^margin for a log link).
    """
    check_fitted(model)
    x, name = _one_feature(model, X)
    yv = np.asarray(y)
    if is_classifier(model):
        yv = (yv == model.classes_[1]).astype(float)
    yv = yv.astype(np.float64)
    n = model.model_.n_rounds
    rounds = _default_rounds(n) if rounds is None else [int(r) for r in np.atleast_1d(rounds)]
    bad = [r for r in rounds if not 0 <= r <= n]
    if bad:
        raise ValueError(f"rounds must be from 0 to {n} (the model has {n} rounds); got {bad}")
    ax = axes(ax)
    ax.scatter(x, yv, s=18, color="black", alpha=0.6, zorder=3, label="data")
    colors = _shades(len(rounds))
    for r, c in zip(rounds, colors):
        edges, v = _steps(model, x, r)
        ax.step(
            edges,
            v,
            where="post",
            color=c,
            lw=1.8,
            label="base_score only" if r == 0 else f"after {r} round{'s' * (r != 1)}",
        )
    ax.set_xlabel(literal(name))
    ax.set_ylabel(_ylabel(model))
    ax.set_title("The model is a step function; more rounds, more steps")
    ax.legend(
        fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3, frameon=False
    )
    return ax


def _shades(k):
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    return [cmap(v) for v in np.linspace(0.1, 0.75, max(k, 1))][:k]


_COMPARED = (
    "max_depth",
    "max_leaves",
    "reg_lambda",
    "reg_alpha",
    "gamma",
    "min_child_weight",
    "learning_rate",
)


def _fit_label(models):
    """Labels naming what differs between fitted models, with the values they trained with."""

    def used(m):
        d = {k: getattr(m.params_, k) for k in _COMPARED if hasattr(m.params_, k)}
        d["n_estimators"] = len(m.trees_)
        d["algorithm"] = getattr(m, "algorithm", None)
        return d

    settings = [used(m) for m in models]
    keys = [k for k in settings[0] if len({repr(s.get(k)) for s in settings}) > 1]
    if not keys:
        return [f"model {i + 1}" for i in range(len(models))]
    return [
        ", ".join(f"{k}={s[k]:g}" if isinstance(s[k], float) else f"{k}={s[k]}" for k in keys)
        for s in settings
    ]


def compare_fits(models, X, y, labels=None, ax=None):
    """The bias–variance picture of seed 000: one data set, the final step function of several
    models (e.g. different ``reg_lambda``, ``gamma`` or ``max_depth``).

    Unfitted models are copied and the copies fitted on X, y (yours are left
    untouched). Labels default to the parameters that differ between models.
    """
    models = list(models)
    if not models:
        raise ValueError("compare_fits needs at least one model")
    fitted = [m if hasattr(m, "trees_") else copy.deepcopy(m).fit(X, y) for m in models]
    labels = list(labels) if labels is not None else _fit_label(fitted)
    if len(labels) != len(fitted):
        raise ValueError(f"{len(labels)} labels for {len(fitted)} models")
    x, name = _one_feature(fitted[0], X)
    clf = is_classifier(fitted[0])
    yv = np.asarray(y)
    if clf:
        yv = (yv == fitted[0].classes_[1]).astype(float)
    ax = axes(ax)
    ax.scatter(x, yv.astype(np.float64), s=18, color="black", alpha=0.6, zorder=3, label="data")
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    for j, (m, lab) in enumerate(zip(fitted, labels)):
        edges, v = _steps(m, x, len(m.trees_))
        n_steps = len(edges) - 2  # thresholds inside the data range: one jump each
        ax.step(
            edges,
            v,
            where="post",
            lw=1.8,
            color=palette[j % len(palette)],
            label=f"{lab} ({n_steps} step{'' if n_steps == 1 else 's'})",
        )
    ax.set_xlabel(literal(name))
    ax.set_ylabel(_ylabel(fitted[0]))
    ax.set_title("Simple or predictive? One data set, several fits")
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False)
    return ax
