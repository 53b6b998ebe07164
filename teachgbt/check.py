"""Check a hand calculation: ``.correct`` and the worked solution.

    r = tg.check.leaf_weight(0.71, G=-1.333, H=0.889, reg_lambda=1)
    r.correct        # True
    print(r)         # the verdict and the formula with the numbers filled in

Answers worked by hand with two decimals are accepted: the tolerance is the
larger of 0.01, 1 % of the exact value, and how far a careful two-decimal
calculation (every intermediate rounded to two decimals) can drift from the
exact value. Pass ``tol=`` to choose it yourself.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass

import numpy as np

from . import explain, formulas
from ._format import format_number, split_rule
from .losses import sigmoid

__all__ = ["CheckResult", "leaf_weight", "split_gain", "structure_score", "epoch"]


@dataclass
class CheckResult:
    """The verdict on one answer. ``bool(result)`` is ``result.correct``."""

    what: str
    answer: float
    expected: float
    tolerance: float
    correct: bool
    solution: object  # an explain.Explanation

    def __bool__(self):
        return self.correct

    def verdict(self):
        if self.answer is None:
            return f"… not answered yet: replace None with your value of {self.what}."
        a, e = format_number(self.answer, 6), format_number(self.expected, 6)
        if self.correct:
            return (
                f"✓ correct: {self.what} = {a} (exact {e}, accepted within ±{self.tolerance:.3g})"
            )
        return (
            f"✗ not quite: you answered {self.what} = {a}; it is {e} "
            f"(answers within ±{self.tolerance:.3g} are accepted). The worked solution:"
        )

    def __str__(self):
        if self.answer is None:  # no solution before an attempt
            return self.verdict()
        return f"{self.verdict()}\n{self.solution}"

    def __repr__(self):
        return str(self)

    def _repr_latex_(self):
        if self.answer is None:
            return None  # Jupyter falls back to the text
        tex = self.solution._repr_latex_()
        head = rf"&\text{{{explain._tex_text(self.verdict())}}} \\" + "\n"
        return tex.replace("\\begin{aligned}\n", "\\begin{aligned}\n" + head, 1)


def _number(answer):
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        try:
            answer = float(answer)
        except (TypeError, ValueError):
            raise TypeError(f"the answer must be a number; got {answer!r}") from None
    answer = float(answer)
    if math.isnan(answer):
        raise ValueError("the answer is NaN; give a number")
    return answer


def _r2(x):
    return round(float(x), 2)


def _tolerance(exact, hand, tol):
    if tol is not None:
        if not tol >= 0:
            raise ValueError(f"tol must be >= 0; got {tol!r}")
        return float(tol)
    return max(0.01, 0.01 * abs(exact), abs(hand - exact) + 0.005)


def _result(what, answer, exact, hand, tol, solution):
    if answer is None:  # an exercise not done yet: say so, do not fail the notebook
        return CheckResult(what, None, float(exact), 0.0, False, solution)
    answer = _number(answer)
    t = _tolerance(exact, hand, tol)
    return CheckResult(what, answer, float(exact), t, bool(abs(answer - exact) <= t), solution)


def _hand_leaf(G, H, lam, alpha=0.0):
    G = _r2(formulas.soft_threshold(_r2(G), alpha))
    d = _r2(_r2(H) + lam)
    return _r2(-G / d) if d > 0 else 0.0


def _hand_score(G, H, lam):
    d = _r2(_r2(H) + lam)
    return _r2(_r2(_r2(G) ** 2) / d) if d > 0 else 0.0


def leaf_weight(answer, G, H, reg_lambda=1.0, reg_alpha=0.0, tol=None, precision=3):
    """Check w* = −G/(H+λ) (seed 000)."""
    sol = explain.leaf_weight_steps(G, H, reg_lambda, reg_alpha, precision=precision)
    return _result("w*", answer, sol.value, _hand_leaf(G, H, reg_lambda, reg_alpha), tol, sol)


def split_gain(answer, G_L, H_L, G_R, H_R, reg_lambda=1.0, gamma=0.0, tol=None, precision=3):
    """Check Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)] − γ (seed 000)."""
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
    return _result("gain", answer, sol.value, hand, tol, sol)


def structure_score(answer, G, H, reg_lambda=1.0, gamma=0.0, tol=None, precision=3):
    """Check Obj* = −½ Σ_j G_j²/(H_j+λ) + γT over the leaves (seed 000)."""
    sol = explain.structure_score_steps(G, H, reg_lambda, gamma, precision)
    Gs, Hs = np.atleast_1d(G), np.atleast_1d(H)
    hand = -0.5 * sum(_hand_score(g, h, reg_lambda) for g, h in zip(Gs, Hs)) + gamma * Gs.size
    # T terms of hand rounding add up: widen with the number of leaves
    exact = sol.value
    hand_err = abs(hand - exact) + 0.005 * Gs.size
    return _result("Obj*", answer, exact, exact + hand_err, tol, sol)


# ------------------------------------------------------------------ epoch tables
_COLUMN = re.compile(r"^ep_(\d+)_(pre|prob|residual|leaf_index|leaf_output)$")


def epoch(answer, model, column, row, tol=None, precision=3):
    """Check one cell of seed 004's per-epoch table, ``model.trace_.epochs()``.

    ``column``: e.g. ``"ep_1_residual"``, ``"ep_1_leaf_output"``, ``"ep_2_prob"``;
    ``row``: the instance (0-based, as in the table).
    """
    if not hasattr(model, "trace_"):
        raise ValueError("the model has no training trace (trace_); fit it first")
    m = _COLUMN.match(str(column))
    table = model.trace_.epochs()
    if m is None or column not in table.columns:
        raise ValueError(f"unknown column {column!r}; the table has {list(table.columns)}")
    if not isinstance(row, (int, np.integer)) or not 0 <= row < len(table):
        raise ValueError(f"row must be from 0 to {len(table) - 1}; got {row!r}")
    k, kind = int(m.group(1)), m.group(2)
    exact = float(table.at[row, column])
    p = precision
    clf = bool(model.loss_.is_classification)
    L = explain._line
    n, r = explain._n, explain._r
    title = f"{column}, row {row}"
    if kind == "pre" and k == 0:
        base = float(model.base_score_)
        if clf:
            lines = [
                L(
                    "ep_0_pre",
                    f"F₀ = log(odds) = log({r(base, p)} / (1 − {r(base, p)}))",
                    r"\text{ep\_0\_pre}",
                    rf"F_0 = \log\frac{{{r(base, p)}}}{{1 - {r(base, p)}}}",
                ),
                L("", r(exact, p), "", r(exact, p)),
            ]
            notes = ["base_score is the probability every row starts from"]
            if model.trace_.n_rounds:
                y = model.trace_.instances(1)["y"].to_numpy()
                n1, n0 = int((y == 1).sum()), int((y == 0).sum())
                if n0 and n1 and abs(base - n1 / len(y)) < 1e-6:
                    notes = [
                        f"base_score is the share of rows with y = 1, {n1} of {len(y)}, so "
                        f"F₀ = log({n1}/{n0}) (seed 004)"
                    ]
        else:
            lines = [
                L(
                    "ep_0_pre",
                    f"F₀ = base_score = {r(exact, p)}",
                    r"\text{ep\_0\_pre}",
                    rf"F_0 = {r(exact, p)}",
                )
            ]
            notes = []
        hand = _r2(exact)
    elif kind == "prob":
        pre = float(table.at[row, f"ep_{k}_pre"])
        lines = [
            L(
                column,
                f"σ(ep_{k}_pre) = 1 / (1 + e^−{n(pre, p)})",
                rf"\text{{{explain._tex_text(column)}}}",
                rf"\sigma(\text{{ep\_{k}\_pre}}) = \frac{{1}}{{1 + e^{{-{n(pre, p)}}}}}",
            ),
            L("", r(exact, p), "", r(exact, p)),
        ]
        notes = []
        hand = float(sigmoid(_r2(pre)))
    elif kind == "residual":
        y = float(model.trace_.instances(k)["y"].iloc[row])
        prev = f"ep_{k - 1}_prob" if clf else f"ep_{k - 1}_pre"
        pv = float(table.at[row, prev])
        lines = [
            L(
                column,
                f"y − {prev} = {r(y, p)} − {n(pv, p)}",
                rf"\text{{{explain._tex_text(column)}}}",
                rf"y - \text{{{explain._tex_text(prev)}}} = {r(y, p)} - {n(pv, p)}",
            ),
            L("", r(exact, p), "", r(exact, p)),
        ]
        notes = [
            "residual = observed − predicted probability (seed 004)"
            if clf
            else "residual = observed − prediction"
        ]
        hand = y - _r2(pv)
    elif kind == "leaf_index":
        leaf_id = int(table.at[row, column])
        ex = explain.Explanation(
            title,
            [L(column, str(leaf_id), r"\text{leaf}", str(leaf_id))],
            float(leaf_id),
            [],
            {},
            intro=[_route(model.trees_[k - 1], leaf_id, k)],
        )
        return _result(
            "leaf", answer, float(leaf_id), float(leaf_id), 0.0 if tol is None else tol, ex
        )
    elif kind == "leaf_output":
        tree = model.trees_[k - 1]
        leaf_id = int(table.at[row, f"ep_{k}_leaf_index"])
        sol = explain.leaf(model, k, leaf_id, p)
        prm = model.params_
        hand = _hand_leaf(tree.G[leaf_id], tree.H[leaf_id], prm.reg_lambda, prm.reg_alpha)
        sol.title = f"{column}, row {row}: the row reaches leaf {leaf_id} of tree {k}. " + sol.title
        return _result(column, answer, exact, hand, tol, sol)
    else:  # ep_k_pre, k >= 1
        before = float(table.at[row, f"ep_{k - 1}_pre"])
        out = float(table.at[row, f"ep_{k}_leaf_output"])
        eta = model.trees_[k - 1].learning_rate
        lines = [
            L(
                column,
                f"ep_{k - 1}_pre + η × ep_{k}_leaf_output",
                rf"\text{{{explain._tex_text(column)}}}",
                rf"\text{{ep\_{k - 1}\_pre}} + \eta \times \text{{ep\_{k}\_leaf\_output}}",
            ),
            L(
                "",
                f"{n(before, p)} + {r(eta, 6)} × {n(out, p)}",
                "",
                rf"{n(before, p)} + {r(eta, 6)} \times {n(out, p)}",
            ),
            L("", r(exact, p), "", r(exact, p)),
        ]
        notes = []
        hand = _r2(before) + eta * _r2(out)
    ex = explain.Explanation(title, lines, exact, notes, {column: exact})
    return _result(column, answer, exact, hand, tol, ex)


def _route(tree, leaf_id, k):
    """The rules answered on the way from the root of tree k to ``leaf_id``."""
    steps, i = [], int(leaf_id)
    while tree.parent[i] >= 0:
        a = int(tree.parent[i])
        steps.append(f"{split_rule(tree, a)}? {'yes' if int(tree.left[a]) == i else 'no'}")
        i = a
    route = "; ".join(reversed(steps)) or "(a single leaf)"
    return f"tree {k}: {route} → leaf {leaf_id}"
