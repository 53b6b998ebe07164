"""Plots of every step of boosting. Each takes ``ax=None`` and returns the Axes.

With ``ax=None`` a new figure is made (``plt.subplots``); pass an Axes to
draw into a figure of your own. Nothing here changes matplotlib's global
settings.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd

from . import formulas
from ._validation import check_is_fitted

__all__ = [
    "loss_curve",
    "split_scan",
    "staircase",
    "compare_fits",
    "probabilities",
    "residuals",
    "structure_score",
    "importance",
    "importance_values",
    "vote_error",
    "majority_vote_error",
]

_POS, _NEG = "#1f77b4", "#ff7f0e"  # y = 1 / y = 0, as the tree diagrams' leaf colours
_MANY = 60  # more instances than this: draw quantile bands instead of one line each


def _axes(ax, figsize=(6.4, 4.2)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _integer_ticks():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _fitted(model):
    return check_is_fitted(model)


def _train_y_w(model):
    """Training labels (0/1 for a classifier) and sample weights, as the trace holds them."""
    tr = model.trace_
    return np.asarray(tr.y, dtype=np.float64), tr.sample_weight


def _is_classifier(model):
    return bool(model.loss_.is_classification)


# ----------------------------------------------------------------- loss
def loss_curve(model, ax=None):
    """The loss after each round on the training data, and on every ``eval_set``.

    Training and evaluation use the same metric, the one XGBoost reports for
    the objective (``logloss`` or ``rmse``), so the curves can be compared.
    """
    _fitted(model)
    ax = _axes(ax)
    y, w = _train_y_w(model)
    tr = model.trace_
    name = model.loss_.metric_name
    rounds = np.arange(tr.n_rounds + 1)
    train = [model.loss_.metric(y, tr.margin(int(k)), w) for k in rounds]
    ax.plot(rounds, train, "o-" if len(rounds) <= 30 else "-", ms=4, label="training")
    for key, metrics in (getattr(model, "evals_result_", None) or {}).items():
        values = metrics.get(name)
        if values:
            r = np.arange(1, len(values) + 1)
            ax.plot(r, values, "s--" if len(r) <= 30 else "--", ms=4, label=key)
    best = getattr(model, "best_iteration_", None)
    if best is not None:
        ax.axvline(best + 1, color="grey", lw=1, ls=":", label=f"best round ({best + 1})")
    ax.set_xlabel("round (trees added; 0 = base_score only)")
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.set_ylabel(name)
    ax.set_title(f"{name} after each round")
    ax.legend()
    return ax


# ----------------------------------------------------------------- split scan
def _feature_name(tree, feature):
    if isinstance(feature, (int, np.integer)):
        if not 0 <= feature < tree.n_features:
            raise ValueError(f"feature index {feature} out of range 0..{tree.n_features - 1}")
        return tree.feature_name(int(feature))
    return str(feature)


def split_scan(model, t, node, feature, ax=None):
    """Seed 000's left-to-right scan at one node: the gain of every candidate threshold of
    ``feature`` in sorted order, the chosen split marked, and the running sums G_L and H_L
    (right-hand axis) that the scan accumulates."""
    _fitted(model)
    tree = model.trees_[t - 1] if 1 <= t <= len(model.trees_) else None
    table = model.trace_.splits(t, node)  # validates t and node
    name = _feature_name(tree, feature)
    rows = table[table["feature"] == name]
    if rows.empty:
        have = sorted(set(table["feature"]))
        raise ValueError(
            f"no candidate split on {name!r} at node {node} of tree {t}; features with "
            f"candidates there: {have}"
        )
    # a candidate that leaves one side empty is "no split" (gain 0 − γ): not part of the scan
    rows = rows[(rows["H_L"] > 0) & (rows["H_R"] > 0)]
    ax = _axes(ax, figsize=(7.2, 4.4))
    ax2 = ax.twinx()
    both = rows["default_left"].nunique() > 1
    handles, sums = [], []
    for dl, part in rows.groupby("default_left", sort=False):
        part = part.sort_values("threshold")
        suffix = f" (missing → {'left' if dl else 'right'})" if both else ""
        marker = "o-" if len(part) <= 40 else "-"
        (h,) = ax.plot(
            part["threshold"],
            part["gain"],
            marker,
            ms=4,
            color="#1f77b4",
            alpha=1.0 if dl or not both else 0.55,
            label=(
                f"gain{suffix}"
                if handles
                else f"gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] − γ{suffix}"
            ),
            zorder=3,
        )
        handles.append(h)
        if not sums:  # one scan's running sums are enough to read the picture
            few = len(part) <= 40
            sums = [
                ax2.plot(
                    part["threshold"],
                    part["G_L"],
                    "x:" if few else ":",
                    color="#2ca02c",
                    label="G_L (left of the threshold)",
                )[0],
                ax2.plot(
                    part["threshold"],
                    part["H_L"],
                    "+--" if few else "--",
                    color="#9467bd",
                    label="H_L",
                )[0],
            ]
    handles.extend(sums)
    ax.axhline(0.0, color="grey", lw=0.8)
    chosen = rows[rows["chosen"]]
    split_feature = tree.feature_name(int(tree.feature[node])) if tree.feature[node] >= 0 else None
    if len(chosen):
        c = chosen.iloc[0]
        (hc,) = ax.plot(
            [c["threshold"]],
            [c["gain"]],
            "*",
            ms=16,
            color="#d62728",
            label=f"chosen: {name} < {_thr(c['threshold'])}, gain {c['gain']:.4g}",
            zorder=4,
        )
        handles.append(hc)
    elif len(rows):
        b = rows.loc[rows["gain"].idxmax()]
        (hb,) = ax.plot(
            [b["threshold"]],
            [b["gain"]],
            "D",
            ms=8,
            color="grey",
            label=f"best on {name}: gain {b['gain']:.4g}",
            zorder=4,
        )
        handles.append(hb)
    ax.set_xlabel(f"threshold on {name} (rows with {name} < threshold go left)")
    ax.set_ylabel("gain")
    ax2.set_ylabel("running sums G_L, H_L of the left side")
    where = f"the node splits on {split_feature}" if split_feature else "the node is a leaf"
    ax.set_title(f"Tree {t}, node {node}: scanning {name} left to right\n({where})")
    # below the plot: inside it would hide the curves it explains
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        ncol=1 if both else 2,
        fontsize="small",
        frameon=False,
    )
    return ax


def _thr(t):
    from .draw.labels import format_threshold

    return format_threshold(t)


# ----------------------------------------------------------------- step functions
def _one_feature(model, X):
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


def _steps(model, x, k):
    """Edges and values of the step function after k rounds (exact: one value per piece)."""
    lo, hi = float(np.nanmin(x)), float(np.nanmax(x))
    pad = 0.05 * (hi - lo or 1.0)
    thr = np.unique(
        np.concatenate(
            [tree.threshold[tree.feature == 0] for tree in model.trees_[:k]] or [np.array([])]
        )
    )
    thr = thr[(thr > lo - pad) & (thr < hi + pad)]
    left = np.concatenate([[lo - pad], thr])
    Xg = _as_model_input(model, left)
    if _is_classifier(model):
        v = model.predict_proba(Xg, iteration_range=(0, k))[:, 1]
    else:
        v = model.predict(Xg, iteration_range=(0, k))
    return np.concatenate([left, [hi + pad]]), np.concatenate([v, [v[-1]]])


def _default_rounds(n):
    if n == 0:
        return [0]
    return sorted({int(r) for r in np.round(np.geomspace(1, n, min(n, 4)))})


def staircase(model, X, y, rounds=None, ax=None):
    """Seed 000's picture: 1-D data and the fitted step function after selected rounds.

    Each tree is a step function of x, so the model after k rounds is one
    too; its steps are the thresholds of the first k trees. ``rounds``:
    which rounds to draw (0 = base_score alone; default a few up to the last).
    A classifier's step function is the probability of the positive class.
    """
    _fitted(model)
    x, name = _one_feature(model, X)
    yv = np.asarray(y)
    if _is_classifier(model):
        yv = (yv == model.classes_[1]).astype(float)
    yv = yv.astype(np.float64)
    n = len(model.trees_)
    rounds = _default_rounds(n) if rounds is None else [int(r) for r in np.atleast_1d(rounds)]
    bad = [r for r in rounds if not 0 <= r <= n]
    if bad:
        raise ValueError(f"rounds must be from 0 to {n}; got {bad}")
    ax = _axes(ax)
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
    ax.set_xlabel(name)
    ax.set_ylabel("P(y = 1)" if _is_classifier(model) else "prediction")
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

    params = [used(m) for m in models]
    keys = [k for k in params[0] if len({repr(p.get(k)) for p in params}) > 1]
    if not keys:
        return [f"model {i + 1}" for i in range(len(models))]
    return [
        ", ".join(f"{k}={p[k]:g}" if isinstance(p[k], float) else f"{k}={p[k]}" for k in keys)
        for p in params
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
    clf = _is_classifier(fitted[0])
    yv = np.asarray(y)
    if clf:
        yv = (yv == fitted[0].classes_[1]).astype(float)
    ax = _axes(ax)
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
    ax.set_xlabel(name)
    ax.set_ylabel("P(y = 1)" if clf else "prediction")
    ax.set_title("Simple or predictive? One data set, several fits")
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False)
    return ax


# ----------------------------------------------------------------- per instance
def _per_instance(ax, table, y, clf, classes, what):
    """One line per instance (few) or median and 10–90 % bands per class (many)."""
    k = np.arange(table.shape[1])
    groups = [(1.0, _POS), (0.0, _NEG)] if clf else [(None, _POS)]
    for val, color in groups:
        rows = np.ones(len(y), bool) if val is None else (y == val)
        if not rows.any():
            continue
        if clf:
            lab = f"y = {classes[1] if val == 1 else classes[0]}"
        else:
            lab = "instances"
        block = table[rows]
        if len(y) <= _MANY:
            for j, line in enumerate(block):
                ax.plot(
                    k,
                    line,
                    "o-",
                    ms=3,
                    lw=1.2,
                    color=color,
                    alpha=0.8,
                    label=lab if j == 0 else None,
                )
            if len(y) <= 12:
                ax.margins(x=0.2)  # room on the right for the row labels
                # rows that end at the same value share one label
                ends = {}
                for i in np.flatnonzero(rows):
                    ends.setdefault(round(float(table[i, -1]), 3), []).append(i)
                for v, ids in ends.items():
                    who = "row" + ("s " if len(ids) > 1 else " ") + ", ".join(map(str, ids))
                    ax.annotate(
                        who,
                        (k[-1], v),
                        xytext=(4, 0),
                        textcoords="offset points",
                        va="center",
                        fontsize="x-small",
                        color=color,
                    )
        else:
            q10, q50, q90 = np.nanpercentile(block, [10, 50, 90], axis=0)
            ax.fill_between(k, q10, q90, color=color, alpha=0.25, label=f"{lab}: 10–90 %")
            ax.plot(k, q50, "-", color=color, lw=2, label=f"{lab}: median {what}")
    ax.xaxis.set_major_locator(_integer_ticks())


def probabilities(model, ax=None):
    """Seed 004: every instance's probability after each epoch (ep_k_prob), coloured by label."""
    _fitted(model)
    if not _is_classifier(model):
        raise ValueError(
            "probabilities() is for classifiers; for a regressor see "
            "residuals(model) or staircase(model, X, y)"
        )
    ep = model.trace_.epochs()
    cols = [f"ep_{k}_prob" for k in range(model.trace_.n_rounds + 1)]
    table = ep[cols].to_numpy(dtype=np.float64)
    y, _ = _train_y_w(model)
    ax = _axes(ax)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--", label="0.5")
    _per_instance(ax, table, y, True, model.classes_, "probability")
    ax.set_xlabel("epoch k (trees added; 0 = base_score)")
    ax.set_ylabel("ep_k_prob = σ(ep_k_pre)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("Probability of each instance, epoch by epoch")
    ax.legend(fontsize="small")
    return ax


def residuals(model, ax=None):
    """Each instance's residual after each epoch: y − p (classifier) or y − prediction."""
    _fitted(model)
    tr = model.trace_
    y, _ = _train_y_w(model)
    clf = _is_classifier(model)
    table = np.column_stack(
        [y - model.loss_.transform(tr.margin(k).astype(np.float64)) for k in range(tr.n_rounds + 1)]
    )
    ax = _axes(ax)
    ax.axhline(0.0, color="grey", lw=0.8)
    _per_instance(ax, table, y, clf, getattr(model, "classes_", None), "residual")
    ax.set_xlabel("epoch k (trees added; 0 = base_score)")
    ax.set_ylabel("residual y − p" if clf else "residual y − prediction")
    ax.set_title("Residuals shrink as trees are added")
    ax.legend(fontsize="small")
    return ax


# ----------------------------------------------------------------- trees
def structure_score(model, ax=None):
    """Obj* = −½ Σ_j G_j²/(H_j+λ) + γT of each round's tree (lower is better), next to the
    score the same round would have with a single leaf."""
    _fitted(model)
    p = model.params_
    ax = _axes(ax)
    scores, single = [], []
    for tree in model.trees_:
        lv = tree.leaves
        scores.append(
            formulas.structure_score(tree.G[lv], tree.H[lv], p.reg_lambda, p.gamma, p.reg_alpha)
        )
        single.append(
            formulas.structure_score(tree.G[:1], tree.H[:1], p.reg_lambda, p.gamma, p.reg_alpha)
        )
    r = np.arange(1, len(scores) + 1)
    bars = [
        ax.bar(r - 0.2, single, width=0.4, color="#bbbbbb", label="a single leaf"),
        ax.bar(r + 0.2, scores, width=0.4, color="#1f77b4", label="the tree grown"),
    ]
    if len(r) <= 12:
        from .draw.labels import format_number

        for b, values in zip(bars, (single, scores)):
            ax.bar_label(
                b, labels=[format_number(v, 3) for v in values], fontsize="x-small", padding=2
            )
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("round")
    ax.set_ylabel("structure score Obj* (lower is better)")
    ax.set_title("Obj* = −½ Σ G²/(H+λ) + γT of each round's tree")
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.margins(y=0.12)
    ax.legend(fontsize="small")
    return ax


_KINDS = {
    "weight": "number of splits on the feature",
    "gain": "mean loss_chg of its splits",
    "cover": "mean H (cover) of its splits",
    "total_gain": "total loss_chg of its splits",
    "total_cover": "total H (cover) of its splits",
}


def importance_values(model, kind="gain"):
    """Feature importance as XGBoost's ``get_score(importance_type=kind)`` defines it.

    A pandas Series indexed by feature name, features never split on left out.
    """
    _fitted(model)
    if kind not in _KINDS:
        raise ValueError(f"kind={kind!r}; use one of {list(_KINDS)}")
    d = model.n_features_in_
    count = np.zeros(d)
    gain = np.zeros(d)
    cover = np.zeros(d)
    for tree in model.trees_:
        s = ~tree.is_leaf
        np.add.at(count, tree.feature[s], 1)
        np.add.at(gain, tree.feature[s], tree.loss_chg[s])
        np.add.at(cover, tree.feature[s], tree.H[s])
    names = getattr(model, "feature_names_in_", None)
    names = [str(n) for n in names] if names is not None else [f"f{j}" for j in range(d)]
    with np.errstate(invalid="ignore", divide="ignore"):
        values = {
            "weight": count,
            "gain": gain / count,
            "cover": cover / count,
            "total_gain": gain,
            "total_cover": cover,
        }[kind]
    used = count > 0
    return pd.Series(values[used], index=np.asarray(names, dtype=object)[used], name=kind)


def importance(model, kind="gain", ax=None, max_features=20):
    """Horizontal bars of feature importance: ``weight``, ``gain`` or ``cover`` (as XGBoost)."""
    s = importance_values(model, kind).sort_values(ascending=True).tail(max_features)
    ax = _axes(ax, figsize=(6.4, max(2.5, 0.35 * len(s) + 1.2)))
    ax.barh(s.index, s.to_numpy(), color="#1f77b4", label=kind)
    for yi, v in enumerate(s.to_numpy()):
        ax.annotate(
            f"{v:.4g}",
            (v, yi),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
        )
    ax.set_xlabel(f"{kind}: {_KINDS[kind]}")
    ax.set_ylabel("feature")
    ax.set_title(f"Feature importance ({kind})")
    ax.margins(x=0.15)
    return ax


# ----------------------------------------------------------------- ensembles
def majority_vote_error(p, n_voters):
    """P(a majority of ``n_voters`` independent voters is wrong), each wrong with probability p.

    Seed 002: C(3,2)·0.3²·0.7 + C(3,3)·0.3³ = 21.6 %. With an even number of
    voters a tie is settled by a coin, so it counts as half an error.
    """
    n = int(n_voters)
    if n < 1:
        raise ValueError(f"n_voters must be at least 1; got {n_voters!r}")
    p = np.asarray(p, dtype=np.float64)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("error rates p must lie in [0, 1]")
    total = np.zeros_like(p)
    for k in range(n // 2 + 1, n + 1):
        total = total + math.comb(n, k) * p**k * (1 - p) ** (n - k)
    if n % 2 == 0:
        k = n // 2
        total = total + 0.5 * math.comb(n, k) * p**k * (1 - p) ** (n - k)
    return float(total) if total.ndim == 0 else total


def vote_error(p, n_voters, ax=None):
    """Seed 002's argument for ensembles: the majority-vote error of independent voters against
    the individual error rate, one curve per number of voters, with the error at ``p`` marked
    (e.g. ``vote_error([0.3, 0.6], [3, 21])``: 21.6 %, 64.8 %, 2.6 %, 82.6 %)."""
    ps = np.atleast_1d(np.asarray(p, dtype=np.float64))
    ns = [int(n) for n in np.atleast_1d(n_voters)]
    ax = _axes(ax)
    grid = np.linspace(0, 1, 201)
    ax.plot(grid, grid, color="grey", lw=1, ls="--", label="one voter")
    ax.axvline(0.5, color="grey", lw=0.6, ls=":")
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]
    for j, n in enumerate(ns):
        color = palette[j % len(palette)]
        ax.plot(grid, majority_vote_error(grid, n), color=color, lw=2, label=f"{n} voters")
        for pi in ps:
            e = majority_vote_error(pi, n)
            ax.plot([pi], [e], "o", color=color, ms=7, zorder=3)
            # on the side away from the curve's rise: left of it above, right of it below
            above = e >= pi
            ax.annotate(
                f"{100 * e:.1f} %",
                (pi, e),
                xytext=(-9, 4) if above else (9, -4),
                textcoords="offset points",
                fontsize="small",
                color=color,
                ha="right" if above else "left",
                va="bottom" if above else "top",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85),
                zorder=4,
            )
    ax.set_xlabel("error rate of each voter")
    ax.set_ylabel("error rate of the majority vote")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.06, 1.02)  # room for the labels of points near 0 %
    ax.set_title(
        "Majority vote of independent voters: better than one voter\n"
        "when each errs less than half the time, worse when more"
    )
    ax.legend(fontsize="small")
    return ax
