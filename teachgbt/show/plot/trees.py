"""One tree at a time: the scan of candidate thresholds at a node, the structure score."""

from __future__ import annotations

import numpy as np

from ...core import formulas
from ...core.format import format_category, format_number, format_rule, format_set
from ._common import (
    axes,
    check_fitted,
    integer_ticks,
    literal,
)

__all__ = ["split_scan", "structure_score"]

# decimals of the numbers written on a plot, as on the tree diagrams
LABEL_DECIMALS = 3
# rounds up to this many get their structure scores written on the bars
BARS_LABELLED = 12


def _number(x):
    return format_number(x, LABEL_DECIMALS)


def _feature_name(tree, feature):
    if isinstance(feature, (int, np.integer)):
        if not 0 <= feature < tree.n_features:
            raise ValueError(f"feature index {feature} out of range 0..{tree.n_features - 1}")
        return tree.feature_name(int(feature))
    return str(feature)


def split_scan(model, t, node, feature, ax=None, class_=None):
    """Seed 000's left-to-right scan at one node of round ``t``'s tree (class ``class_``'s
    with K ≥ 3 classes): the gain of every candidate threshold of ``feature`` in sorted
    order, the chosen split marked, and the running sums G_L and H_L (right-hand axis)
    that the scan accumulates."""
    check_fitted(model)
    tree = model.model_.tree(t, class_)  # checks the round and the class
    table = model.trace_.splits(t, node, class_=class_)  # checks the node
    which = _which_tree(model, t, class_)
    name = _feature_name(tree, feature)
    rows = table[table["feature"] == name]
    if "categories" in rows and rows["categories"].notna().any():  # a categorical feature
        return _set_scan(model, t, node, name, tree, ax, class_)
    if rows.empty:
        have = sorted(set(table["feature"]))
        raise ValueError(
            f"no candidate split on {name!r} at node {node} of the {which}; features with "
            f"candidates there: {have}"
        )
    return _threshold_scan(rows, tree, node, name, which, ax)


def _threshold_scan(rows, tree, node, name, which, ax):
    """``split_scan`` for a numeric feature: the gain against the threshold."""
    # a candidate that leaves one side empty is "no split" (gain 0 − γ): not part of the scan
    rows = rows[(rows["H_L"] > 0) & (rows["H_R"] > 0)]
    ax = axes(ax, figsize=(7.2, 4.4))
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
    name, split_feature = literal(name), split_feature and literal(split_feature)  # shown as is
    if len(chosen):
        c = chosen.iloc[0]
        (hc,) = ax.plot(
            [c["threshold"]],
            [c["gain"]],
            "*",
            ms=16,
            color="#d62728",
            label=f"chosen: {format_rule(name, c['threshold'])}, gain {_number(c['gain'])}",
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
            label=f"best on {name}: gain {_number(b['gain'])}",
            zorder=4,
        )
        handles.append(hb)
    ax.set_xlabel(f"threshold on {name} (rows with {name} < threshold go left)")
    ax.set_ylabel("gain")
    ax2.set_ylabel("running sums G_L, H_L of the left side")
    where = f"the node splits on {split_feature}" if split_feature else "the node is a leaf"
    ax.set_title(f"The {which}, node {node}: scanning {name} left to right\n({where})")
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


def _set_scan(model, t, node, name, tree, ax, class_):
    """``split_scan`` for a categorical feature: its categories in the order XGBoost's scan
    tries them (by w*, or one by one for one-hot) and the gain of each cut there, missing
    values on either side; the running sums G_L, H_L on the right-hand axis."""
    j = tree.feature_names.index(name) if tree.feature_names else int(name[1:])
    table = model.trace_.category_stats(t, node, class_=class_, feature=j)
    gamma = model.params_.gamma
    labels = table["category"] if "category" in table else table["code"]
    pos = np.arange(len(table))
    ax = axes(ax, figsize=(7.2, 4.4))
    one_hot = "G_L" not in table
    for column, dl, style in (("loss_chg", False, "o-"), ("loss_chg_missing_in", True, "s--")):
        gain = 0.5 * (table[column].to_numpy() - gamma)
        ax.plot(pos, gain, style, ms=5, color="#1f77b4", alpha=1.0 if not dl else 0.55,
                label=f"gain, missing values {'in' if dl else 'out of'} the set")  # fmt: skip
    if node in tree.sets and int(tree.feature[node]) == j:  # the chosen set: its last one
        chosen = set(tree.sets[node].tolist())
        at = max(int(np.flatnonzero(table["code"].to_numpy() == c)[0]) for c in chosen)
        column = "loss_chg_missing_in" if tree.default_left[node] else "loss_chg"
        c_gain = 0.5 * (float(table[column].iloc[at]) - gamma)
        what = f"{literal(name)} ∈ {literal(format_set(tree.set_labels(node)))}"
        ax.plot([at], [c_gain], "*", ms=16, color="#d62728", zorder=4,
                label=f"chosen: {what}, gain {_number(c_gain)}")  # fmt: skip
    if not one_hot:
        ax2 = ax.twinx()
        ax2.plot(pos, table["G_L"], "x:", color="#2ca02c", label="G_L (the set up to here)")
        ax2.plot(pos, table["H_L"], "+--", color="#9467bd", label="H_L")
        ax2.set_ylabel("running sums G_L, H_L of the set")
        ax2.legend(loc="lower right", fontsize="small", frameon=False)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xticks(pos, [literal(format_category(v)) for v in labels],
                  rotation=45 if len(pos) > 8 else 0)  # fmt: skip
    order = "one at a time (one-hot)" if one_hot else "sorted by w* = −G/(H+λ), a cut after each"
    ax.set_xlabel(f"the categories of {literal(name)}, {order}")
    ax.set_ylabel("gain")
    ax.set_title(f"The {_which_tree(model, t, class_)}, node {node}: the sets of {literal(name)}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize="small", frameon=False)
    return ax


def _which_tree(model, t, class_):
    if class_ is None:
        return f"tree of round {t}"
    return f"tree of round {t}, class {model.classes_[class_]}"


def structure_score(model, ax=None, class_=None):
    """Obj* = −½ Σ_j G_j²/(H_j+λ) + γT of each round's tree (class ``class_``'s with K ≥ 3
    classes; lower is better), next to the score the same round would have with a single
    leaf."""
    check_fitted(model)
    fitted = model.model_
    trees = [fitted.tree(t, class_) for t in range(1, fitted.n_rounds + 1)]
    params = model.params_
    ax = axes(ax)
    scores, single = [], []
    # formulas take seed 000's γ, which is half the model's (XGBoost's) gamma
    reg = (params.reg_lambda, params.gamma / 2, params.reg_alpha)
    for tree in trees:
        lv = tree.leaves
        scores.append(formulas.structure_score(tree.G[lv], tree.H[lv], *reg))
        single.append(formulas.structure_score(tree.G[:1], tree.H[:1], *reg))
    r = np.arange(1, len(scores) + 1)
    bars = [
        ax.bar(r - 0.2, single, width=0.4, color="#bbbbbb", label="a single leaf"),
        ax.bar(r + 0.2, scores, width=0.4, color="#1f77b4", label="the tree grown"),
    ]
    if len(r) <= BARS_LABELLED:
        for b, values in zip(bars, (single, scores)):
            ax.bar_label(b, labels=[_number(v) for v in values], fontsize="x-small", padding=2)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("round")
    ax.set_ylabel("structure score Obj* (lower is better)")
    whose = "" if class_ is None else f" (class {model.classes_[class_]})"
    ax.set_title(f"Obj* = −½ Σ G²/(H+λ) + γT of each round's tree{whose}")
    ax.xaxis.set_major_locator(integer_ticks())
    ax.margins(y=0.12)
    ax.legend(fontsize="small")
    return ax
