"""The machinery behind ``teachgbt.check``: the verdict, the tolerance, strict mode.

``teachgbt.check`` holds the checkers a learner calls; this module what they share.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from dataclasses import dataclass

from . import explain, formulas
from ._format import format_number

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
