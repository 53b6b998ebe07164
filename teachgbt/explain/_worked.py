"""The tutorial's formulas with the model's own numbers filled in.

Each function returns an ``Explanation``: ``print()`` it in a terminal, or
let Jupyter show it as LaTeX (``_repr_latex_``). Negative numbers are put in
brackets where they are substituted, as one writes them by hand:
w* = −(−1.333) / (0.889 + 1).

    tg.explain.leaf(model, t, node)      w* = −G/(H+λ) and η·w*
    tg.explain.split(model, t, node)     the gain of the split made at a node
    tg.explain.prediction(model, x)      base_score + Σ η·w over the leaves x reaches, σ
    tg.explain.contributions(model, X)   each feature's share of each margin (SHAP or path)
"""

from __future__ import annotations

import numpy as np

from ..core.format import (
    format_category,
    format_rule,
    format_set,
    format_set_rule,
    format_value,
    split_rule,
)
from ..core.losses import sigmoid, softmax
from ..utils import check_instance, check_is_fitted
from . import attributions as _contributions
from ._builder import (
    Explanation,
    bracketed,
    leaf_weight_steps,
    line,
    number,
    split_gain_steps,
)

__all__ = ["leaf", "split", "prediction", "contributions"]


# ------------------------------------------------------------------ from a model
def _check(model, t=None, node=None, class_=None):
    """The tree of round ``t`` (1-based; ``class_``'s with K ≥ 3 classes), node checked."""
    check_is_fitted(model)
    if t is None:
        return None
    tree = model.model_.tree(t, class_)
    if not isinstance(node, (int, np.integer)) or not 0 <= node < tree.n_nodes:
        raise ValueError(
            f"the tree of round {t} has nodes 0 to {tree.n_nodes - 1}; got node={node!r}"
        )
    return tree


def _is_gbdt(model):
    return model.model_.algorithm == "gbdt"


def leaf(model, t, node, precision=3, *, class_=None):
    """w* of node ``node`` of round ``t``'s tree (class ``class_``'s with K ≥ 3 classes)
    with its G, H and λ, then the value η·w* it adds."""
    tree = _check(model, t, node, class_)
    p = precision
    prm = model.params_
    kind = "leaf" if tree.feature[node] < 0 else "node"
    as_leaf = "" if kind == "leaf" else " (a split; as a leaf it would weigh)"
    gbdt = _is_gbdt(model)
    rows = int(tree.n[node])
    count = f"n = {rows} row{'s' * (rows != 1)}" if rows >= 0 else "n unknown (not stored)"
    title = f"{_tree_title(model, t, class_)}, {kind} {node}{as_leaf}: {count}"
    if np.isnan(tree.G[node]):
        return _stored_leaf(model, tree, node, title, p)
    ex = leaf_weight_steps(
        tree.G[node],
        tree.H[node],
        prm.reg_lambda,
        prm.reg_alpha,
        prm.max_delta_step,
        p,
        title,
        gbdt=gbdt,
    )
    w = float(tree.weight[node])
    if tree.H[node] < prm.min_child_weight:
        ex.notes.append(
            f"H = {number(tree.H[node], p)} < min_child_weight = "
            f"{number(prm.min_child_weight, p)}: the weight is set to 0"
        )
    if kind == "leaf" and "newton_weight" in tree.extra:
        ex.lines.extend(_refreshed_lines(model.model_.loss, ex.value, w, p))
    ex.lines.append(_value_line(tree, node, w, p))
    value = float(tree.value[node])
    if gbdt:
        what = "Σ residual" + (" and H = Σ p(1−p)" if model.model_.is_classifier else " and H = n")
        ex.notes.insert(0, f"G = −{what} of the rows in the node (seed 004)")
    else:
        ex.notes.insert(0, "G = Σ g, H = Σ h of the rows in the node")
    if kind == "leaf" and "newton_weight" in tree.extra:
        ex.notes.append(_refresh_note(model.model_.loss, ex.value, w, p))
    ex.notes.extend(_link_notes(model, class_, value, p))
    ex.value = w
    ex.values.update(weight=w, value=value, learning_rate=tree.learning_rate)
    return ex


def _value_line(tree, node, w, p):
    """What the leaf adds to the margin: η·w* (η·q when refreshed; × dart's weight)."""
    eta, value = tree.learning_rate, float(tree.value[node])
    words = _step_words(tree, node)
    drop = _drop_factor(tree, node)
    tex = r"\eta\, q" if "newton_weight" in tree.extra else r"\eta\, w^*"
    tex += r"\, d_{\text{drop}}" if drop else ""
    drop_tex = drop.replace("×", r"\times")
    return line(
        words,
        f"{number(eta, 6)} × {bracketed(w, p)}{drop} = {number(value, p)}",
        tex,
        rf"{number(eta, 6)} \times {bracketed(w, p)}{drop_tex} = {number(value, p)}",
    )


def _refreshed_lines(loss, newton, q, p):
    """A refreshed leaf: the quantile of its residuals, the number the model uses."""
    alpha = number(getattr(loss, "quantile_alpha", 0.5), 6)
    return [
        line(
            "q",
            f"Q_{alpha}(y − ŷ) over the leaf's rows = {number(q, p)}",
            "q",
            rf"Q_{{{alpha}}}(y - \hat y) = {number(q, p)}",
        )
    ]


def _refresh_note(loss, newton, q, p):
    alpha = number(getattr(loss, "quantile_alpha", 0.5), 6)
    return (
        f"the model uses q = {number(q, p)}, not w* = {number(newton, p)}: {loss.name}'s true h "
        "is 0, so XGBoost (hist) grows the tree with h = 1 and then refreshes each leaf to "
        f"the {alpha}-quantile of its rows' residuals y − ŷ, the leaf value that minimises "
        "the loss; −G/(H+λ) only counts the rows above and below"
    )


def _link_notes(model, class_, value, p):
    """What the leaf's value does to the prediction, by the objective's link."""
    loss = model.model_.loss
    if class_ is not None and loss.link == "softmax":
        return [
            f"This moves the margin of class {_class_label(model, class_)} by "
            f"{number(value, p)}; the probabilities are the softmax of all the classes' margins"
        ]
    if loss.link == "logit" and model.model_.is_classifier:
        return [
            f"This is log-odds, not a probability: the leaf moves the margin by "
            f"{number(value, p)}; a row's probability is σ of its whole margin (F0 plus "
            "every tree's step)"
        ]
    notes = [f"This moves the margin by {number(value, p)}; {loss.describe()}"]
    if loss.link == "score":
        notes.append(
            "a ranking objective's g and h come from pairs of rows within a query (each pair "
            "with different labels pushes the better row up), not from one row's label"
        )
    if loss.link == "log":
        notes.append(
            f"so this leaf multiplies the prediction by e^{bracketed(value, p)} = "
            f"{number(float(np.exp(value)), p)}"
        )
    return notes if loss.link != "identity" or loss.name != "reg:squarederror" else []


def _class_label(model, k):
    label = model.classes_[k]
    return repr(label.item() if hasattr(label, "item") else label)


def _tree_title(model, t, class_):
    """``Tree i``, with its round and class when a round has one tree per class (then the
    tree number i counts every tree, as ``trees_[i − 1]``)."""
    if class_ is None:
        return f"Tree {t}"
    i = model.model_.tree_number(t, class_)
    return f"Tree {i} (round {t}, class {class_})"


def _unknown_why(model):
    notes = [n for n in getattr(model, "import_notes_", []) if "G" in n or "H" in n]
    return notes[0] if notes else f"this model was {model.model_.origin} without G"


def _stored_leaf(model, tree, node, title, p):
    """w* from the stored value when G is not known (an imported model): w* = value / η
    (value / (η·weight_drop) for dart)."""
    w, eta, value = float(tree.weight[node]), tree.learning_rate, float(tree.value[node])
    drop = _drop_factor(tree, node)
    by = "(η × weight_drop)" if drop else "η"
    shown_by = f"({number(eta, 6)}{drop})" if drop else number(eta, 6)
    lines = [
        line(
            "w*",
            f"value / {by} = {bracketed(value, p)} / {shown_by} = {number(w, p)}",
            "w^*",
            rf"\text{{value}} / \eta = {bracketed(value, p)} / {shown_by} = {number(w, p)}",
        )
    ]
    notes = [f"G is not known here, so w* = −G/(H+λ) cannot be filled in: {_unknown_why(model)}"]
    if not np.isnan(tree.H[node]):
        notes.append(f"H = {number(tree.H[node], p)}")
    if model.model_.loss.name == "forest:mean":
        notes.append(
            f"a forest averages its trees: w* is this tree's own prediction, and η = "
            f"{number(eta, 6)} is 1 / the number of trees"
        )
    if tree.feature[node] < 0:
        notes.extend(_link_notes(model, tree.class_, value, p))
    values = {"weight": w, "value": value, "learning_rate": eta}
    return Explanation(title, lines, w, notes, values)


def _split_sums(model, t, node, tree, class_):
    """G_L, H_L, G_R, H_R as the split finder saw them (the chosen row of ``splits``)."""
    trace = getattr(model, "trace_", None)  # None: made from trees, or explore's proxy
    if trace is not None:
        table = trace.splits(t, node, class_=class_)
        chosen = table[table["chosen"]]
        if len(chosen):
            c = chosen.iloc[0]
            return float(c["G_L"]), float(c["H_L"]), float(c["G_R"]), float(c["H_R"])
    if _is_gbdt(model) and not model.model_.imported:  # imported: G = −Σ residual
        raise ValueError(
            "this model has no training trace (trace_), so the residual sums its "
            "split was chosen by are not known"
        )
    L, R = int(tree.left[node]), int(tree.right[node])
    return float(tree.G[L]), float(tree.H[L]), float(tree.G[R]), float(tree.H[R])


def split(model, t, node, precision=3, *, class_=None):
    """The gain of the split made at ``node`` of round ``t``'s tree (class ``class_``'s with
    K ≥ 3 classes), with G_L, H_L, G_R, H_R, λ, γ."""
    tree = _check(model, t, node, class_)
    if tree.feature[node] < 0:
        which = "" if class_ is None else f", class_={class_}"
        raise ValueError(
            f"node {node} of {_tree_title(model, t, class_)} is a leaf: it has no split. See "
            f"explain.leaf(model, {t}, {node}{which}) for its weight"
        )
    prm = model.params_
    lam = 0.0 if _is_gbdt(model) else prm.reg_lambda  # GBDT ranks splits by plain squared error
    G_L, H_L, G_R, H_R = _split_sums(model, t, node, tree, class_)
    rule = split_rule(tree, node)
    miss = "left" if tree.default_left[node] else "right"
    title = f"{_tree_title(model, t, class_)}, node {node}: split {rule} (missing values go {miss})"
    if np.isnan([G_L, H_L, G_R, H_R]).any():  # imported: only the library's loss_chg is known
        lc, gain, g, p = float(tree.loss_chg[node]), float(tree.gain[node]), prm.gamma, precision
        rhs = f"½(loss_chg − gamma) = ½({bracketed(lc, p)} − {number(g, p)}) = {number(gain, p)}"
        lines = [line("Gain", rhs, r"\text{Gain}", rhs)]
        notes = [
            f"G_L, H_L, G_R, H_R are not known here: {_unknown_why(model)}",
            "loss_chg is the number the library stored for this split",
        ]
        return Explanation(title, lines, gain, notes, {"gain": gain, "loss_chg": lc})
    # the γ convention: seed 000's γ is half the model's gamma, XGBoost's min_split_loss
    ex = split_gain_steps(G_L, H_L, G_R, H_R, lam, prm.gamma / 2, precision, title)
    ex.notes.insert(
        0,
        f"left: G_L = {number(G_L, precision)}, H_L = {number(H_L, precision)};  "
        f"right: G_R = {number(G_R, precision)}, H_R = {number(H_R, precision)}",
    )
    lc = ex.values["loss_chg"]
    ex.notes.append(
        f"γ = gamma/2: the model's gamma = {number(prm.gamma, precision)} is XGBoost's, so "
        f"gain = ½·loss_chg − gamma/2 = ½·{bracketed(lc, precision)} − "
        f"{number(prm.gamma / 2, precision)}"
    )
    ex.values["model_gamma"] = float(prm.gamma)
    if ex.value < 0:
        ex.notes.append(
            "gain < 0: pruning removes such a split when both its children are leaves; "
            "this one stays because a split below it is kept"
        )
    if node in tree.sets:  # how the set was found: the categories in the order tried
        ex.intro = _set_steps(model, t, node, tree, class_, precision) + ex.intro
    if _is_gbdt(model):
        ex.notes.append(
            "GBDT: g = −residual and h = 1 here, λ = 0, so loss_chg is the drop in "
            "the squared error of the residuals"
        )
    if prm.reg_alpha or (prm.max_delta_step and not _is_gbdt(model)):
        ex.notes.append(
            "with reg_alpha / max_delta_step the trainer's gain differs: "
            f"the tree records gain = {number(tree.gain[node], precision)}"
        )
    return ex


def _step_text(tree, a, b, v):
    """One step of a row's path, from split ``a`` to ``b``: ``x = 0.3 < 0.5? yes``, or
    ``colour = red ∈ {red, blue}? yes``."""
    f = int(tree.feature[a])
    ans = "yes" if b == int(tree.left[a]) else "no"
    # the value as the tree reads it: the one threshold formatter (17.06, not 17.059999)
    shown = format_value(v[f], tree.category_names.get(f), tree.rule)
    value_of = f"{tree.feature_name(f)} = {shown}"
    if a in tree.sets:
        return f"{format_set_rule(value_of, tree.set_labels(a))}? {ans}"
    return f"{format_rule(value_of, tree.threshold[a], tree.rule)}? {ans}"


def _set_steps(model, t, node, tree, class_, p):
    """The lines that show how a set split's set was found (XGBoost's categorical scan):
    each category's G, H, G/(H+λ) and w*, in the order tried, the gain of each cut and the
    set chosen."""
    chosen = format_set(tree.set_labels(node), full=True)
    trace = getattr(model, "trace_", None)
    table = trace.category_stats(t, node, class_=class_) if trace is not None else None
    if table is None:
        return [
            f"the set {chosen} goes left (yes); each category's G and H at this node need the "
            "training data: trace_.category_stats(t, node) of a model fitted here"
        ]
    prm = model.params_

    def gain(lc):
        return "—" if np.isnan(lc) else number(0.5 * (lc - prm.gamma), p)

    one_hot = "G_L" not in table
    if one_hot:
        out = [
            f"fewer than max_cat_to_onehot = {prm.max_cat_to_onehot} categories: each one is "
            "tried alone against all the others (one-hot), the missing values on either side"
        ]
    else:
        out = [
            "the categories sorted by w* = −G/(H+λ) (by G/(H+λ), largest first), then each cut "
            "of that order tried as a split: the categories up to the cut against the rest, the "
            f"missing values on either side (at most max_cat_threshold − 1 = "
            f"{prm.max_cat_threshold - 1} categories moved from either end)"
        ]
    what = "of it alone" if one_hot else "of the cut after it"
    out.append(f"category: G, H, G/(H+λ), w*  →  gain {what} (missing values out | in)")
    labels = table["category"] if "category" in table else table["code"]
    for i, label in enumerate(labels):
        G, H, ratio, w, lc_out, lc_in = (
            float(table[c].iloc[i])
            for c in ("G", "H", "G/(H+λ)", "weight", "loss_chg", "loss_chg_missing_in")
        )
        out.append(
            f"  {format_category(label)}: {number(G, p)}, {number(H, p)}, {number(ratio, p)}, "
            f"{number(w, p)}  →  {gain(lc_out)} | {gain(lc_in)}"
        )
    miss = "with it" if tree.default_left[node] else "on the other side"
    out.append(f"chosen: {chosen} (the missing values {miss}), the largest gain")
    return out


def prediction(model, x, precision=3, iteration_range=None, *, class_=None):
    """How the model predicts ``x``: the start margin from base_score, plus η·w of the leaf x
    reaches in each round's tree, then the link (σ for a classifier, e^margin for a
    log-link objective, ...). With K ≥ 3 classes, class ``class_``'s margin through its
    trees, then its probability. ``iteration_range``: the rounds followed, as
    ``decision_function``'s.

    ``values`` holds the numbers: ``rounds`` (each tree's round), ``leaf_values``, and
    ``margins``, the margin after each of those rounds as the model sums it (its
    precision and order), after ``base_margin``."""
    _check(model)
    fitted = model.model_
    p = precision
    v = check_instance(
        x,
        getattr(model, "feature_names_in_", None),
        model.n_features_in_,
        categories=fitted.categories,
    )
    k = fitted.check_class(class_)
    trees = fitted.used_trees(iteration_range, class_)
    # this row's margins (every class's) after each round, as the model adds them
    running = fitted.running_margins(v.reshape(1, -1), iteration_range)
    running = [np.asarray(m, dtype=np.float64)[0] for _, m in running]
    margins = running[-1]  # the prediction's: a number, or K of them
    m0 = fitted.class_base_margin(class_)
    base = float(np.asarray(model.base_score_, dtype=float).reshape(-1)[k])
    lines = [_start_line(fitted.loss, base, m0, k, p)]
    routes, adds = _routes(trees, v, p)
    margin = float(np.ravel(margins)[k])
    terms = " + ".join(bracketed(a, p) for a in adds)
    if adds:
        lines.append(
            line(
                "margin",
                "margin₀ + Σ_t η·w*_t",
                r"\text{margin}",
                r"\text{margin}_0 + \sum_t \eta\, w^*_t",
            )
        )
        lines.append(line("", f"{bracketed(m0, p)} + {terms}", "", f"{bracketed(m0, p)} + {terms}"))
    lines.append(
        line(
            "margin" if not adds else "",
            number(margin, p),
            r"\text{margin}" if not adds else "",
            number(margin, p),
        )
    )
    link_lines, value, notes = _link_lines(model, margins, margin, k, p)
    lines.extend(link_lines)
    if iteration_range is None:
        notes.extend(_contribution_lines(model, v, p, class_))
    values = {"base_score": base, "base_margin": m0, "leaf_values": adds, "margin": margin}
    values["rounds"] = [int(tree.round) for tree in trees]
    values["margins"] = [float(np.ravel(m)[k]) for m in running[1:]]
    if fitted.is_classifier and fitted.loss.link in _PROBABILITIES:
        values["proba"] = value
    if link_lines:
        values["prediction"] = value
    title = f"Prediction of {len(trees)} tree{'s' * (len(trees) != 1)} for one instance"
    if fitted.n_outputs > 1:
        title += f", class {_class_label(model, k)}"
    return Explanation(title, lines, value, notes, values, intro=routes)


def _routes(trees, v, p):
    """Each tree's path for the row ``v`` in words, and the leaf value it adds."""
    routes, adds = [], []
    for tree in trees:
        path = tree.path(v)
        steps = [_step_text(tree, a, b, v) for a, b in zip(path[:-1], path[1:])]
        lf = path[-1]
        w, val = float(tree.weight[lf]), float(tree.value[lf])
        adds.append(val)
        route = "; ".join(steps) if steps else "(a single leaf)"
        routes.append(
            f"round {tree.round}: {route} → leaf {lf}: {_step_words(tree, lf)} = "
            f"{number(tree.learning_rate, 6)} × {bracketed(w, p)}{_drop_factor(tree, lf)} = "
            f"{number(val, p)}"
        )
    return routes, adds


def _step_words(tree, node):
    """What a leaf adds, in symbols: η·w*, η·q for a refreshed leaf, with dart's weight."""
    refreshed = "newton_weight" in tree.extra
    words = "η·q" if refreshed else "η·w*"
    return words + ("·weight_drop" if "weight_drop" in tree.extra else "")


def _drop_factor(tree, node):
    if "weight_drop" not in tree.extra:
        return ""
    return f" × {number(float(tree.extra['weight_drop'][node]), 6)}"


# the links whose prediction is a probability
_PROBABILITIES = ("logit", "softmax", "sigmoid per class", "half logit", "mean of trees")

_START = {
    "log": ("log(base_score) = log({b})", r"\log({b})"),
    "half logit": (
        "½·logit(base_score) = ½·log({b} / (1 − {b}))",
        r"\tfrac12\operatorname{{logit}}({b})",
    ),
    "softplus": ("log(e^base_score − 1) = log(e^{b} − 1)", r"\log(e^{{{b}}} - 1)"),
}


def _start_line(loss, base, m0, k, p):
    """margin₀ from base_score through the objective's inverse link (XGBoost's
    ProbToMargin): logit for log-odds, log for a log link, none for the rest."""
    b = number(base, p)
    if loss.link == "logit":
        return line(
            "margin₀",
            f"logit(base_score) = log({b} / (1 − {b})) = {number(m0, p)}",
            r"\text{margin}_0",
            rf"\operatorname{{logit}}({b}) = \log\frac{{{b}}}{{1 - {b}}} = {number(m0, p)}",
        )
    if loss.link in _START:
        text, tex = _START[loss.link]
        return line(
            "margin₀",
            f"{text.format(b=b)} = {number(m0, p)}",
            r"\text{margin}_0",
            f"{tex.format(b=b)} = {number(m0, p)}",
        )
    which = f"[{k}]" if loss.n_outputs > 1 else ""
    return line(
        "margin₀",
        f"base_score{which} = {number(m0, p)}",
        r"\text{margin}_0",
        rf"\text{{base}}\_\text{{score}}{which} = {number(m0, p)}",
    )


_LINK_TEXT = {  # link -> (what the prediction is, how it is written, its LaTeX)
    "log": ("prediction", "e^margin = e^{m}", r"e^{{{m}}}"),
    "half logit": ("p", "σ(2·margin) = 1 / (1 + e^−2·{m})", r"\sigma(2 \cdot {m})"),
    "softplus": ("prediction", "log(1 + e^margin) = log(1 + e^{m})", r"\log(1 + e^{{{m}}})"),
    "hinge": ("prediction", "1 if margin > 0 else 0", r"[\text{{margin}} > 0]"),
    "sigmoid per class": ("p", "σ(margin) = 1 / (1 + e^−{m})", r"\sigma({m})"),
}


def _link_lines(model, margins, margin, k, p):
    """The link from the margin to the prediction: (lines, the prediction, notes)."""
    loss = model.model_.loss
    if loss.link == "softmax":
        prob = float(softmax(np.asarray(margins).reshape(1, -1))[0, k])
        others = " + ".join(f"e^{bracketed(m, p)}" for m in margins)
        lines = [
            line(
                "p",
                f"e^margin / Σ_j e^margin_j = e^{bracketed(margin, p)} / ({others}) = "
                f"{number(prob, p)}",
                "p",
                rf"\frac{{e^{{{bracketed(margin, p)}}}}}{{{others}}} = {number(prob, p)}",
            )
        ]
        notes = [
            f"p is the probability of class {_class_label(model, k)}: the softmax of every "
            "class's margin; its margin follows its own trees"
        ]
        return lines, prob, notes
    if loss.link == "logit":
        prob = float(sigmoid(margin))
        lines = [
            line(
                "p",
                f"σ(margin) = 1 / (1 + e^−{bracketed(margin, p)}) = {number(prob, p)}",
                "p",
                rf"\sigma(\text{{margin}}) = \frac{{1}}{{1 + e^{{-{bracketed(margin, p)}}}}}"
                rf" = {number(prob, p)}",
            )
        ]
        if not model.model_.is_classifier:
            return lines, prob, [f"objective {loss.name}: the prediction is σ(margin)"]
        notes = [
            f"p is the probability of the positive class, {model.classes_[1]}; "
            "the margin is log-odds"
        ]
        return lines, prob, notes
    notes = [loss.describe()]
    if loss.link not in _LINK_TEXT:
        return [], margin, notes
    name, text, tex = _LINK_TEXT[loss.link]
    value = float(np.asarray(loss.transform(np.asarray([margin]))).reshape(-1)[0])
    m = bracketed(margin, p)
    lines = [line(name, f"{text.format(m=m)} = {number(value, p)}", name,
                  f"{tex.format(m=m)} = {number(value, p)}")]  # fmt: skip
    return lines, value, notes


# the feature contributions that ``prediction`` lists before folding the rest together
PREDICTION_FEATURES = 5


def _contribution_lines(model, v, p, class_=None):
    """The short "feature contributions" block of ``prediction``: SHAP values, largest first."""
    deepest = max((tree.max_depth for tree in model.trees_), default=0)
    if deepest > _contributions.SHAP_MAX_DEPTH:
        return [
            f"feature contributions (SHAP): not computed for a tree {deepest} levels deep "
            f"(TreeSHAP follows up to {_contributions.SHAP_MAX_DEPTH})"
        ]
    row = contributions(model, v.reshape(1, -1), class_=class_).iloc[0]
    categories = model.model_.categories
    out = [f"feature contributions to the margin (SHAP): bias = {number(row['bias'], p)}"]
    names = list(row.index[:-1])
    for name, phi in _contributions.largest(row, PREDICTION_FEATURES):
        sign = "+" if phi >= 0 else "−"
        if name in names:
            x = v[names.index(name)]
            rule = model.trees_[0].rule  # numbers as the trees read them
            name = f"{name} = {format_value(x, categories.get(names.index(name)), rule)}"
        out.append(f"  {name}: {sign}{number(abs(phi), p)}")
    return out


def contributions(model, X, method="shap", class_=None):
    """Each feature's contribution to each row's margin, plus ``bias``: a DataFrame whose
    rows sum to ``decision_function``. See ``teachgbt.explain.attributions``."""
    return _contributions.contributions(model, X, method, class_)
