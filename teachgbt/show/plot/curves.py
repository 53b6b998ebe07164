"""Training curves: the loss per round, and each instance's probability and residual per epoch."""

from __future__ import annotations

import numpy as np

from ...core.losses import LINKS
from ._common import (
    MANY,
    NEG,
    POS,
    axes,
    check_fitted,
    integer_ticks,
    is_classifier,
    shown_name,
    train_y_w,
)

__all__ = ["loss_curve", "probabilities", "residuals"]


def loss_curve(model, ax=None):
    """The loss after each round on the training data, and on every ``eval_set``.

    Training and evaluation use the same metric, the one XGBoost reports for
    the objective (``logloss`` or ``rmse``), so the curves can be compared.
    """
    check_fitted(model)
    ax = axes(ax)
    y, w = train_y_w(model)
    tr = model.trace_
    name = model.loss_.metric_name
    rounds = np.arange(tr.n_rounds + 1)
    train = [model.loss_.metric(y, tr.margin(int(t)), w) for t in rounds]
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
    ax.xaxis.set_major_locator(integer_ticks())
    ax.set_ylabel(name)
    ax.set_title(f"{name} after each round")
    ax.legend()
    return ax


def _per_instance(ax, table, y, clf, classes, what, first=0):
    """One line per instance (few) or median and 10–90 % bands per class (many); column j
    of ``table`` is epoch ``first + j``."""
    t = np.arange(table.shape[1]) + first  # the epoch (round) of each column
    groups = [(1.0, POS), (0.0, NEG)] if clf else [(None, POS)]
    for val, color in groups:
        rows = np.ones(len(y), bool) if val is None else (y == val)
        if not rows.any():
            continue
        if clf:
            lab = f"y = {classes[1] if val == 1 else classes[0]}"
        else:
            lab = "instances"
        block = table[rows]
        if len(y) <= MANY:
            for j, line in enumerate(block):
                ax.plot(
                    t,
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
                        (t[-1], v),
                        xytext=(4, 0),
                        textcoords="offset points",
                        va="center",
                        fontsize="x-small",
                        color=color,
                    )
        else:
            q10, q50, q90 = np.nanpercentile(block, [10, 50, 90], axis=0)
            ax.fill_between(t, q10, q90, color=color, alpha=0.25, label=f"{lab}: 10–90 %")
            ax.plot(t, q50, "-", color=color, lw=2, label=f"{lab}: median {what}")
    ax.xaxis.set_major_locator(integer_ticks())


def probabilities(model, ax=None, class_=None):
    """Seed 004: every instance's probability after each epoch (ep_t_prob), coloured by label.

    With K ≥ 3 classes: ``class_=k`` shows p_k of every instance, those of class k against
    the others; ``class_="all"`` (the default) shows for each class the probability its own
    instances get for it, p_y, one colour per class."""
    check_fitted(model)
    if not is_classifier(model):
        raise ValueError(
            "probabilities() is for classifiers; for a regressor see "
            "residuals(model) or staircase(model, X, y)"
        )
    loss = model.model_.loss
    if not loss.has_probability:
        raise ValueError(
            f"probabilities(): the margins of {loss.name} mean no probability "
            f"({LINKS[loss.link].formula}); see residuals(model) or staircase(model, X, y)"
        )
    if model.model_.n_outputs > 1:
        return _class_probabilities(model, ax, "all" if class_ is None else class_)
    if class_ is not None:
        raise ValueError("class_ is for classifiers of three or more classes")
    ep = model.trace_.epochs()
    cols = [f"ep_{t}_prob" for t in range(model.trace_.n_rounds + 1)]
    table = ep[cols].to_numpy(dtype=np.float64)
    y, _ = train_y_w(model)
    ax = axes(ax)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--", label="0.5")
    _per_instance(ax, table, y, True, model.classes_, "probability")
    ax.set_xlabel("epoch t (trees added; 0 = base_score)")
    ax.set_ylabel(f"ep_t_prob = {shown_name(model, 'ep_t_pre')[1]}")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("Probability of each instance, epoch by epoch")
    ax.legend(fontsize="small")
    return ax


def _class_probabilities(model, ax, class_):
    tr = model.trace_
    classes = model.classes_
    y, _ = train_y_w(model)
    rounds = range(tr.n_rounds + 1)
    loss = model.model_.loss
    prob = np.stack([loss.probability(tr.margin(t)) for t in rounds], axis=2)  # (n, K, t)
    ax = axes(ax)
    ax.axhline(1 / len(classes), color="grey", lw=0.8, ls="--", label=f"1/K = 1/{len(classes)}")
    if isinstance(class_, str) and class_ == "all":
        colours = _class_colours(len(classes))
        for k, label in enumerate(classes):
            rows = y == k
            _bands(ax, prob[rows, k, :], colours[k], f"y = {label}: p({label}), median, 10–90 %")
        ax.set_ylabel("p_y: probability of the instance's own class")
        ax.set_title("Probability of the true class, epoch by epoch")
    else:
        k = model.model_.check_class(class_)
        table = prob[:, k, :]
        _per_instance(ax, table, (y == k).astype(float), True, ["other", classes[k]], "p")
        ax.set_ylabel(f"ep_t_prob = {shown_name(model, 'ep_t_pre')[1]}, k = {classes[k]}")
        ax.set_title(f"Probability of class {classes[k]}, epoch by epoch")
    ax.set_xlabel("epoch t (rounds of trees added; 0 = base_score)")
    ax.set_ylim(-0.03, 1.03)
    ax.xaxis.set_major_locator(integer_ticks())
    ax.legend(fontsize="small")
    return ax


def _class_colours(n):
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def _bands(ax, block, color, label):
    """Median and 10–90 % band of rows' values across epochs; lines when there are few."""
    t = np.arange(block.shape[1])  # the epoch (round) of each column
    if len(block) <= MANY // 4:
        for j, line in enumerate(block):
            ax.plot(
                t, line, "o-", ms=3, lw=1, color=color, alpha=0.7, label=label if not j else None
            )
        return
    q10, q50, q90 = np.nanpercentile(block, [10, 50, 90], axis=0)
    ax.fill_between(t, q10, q90, color=color, alpha=0.2)
    ax.plot(t, q50, "o-" if len(t) <= 30 else "-", ms=3, color=color, lw=2, label=label)


def residuals(model, ax=None):
    """Seed 004's ``ep_k_residual`` of every instance, k = 1 … T: the residual tree k is
    fitted to, y − p (a probability, by the objective's link) or y − ŷ (the prediction:
    e^margin for a log link, the class for binary:hinge) of epoch k − 1, the table's own
    numbers."""
    check_fitted(model)
    if model.model_.n_outputs > 1:
        raise ValueError(
            "residuals() shows one margin per instance; a model of K >= 3 classes has K. See "
            "probabilities(model, class_=k) or model.trace_.epochs(class_=k)['ep_1_residual']"
        )
    tr = model.trace_
    y, _ = train_y_w(model)
    clf = is_classifier(model)
    ep = tr.epochs()
    table = ep[[f"ep_{k}_residual" for k in range(1, tr.n_rounds + 1)]].to_numpy(np.float64)
    ax = axes(ax)
    ax.axhline(0.0, color="grey", lw=0.8)
    _per_instance(ax, table, y, clf, getattr(model, "classes_", None), "residual", first=1)
    ax.set_xlabel("epoch k: ep_k_residual is what tree k is fitted to (before it is added)")
    symbol, formula = shown_name(model, "ep_(k−1)_pre")
    ax.set_ylabel(f"ep_k_residual = y − {symbol} of epoch k − 1")
    ax.set_title(
        "The residual each tree is fitted to (seed 004's ep_k_residual)\n"
        f"{symbol} = {formula}  ({model.model_.loss.title})",
        fontsize="medium",
    )
    ax.legend(fontsize="small")
    return ax
