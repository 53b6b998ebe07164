"""Check a hand calculation: ``.correct`` and the worked solution.

    r = tg.check.leaf_weight(0.71, G=-1.333, H=0.889, reg_lambda=1)
    r.correct        # True
    print(r)         # the verdict and the formula with the numbers filled in

An exercise in a lesson leaves the answer ``None``: the check then states the question and
says "not answered yet" (no solution shown, nothing fails). A wrong answer gets the worked
solution and, when it matches a usual slip (the gain without its ½, λ forgotten, y − p for
p − y, p0 rounded to 0.7, the learning rate applied twice, ...), a word on that slip.

Answers worked by hand with two decimals are accepted: the tolerance is the
larger of 0.01, 1 % of the exact value, and how far a careful two-decimal
calculation (every intermediate rounded to two decimals) can drift from the
exact value. Pass ``tol=`` to choose it yourself.

With the environment variable ``TEACHGBT_CHECK_STRICT=1`` (the lesson tests set it) a
missing or wrong answer raises ``CheckFailed`` and an accepted one is reported on stderr
as ``teachgbt.check: accepted ...``.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from . import explain, formulas
from ._check_core import (
    STRICT_ENV,
    CheckFailed,
    CheckResult,
    _div,
    _epoch,
    _f,
    _fl,
    _hand_leaf,
    _hand_score,
    _margins,
    _r2,
    _result,
    _softmax_gradient,
    _worked,
)
from .losses import sigmoid

__all__ = [
    "CheckResult",
    "CheckFailed",
    "STRICT_ENV",
    "leaf_weight",
    "split_gain",
    "structure_score",
    "epoch",
    "loss",
    "complexity",
    "prediction",
    "gradient",
    "margin_update",
    "softmax_probability",
    "vote_error",
    "contribution",
    "recovered",
]

_L, _n, _r = explain._line, explain._n, explain._r


def leaf_weight(answer, G, H, reg_lambda=1.0, reg_alpha=0.0, tol=None, precision=3):
    """Check w* = −G/(H+λ) (seed 000); with ``reg_alpha`` G is soft-thresholded first."""
    sol = explain.leaf_weight_steps(G, H, reg_lambda, reg_alpha, precision=precision)
    Ga = float(formulas.soft_threshold(G, reg_alpha))
    q = f"work out w* = −G/(H+λ) for G = {_f(G)}, H = {_f(H)}, λ = {_f(reg_lambda)}"
    q += f", α = {_f(reg_alpha)} (soft-threshold G by α first)" if reg_alpha else ""
    slips = [
        (_div(-Ga, H), "λ is missing from the denominator: w* = −G/(H + λ)."),
        (_div(Ga, H + reg_lambda), "the sign: w* = −G/(H+λ), so a negative G gives w* > 0."),
        (_div(-G, H + reg_lambda), "α is missing: with reg_alpha, |G| first shrinks by α."),
    ]
    hand = _hand_leaf(G, H, reg_lambda, reg_alpha)
    return _result("w*", answer, sol.value, hand, tol, sol, q, slips)


def split_gain(answer, G_L, H_L, G_R, H_R, reg_lambda=1.0, gamma=0.0, tol=None, precision=3):
    """Check Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)] − γ (seed 000).

    ``gamma`` is seed 000's γ: for a model's ``gamma`` pass ``gamma / 2``."""
    sol = explain.split_gain_steps(G_L, H_L, G_R, H_R, reg_lambda, gamma, precision)
    G, H = _r2(G_L) + _r2(G_R), _r2(H_L) + _r2(H_R)
    hand = (
        0.5
        * (
            _hand_score(G_L, H_L, reg_lambda)
            + _hand_score(G_R, H_R, reg_lambda)
            - _hand_score(G, H, reg_lambda)
        )
        - gamma
    )
    bracket = float(formulas.loss_chg(G_L, H_L, G_R, H_R, reg_lambda))
    no_lam = float(formulas.loss_chg(G_L, H_L, G_R, H_R, 1e-300))
    q = (
        f"work out Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] − γ for G_L = {_f(G_L)}, "
        f"H_L = {_f(H_L)}, G_R = {_f(G_R)}, H_R = {_f(H_R)}, λ = {_f(reg_lambda)}, "
        f"γ = {_f(gamma)}"
    )
    half = "the bracket without its ½: that is XGBoost's loss_chg; the tutorial's Gain is ½[…] − γ."
    slips = [
        (bracket, half),
        (bracket - gamma, half),
        (0.5 * no_lam - gamma, "λ is missing: every denominator is H + λ."),
        (0.5 * bracket, "γ is missing: the Gain pays γ for the extra leaf."),
        (0.5 * bracket - 2 * gamma, "γ subtracted twice: seed 000's γ is the model's gamma / 2."),
    ]
    return _result("gain", answer, sol.value, hand, tol, sol, q, slips)


def structure_score(answer, G, H, reg_lambda=1.0, gamma=0.0, tol=None, precision=3):
    """Check Obj* = −½ Σ_j G_j²/(H_j+λ) + γT over the leaves (seed 000)."""
    sol = explain.structure_score_steps(G, H, reg_lambda, gamma, precision)
    Gs, Hs = np.atleast_1d(G), np.atleast_1d(H)
    hand = -0.5 * sum(_hand_score(g, h, reg_lambda) for g, h in zip(Gs, Hs)) + gamma * Gs.size
    # T terms of hand rounding add up: widen with the number of leaves
    exact = sol.value
    hand_err = abs(hand - exact) + 0.005 * Gs.size
    terms = float(np.sum(formulas.leaf_score(Gs, Hs, reg_lambda)))
    no_lam = float(np.sum(Gs.astype(float) ** 2 / Hs.astype(float)))
    T = gamma * Gs.size
    q = (
        f"work out Obj* = −½ Σ_j G_j²/(H_j+λ) + γT for G = {_fl(Gs)}, "
        f"H = {_fl(Hs)}, λ = {_f(reg_lambda)}, γ = {_f(gamma)}"
    )
    slips = [
        (-terms + T, "the ½ is missing (the slide with the five-instance table drops it; "
         "the derivation and XGBoost have −½ Σ G²/(H+λ))."),
        (-0.5 * no_lam + T, "λ is missing: each leaf scores G²/(H + λ)."),
        (0.5 * terms + T, "the sign: Obj* = −½ Σ …, lower is better."),
        (-0.5 * terms, "γT is missing: each of the T leaves costs γ."),
    ]  # fmt: skip
    return _result("Obj*", answer, exact, exact + hand_err, tol, sol, q, slips)


def loss(answer, y, y_hat, kind="square", tol=None):
    """Check a training loss L = Σ_i l(y_i, ŷ_i) (seed 000): ``kind`` "square" for
    Σ(y − ŷ)², "logistic" for Σ[y ln(1+e^−ŷ) + (1−y) ln(1+e^ŷ)] (ŷ: log-odds)."""
    y, yh = np.atleast_1d(np.asarray(y, float)), np.atleast_1d(np.asarray(y_hat, float))
    if kind == "square":
        terms = (y - yh) ** 2
        formula = "Σ (y_i − ŷ_i)²"
        slips = [
            (terms.mean(), "that is the mean; the tutorial's L sums over the instances."),
            (0.5 * terms.sum(), "that has XGBoost's ½; the tutorial writes L = Σ(y − ŷ)²."),
            (np.abs(y - yh).sum(), "the differences are to be squared."),
        ]
    elif kind == "logistic":
        terms = y * np.log1p(np.exp(-yh)) + (1 - y) * np.log1p(np.exp(yh))
        formula = "Σ [y_i ln(1+e^−ŷ_i) + (1−y_i) ln(1+e^ŷ_i)]"
        swapped = (1 - y) * np.log1p(np.exp(-yh)) + y * np.log1p(np.exp(yh))
        slips = [
            (terms.sum() / math.log(10), "that is log base 10; the tutorial's ln is natural."),
            (swapped.sum(), "y and 1 − y swapped: y = 1 pays ln(1 + e^−ŷ)."),
            (terms.mean(), "that is the mean; the tutorial's L sums over the instances."),
        ]
    else:
        raise ValueError(f'kind must be "square" or "logistic"; got {kind!r}')
    exact = float(terms.sum())
    each = " + ".join(_f(v) for v in terms)
    sol = _worked(f"{kind} loss (seed 000)", [("L", formula), ("", each), ("", _f(exact))], exact)
    q = f"work out L = {formula} for y = {_fl(y)}, ŷ = {_fl(yh)}"
    return _result("L", answer, exact, exact, tol, sol, q, slips)


def complexity(answer, w, reg_lambda=1.0, gamma=0.0, tol=None):
    """Check Ω(f) = γT + ½λ Σ_j w_j² for a tree with leaf scores ``w`` (seed 000)."""
    w = np.atleast_1d(np.asarray(w, float))
    T, sq = w.size, float(np.sum(w**2))
    exact = gamma * T + 0.5 * reg_lambda * sq
    sol = _worked(
        "the complexity of a tree (seed 000)",
        [("Ω", "γT + ½λ Σ w_j²"),
         ("", f"{_f(gamma)}·{T} + ½·{_f(reg_lambda)}·({' + '.join(_f(v**2) for v in w)})"),
         ("", _f(exact))],
        exact,
    )  # fmt: skip
    q = f"work out Ω = γT + ½λΣw² for w = {_fl(w)}, λ = {_f(reg_lambda)}, "
    q += f"γ = {_f(gamma)}"
    slips = [
        (gamma * T + reg_lambda * sq, "the ½ in front of λ is missing."),
        (0.5 * reg_lambda * sq, "γT is missing: every leaf costs γ."),
        (gamma * T + 0.5 * reg_lambda * np.abs(w).sum(), "the weights are to be squared."),
    ]
    return _result("Ω", answer, exact, exact, tol, sol, q, slips)


def prediction(answer, trees, x, base_score=0.0, tol=None):
    """Check ŷ = base_score + Σ_k f_k(x) for one instance ``x`` (a one-row DataFrame or a
    1-D array in the trees' feature order) and a list of ``tg.Tree`` (seed 000)."""
    X = x if hasattr(x, "columns") else np.atleast_2d(np.asarray(x, float))
    scores = [float(t.predict(X)[0]) for t in trees]
    exact = base_score + sum(scores)
    each = " + ".join(_n(v, 3) for v in scores)
    sol = _worked(
        "an ensemble's prediction: the scores add (seed 000)",
        [("ŷ", "base_score + Σ_k f_k(x)"), ("", f"{_f(base_score)} + {each}"), ("", _f(exact))],
        exact,
    )
    q = f"work out ŷ = Σ_k f_k(x) over the {len(trees)} trees for this instance"
    slips = [
        (base_score + scores[0], "that is the first tree alone; every tree adds its score."),
        (base_score + np.mean(scores), "that is the average; the tutorial's ensemble adds."),
    ]
    return _result("ŷ", answer, exact, exact, tol, sol, q, slips)


def gradient(answer, y, margin, loss="squared", order=1, tol=None, class_=None):
    """Check g_i (``order=1``) or h_i (``order=2``) of one instance at the margin ŷ.

    ``loss``: "squared", XGBoost's ½(y − ŷ)² (g = ŷ − y, h = 1), "logistic"
    (p = σ(ŷ), g = p − y, h = p(1 − p)) or "softmax" (XGBoost's ``multi:softprob``:
    ``margin`` holds the K margins, ``y`` is the row's class index, ``class_`` the class
    whose tree asks; p = softmax(margin)[class_], g = p − [y = class_], h = 2p(1 − p))."""
    if loss == "softmax":
        return _softmax_gradient(answer, y, margin, order, tol, class_)
    y, m = float(y), float(margin)
    slides = "that is the slides' convention, (y − ŷ)²; XGBoost and teachgbt take ½(y − ŷ)²."
    if loss == "squared":
        exact = m - y if order == 1 else 1.0
        line = f"ŷ − y = {_f(m)} − {_n(y, 3)}" if order == 1 else "∂²/∂ŷ² ½(y − ŷ)² = 1"
        slips = (
            [(y - m, "y − ŷ is the residual, −g: g = ŷ − y."), (2 * (m - y), slides)]
            if order == 1
            else [(2.0, slides)]
        )
    elif loss == "logistic":
        p, p1 = float(sigmoid(m)), round(float(sigmoid(m)), 1)
        video = "p rounded to one decimal (as the video rounds 2/3 to 0.7); keep p = σ(ŷ) exact."
        if order == 1:
            exact, line = p - y, f"p − y = σ({_f(m)}) − {_f(y)} = {_f(p)} − {_f(y)}"
            slips = [
                (y - p, "y − p is the residual (seed 004), −g: g = p − y."),
                (p1 - y, video),
                (m - y, "g uses the probability p = σ(ŷ), not the margin ŷ."),
            ]
        else:
            exact, line = p * (1 - p), f"p(1 − p) = {_f(p)} · {_f(1 - p)}"
            slips = [(p1 * (1 - p1), video), (m * (1 - m), "h uses p = σ(ŷ), not the margin.")]
    else:
        raise ValueError(f'loss must be "squared", "logistic" or "softmax"; got {loss!r}')
    if order not in (1, 2):
        raise ValueError(f"order must be 1 (g) or 2 (h); got {order!r}")
    what = "g" if order == 1 else "h"
    sol = _worked(f"{what} for the {loss} loss", [(what, line), ("", _f(exact))], exact)
    q = f"work out {what} of the {loss} loss for y = {_f(y)} at the margin ŷ = {_f(m)}"
    return _result(what, answer, exact, exact, tol, sol, q, slips)


def softmax_probability(answer, margin, class_, tol=None):
    """Check p_k = e^{F_k} / Σ_j e^{F_j} for the K margins ``margin`` of one row and
    ``class_`` = k (a class index)."""
    F, p, k = _margins(margin, class_)
    exact = float(p[k])
    terms = " + ".join(f"e^{_f(v)}" for v in F)
    sol = _worked(
        f"the softmax probability of class {k}",
        [(f"p_{k}", f"e^F_{k} / Σ_j e^F_j = e^{_f(F[k])} / ({terms})"),
         ("", f"{_f(np.exp(F[k]))} / {_f(np.exp(F).sum())}"), ("", _f(exact))],
        exact,
        ["adding one number to every margin leaves every p_k unchanged"],
    )  # fmt: skip
    q = f"work out p_{k} = e^F_{k} / Σ_j e^F_j for the margins F = {_fl(F)}"
    others = float(np.exp(F).sum() - np.exp(F[k]))
    slips = [
        (float(sigmoid(F[k])), "that is σ(F_k), the binary link: softmax divides by all K."),
        (_div(np.exp(F[k]), others), "the denominator sums every class, F_k's own term too."),
        (_div(F[k], F.sum()), "the margins are exponentiated first: e^F_k / Σ e^F_j."),
        (1.0 / F.size, "1/K is the probability when all margins are equal; they are not."),
    ]
    return _result(f"p_{k}", answer, exact, exact, tol, sol, q, slips)


def margin_update(answer, margin, weight, learning_rate, tol=None):
    """Check ŷ⁽ᵗ⁾ = ŷ⁽ᵗ⁻¹⁾ + η·w* for one instance (seed 002's shrinkage)."""
    m, w, eta = float(margin), float(weight), float(learning_rate)
    exact = m + eta * w
    sol = _worked(
        "one round of additive training, with shrinkage",
        [("ŷ⁽ᵗ⁾", "ŷ⁽ᵗ⁻¹⁾ + η·w*"), ("", f"{_f(m)} + {_f(eta)} × {_n(w, 3)}"), ("", _f(exact))],
        exact,
        ["a tree's leaf value (its value column) is η·w* already: add it as it is"],
    )
    q = f"work out ŷ⁽ᵗ⁾ = ŷ⁽ᵗ⁻¹⁾ + η·w* for ŷ⁽ᵗ⁻¹⁾ = {_f(m)}, w* = {_f(w)}, η = {_f(eta)}"
    slips = [
        (m + eta * eta * w, "the learning rate applied twice: η·w* already holds η."),
        (m + w, "the learning rate is missing: the tree adds η·w*, not w*."),
        (eta * (m + w), "η multiplies the new tree only, not the margin so far."),
    ]
    return _result("ŷ⁽ᵗ⁾", answer, exact, exact, tol, sol, q, slips)


def vote_error(answer, p, n_voters, tol=None):
    """Check P(the majority of ``n_voters`` independent voters is wrong), each wrong with
    probability p (seed 002): Σ_{k=⌊n/2⌋+1}^{n} C(n,k) p^k (1−p)^(n−k), plus half the
    tie term C(n, n/2) p^(n/2) (1−p)^(n/2) when n is even (a coin settles a tie)."""
    n, p = int(n_voters), float(p)
    if n < 1 or n != n_voters:
        raise ValueError(f"n_voters must be a whole number ≥ 1; got {n_voters!r}")
    if not 0 <= p <= 1:
        raise ValueError(f"p must lie in [0, 1]; got {p!r}")

    def term(k):
        return math.comb(n, k) * p**k * (1 - p) ** (n - k)

    first = n // 2 + 1
    tie = 0.5 * term(n // 2) if n % 2 == 0 else 0.0
    terms = [term(k) for k in range(first, n + 1)]
    exact = sum(terms) + tie
    half = f" + ½·C({n},{n // 2}) p^{n // 2} (1−p)^{n // 2}" if tie else ""
    written = " + ".join(f"C({n},{k})·{_f(p)}^{k}·{_f(1 - p)}^{n - k}" for k in range(first, n + 1))
    written += f" + ½·C({n},{n // 2})·{_f(p)}^{n // 2}·{_f(1 - p)}^{n // 2}" if tie else ""
    lines = [("P", f"Σ_k≥{first} C({n},k) p^k (1−p)^({n}−k){half}"), ("", written)]
    lines += [("", " + ".join(_f(v) for v in terms + ([tie] if tie else []))), ("", _f(exact))]
    why = "the majority is wrong when more than half are wrong: k from ⌊n/2⌋ + 1"
    tie_note = "n even: a tie of n/2 against n/2 is a coin toss, counted as half an error"
    title = f"the majority of {n} independent voters is wrong (seed 002)"
    sol = _worked(title, lines, exact, [why] + ([tie_note] if tie else []))
    q = f"work out P(majority wrong) for {n} independent voters, each wrong with p = {_f(p)}"
    slips = [
        (sum(term(k) for k in range(n // 2, n + 1)),
         f"the sum starts one too early: the majority needs k ≥ ⌊n/2⌋ + 1 = {first} wrong."),
        (sum(terms) + 2 * tie, "a tie counts as half an error, not a whole one."),
        (sum(terms), "a tie (n/2 against n/2) is settled by a coin: add half its term."),
        (1 - exact, "that is the probability the majority is right."),
        (sum(p**k * (1 - p) ** (n - k) for k in range(first, n + 1)),
         "each term needs C(n, k), the number of ways to pick the k wrong voters."),
    ]  # fmt: skip
    return _result("P(majority wrong)", answer, exact, exact, tol, sol, q, slips)


def contribution(answer, model, x, feature, tree=1, method="shap", class_=None, tol=None):
    """Check one tree's contribution of ``feature`` to the margin of instance ``x``.

    ``tree``: the round (1-based; ``class_`` picks the class's tree for K ≥ 3). ``method``
    "path" (Saabas): the changes of the expected value along x's path at the splits on
    ``feature``; "shap": the Shapley value over the sets S of the features the tree uses,
    v(S) = the tree's expected value when only S is known (cover-weighted at the others)."""
    from . import contributions as C
    from ._validation import check_instance

    if method not in C.METHODS:
        raise ValueError(f"method={method!r}; use one of {list(C.METHODS)}")
    names = C._feature_names(model)
    if feature not in names:
        raise ValueError(f"unknown feature {feature!r}; the model has {names}")
    trees, _ = C._trees_of_class(model, class_)
    if not 1 <= int(tree) <= len(trees):
        raise ValueError(f"tree must be a round from 1 to {len(trees)}; got {tree!r}")
    t, j = trees[int(tree) - 1], names.index(feature)
    v = check_instance(x, getattr(model, "feature_names_in_", None), model.n_features_in_)
    path, _ = C.path_contributions(t, v.reshape(1, -1))
    shap, bias = C.shapley_values(t, v)
    exact = float((path if method == "path" else shap.reshape(1, -1))[0, j])
    other = float((shap.reshape(1, -1) if method == "path" else path)[0, j])
    used = sorted({int(f) for f in t.feature[~t.is_leaf]})
    if method == "path":
        mean, node, lines = C.expected_values(t), 0, []
        while t.feature[node] >= 0:
            left = t.goes_left(node, v)
            child = int(t.left[node] if left else t.right[node])
            if t.feature[node] == j:
                lines.append(("", f"node {node} → {child}: {_f(mean[child])} − {_f(mean[node])}"))
            node = child
        head = [("φ", "Σ over the splits on the feature: E[child] − E[node] (E: cover-weighted)")]
        lines = head + (lines or [("", "the path never splits on it")]) + [("", _f(exact))]
    else:
        known = [tuple(S) for r in range(len(used) + 1) for S in combinations(used, r)]
        vs = {S: C.expected_value_given(t, v, set(S)) for S in known}
        lines = [("φ", "Σ_S |S|!(M−|S|−1)!/M! · [v(S ∪ {j}) − v(S)], M = " + str(len(used)))]
        if len(used) <= 3:  # small enough to write every set out

            def name(S):
                return "v(" + ("{" + ", ".join(names[i] for i in S) + "}" if S else "∅") + ")"

            lines += [(name(S), _f(vs[S])) for S in known]
            M, others = len(used), [i for i in used if i != j]
            sets, nums = [], []
            for r in range(M):
                wt = f"{math.factorial(r) * math.factorial(M - r - 1)}/{math.factorial(M)}"
                for S in combinations(others, r):
                    Sj = tuple(sorted(S + (j,)))
                    sets.append(f"{wt}·[{name(Sj)} − {name(S)}]")
                    nums.append(f"{wt}·({_f(vs[Sj])} − {_f(vs[S])})")
            lines += [(f"φ_{feature}", " + ".join(sets)), ("", " + ".join(nums))]
        lines += [("", _f(exact))]
    sol = _worked(f"tree {tree}'s {method} contribution of {feature}", lines, exact)
    q = f"work out tree {tree}'s {method} contribution of {feature} to this row's margin"
    leaf_minus_bias = float(t.predict(v.reshape(1, -1))[0]) - bias
    slips = [
        (other, f'that is the {"SHAP" if method == "path" else "path (Saabas)"} value; '
         f'this asks for method="{method}".'),
        (-exact, "the sign: a contribution is (value with the feature known) − (without)."),
        (leaf_minus_bias, "that is the whole tree's change, leaf − E[tree]; share it out."),
    ]  # fmt: skip
    return _result("φ", answer, exact, exact, tol, sol, q, slips)


def recovered(
    answer, what, value=None, learning_rate=None, weight=None, H=None, reg_lambda=None,
    loss_chg=None, gamma=None, tol=None,
):  # fmt: skip
    """Check a tutorial number recovered from what another library stores:
    ``what="weight"``: w* = value / η (a stored leaf value is η·w*); ``"G"``: G = −w*(H + λ)
    (from w* = −G/(H+λ), H = the cover); ``"gain"``: seed 000's gain = ½(loss_chg − gamma)
    (XGBoost's gain is loss_chg: no ½, γ not subtracted; its ``gamma`` is twice seed 000's γ)."""
    need = {"weight": dict(value=value, learning_rate=learning_rate),
            "G": dict(weight=weight, H=H, reg_lambda=reg_lambda),
            "gain": dict(loss_chg=loss_chg, gamma=gamma)}  # fmt: skip
    if what not in need:
        raise ValueError(f'what must be "weight", "G" or "gain"; got {what!r}')
    if any(a is None for a in need[what].values()):
        raise ValueError(f"what={what!r} needs {', '.join(k + '=' for k in need[what])}")
    if what == "weight":
        v, eta = float(value), float(learning_rate)
        exact = v / eta
        lines = [("w*", "value / η"), ("", f"{_f(v)} / {_f(eta)}")]
        slips = [(v * eta, "divide by η: the stored value is η·w* already."),
                 (v, "the stored value still holds η: w* = value / η.")]  # fmt: skip
    elif what == "G":
        w, h, lam = float(weight), float(H), float(reg_lambda)
        exact = -w * (h + lam)
        lines = [("G", "−w*·(H + λ), from w* = −G/(H + λ)")]
        lines += [("", f"−{_n(w, 3)} × ({_f(h)} + {_f(lam)})")]
        slips = [(w * (h + lam), "the sign: w* = −G/(H+λ), so G = −w*(H+λ)."),
                 (-w * h, "λ is missing: G = −w*(H + λ)."),
                 (_div(-w, h + lam), "solve w* = −G/(H+λ) for G: multiply by H + λ.")]  # fmt: skip
    else:
        lc, g = float(loss_chg), float(gamma)
        exact = 0.5 * (lc - g)
        lines = [("gain", "½(loss_chg − gamma): seed 000's γ is gamma / 2")]
        lines += [("", f"½({_f(lc)} − {_f(g)})")]
        slips = [(lc - g, "the ½ is missing: seed 000's Gain is ½[…] − γ."),
                 (0.5 * lc, "γ is missing: the gain pays for the extra leaf."),
                 (0.5 * lc - g, "γ subtracted whole: seed 000's γ is gamma / 2."),
                 (lc, "that is XGBoost's gain as stored; seed 000's is ½(… − gamma).")]  # fmt: skip
    sol = _worked(f"{what} recovered from a stored model", lines + [("", _f(exact))], exact)
    q = f"recover {what} from the numbers a model file stores"
    return _result("w*" if what == "weight" else what, answer, exact, exact, tol, sol, q, slips)


def epoch(answer, model, column, row, tol=None, precision=3):
    """Check one cell of seed 004's per-epoch table, ``model.trace_.epochs()``.

    ``column``: e.g. ``"ep_1_residual"``, ``"ep_1_leaf_output"``, ``"ep_2_prob"``;
    ``row``: the instance (0-based, as in the table).
    """
    return _epoch(answer, model, column, row, tol, precision)
