"""Feature importance, as XGBoost's ``get_score`` defines it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...core.format import format_number
from ._common import axes, check_fitted, literal

__all__ = ["importance", "importance_values"]

# decimals of the importance written beside each bar
LABEL_DECIMALS = 3

_KINDS = {
    "weight": "number of splits on the feature",
    "gain": "mean loss_chg of its splits",
    "cover": "mean H (cover) of its splits",
    "total_gain": "total loss_chg of its splits",
    "total_cover": "total H (cover) of its splits",
}


def importance_values(model, kind="gain", class_=None):
    """Feature importance as XGBoost's ``get_score(importance_type=kind)`` defines it, over
    every tree, or with K ≥ 3 classes over class ``class_``'s trees only.

    A pandas Series indexed by feature name, features never split on left out.
    """
    check_fitted(model)
    fitted = model.model_
    if kind not in _KINDS:
        raise ValueError(f"kind={kind!r}; use one of {list(_KINDS)}")
    d = fitted.n_features
    count = np.zeros(d)
    gain = np.zeros(d)
    cover = np.zeros(d)
    for tree in fitted.used_trees((0, 0), class_):  # every round
        s = ~tree.is_leaf
        np.add.at(count, tree.feature[s], 1)
        np.add.at(gain, tree.feature[s], tree.loss_chg[s])
        np.add.at(cover, tree.feature[s], tree.H[s])
    names = fitted.names
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


def importance(model, kind="gain", ax=None, max_features=20, class_=None):
    """Horizontal bars of feature importance: ``weight``, ``gain`` or ``cover`` (as XGBoost);
    ``class_`` (K ≥ 3 classes): of that class's trees only."""
    s = importance_values(model, kind, class_).sort_values(ascending=True).tail(max_features)
    ax = axes(ax, figsize=(6.4, max(2.5, 0.35 * len(s) + 1.2)))
    ax.barh([literal(n) for n in s.index], s.to_numpy(), color="#1f77b4", label=kind)
    for yi, v in enumerate(s.to_numpy()):
        ax.annotate(
            format_number(v, LABEL_DECIMALS),
            (v, yi),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
        )
    ax.set_xlabel(f"{kind}: {_KINDS[kind]}")
    ax.set_ylabel("feature")
    whose = "" if class_ is None else f", class {model.classes_[class_]}'s trees"
    ax.set_title(f"Feature importance ({kind}{whose})")
    ax.margins(x=0.15)
    return ax
