"""The machinery behind ``teachgbt.check``: the verdict, the tolerance, strict mode.

``teachgbt.check`` holds the checkers a learner calls; this module what they share, and
the long body of the epoch-table checker (``_epoch``), so that ``check.py`` stays short.
"""

from __future__ import annotations

import math
import numbers
import os
import re
import sys
from dataclasses import dataclass

import numpy as np

from . import explain, formulas
from ._format import format_number, split_rule
from .losses import sigmoid

STRICT_ENV = "TEACHGBT_CHECK_STRICT"


class CheckFailed(AssertionError):
    """Raised in strict mode (``TEACHGBT_CHECK_STRICT=1``) for a missing or wrong answer."""


@dataclass
class CheckResult:
    """The verdict on one answer. ``bool(result)`` is ``result.correct``."""

    what: str
    answer: float | None
    expected: float
    tolerance: float
    correct: bool
    solution: object  # an explain.Explanation
    question: str = ""
    slip: str | None = None  # what a wrong answer most likely did

    @property
    def answered(self):
        return self.answer is not None

    def __bool__(self):
        return self.correct

    def verdict(self):
        if not self.answered:
            return (
                f"? {self.question}\n  not answered yet: put your number in place of None "
                "and run the cell again."
            )
        a, e = format_number(self.answer, 6), format_number(self.expected, 6)
        if self.correct:
            return (
                f"✓ correct: {self.what} = {a} (exact {e}, accepted within ±{self.tolerance:.3g})"
            )
        slip = f"\n  A likely slip: {self.slip}" if self.slip else ""
        return (
            f"✗ not quite: you answered {self.what} = {a}; it is {e} "
            f"(answers within ±{self.tolerance:.3g} are accepted).{slip}\nThe worked solution:"
        )

    def __str__(self):
        return self.verdict() if not self.answered else f"{self.verdict()}\n{self.solution}"

    def __repr__(self):
        return str(self)

    def _repr_latex_(self):
        if not self.answered:
            return None  # Jupyter shows the text: the question, not the solution
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


def _result(what, answer, exact, hand, tol, solution, question="", slips=()):
    """The verdict; ``slips``: (value, message) pairs of the usual wrong answers."""
    exact = float(exact)
    t = _tolerance(exact, hand, tol)
    if answer is None:
        res = CheckResult(what, None, exact, t, False, solution, question)
    else:
        answer = _number(answer)
        res = CheckResult(what, answer, exact, t, bool(abs(answer - exact) <= t), solution)
        res.question = question
        for value, message in () if res.correct else slips:
            value = float(value)
            near = max(2 * t, 0.03 * abs(value))  # a slip is often worked with rounding too
            if math.isfinite(value) and abs(value - exact) > t and abs(answer - value) <= near:
                res.slip = message
                break
    if os.environ.get(STRICT_ENV, "") not in ("", "0"):
        if not res.correct:
            raise CheckFailed(str(res))
        print(f"teachgbt.check: accepted {what} = {answer}", file=sys.stderr)
    return res


def _hand_leaf(G, H, lam, alpha=0.0):
    G = _r2(formulas.soft_threshold(_r2(G), alpha))
    d = _r2(_r2(H) + lam)
    return _r2(-G / d) if d > 0 else 0.0


def _hand_score(G, H, lam):
    d = _r2(_r2(H) + lam)
    return _r2(_r2(_r2(G) ** 2) / d) if d > 0 else 0.0


def _f(x):
    return format_number(x, 3)


def _div(a, b):
    return a / b if b else math.nan


def _worked(title, lines, value, notes=()):
    """A small Explanation from (lhs, text) lines (the text doubles as the LaTeX)."""
    tex = explain._tex_text
    rows = [
        explain._line(lhs, rhs, rf"\text{{{tex(lhs)}}}", rf"\text{{{tex(rhs)}}}")
        for lhs, rhs in lines
    ]
    return explain.Explanation(title, rows, float(value), list(notes), {})


# ------------------------------------------------------------------ epoch tables
_COLUMN = re.compile(r"^ep_(\d+)_(pre|prob|residual|leaf_index|leaf_output)$")


def _fl(values):
    return "(" + ", ".join(_f(v) for v in values) + ")"


def _margins(margin, class_):
    F = np.atleast_1d(np.asarray(margin, dtype=np.float64))
    if F.ndim != 1 or F.size < 2:
        raise ValueError(f"margin: give the K margins of one row (K ≥ 2); got {margin!r}")
    if isinstance(class_, bool) or not isinstance(class_, (int, np.integer)):
        raise ValueError(f"class_ must be a class index from 0 to {F.size - 1}; got {class_!r}")
    if not 0 <= class_ < F.size:
        raise ValueError(f"class_ must be a class index from 0 to {F.size - 1}; got {class_!r}")
    e = np.exp(F - F.max())
    return F, e / e.sum(), int(class_)


def _softmax_gradient(answer, y, margin, order, tol, class_):
    F, p, k = _margins(margin, class_)
    if order not in (1, 2):
        raise ValueError(f"order must be 1 (g) or 2 (h); got {order!r}")
    yk, pk = float(int(y) == k), float(p[k])
    sig = float(sigmoid(F[k]))
    if order == 1:
        exact, what = pk - yk, "g"
        line = f"p_{k} − [y = {k}] = {_f(pk)} − {_f(yk)}"
        slips = [
            (yk - pk, "y − p is the residual, −g: g = p − y."),
            (sig - yk, "p is softmax(F)[k], not σ(F_k): divide by every class."),
            (pk - 1.0, f"y_k = 1 only in the tree of the row's own class ({int(y)})."),
        ]
    else:
        exact, what = max(2 * pk * (1 - pk), 1e-16), "h"
        line = f"2 p_{k}(1 − p_{k}) = 2 · {_f(pk)} · {_f(1 - pk)}"
        slips = [
            (pk * (1 - pk), "that is the exact diagonal p(1 − p); XGBoost doubles it, 2p(1 − p)."),
            (2 * sig * (1 - sig), "p is softmax(F)[k], not σ(F_k): divide by every class."),
        ]
    sol = _worked(
        f"{what} of class {k}'s tree (multi:softprob)",
        [(f"p_{k}", f"softmax({_fl(F)})[{k}] = {_f(pk)}"), (what, line), ("", _f(exact))],
        exact,
        ["h = max(2p(1 − p), 1e-16), as XGBoost computes it"] if order == 2 else [],
    )
    q = (
        f"work out {what} of class {k}'s tree for a row of class {int(y)} at the margins "
        f"F = {_fl(F)}"
    )
    return _result(what, answer, exact, exact, tol, sol, q, slips)


def _epoch(answer, model, column, row, tol, precision):
    """``teachgbt.check.epoch``: one cell of the epoch table, its worked solution and slips."""
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
    q = f"work out {column} of row {row} in the epoch table (model.trace_.epochs())"
    video = "probabilities rounded to one decimal (the video's 0.7 for 2/3): keep them exact."
    slips = []
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
        slips = [(round(exact, 1), video)]
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
        slips = [(pv - y, "the sign: the residual is y − prediction, not prediction − y.")]
        slips += [(y - round(pv, 1), video)] if clf else []
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
        t = 0.0 if tol is None else tol
        return _result("leaf", answer, float(leaf_id), float(leaf_id), t, ex, q)
    elif kind == "leaf_output":
        tree = model.trees_[k - 1]
        leaf_id = int(table.at[row, f"ep_{k}_leaf_index"])
        sol = explain.leaf(model, k, leaf_id, p)
        prm = model.params_
        hand = _hand_leaf(tree.G[leaf_id], tree.H[leaf_id], prm.reg_lambda, prm.reg_alpha)
        sol.title = f"{column}, row {row}: the row reaches leaf {leaf_id} of tree {k}. " + sol.title
        if clf and k == 1:  # the video's slip: p0 = 2/3 rounded to 0.7 before the leaf formula
            rows = (table[f"ep_{k}_leaf_index"] == leaf_id).to_numpy()
            y = model.trace_.instances(k)["y"].to_numpy()[rows]
            p1 = table[f"ep_{k - 1}_prob"].to_numpy()[rows].round(1)
            lam = 0.0 if explain._is_gbdt(model) else prm.reg_lambda
            slips = [(_div(np.sum(y - p1), np.sum(p1 * (1 - p1)) + lam), video)]
        return _result(column, answer, exact, hand, tol, sol, q, slips)
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
        slips = [
            (before + eta * eta * out, "the learning rate applied twice: η once, to the leaf."),
            (before + out, "the learning rate is missing: add η × the leaf output."),
        ]
    ex = explain.Explanation(title, lines, exact, notes, {column: exact})
    return _result(column, answer, exact, hand, tol, ex, q, slips)


def _route(tree, leaf_id, k):
    """The rules answered on the way from the root of tree k to ``leaf_id``."""
    steps, i = [], int(leaf_id)
    while tree.parent[i] >= 0:
        a = int(tree.parent[i])
        steps.append(f"{split_rule(tree, a)}? {'yes' if int(tree.left[a]) == i else 'no'}")
        i = a
    route = "; ".join(reversed(steps)) or "(a single leaf)"
    return f"tree {k}: {route} → leaf {leaf_id}"
