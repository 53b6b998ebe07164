"""Check a hand calculation: ``.correct``, the likely slip, and the worked solution.

    r = tg.check.leaf_weight(0.71, G=-1.333, H=0.889, reg_lambda=1)
    r.correct        # True
    print(r)         # the verdict and the formula with the numbers filled in
    tg.check.leaf_weight(0.5, G=-1.333, H=0.889, reveal=True)   # wrong: the solution too

An exercise in a lesson leaves the answer ``None``: the check then states the question and
says "not answered yet" (no solution shown, nothing fails). A wrong answer is told the usual
slip it is nearest to (the gain without its ½, λ forgotten, y − p for p − y, p0 rounded to
0.7, a log-odds given for a probability, the learning rate applied twice, ...), or else a
hint, but neither the right value nor the worked solution: the learner tries again.
``reveal=True`` on the same call (every checker takes it) shows both.

An answer is right within 1 % of the exact value (so 3 significant digits always are, and
3 % off never is), and never closer than ±0.0001: that floor is what a value near 0 is
judged by. A tolerance never reaches a named slip. Pass ``tol=`` to choose it yourself.
Where the sign is the point (a negative gain: the split is pruned) an answer of the other
sign is wrong however close. ``choice`` marks the lessons' "why" questions (a letter) the
same way. An exercise sheet poses its checks with ``asked``: its own question line, slips
and notes.

γ and λ follow the loss, not the seed: with XGBoost's ½(y − ŷ)² (g = ŷ − y, h = 1) or the
logistic loss the tutorials' γ is the model's ``gamma / 2`` and their λ is ``reg_lambda``;
with the tutorials' own (y − ŷ)² (g = 2(ŷ − y), h = 2) their γ is ``gamma`` and their λ is
2·``reg_lambda``. The checkers take the tutorials' γ and λ.

With the environment variable ``TEACHGBT_CHECK_STRICT=1`` (the lesson tests set it) a
missing or wrong answer raises ``CheckFailed`` and an accepted one is reported on stderr
as ``teachgbt.teach.check: accepted ...``.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from ... import explain
from ...core import formulas
from ...core.losses import sigmoid
from ...explain import bracketed
from ._core import (
    FLOOR,
    RELATIVE,
    STRICT_ENV,
    CheckFailed,
    CheckResult,
    ChoiceResult,
    asked,
    div,
    fmt,
    fmt_list,
    margins,
    quietly,
    result,
    softmax_gradient,
    strict,
    worked,
)
from ._epoch import epoch as _epoch_cell
from ._objectives import clipped_leaf, objective_gradient, refreshed_leaf

__all__ = [
    "CheckResult",
    "CheckFailed",
    "STRICT_ENV",
    "RELATIVE",
    "FLOOR",
    "quietly",
    "asked",
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
    "choice",
    "objective_gradient",
    "refreshed_leaf",
    "clipped_leaf",
]


def leaf_weight(answer, G, H, reg_lambda=1.0, reg_alpha=0.0, tol=None, precision=3, reveal=False):
    """Check w* = −G/(H+λ) (seed 000); with ``reg_alpha`` G is soft-thresholded first."""
    sol = explain.leaf_weight_steps(G, H, reg_lambda, reg_alpha, precision=precision)
    Ga = float(formulas.soft_threshold(G, reg_alpha))
    q = f"work out w* = −G/(H+λ) for G = {fmt(G)}, H = {fmt(H)}, λ = {fmt(reg_lambda)}"
    q += f", α = {fmt(reg_alpha)} (soft-threshold G by α first)" if reg_alpha else ""
    slips = [
        (div(-Ga, H), "λ is missing from the denominator: w* = −G/(H + λ)."),
        (div(Ga, H + reg_lambda), "the sign: w* = −G/(H+λ), so a negative G gives w* > 0."),
    ]
    if reg_alpha:
        grown = math.copysign(abs(G) + reg_alpha, G)
        slips += [
            (div(-G, H + reg_lambda), "α is missing: with reg_alpha, |G| first shrinks by α."),
            (div(-grown, H + reg_lambda), "α added to |G|: the L1 term shrinks |G| by α (the "
             "soft threshold), it never grows it."),
        ]  # fmt: skip
    return result("w*", answer, sol.value, tol, sol, q, slips, reveal=reveal)


def split_gain(
    answer, G_L, H_L, G_R, H_R, reg_lambda=1.0, gamma=0.0, tol=None, precision=3, reveal=False
):
    """Check Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)] − γ (seed 000).

    ``gamma`` and ``reg_lambda`` are the tutorial's γ and λ, which the loss decides: for a
    model with XGBoost's ½(y − ŷ)² or the logistic loss (g = ŷ − y or p − y) pass the
    model's ``gamma / 2`` and its ``reg_lambda``; for the tutorials' (y − ŷ)² (g = 2(ŷ − y),
    h = 2) pass ``gamma`` and 2·``reg_lambda``. The sign is checked: a negative gain is a
    split that pruning removes."""
    sol = explain.split_gain_steps(G_L, H_L, G_R, H_R, reg_lambda, gamma, precision)
    bracket = float(formulas.loss_chg(G_L, H_L, G_R, H_R, reg_lambda))
    no_lam = float(formulas.loss_chg(G_L, H_L, G_R, H_R, 1e-300))
    q = (
        f"work out Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] − γ for G_L = {fmt(G_L)}, "
        f"H_L = {fmt(H_L)}, G_R = {fmt(G_R)}, H_R = {fmt(H_R)}, λ = {fmt(reg_lambda)}, "
        f"γ = {fmt(gamma)}"
    )
    half = "the bracket without its ½: that is XGBoost's loss_chg; the tutorial's Gain is ½[…] − γ."
    pruned = ("the sign: this gain is negative, the loss the split saves is less than its "
              "price (λ shrinks what the leaves save, γ is paid per leaf), so pruning removes "
              "the split." if sol.value < 0 else
              "the sign: this split saves more than it costs, its gain is positive.")  # fmt: skip
    slips = [
        (bracket - gamma, half),
        (0.5 * no_lam - gamma, "λ is missing: every denominator is H + λ."),
        (-sol.value, pruned),
    ]
    if gamma:
        slips += [
            (bracket, half),
            (0.5 * bracket, "γ is missing: the Gain pays γ for the extra leaf."),
            (0.5 * bracket - 2 * gamma, "XGBoost's gamma subtracted whole: with its ½-loss "
             "(g = ŷ − y, h = 1) or the logistic loss the tutorial's γ is gamma / 2."),
            (bracket - 2 * gamma, "that is XGBoost's loss_chg − gamma, with no ½: the "
             "tutorial's Gain is half of it, ½(loss_chg − gamma)."),
        ]  # fmt: skip
    return result("gain", answer, sol.value, tol, sol, q, slips, reveal=reveal, signed=True)


def structure_score(answer, G, H, reg_lambda=1.0, gamma=0.0, tol=None, precision=3, reveal=False):
    """Check Obj* = −½ Σ_j G_j²/(H_j+λ) + γT over the leaves (seed 000)."""
    sol = explain.structure_score_steps(G, H, reg_lambda, gamma, precision)
    Gs, Hs = np.atleast_1d(G), np.atleast_1d(H)
    terms = float(np.sum(formulas.leaf_score(Gs, Hs, reg_lambda)))
    no_lam = float(np.sum(Gs.astype(float) ** 2 / Hs.astype(float)))
    T = gamma * Gs.size
    q = (
        f"work out Obj* = −½ Σ_j G_j²/(H_j+λ) + γT for G = {fmt_list(Gs)}, "
        f"H = {fmt_list(Hs)}, λ = {fmt(reg_lambda)}, γ = {fmt(gamma)}"
    )
    slips = [
        (-terms + T, "the ½ is missing: seed 000's Obj* = −½ Σ G²/(H+λ) + γT keeps it (the "
         "slide with the five-instance table and XGBoost's code drop it)."),
        (-0.5 * no_lam + T, "λ is missing: each leaf scores G²/(H + λ)."),
        (0.5 * terms + T, "the sign: Obj* = −½ Σ …, lower is better."),
        (-0.5 * terms, "γT is missing: each of the T leaves costs γ."),
    ]  # fmt: skip
    return result("Obj*", answer, sol.value, tol, sol, q, slips, reveal=reveal)


def loss(answer, y, y_hat, kind="square", tol=None, reveal=False):
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
            (-terms.sum(), "the sign: a loss is never negative; each term ln(1 + e^…) is "
             "above 0."),
        ]  # fmt: skip
    else:
        raise ValueError(f'kind must be "square" or "logistic"; got {kind!r}')
    exact = float(terms.sum())
    each = " + ".join(fmt(v) for v in terms)
    sol = worked(f"{kind} loss (seed 000)", [("L", formula), ("", each), ("", fmt(exact))], exact)
    q = f"work out L = {formula} for y = {fmt_list(y)}, ŷ = {fmt_list(yh)}"
    return result("L", answer, exact, tol, sol, q, slips, reveal=reveal)


def complexity(answer, w, reg_lambda=1.0, gamma=0.0, tol=None, reveal=False):
    """Check Ω(f) = γT + ½λ Σ_j w_j² for a tree with leaf scores ``w`` (seed 000)."""
    w = np.atleast_1d(np.asarray(w, float))
    T, sq = w.size, float(np.sum(w**2))
    exact = gamma * T + 0.5 * reg_lambda * sq
    sol = worked(
        "the complexity of a tree (seed 000)",
        [("Ω", "γT + ½λ Σ w_j²"),
         ("", f"{fmt(gamma)}·{T} + ½·{fmt(reg_lambda)}·({' + '.join(fmt(v**2) for v in w)})"),
         ("", fmt(exact))],
        exact,
    )  # fmt: skip
    q = f"work out Ω = γT + ½λΣw² for w = {fmt_list(w)}, λ = {fmt(reg_lambda)}, "
    q += f"γ = {fmt(gamma)}"
    slips = [
        (gamma * T + reg_lambda * sq, "the ½ in front of λ is missing."),
        (0.5 * reg_lambda * sq, "γT is missing: every leaf costs γ."),
        (gamma * T + 0.5 * reg_lambda * np.abs(w).sum(), "the weights are to be squared."),
    ]
    return result("Ω", answer, exact, tol, sol, q, slips, reveal=reveal)


def prediction(answer, trees, x, base_score=0.0, link=None, tol=None, reveal=False):
    """Check ŷ = base_score + Σ_k f_k(x) for one instance ``x`` (a one-row DataFrame or a
    1-D array in the trees' feature order) and a list of ``tg.Tree`` (seed 000): each tree
    adds the value of the leaf x reaches (η·w* for a trained tree). With
    ``link="logistic"`` the answer is a binary classifier's probability σ(ŷ), and
    ``base_score`` its starting log-odds F₀."""
    if link not in (None, "logistic"):
        raise ValueError(f'link must be None or "logistic"; got {link!r}')
    X = x if hasattr(x, "columns") else np.atleast_2d(np.asarray(x, float))
    leaves = [int(t.apply(X)[0]) for t in trees]
    scores = [float(t.value[j]) for t, j in zip(trees, leaves)]
    unshrunk = base_score + sum(float(t.weight[j]) for t, j in zip(trees, leaves))
    margin = base_score + sum(scores)
    each = " + ".join(bracketed(v, 3) for v in scores)
    lines = [("ŷ", "base_score + Σ_k f_k(x)")]
    for k, (t, j, v) in enumerate(zip(trees, leaves, scores), 1):
        step = (
            ""
            if t.weight[j] == v
            else f"η·w* = {fmt(t.learning_rate)} × {bracketed(t.weight[j], 3)} = "
        )
        lines.append((f"f_{k}(x)", f"leaf {j} of tree {k}: {step}{fmt(v)}"))
    lines += [("ŷ", f"{fmt(base_score)} + {each}"), ("", fmt(margin))]
    no_eta = "the learning rate is missing: a tree adds its leaf's value η·w*, not w*."
    if link is None:
        exact, what = margin, "ŷ"
        slips = [
            (base_score + scores[0], "that is the first tree alone; every tree adds its score."),
            (base_score + np.mean(scores), "that is the average; the tutorial's ensemble adds."),
            (unshrunk, no_eta),
        ]
    else:
        exact, what = float(sigmoid(margin)), "p"
        lines += [("p", f"σ(ŷ) = 1 / (1 + e^−{bracketed(margin, 3)})"), ("", fmt(exact))]
        slips = [
            (margin, "that is the log-odds ŷ; the probability is σ(ŷ) = 1 / (1 + e^−ŷ)."),
            (float(sigmoid(unshrunk)), no_eta),
            (float(sigmoid(sum(scores))), "F₀ is missing: the log-odds start at the base "
             "score F₀, then every tree adds its leaf's value."),
            (float(sigmoid(base_score + scores[0])), "that is after the first tree alone; "
             "every tree adds its leaf's value."),
        ]  # fmt: skip
    title = "an ensemble's prediction: the scores add (seed 000)"
    notes = ["a leaf's value is a step in log-odds; σ of the whole sum is the probability"]
    sol = worked(title, lines, exact, notes if link else [])
    q = f"work out ŷ = Σ_k f_k(x) over the {len(trees)} trees for this instance"
    return result(what, answer, exact, tol, sol, q, slips, reveal=reveal)


def gradient(answer, y, margin, loss="squared", order=1, tol=None, class_=None, reveal=False):
    """Check g_i (``order=1``) or h_i (``order=2``) of one instance at the margin ŷ.

    ``loss``: "squared", XGBoost's ½(y − ŷ)² (g = ŷ − y, h = 1), "logistic"
    (p = σ(ŷ), g = p − y, h = p(1 − p)) or "softmax" (XGBoost's ``multi:softprob``:
    ``margin`` holds the K margins, ``y`` is the row's class index, ``class_`` the class
    whose tree asks; p = softmax(margin)[class_], g = p − [y = class_], h = 2p(1 − p))."""
    if loss == "softmax":
        return softmax_gradient(answer, y, margin, order, tol, class_, reveal)
    y, m = float(y), float(margin)
    slides = "that is for the tutorials' (y − ŷ)² (g = 2(ŷ − y), h = 2); this is ½(y − ŷ)²."
    if loss == "squared":
        exact = m - y if order == 1 else 1.0
        line = f"ŷ − y = {fmt(m)} − {bracketed(y, 3)}" if order == 1 else "∂²/∂ŷ² ½(y − ŷ)² = 1"
        slips = (
            [(y - m, "y − ŷ is the residual, −g: g = ŷ − y."), (2 * (m - y), slides)]
            if order == 1
            else [(2.0, slides)]
        )
    elif loss == "logistic":
        p, p1 = float(sigmoid(m)), round(float(sigmoid(m)), 1)
        video = "p rounded to one decimal (as the video rounds 2/3 to 0.7); keep p = σ(ŷ) exact."
        if order == 1:
            exact, line = p - y, f"p − y = σ({fmt(m)}) − {fmt(y)} = {fmt(p)} − {fmt(y)}"
            slips = [
                (y - p, "y − p is the residual (seed 004), −g: g = p − y."),
                (p1 - y, video),
                (m - y, "g uses the probability p = σ(ŷ), not the margin ŷ."),
            ]
        else:
            exact, line = p * (1 - p), f"p(1 − p) = {fmt(p)} · {fmt(1 - p)}"
            slips = [(p1 * (1 - p1), video), (m * (1 - m), "h uses p = σ(ŷ), not the margin.")]
    else:
        raise ValueError(f'loss must be "squared", "logistic" or "softmax"; got {loss!r}')
    if order not in (1, 2):
        raise ValueError(f"order must be 1 (g) or 2 (h); got {order!r}")
    what = "g" if order == 1 else "h"
    sol = worked(f"{what} for the {loss} loss", [(what, line), ("", fmt(exact))], exact)
    q = f"work out {what} of the {loss} loss for y = {fmt(y)} at the margin ŷ = {fmt(m)}"
    return result(what, answer, exact, tol, sol, q, slips, reveal=reveal)


def softmax_probability(answer, margin, class_, tol=None, reveal=False):
    """Check p_k = e^{F_k} / Σ_j e^{F_j} for the K margins ``margin`` of one row and
    ``class_`` = k (a class index)."""
    F, p, k = margins(margin, class_)
    exact = float(p[k])
    terms = " + ".join(f"e^{fmt(v)}" for v in F)
    sol = worked(
        f"the softmax probability of class {k}",
        [(f"p_{k}", f"e^F_{k} / Σ_j e^F_j = e^{fmt(F[k])} / ({terms})"),
         ("", f"{fmt(np.exp(F[k]))} / {fmt(np.exp(F).sum())}"), ("", fmt(exact))],
        exact,
        ["adding one number to every margin leaves every p_k unchanged"],
    )  # fmt: skip
    q = f"work out p_{k} = e^F_{k} / Σ_j e^F_j for the margins F = {fmt_list(F)}"
    others = float(np.exp(F).sum() - np.exp(F[k]))
    slips = [
        (float(sigmoid(F[k])), "that is σ(F_k), the binary link: softmax divides by all K."),
        (div(np.exp(F[k]), others), "the denominator sums every class, F_k's own term too."),
        (div(F[k], F.sum()), "the margins are exponentiated first: e^F_k / Σ e^F_j."),
        (1.0 / F.size, "1/K is the probability when all margins are equal; they are not."),
    ]
    return result(f"p_{k}", answer, exact, tol, sol, q, slips, reveal=reveal)


def margin_update(answer, margin, weight, learning_rate, tol=None, reveal=False):
    """Check ŷ⁽ᵗ⁾ = ŷ⁽ᵗ⁻¹⁾ + η·w* for one instance (seed 002's shrinkage)."""
    m, w, eta = float(margin), float(weight), float(learning_rate)
    exact = m + eta * w
    sol = worked(
        "one round of additive training, with shrinkage",
        [
            ("ŷ⁽ᵗ⁾", "ŷ⁽ᵗ⁻¹⁾ + η·w*"),
            ("", f"{fmt(m)} + {fmt(eta)} × {bracketed(w, 3)}"),
            ("", fmt(exact)),
        ],
        exact,
        ["a tree's leaf value (its value column) is η·w* already: add it as it is"],
    )
    q = f"work out ŷ⁽ᵗ⁾ = ŷ⁽ᵗ⁻¹⁾ + η·w* for ŷ⁽ᵗ⁻¹⁾ = {fmt(m)}, w* = {fmt(w)}, η = {fmt(eta)}"
    slips = [
        (m + eta * eta * w, "the learning rate applied twice: η·w* already holds η."),
        (m + w, "the learning rate is missing: the tree adds η·w*, not w*."),
        (eta * (m + w), "η multiplies the new tree only, not the margin so far."),
        (m - eta * w, "the sign: the tree adds η·w* to the margin (w* = −G/(H+λ) already "
         "holds the minus)."),
    ]  # fmt: skip
    return result("ŷ⁽ᵗ⁾", answer, exact, tol, sol, q, slips, reveal=reveal)


def vote_error(answer, p, n_voters, tol=None, reveal=False):
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
    written = " + ".join(
        f"C({n},{k})·{fmt(p)}^{k}·{fmt(1 - p)}^{n - k}" for k in range(first, n + 1)
    )
    written += f" + ½·C({n},{n // 2})·{fmt(p)}^{n // 2}·{fmt(1 - p)}^{n // 2}" if tie else ""
    lines = [("P", f"Σ_k≥{first} C({n},k) p^k (1−p)^({n}−k){half}"), ("", written)]
    lines += [("", " + ".join(fmt(v) for v in terms + ([tie] if tie else []))), ("", fmt(exact))]
    why = "the majority is wrong when more than half are wrong: k from ⌊n/2⌋ + 1"
    tie_note = "n even: a tie of n/2 against n/2 is a coin toss, counted as half an error"
    title = f"the majority of {n} independent voters is wrong (seed 002)"
    sol = worked(title, lines, exact, [why] + ([tie_note] if tie else []))
    q = f"work out P(majority wrong) for {n} independent voters, each wrong with p = {fmt(p)}"
    slips = [
        (sum(term(k) for k in range(n // 2, n + 1)),
         f"the sum starts one too early: the majority needs k ≥ ⌊n/2⌋ + 1 = {first} wrong."),
        (sum(terms) + 2 * tie, "a tie counts as half an error, not a whole one."),
        (sum(terms), "a tie (n/2 against n/2) is settled by a coin: add half its term."),
        (1 - exact, "that is the probability the majority is right."),
        (sum(p**k * (1 - p) ** (n - k) for k in range(first, n + 1)),
         "each term needs C(n, k), the number of ways to pick the k wrong voters."),
        (100 * exact, "that is a percentage; give the probability as a fraction, from 0 to 1."),
        (terms[0], f"only one term: the majority is wrong for every k from {first} to {n}; "
         "add all their terms."),
    ]  # fmt: skip
    return result("P(majority wrong)", answer, exact, tol, sol, q, slips, reveal=reveal)


def contribution(
    answer, model, x, feature, t=1, method="shap", class_=None, tol=None, reveal=False
):
    """Check one tree's contribution of ``feature`` to the margin of instance ``x``.

    ``t``: the tree's round (1-based; with K ≥ 3 classes ``class_`` picks the class's tree
    of the round, as in ``explain.leaf(model, t, node, class_=)``). ``method``
    "path" (Saabas): the changes of the expected value along x's path at the splits on
    ``feature``; "shap": the Shapley value over the sets S of the features the tree uses,
    v(S) = the tree's expected value when only S is known (cover-weighted at the others)."""
    from ...explain import attributions as C
    from ...utils import check_instance

    if method not in C.METHODS:
        raise ValueError(f"method={method!r}; use one of {list(C.METHODS)}")
    names = C.feature_names(model)
    if feature not in names:
        raise ValueError(f"unknown feature {feature!r}; the model has {names}")
    tree, j = model.model_.tree(t, class_), names.index(feature)
    v = check_instance(x, getattr(model, "feature_names_in_", None), model.n_features_in_)
    path, _ = C.path_contributions(tree, v.reshape(1, -1))
    shap, bias = C.shapley_values(tree, v)
    exact = float((path if method == "path" else shap.reshape(1, -1))[0, j])
    other = float((shap.reshape(1, -1) if method == "path" else path)[0, j])
    used = sorted({int(f) for f in tree.feature[~tree.is_leaf]})
    if method == "path":
        mean, node, lines = C.expected_values(tree), 0, []
        while tree.feature[node] >= 0:
            left = tree.goes_left(node, v)
            child = int(tree.left[node] if left else tree.right[node])
            if tree.feature[node] == j:
                lines.append(("", f"node {node} → {child}: {fmt(mean[child])} − {fmt(mean[node])}"))
            node = child
        head = [("φ", "Σ over the splits on the feature: E[child] − E[node] (E: cover-weighted)")]
        lines = head + (lines or [("", "the path never splits on it")]) + [("", fmt(exact))]
    else:
        known = [tuple(S) for r in range(len(used) + 1) for S in combinations(used, r)]
        vs = {S: C.expected_value_given(tree, v, set(S)) for S in known}
        lines = [("φ", "Σ_S |S|!(M−|S|−1)!/M! · [v(S ∪ {j}) − v(S)], M = " + str(len(used)))]
        if j not in used:  # knowing it changes no v(S)
            lines += [("", f"the tree never splits on {feature}: every v(S ∪ {{j}}) = v(S)")]
        elif len(used) <= 3:  # small enough to write every set out

            def name(S):
                return "v(" + ("{" + ", ".join(names[i] for i in S) + "}" if S else "∅") + ")"

            lines += [(name(S), fmt(vs[S])) for S in known]
            M, others = len(used), [i for i in used if i != j]
            sets, nums = [], []
            for r in range(M):
                wt = f"{math.factorial(r) * math.factorial(M - r - 1)}/{math.factorial(M)}"
                for S in combinations(others, r):
                    Sj = tuple(sorted(S + (j,)))
                    sets.append(f"{wt}·[{name(Sj)} − {name(S)}]")
                    nums.append(f"{wt}·({fmt(vs[Sj])} − {fmt(vs[S])})")
            lines += [(f"φ_{feature}", " + ".join(sets)), ("", " + ".join(nums))]
        lines += [("", fmt(exact))]
    which = f"round {t}'s tree" + ("" if class_ is None else f" of class {class_}")
    sol = worked(f"{which}: {method} contribution of {feature}", lines, exact)
    q = f"work out the {method} contribution of {feature} to this row's margin by {which}"
    leaf_minus_bias = float(tree.predict(v.reshape(1, -1))[0]) - bias
    slips = [
        (other, f'that is the {"SHAP" if method == "path" else "path (Saabas)"} value; '
         f'this asks for method="{method}".'),
        (-exact, "the sign: a contribution is (value with the feature known) − (without)."),
        (leaf_minus_bias, "that is the whole tree's change, leaf − E[tree]; share it out."),
    ]  # fmt: skip
    return result("φ", answer, exact, tol, sol, q, slips, reveal=reveal)


def recovered(
    answer, what, value=None, learning_rate=None, weight=None, H=None, reg_lambda=None,
    loss_chg=None, gamma=None, tol=None, reveal=False,
):  # fmt: skip
    """Check a tutorial number recovered from what another library stores:
    ``what="weight"``: w* = value / η (a stored leaf value is η·w*); ``"G"``: G = −w*(H + λ)
    (from w* = −G/(H+λ), H = the cover); ``"gain"``: seed 000's gain = ½(loss_chg − gamma)
    (XGBoost's gain is loss_chg: no ½, γ not subtracted; with its ½-loss (g = ŷ − y, h = 1)
    or the logistic loss the tutorial's γ is ``gamma / 2``)."""
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
        lines = [("w*", "value / η"), ("", f"{fmt(v)} / {fmt(eta)}")]
        slips = [(v * eta, "divide by η: the stored value is η·w* already."),
                 (v, "the stored value still holds η: w* = value / η.")]  # fmt: skip
    elif what == "G":
        w, h, lam = float(weight), float(H), float(reg_lambda)
        exact = -w * (h + lam)
        lines = [("G", "−w*·(H + λ), from w* = −G/(H + λ)")]
        lines += [("", f"−{bracketed(w, 3)} × ({fmt(h)} + {fmt(lam)})")]
        slips = [(w * (h + lam), "the sign: w* = −G/(H+λ), so G = −w*(H+λ)."),
                 (-w * h, "λ is missing: G = −w*(H + λ)."),
                 (div(-w, h + lam), "solve w* = −G/(H+λ) for G: multiply by H + λ.")]  # fmt: skip
    else:
        lc, g = float(loss_chg), float(gamma)
        exact = 0.5 * (lc - g)
        lines = [("gain", "½(loss_chg − gamma): with XGBoost's ½-loss, γ = gamma / 2")]
        lines += [("", f"½({fmt(lc)} − {fmt(g)})")]
        slips = [(lc - g, "the ½ is missing: seed 000's Gain is ½[…] − γ."),
                 (0.5 * lc, "γ is missing: the gain pays for the extra leaf."),
                 (0.5 * lc - g, "XGBoost's gamma subtracted whole: with its ½-loss (g = ŷ − y, "
                  "h = 1) or the logistic loss the tutorial's γ is gamma / 2."),
                 (lc, "that is XGBoost's gain as stored; seed 000's is ½(… − gamma).")]  # fmt: skip
    sol = worked(f"{what} recovered from a stored model", lines + [("", fmt(exact))], exact)
    q = f"recover {what} from the numbers a model file stores"
    name = "w*" if what == "weight" else what
    return result(name, answer, exact, tol, sol, q, slips, reveal=reveal, signed=what == "gain")


def epoch(answer, model, column, row, tol=None, precision=3, reveal=False):
    """Check one cell of seed 004's per-epoch table, ``model.trace_.epochs()``.

    ``column``: e.g. ``"ep_1_residual"``, ``"ep_1_leaf_output"``, ``"ep_2_prob"``;
    ``row``: the instance (0-based, as in the table). The slips named: log-odds given as a
    probability and back, log base 10, the odds for the log-odds, a leaf without Σp(1−p) (or
    the mean residual), η applied to the leaf, twice or not at all, a sum for a mean, and the
    video's probabilities rounded to one decimal.
    """
    return _epoch_cell(answer, model, column, row, tol, precision, reveal)


def choice(answer, question, choices, right, why, slips=None, hint="", reveal=False):
    """Check a "why" question: ``answer`` is a letter ("a", "b", ...) among ``choices``
    (``right`` is the right one's letter); ``slips`` maps a wrong letter to what it misses.

    Unanswered, it states the question and its choices; a wrong letter gets what that choice
    misses (or the hint), not the right one; ``reveal=True`` shows the answer and why."""
    choices = tuple(choices)
    letters = [chr(97 + i) for i in range(len(choices))]
    if right not in letters:
        raise ValueError(f"right must be one of {letters}; got {right!r}")
    full = f"({right}) {choices[letters.index(right)]}"
    hint = hint or "reread the section the question is about, then choose again."
    res = ChoiceResult(question, answer, False, full, why, None, hint, reveal, choices)
    if answer is not None:
        given = str(answer).strip().lower().strip("()")
        if given not in letters:
            raise ValueError(f"answer with one letter among {letters}; got {answer!r}")
        res.correct = given == right
        res.slip = None if res.correct else (slips or {}).get(given)
    return strict(res, f"choice {answer!r}")
