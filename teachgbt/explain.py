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

from . import contributions as _contributions
from . import formulas
from ._explanation import Explanation, Line, _line, _n, _r, _tex_text  # noqa: F401
from ._format import format_number, format_rule, split_rule
from ._validation import check_instance, check_is_fitted
from .losses import sigmoid

__all__ = [
    "Explanation",
    "leaf",
    "split",
    "prediction",
    "contributions",
    "leaf_weight_steps",
    "split_gain_steps",
    "structure_score_steps",
]


# ------------------------------------------------------------------ pure formulas
def leaf_weight_steps(
    G, H, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0, precision=3, title=None, gbdt=False
):
    """w* = −G/(H+λ) (seed 000) with G, H, λ substituted; α and max_delta_step as XGBoost."""
    p = precision
    G, H, lam = float(G), float(H), float(reg_lambda)
    lines = []
    if gbdt:
        lines.append(
            _line(
                "w*",
                "Σ residual / (Σ p(1−p) + λ) = −G / (H + λ)",
                "w^*",
                r"\frac{\sum \text{residual}}{\sum p(1-p) + \lambda}"
                r" = -\frac{G}{H + \lambda}",
            )
        )
    else:
        lines.append(_line("w*", "−G / (H + λ)", "w^*", r"-\frac{G}{H + \lambda}"))
    Gt = G
    if reg_alpha:
        Gt = float(formulas.soft_threshold(G, reg_alpha))
        lines.insert(
            0,
            _line(
                "G_α",
                f"sign(G)·max(|G| − α, 0) = sign({_r(G, p)})·max({_r(abs(G), p)} − "
                f"{_r(reg_alpha, p)}, 0) = {_r(Gt, p)}",
                r"G_\alpha",
                rf"\operatorname{{sign}}(G)\max(|G| - \alpha, 0) = "
                rf"{_r(Gt, p)}",
            ),
        )
        lines[-1] = _line("w*", "−G_α / (H + λ)", "w^*", r"-\frac{G_\alpha}{H + \lambda}")
    w = float(formulas.leaf_weight(G, H, lam, reg_alpha))
    lines.append(
        _line(
            "",
            f"−{_n(Gt, p)} / ({_r(H, p)} + {_r(lam, p)})",
            "",
            rf"-\frac{{{_n(Gt, p)}}}{{{_r(H, p)} + {_r(lam, p)}}}",
        )
    )
    lines.append(_line("", _r(w, p), "", _r(w, p)))
    notes = []
    if max_delta_step and abs(w) > max_delta_step:
        w = float(np.clip(w, -max_delta_step, max_delta_step))
        notes.append(f"|w*| is capped at max_delta_step = {_r(max_delta_step, p)}: w* = {_r(w, p)}")
    values = {"G": G, "H": H, "reg_lambda": lam, "reg_alpha": float(reg_alpha), "weight": w}
    return Explanation(
        title or "Optimal leaf weight (seed 000, the structure score)", lines, w, notes, values
    )


def _score_terms(G_L, H_L, G_R, H_R, lam, p):
    G, H = G_L + G_R, H_L + H_R
    terms = [(G_L, H_L), (G_R, H_R), (G, H)]
    sub = [f"{_n(g, p)}²/({_r(h, p)} + {_r(lam, p)})" for g, h in terms]
    sub_tex = [rf"\frac{{{_n(g, p)}^2}}{{{_r(h, p)} + {_r(lam, p)}}}" for g, h in terms]
    vals = [float(formulas.leaf_score(g, h, lam)) for g, h in terms]
    return sub, sub_tex, vals


def split_gain_steps(G_L, H_L, G_R, H_R, reg_lambda=1.0, gamma=0.0, precision=3, title=None):
    """Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)] − γ (seed 000)."""
    p = precision
    G_L, H_L, G_R, H_R = map(float, (G_L, H_L, G_R, H_R))
    lam, gamma = float(reg_lambda), float(gamma)
    sub, sub_tex, (a, b, c) = _score_terms(G_L, H_L, G_R, H_R, lam, p)
    gain = float(formulas.split_gain(G_L, H_L, G_R, H_R, lam, gamma))
    lc = float(formulas.loss_chg(G_L, H_L, G_R, H_R, lam))
    lines = [
        _line(
            "Gain",
            "½ [G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)] − γ",
            r"\text{Gain}",
            r"\tfrac12\left[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda} - "
            r"\frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\right] - \gamma",
        ),
        _line(
            "",
            f"½ [{sub[0]} + {sub[1]} − {sub[2]}] − {_r(gamma, p)}",
            "",
            rf"\tfrac12\left[{sub_tex[0]} + {sub_tex[1]} - {sub_tex[2]}\right] - "
            rf"{_r(gamma, p)}",
        ),
        _line(
            "",
            f"½ [{_r(a, p)} + {_r(b, p)} − {_r(c, p)}] − {_r(gamma, p)}",
            "",
            rf"\tfrac12\left[{_r(a, p)} + {_r(b, p)} - {_r(c, p)}\right] - {_r(gamma, p)}",
        ),
        _line("", _r(gain, p), "", _r(gain, p)),
    ]
    notes = [
        f"XGBoost reports loss_chg = {_r(a, p)} + {_r(b, p)} − {_r(c, p)} = {_r(lc, p)} "
        "(no ½, no γ)"
    ]
    values = {
        "G_L": G_L,
        "H_L": H_L,
        "G_R": G_R,
        "H_R": H_R,
        "reg_lambda": lam,
        "gamma": gamma,
        "gain": gain,
        "loss_chg": lc,
    }
    return Explanation(
        title or "Gain of a split (seed 000, learn the tree structure)", lines, gain, notes, values
    )


def structure_score_steps(G, H, reg_lambda=1.0, gamma=0.0, precision=3, title=None):
    """Obj* = −½ Σ_j G_j²/(H_j+λ) + γT over the leaves (seed 000)."""
    p = precision
    G = np.atleast_1d(np.asarray(G, dtype=np.float64))
    H = np.atleast_1d(np.asarray(H, dtype=np.float64))
    if G.shape != H.shape:
        raise ValueError(f"G and H need one entry per leaf each; got {G.size} and {H.size}")
    lam, gamma = float(reg_lambda), float(gamma)
    T = G.size
    terms = [f"{_n(g, p)}²/({_r(h, p)} + {_r(lam, p)})" for g, h in zip(G, H)]
    terms_tex = [rf"\frac{{{_n(g, p)}^2}}{{{_r(h, p)} + {_r(lam, p)}}}" for g, h in zip(G, H)]
    parts = [float(formulas.leaf_score(g, h, lam)) for g, h in zip(G, H)]
    score = float(formulas.structure_score(G, H, lam, gamma))
    lines = [
        _line(
            "Obj*",
            "−½ Σ_j G_j²/(H_j+λ) + γT",
            r"\text{Obj}^*",
            r"-\tfrac12 \sum_j \frac{G_j^2}{H_j+\lambda} + \gamma T",
        ),
        _line(
            "",
            f"−½ [{' + '.join(terms)}] + {_r(gamma, p)}·{T}",
            "",
            rf"-\tfrac12\left[{' + '.join(terms_tex)}\right] + {_r(gamma, p)}\cdot {T}",
        ),
        _line(
            "",
            f"−½ [{' + '.join(_r(v, p) for v in parts)}] + {_r(gamma * T, p)}",
            "",
            rf"-\tfrac12\left[{' + '.join(_r(v, p) for v in parts)}\right] + "
            rf"{_r(gamma * T, p)}",
        ),
        _line("", _r(score, p), "", _r(score, p)),
    ]
    values = {
        "G": G.tolist(),
        "H": H.tolist(),
        "reg_lambda": lam,
        "gamma": gamma,
        "T": T,
        "structure_score": score,
    }
    return Explanation(
        title or f"Structure score of a tree of {T} leaves (seed 000)", lines, score, [], values
    )


# ------------------------------------------------------------------ from a model
def _check(model, t=None, node=None):
    check_is_fitted(model)
    if t is None:
        return None
    n = len(model.trees_)
    if not isinstance(t, (int, np.integer)) or not 1 <= t <= n:
        raise ValueError(f"round t must be a whole number from 1 to {n}; got {t!r}")
    tree = model.trees_[t - 1]
    if not isinstance(node, (int, np.integer)) or not 0 <= node < tree.n_nodes:
        raise ValueError(f"tree {t} has nodes 0 to {tree.n_nodes - 1}; got node={node!r}")
    return tree


def _is_gbdt(model):
    return getattr(model, "algorithm", "xgboost") == "gbdt"


def _is_clf(model):
    return bool(model.loss_.is_classification)


def leaf(model, t, node, precision=3):
    """w* of node ``node`` of tree ``t`` with its G, H and λ, then the value η·w* it adds."""
    tree = _check(model, t, node)
    p = precision
    prm = model.params_
    kind = "leaf" if tree.feature[node] < 0 else "node"
    as_leaf = "" if kind == "leaf" else " (a split; as a leaf it would weigh)"
    gbdt = _is_gbdt(model)
    rows = int(tree.n[node])
    count = f"n = {rows} row{'s' * (rows != 1)}" if rows >= 0 else "n unknown (not stored)"
    title = f"{_tree_title(tree, t)}, {kind} {node}{as_leaf}: {count}"
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
            f"H = {_r(tree.H[node], p)} < min_child_weight = "
            f"{_r(prm.min_child_weight, p)}: the weight is set to 0"
        )
    eta = tree.learning_rate
    value = float(tree.value[node])
    ex.lines.append(
        _line(
            "η·w*",
            f"{_r(eta, 6)} × {_n(w, p)} = {_r(value, p)}",
            r"\eta\, w^*",
            rf"{_r(eta, 6)} \times {_n(w, p)} = {_r(value, p)}",
        )
    )
    if gbdt:
        what = "Σ residual" + (" and H = Σ p(1−p)" if _is_clf(model) else " and H = n")
        ex.notes.insert(0, f"G = −{what} of the rows in the node (seed 004)")
    else:
        ex.notes.insert(0, "G = Σ g, H = Σ h of the rows in the node")
    if getattr(tree, "class_", None) is not None:  # softmax: one margin per class
        ex.notes.append(
            f"This moves the margin of class {_class_label(model, tree.class_)} by "
            f"{_r(value, p)}; the probabilities are the softmax of all the classes' margins"
        )
    elif _is_clf(model):
        ex.notes.append(
            f"This is log-odds, not a probability: the leaf moves the margin by "
            f"{_r(value, p)} (alone, σ({_r(value, p)}) = {_r(sigmoid(value), p)})"
        )
    ex.value = w
    ex.values.update(weight=w, value=value, learning_rate=eta)
    return ex


def _class_label(model, k):
    classes = getattr(model, "classes_", None)
    if classes is None:
        return str(k)
    label = classes[k]
    return repr(label.item() if hasattr(label, "item") else label)


def _tree_title(tree, t):
    """``Tree t``, with its round and class when a round has one tree per class."""
    if getattr(tree, "class_", None) is None:
        return f"Tree {t}"
    return f"Tree {t} (round {tree.round}, class {tree.class_})"


def _unknown_why(model):
    notes = [n for n in getattr(model, "import_notes_", []) if "G" in n or "H" in n]
    origin = model.__dict__.get("_origin", "made from trees")
    return notes[0] if notes else f"this model was {origin} without G"


def _stored_leaf(model, tree, node, title, p):
    """w* from the stored value when G is not known (an imported model): w* = value / η."""
    w, eta, value = float(tree.weight[node]), tree.learning_rate, float(tree.value[node])
    lines = [
        _line(
            "w*",
            f"value / η = {_n(value, p)} / {_r(eta, 6)} = {_r(w, p)}",
            "w^*",
            rf"\text{{value}} / \eta = {_n(value, p)} / {_r(eta, 6)} = {_r(w, p)}",
        )
    ]
    notes = [f"G is not known here, so w* = −G/(H+λ) cannot be filled in: {_unknown_why(model)}"]
    if not np.isnan(tree.H[node]):
        notes.append(f"H = {_r(tree.H[node], p)}")
    values = {"weight": w, "value": value, "learning_rate": eta}
    return Explanation(title, lines, w, notes, values)


def _split_sums(model, t, node, tree):
    """G_L, H_L, G_R, H_R as the split finder saw them (the chosen row of ``splits``)."""
    trace = getattr(model, "trace_", None)
    if trace is not None:
        # trees_ counts every tree; the trace counts rounds (and, with K >= 3, classes)
        round_ = getattr(tree, "round", None) or t
        table = trace.splits(round_, node, class_=getattr(tree, "class_", None))
        chosen = table[table["chosen"]]
        if len(chosen):
            c = chosen.iloc[0]
            return float(c["G_L"]), float(c["H_L"]), float(c["G_R"]), float(c["H_R"])
    if _is_gbdt(model) and "_origin" not in model.__dict__:  # imported: G = −Σ residual
        raise ValueError(
            "this model has no training trace (trace_), so the residual sums its "
            "split was chosen by are not known"
        )
    L, R = int(tree.left[node]), int(tree.right[node])
    return float(tree.G[L]), float(tree.H[L]), float(tree.G[R]), float(tree.H[R])


def split(model, t, node, precision=3):
    """The gain of the split made at ``node`` of tree ``t``, with G_L, H_L, G_R, H_R, λ, γ."""
    tree = _check(model, t, node)
    if tree.feature[node] < 0:
        raise ValueError(
            f"node {node} of tree {t} is a leaf: it has no split. See "
            f"explain.leaf(model, {t}, {node}) for its weight"
        )
    prm = model.params_
    lam = 0.0 if _is_gbdt(model) else prm.reg_lambda  # GBDT ranks splits by plain squared error
    G_L, H_L, G_R, H_R = _split_sums(model, t, node, tree)
    rule = split_rule(tree, node)
    miss = "left" if tree.default_left[node] else "right"
    title = f"{_tree_title(tree, t)}, node {node}: split {rule} (missing values go {miss})"
    if np.isnan([G_L, H_L, G_R, H_R]).any():  # imported: only the library's loss_chg is known
        lc, gain, g, p = float(tree.loss_chg[node]), float(tree.gain[node]), prm.gamma, precision
        rhs = f"½(loss_chg − gamma) = ½({_n(lc, p)} − {_r(g, p)}) = {_r(gain, p)}"
        lines = [_line("Gain", rhs, r"\text{Gain}", rhs)]
        notes = [
            f"G_L, H_L, G_R, H_R are not known here: {_unknown_why(model)}",
            "loss_chg is the number the library stored for this split",
        ]
        return Explanation(title, lines, gain, notes, {"gain": gain, "loss_chg": lc})
    # the γ convention: seed 000's γ is half the model's gamma, XGBoost's min_split_loss
    ex = split_gain_steps(G_L, H_L, G_R, H_R, lam, prm.gamma / 2, precision, title)
    ex.notes.insert(
        0,
        f"left: G_L = {_r(G_L, precision)}, H_L = {_r(H_L, precision)};  "
        f"right: G_R = {_r(G_R, precision)}, H_R = {_r(H_R, precision)}",
    )
    lc = ex.values["loss_chg"]
    ex.notes.append(
        f"γ = gamma/2: the model's gamma = {_r(prm.gamma, precision)} is XGBoost's, so "
        f"gain = ½·loss_chg − gamma/2 = ½·{_n(lc, precision)} − {_r(prm.gamma / 2, precision)}"
    )
    ex.values["model_gamma"] = float(prm.gamma)
    if ex.value < 0:
        ex.notes.append(
            "gain < 0: pruning removes such a split when both its children are leaves; "
            "this one stays because a split below it is kept"
        )
    if _is_gbdt(model):
        ex.notes.append(
            "GBDT: g = −residual and h = 1 here, λ = 0, so loss_chg is the drop in "
            "the squared error of the residuals"
        )
    if prm.reg_alpha or (prm.max_delta_step and not _is_gbdt(model)):
        ex.notes.append(
            "with reg_alpha / max_delta_step the trainer's gain differs: "
            f"the tree records gain = {_r(tree.gain[node], precision)}"
        )
    return ex


def prediction(model, x, precision=3, iteration_range=None):
    """How the model predicts ``x``: the start margin from base_score, plus η·w of the leaf x
    reaches in each tree, then σ for a classifier."""
    _check(model)
    p = precision
    v = check_instance(x, getattr(model, "feature_names_in_", None), model.n_features_in_)
    n_trees = len(model.trees_) if iteration_range is None else int(iteration_range[1])
    trees = model.trees_[:n_trees]
    clf = _is_clf(model)
    if np.ndim(model.base_margin_) > 0:
        raise ValueError(
            f"explain.prediction follows one margin; this model has {len(model.classes_)} "
            "classes, one margin each. Follow a row through every class' trees with "
            "tg.explore(model, X), or read tree.path(x) of each tree"
        )
    base, m0 = float(model.base_score_), float(model.base_margin_)
    lines = []
    routes = []
    notes = []
    if clf:
        lines.append(
            _line(
                "margin₀",
                f"logit(base_score) = log({_r(base, p)} / (1 − {_r(base, p)})) = {_r(m0, p)}",
                r"\text{margin}_0",
                rf"\operatorname{{logit}}({_r(base, p)}) = \log\frac{{{_r(base, p)}}}"
                rf"{{1 - {_r(base, p)}}} = {_r(m0, p)}",
            )
        )
    else:
        lines.append(
            _line(
                "margin₀",
                f"base_score = {_r(m0, p)}",
                r"\text{margin}_0",
                rf"\text{{base\_score}} = {_r(m0, p)}",
            )
        )
    adds = []
    for k, tree in enumerate(trees, start=1):
        path = tree.path(v)
        steps = []
        for a, b in zip(path[:-1], path[1:]):
            f = int(tree.feature[a])
            val = v[f]
            ans = "yes" if b == int(tree.left[a]) else "no"
            shown = "missing" if np.isnan(val) else format_number(val, 6)
            value_of = f"{tree.feature_name(f)} = {shown}"
            steps.append(f"{format_rule(value_of, tree.threshold[a])}? {ans}")
        lf = path[-1]
        w, val = float(tree.weight[lf]), float(tree.value[lf])
        adds.append(val)
        route = "; ".join(steps) if steps else "(a single leaf)"
        routes.append(
            f"tree {k}: {route} → leaf {lf}: η·w* = {_r(tree.learning_rate, 6)} × "
            f"{_n(w, p)} = {_r(val, p)}"
        )
    margin = float(model.decision_function(v.reshape(1, -1), iteration_range=(0, n_trees))[0])
    terms = " + ".join(_n(a, p) for a in adds)
    if adds:
        lines.append(
            _line(
                "margin",
                "margin₀ + Σ_t η·w*_t",
                r"\text{margin}",
                r"\text{margin}_0 + \sum_t \eta\, w^*_t",
            )
        )
        lines.append(_line("", f"{_n(m0, p)} + {terms}", "", f"{_n(m0, p)} + {terms}"))
    lines.append(
        _line(
            "margin" if not adds else "",
            _r(margin, p),
            r"\text{margin}" if not adds else "",
            _r(margin, p),
        )
    )
    value = margin
    if clf:
        prob = sigmoid(margin)
        lines.append(
            _line(
                "p",
                f"σ(margin) = 1 / (1 + e^−{_n(margin, p)}) = {_r(prob, p)}",
                "p",
                rf"\sigma(\text{{margin}}) = \frac{{1}}{{1 + e^{{-{_n(margin, p)}}}}}"
                rf" = {_r(prob, p)}",
            )
        )
        value = prob
        notes.append(
            f"p is the probability of the positive class, {model.classes_[1]}; "
            "the margin is log-odds"
        )
    if iteration_range is None:
        notes.extend(_contribution_lines(model, v, p))
    values = {"base_score": base, "base_margin": m0, "leaf_values": adds, "margin": margin}
    if clf:
        values["proba"] = value
    title = f"Prediction of {len(trees)} tree{'s' * (len(trees) != 1)} for one instance"
    return Explanation(title, lines, value, notes, values, intro=routes)


# the feature contributions that ``prediction`` lists before folding the rest together
PREDICTION_FEATURES = 5
SHAP_MAX_DEPTH = 62  # TreeSHAP keeps a path's features as bits of an int64


def _contribution_lines(model, v, p):
    """The short "feature contributions" block of ``prediction``: SHAP values, largest first."""
    if max((t.max_depth for t in model.trees_), default=0) > SHAP_MAX_DEPTH:
        return [f"feature contributions (SHAP): not computed past depth {SHAP_MAX_DEPTH}"]
    row = contributions(model, v.reshape(1, -1)).iloc[0]
    out = [f"feature contributions to the margin (SHAP): bias = {_r(row['bias'], p)}"]
    names = list(row.index[:-1])
    for name, phi in _contributions.largest(row, PREDICTION_FEATURES):
        sign = "+" if phi >= 0 else "−"
        if name in names:
            x = v[names.index(name)]
            name = f"{name} = {'missing' if np.isnan(x) else format_number(x, 6)}"
        out.append(f"  {name}: {sign}{_r(abs(phi), p)}")
    return out


def contributions(model, X, method="shap", class_=None):
    """Each feature's contribution to each row's margin, plus ``bias``: a DataFrame whose
    rows sum to ``decision_function``. See ``teachgbt.contributions``."""
    return _contributions.contributions(model, X, method, class_)
