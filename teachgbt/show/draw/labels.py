"""The one label builder behind every tree backend (DOT, matplotlib, text).

As scikit-learn's exporters share ``node_to_str``, every way teachgbt shows a
tree asks this module what a node says, so a number in a Graphviz picture, a
matplotlib picture and a terminal tree is the same string.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.format import format_number, format_threshold, split_rule
from ...core.losses import LINKS

__all__ = [
    "FIELDS",
    "DEFAULT_FIELDS",
    "LabelOptions",
    "NodeLabel",
    "format_number",
    "format_threshold",
    "node_label",
    "edge_label",
    "legend_lines",
    "start_lines",
]

#: every field a node label can show, in the order they are printed
FIELDS = ("n", "G", "H", "gain", "loss_chg", "weight", "value", "proba")
#: shown unless ``fields=`` says otherwise (``proba`` only for classifiers)
DEFAULT_FIELDS = FIELDS
_ALIASES = {"cover": "H", "w": "weight", "w*": "weight", "prob": "proba", "probability": "proba"}
_SPLIT_ONLY = {"gain", "loss_chg"}
_LEAF_ONLY = {"weight", "value", "proba"}


@dataclass(frozen=True)
class LabelOptions:
    """What a node label shows.

    ``fields``: any of ``FIELDS`` (``"cover"`` is an alias of ``"H"``);
    ``precision``: decimals of every statistic (thresholds are always exact);
    ``node_ids``: print node ids (they are the ``leaf`` numbers of the trace
    tables); ``proba``: the legend says a classifier's leaf values are log-odds
    steps, not probabilities; ``missing``: say on the edges where missing values go.
    """

    fields: tuple = DEFAULT_FIELDS
    precision: int = 3
    node_ids: bool = True
    proba: bool = False
    missing: bool = True
    legend: bool = True

    @classmethod
    def make(cls, fields=None, precision=3, node_ids=True, proba=False, missing=True, legend=True):
        if fields is None:
            chosen = DEFAULT_FIELDS
        else:
            if isinstance(fields, str):
                fields = [fields]
            chosen = []
            for f in fields:
                name = _ALIASES.get(f, f)
                if name not in FIELDS:
                    raise ValueError(
                        f"unknown field {f!r}; choose from {list(FIELDS)} (or 'cover' for H)"
                    )
                chosen.append(name)
            chosen = tuple(f for f in FIELDS if f in chosen)
        if not isinstance(precision, (int, np.integer)) or not 0 <= precision <= 17:
            raise ValueError(f"precision must be a whole number from 0 to 17; got {precision!r}")
        return cls(
            tuple(chosen), int(precision), bool(node_ids), bool(proba), bool(missing), bool(legend)
        )


@dataclass
class NodeLabel:
    """What one node says: a title (the rule, or ``leaf``) and lines of statistics."""

    node: int
    is_leaf: bool
    title: str
    lines: list = field(default_factory=list)
    hover: str | None = None  # the whole rule, where the title shortens a long set

    @property
    def text_lines(self):
        return [self.title, *self.lines]

    def text(self, sep="\n"):
        return sep.join(self.text_lines)


def _pairs(items, per_line=2):
    return [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]


def node_label(tree, i, opts):
    """The label of node ``i`` of ``tree`` under ``opts`` (a ``LabelOptions``)."""
    i = int(i)
    p = opts.precision
    leaf = bool(tree.feature[i] < 0)
    want = set(opts.fields)
    hover = None
    if leaf:
        title = f"leaf {i}" if opts.node_ids else "leaf"
    else:
        rule = split_rule(tree, i)
        title = f"#{i}  {rule}" if opts.node_ids else rule
        full = split_rule(tree, i, full=True)
        hover = full if full != rule else None
    lines = []
    if tree.hand_made:  # a tree from Tree.from_rules: rules and scores, no statistics
        if leaf:
            lines.append(f"score = {format_number(tree.value[i], p)}")
        return NodeLabel(i, leaf, title, lines, hover)
    sums = []
    # an imported tree may lack some statistics (XGBoost stores no row counts): skip them
    if "n" in want and tree.n[i] >= 0:
        sums.append(f"n = {int(tree.n[i])}")
    if "G" in want and not np.isnan(tree.G[i]):
        sums.append(f"G = {format_number(tree.G[i], p)}")
    if "H" in want and not np.isnan(tree.H[i]):
        # a GBDT classifier's H is Σp(1−p), w*'s denominator; its gain's H is n
        name = "Σp(1−p)" if _two_hessians(tree) else "H"
        sums.append(f"{name} = {format_number(tree.H[i], p)}")
    if len(sums) == 3:  # "n = 6" is short: keep it on the title's line of a leaf
        if leaf:
            title = f"{title}, {sums[0]}"
            lines.append(", ".join(sums[1:]))
        else:
            lines.append(sums[0])
            lines.append(", ".join(sums[1:]))
    else:
        lines.extend(_pairs(sums))
    if not leaf:
        scores = []
        if "gain" in want:
            scores.append(f"gain = {format_number(tree.gain[i], p)}")
        if "loss_chg" in want:
            scores.append(f"loss_chg = {format_number(tree.loss_chg[i], p)}")
        lines.extend(_pairs(scores))
    else:
        out = []
        refreshed = "newton_weight" in tree.extra
        if "weight" in want:
            out.append(f"{'q' if refreshed else 'w*'} = {format_number(tree.weight[i], p)}")
        if "value" in want:
            out.append(f"{_step_symbol(tree)} = {format_number(tree.value[i], p)}")
        lines.extend(_pairs(out))
        if refreshed and "weight" in want:  # both numbers: the one used, and Newton's
            lines.append(f"(−G/(H+λ) = {format_number(tree.extra['newton_weight'][i], p)})")
    return NodeLabel(i, leaf, title, lines, hover)


def _step_symbol(tree):
    """What a leaf adds, in symbols: η·w*; η·q for a refreshed leaf; × dart's weight."""
    symbol = "η·q" if "newton_weight" in tree.extra else "η·w*"
    return symbol + ("·d" if "weight_drop" in tree.extra else "")


def edge_label(tree, parent, child, opts):
    """``yes`` / ``no`` for the split's rule (``x < t``, or ``x ≤ t`` for the libraries that
    compare so), with ``missing`` on the default side."""
    left = int(tree.left[parent]) == int(child)
    text = "yes" if left else "no"
    if opts.missing and not tree.hand_made and bool(tree.default_left[parent]) == left:
        text += ", missing"
    return text


def _is_gbdt_tree(tree):
    # Friedman GBDT trees keep their residual sums (teachgbt.gbdt); their G, H are leaf sums
    return "residual_sum" in getattr(tree, "extra", {})


def _two_hessians(tree):
    """A GBDT classifier's tree: its splits are scored with h = 1 per row (the gain's H is
    n), its leaves are Newton steps over Σp(1−p)."""
    return _is_gbdt_tree(tree) and "p(1-p)_sum" in tree.extra


def legend_lines(tree, opts):
    """What the symbols on the nodes mean, for the fields that are shown."""
    want = set(opts.fields)
    if tree.hand_made:
        return ["score = what the leaf adds to the prediction (a tree written by hand)"]
    gbdt = _is_gbdt_tree(tree)
    two = _two_hessians(tree)
    out = [set_legend(tree)] if tree.has_sets else []
    if want & {"n", "G", "H"}:
        parts = []
        if "n" in want and (tree.n >= 0).any():
            parts.append("n = how many (the gain's H: h = 1 per row)" if two else "n = how many")
        if "G" in want:
            parts.append("G = −Σ residual" if gbdt else "G = Σg")
        if "H" in want:
            if two:
                parts.append("Σp(1−p) (w*'s denominator)")
            elif gbdt:
                parts.append("H = Σ weights")
            else:
                parts.append("H = Σh (XGBoost's cover)")
        out.append("for the rows reaching a node: " + ", ".join(parts))
    splits = tree.feature >= 0
    if want & _SPLIT_ONLY and splits.any():
        parts = []
        if "gain" in want:
            # the γ convention: gain = ½(loss_chg − gamma), gamma being XGBoost's
            if gbdt:
                parts.append("gain = ½(the drop in the residuals' squared error − gamma)")
            else:
                parts.append("gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] − gamma/2")
        if "loss_chg" in want:
            if gbdt:
                parts.append("loss_chg = that drop itself (no ½, no gamma)")
            else:
                parts.append("loss_chg = XGBoost's gain (no ½, no gamma)")
        out.append("; ".join(parts))
        if "gain" in want and (tree.gain[splits] < 0).any():
            out.append("gain < 0: a split stays only above a split that is kept (pruned bottom-up)")
    if want & _LEAF_ONLY:
        parts = []
        if "weight" in want and "newton_weight" in tree.extra:
            parts.append(
                "q = the leaf refreshed after growing: the quantile of its rows' residuals "
                "y − ŷ (the model uses it; −G/(H+λ) in brackets)"
            )
        elif "weight" in want:
            if two:
                w = "w* = Σ residual / (Σp(1−p)+λ)"
            else:
                w = "w* = −G/(H+λ)" + (" = Σ residual / (H+λ)" if gbdt else "")
            parts.append(w + ", the walkthrough's leaf_output")
        if "value" in want:
            drop = " × d, dart's weight_drop of the tree" if "weight_drop" in tree.extra else ""
            parts.append(
                f"{_step_symbol(tree)} = what the leaf adds to the margin (η = "
                f"{format_number(tree.learning_rate, 6)}{drop})"
            )
        if "proba" in want and opts.proba:
            # σ of one leaf's step is nobody's probability: a row's is σ of its whole margin
            parts.append("η·w* moves the log-odds; a row's probability is σ of its whole margin")
        if parts:
            out.append("; ".join(parts))
    return out


def start_lines(loss, base_score, base_margin, p):
    """Round 0 of a one-margin model: its objective and link, base_score in the space the
    objective stores it, and the margin every row starts from."""
    head = f"objective {loss.name}: {LINKS[loss.link].formula}"
    b, m = format_number(base_score, p), format_number(base_margin, p)
    inverse = {
        "logit": "logit",
        "log": "log",
        "half logit": "½·logit",
        "softplus": "log(e^x − 1) of",
    }
    if loss.link in inverse:
        what = "a probability" if "logit" in loss.link else "on the prediction's scale"
        return [head, f"base_score = {b} ({what})", f"margin = {inverse[loss.link]}({b}) = {m}"]
    return [head, f"base_score = margin = {m}"]


def set_legend(tree):
    """What a set split does, in the tree's library's words for a category it never saw."""
    unseen = (
        "with the missing values"
        if tree.rule == "sklearn-hist"
        else "right, with the categories not listed"
    )
    return (
        "feature ∈ {…}: the categories listed go left (yes), the others right (no); a "
        f"category never seen in training goes {unseen}"
    )


def tree_title(tree):
    """A tree of a K-class model says where it belongs; other trees have no title."""
    if tree.class_ is None:
        return None
    return f"round {tree.round}, class {tree.class_}: adds to the margin of class {tree.class_}"
