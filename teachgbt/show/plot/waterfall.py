"""One prediction as a waterfall: from the bias, feature by feature, to the margin."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...core.format import format_number
from ...core.losses import sigmoid
from ...explain.attributions import contributions as _contributions
from ...explain.attributions import largest
from ...utils import check_instance
from ._common import (
    axes,
    check_fitted,
    is_classifier,
    literal,
)

__all__ = ["contributions"]

_UP, _DOWN, _ENDS = "#d62728", "#1f77b4", "#7f7f7f"  # raises / lowers the margin; bias, margin
LABEL_DECIMALS = 3
X_PAD = 0.2  # share of the walk's range left free on each side, for the labels
VALUE_DECIMALS = 4  # a feature's value in its label


# probabilities marked on a classifier's top axis, when in view
PROBABILITY_TICKS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999)


def _signed(v):
    return ("+" if v >= 0 else "") + format_number(v, LABEL_DECIMALS)


def _label(ax, x, y, text, right, bold=False):
    """``text`` beside the point (x, y): to its right, or to its left."""
    ax.annotate(
        text,
        (x, y),
        xytext=((8 if bold else 4) * (1 if right else -1), 0),
        textcoords="offset points",
        ha="left" if right else "right",
        va="center",
        fontsize="small",
        fontweight="bold" if bold else "normal",
    )


def _logit(p):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p / (1 - p))


def contributions(model, x, ax=None, max_features=10, method="shap", class_=None):
    """A waterfall of one instance's contributions, from ``bias`` to the margin.

    Features are sorted by |contribution| (largest at the top); after
    ``max_features`` the rest are folded into "other features". For a classifier
    the top axis reads the margin as a probability, and the title gives both.
    """
    check_fitted(model)
    names = getattr(model, "feature_names_in_", None)
    v = check_instance(x, names, model.n_features_in_)
    row = _contributions(model, v.reshape(1, -1), method, class_).iloc[0]
    columns = list(row.index[:-1])
    steps = largest(row, max_features)
    bias = float(row["bias"])
    margin = float(row.sum())

    labels = ["bias (expected margin)"]
    for name, _ in steps:
        if name in columns:
            xj = v[columns.index(name)]
            name = f"{name} = {'missing' if np.isnan(xj) else format_number(xj, VALUE_DECIMALS)}"
        labels.append(literal(name))
    labels.append("margin")

    ax = axes(ax, figsize=(7.5, max(3.0, 0.42 * len(labels) + 1.4)))
    y = np.arange(len(labels))[::-1]  # bias at the top, the margin at the bottom
    start = bias
    for yi, (_, phi) in zip(y[1:-1], steps):
        ax.barh(yi, phi, left=start, color=_UP if phi >= 0 else _DOWN, height=0.6)
        _label(ax, start + phi, yi, _signed(phi), phi >= 0)
        ax.plot([start, start], [yi - 0.3, yi + 0.7], color="black", lw=0.6)  # from the step above
        start += phi
    ax.plot([start, start], [y[-1], y[-1] + 0.7], color="black", lw=0.6)
    # the two ends: where the walk starts and where it arrives
    for yi, value in ((y[0], bias), (y[-1], margin)):
        ax.plot([value], [yi], marker="D", color=_ENDS, markersize=8)
        _label(ax, value, yi, format_number(value, LABEL_DECIMALS), True, bold=True)
    ax.set_yticks(y, labels)
    # a log-odds axis with its probabilities on top: σ is the link of these margins only
    clf = is_classifier(model) and model.model_.loss.link in ("logit", "softmax")
    walk = bias + np.concatenate([[0.0], np.cumsum([phi for _, phi in steps])])
    lo, hi = float(walk.min()), float(walk.max())
    if clf:  # keep the p = 0.5 line (margin 0) in view
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        ax.axvline(0, color="black", lw=0.8)
    pad = X_PAD * (hi - lo) if hi > lo else 1.0  # room for the labels beside the bars
    ax.set_xlim(lo - pad, hi + pad)
    what = "SHAP values" if method == "shap" else "path contributions"
    if clf:
        ax.set_xlabel("margin (log-odds)")
        top = ax.secondary_xaxis("top", functions=(sigmoid, _logit))
        lo, hi = sigmoid(np.array(ax.get_xlim()))
        top.set_xticks([p for p in PROBABILITY_TICKS if lo <= p <= hi])
        top.xaxis.set_major_formatter(lambda p, _: format_number(p, 3))
        top.set_xlabel("probability σ(margin)")
        ax.set_title(
            f"margin {format_number(margin, LABEL_DECIMALS)} → p = "
            f"{format_number(sigmoid(margin), LABEL_DECIMALS)} ({what})",
            fontsize="medium",
        )
    else:
        ax.set_xlabel("prediction (margin)")
        ax.set_title(
            f"prediction {format_number(margin, LABEL_DECIMALS)} ({what})", fontsize="medium"
        )
    if isinstance(x, pd.Series) and x.name is not None:
        ax.set_title(f"row {x.name}: " + ax.get_title(), fontsize="medium")
    return ax
