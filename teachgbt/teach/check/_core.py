"""The machinery behind ``tg.check``: the verdict, the tolerance, the slips, strict mode.

``teachgbt.teach.check`` holds the checkers a learner calls; this module what they share.

A wrong answer is told the slip it most likely made (or a hint) but not the right value nor
the worked solution: the learner gets a second try. ``reveal=True`` on the same call shows
both.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import os
import sys
from dataclasses import dataclass

import numpy as np

from ...core.format import format_number
from ...core.losses import sigmoid
from ...explain import Explanation, line, tex_text

STRICT_ENV = "TEACHGBT_CHECK_STRICT"
# A named slip more than this (relative) from the exact value is a different answer
SAME_VALUE = 1e-9
# Answers within 1 % of the exact value are right (3 significant digits always are; 3 % off
# never is), and never closer than the floor: an answer near 0 needs a yardstick of its own
RELATIVE = 0.01
FLOOR = 1e-4
TRY_AGAIN = "Try again; pass reveal=True to the same call for the value and the worked solution."


_QUIET = contextvars.ContextVar("teachgbt_check_quiet", default=False)
_ASKED = contextvars.ContextVar("teachgbt_check_asked", default=None)


@contextlib.contextmanager
def quietly():
    """Strict mode off inside: a teacher's key asks for answers without failing."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


@dataclass(frozen=True)
class Asked:
    """How an exercise poses the checks made inside ``asked``: the question line an
    unanswered check repeats (the exercise's own words, not the checker's, which would name
    the numbers the exercise asks for), slips of its own as (value, message) pairs, notes
    added to the worked solution, and the floor of the tolerance."""

    question: str | None = None
    slips: tuple = ()
    notes: tuple = ()
    floor: float | None = None


@contextlib.contextmanager
def asked(question=None, slips=(), notes=(), floor=None):
    """The checks inside are an exercise's (see ``Asked``)."""
    token = _ASKED.set(Asked(question, tuple(slips), tuple(notes), floor))
    try:
        yield
    finally:
        _ASKED.reset(token)


class CheckFailed(AssertionError):
    """Raised in strict mode (``TEACHGBT_CHECK_STRICT=1``) for a missing or wrong answer."""


@dataclass
class CheckResult:
    """The verdict on one answer. ``bool(result)`` is ``result.correct``.

    Shown unrevealed, a wrong answer gets the likely slip (or the hint), never the value;
    ``reveal=True`` adds the value and the worked solution."""

    what: str
    answer: float | None
    expected: float
    tolerance: float
    correct: bool
    solution: object  # an Explanation
    question: str = ""
    slip: str | None = None  # what a wrong answer most likely did
    hint: str = ""  # said when no slip matches
    reveal: bool = False

    @property
    def answered(self):
        return self.answer is not None

    @property
    def shows_solution(self):
        return self.reveal or self.correct

    def __bool__(self):
        return self.correct

    def verdict(self):
        e = format_number(self.expected, 6)
        if not self.answered:
            head = f"? {self.question}"
            if self.reveal:
                return f"{head}\n  the answer: {self.what} = {e}. The worked solution:"
            return f"{head}\n  not answered yet: put your number in place of None; run the cell."
        a = format_number(self.answer, 6)
        if self.correct:
            return (
                f"✓ correct: {self.what} = {a} (exact {e}, accepted within ±{self.tolerance:.3g})"
            )
        said = f"A likely slip: {self.slip}" if self.slip else f"Hint: {self.hint}"
        if not self.reveal:
            return f"✗ not quite: you answered {self.what} = {a}.\n  {said}\n  {TRY_AGAIN}"
        return (
            f"✗ not quite: you answered {self.what} = {a}; it is {e} "
            f"(answers within ±{self.tolerance:.3g} are accepted).\n  {said}\nThe worked solution:"
        )

    def __str__(self):
        if self.shows_solution and (self.answered or self.reveal):
            return f"{self.verdict()}\n{self.solution}"
        return self.verdict()

    def __repr__(self):
        return str(self)

    def _repr_latex_(self):
        if not (self.shows_solution and (self.answered or self.reveal)):
            return None  # Jupyter shows the text: the question or the hint, not the solution
        tex = self.solution._repr_latex_()
        # one \text row per line of the verdict, so that no row runs off a narrow page
        head = "".join("&" + tex_text(v.strip()) + " \\\\\n" for v in self.verdict().split("\n"))
        return tex.replace("\\begin{aligned}\n", "\\begin{aligned}\n" + head, 1)


def number(answer):
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        try:
            answer = float(answer)
        except (TypeError, ValueError):
            raise TypeError(f"the answer must be a number; got {answer!r}") from None
    answer = float(answer)
    if math.isnan(answer):
        raise ValueError("the answer is NaN; give a number")
    return answer


def tolerance(exact, tol, slips=(), floor=FLOOR):
    """How far an answer may be from ``exact``: 1 % of it, at least ``floor``, but never so
    far that a named slip would pass as correct."""
    if tol is not None:
        if not tol >= 0:
            raise ValueError(f"tol must be >= 0; got {tol!r}")
        return float(tol)
    t = max(RELATIVE * abs(exact), floor)
    for value in slips:
        gap = abs(value - exact)
        if math.isfinite(gap) and gap > SAME_VALUE * max(1.0, abs(exact)):
            t = min(t, gap / 2)
    return t


def nearest_slip(answer, exact, t, slips):
    """What the named slip closest to ``answer`` says, if the answer is near it (a slip
    written to 3 significant digits, or worked with rounded steps, drifts like a right
    answer). The nearest one is named, not the first within reach; slips that give the same
    number are all named: the numbers cannot tell them apart."""
    near = []
    for value, text in slips:
        value = float(value)
        if not math.isfinite(value) or abs(value - exact) <= SAME_VALUE * max(1.0, abs(exact)):
            continue
        d = abs(answer - value)
        if d <= max(2 * t, 0.02 * abs(value)):
            near.append((d, value, text))
    if not near:
        return None
    d0, v0, _ = min(near)
    same = [m for d, v, m in sorted(near) if abs(v - v0) <= SAME_VALUE * max(1.0, abs(v0))]
    return " Or: ".join(dict.fromkeys(same))


def result(what, answer, exact, tol, solution, question="", slips=(), hint="", reveal=False,
           signed=False):  # fmt: skip
    """The verdict; ``slips``: (value, message) pairs of the usual wrong answers. With
    ``signed`` the sign carries the meaning (a negative gain is a pruned split): an answer
    of the other sign, or 0, is wrong however close."""
    exact = float(exact)
    posed = _ASKED.get() or Asked()
    slips = [(float(v), m) for v, m in list(slips) + list(posed.slips)]
    floor = FLOOR if posed.floor is None else float(posed.floor)
    t = tolerance(exact, tol, [v for v, _ in slips], floor)
    question = posed.question or question
    if posed.notes:
        solution.notes = list(solution.notes) + list(posed.notes)
    hint = hint or default_hint(solution)
    if answer is None:
        res = CheckResult(what, None, exact, t, False, solution, question, hint=hint, reveal=reveal)
    else:
        answer = number(answer)
        ok = bool(abs(answer - exact) <= t)
        if signed and exact != 0 and not answer * exact > 0:
            ok = False
        res = CheckResult(what, answer, exact, t, ok, solution, question, hint=hint, reveal=reveal)
        if not ok:
            res.slip = nearest_slip(answer, exact, t, slips)
    return strict(res, f"{what} = {answer}")


def strict(res, accepted):
    """In strict mode (the lesson tests) a missing or wrong answer raises ``CheckFailed``."""
    if not _QUIET.get() and os.environ.get(STRICT_ENV, "") not in ("", "0"):
        if not res.correct:
            res.reveal = res.answered  # the failing test shows the worked solution
            raise CheckFailed(str(res))
        print(f"teachgbt.teach.check: accepted {accepted}", file=sys.stderr)
    return res


def default_hint(solution):
    """The formula the solution starts from, as a hint, when it holds no number (a line with
    numbers would be a step of the work)."""
    for ln in getattr(solution, "lines", [])[:2]:
        if ln.lhs and not any(c.isdigit() for c in ln.rhs):
            return f"work it again from {ln.lhs} = {ln.rhs}, one step at a time."
    return "work it again one step at a time, from the formula in the question."


@dataclass
class ChoiceResult:
    """The verdict on a "why" question: a letter among ``choices``, or a short phrase that
    must contain every one of the ``keywords``."""

    question: str
    answer: object
    correct: bool
    right: str  # the right choice, written out
    why: str  # the explanation shown with the solution
    slip: str | None = None
    hint: str = ""
    reveal: bool = False
    choices: tuple = ()

    @property
    def answered(self):
        return self.answer is not None

    def __bool__(self):
        return self.correct

    def __str__(self):
        options = "".join(f"\n    ({chr(97 + i)}) {c}" for i, c in enumerate(self.choices))
        if not self.answered:
            out = f"? {self.question}{options}"
            if self.reveal:
                return f"{out}\n  the answer: {self.right}\n  Why: {self.why}"
            return f"{out}\n  not answered yet: put your choice (a letter) in place of None."
        if self.correct:
            return f"✓ correct: {self.right}\n  Why: {self.why}"
        said = f"A likely slip: {self.slip}" if self.slip else f"Hint: {self.hint}"
        if not self.reveal:
            return f"✗ not quite: you answered {self.answer!r}.\n  {said}\n  {TRY_AGAIN}"
        out = f"✗ not quite: you answered {self.answer!r}.\n  {said}"
        return f"{out}\n  The answer: {self.right}\n  Why: {self.why}"

    def __repr__(self):
        return str(self)


def fmt(x):
    return format_number(x, 3)


def fmt_list(values):
    return "(" + ", ".join(fmt(v) for v in values) + ")"


def div(a, b):
    return a / b if b else math.nan


def worked(title, lines, value, notes=()):
    """A small Explanation from (lhs, text) lines (the text doubles as the LaTeX)."""
    return Explanation(title, [line(a, b) for a, b in lines], float(value), list(notes), {})


def margins(margin, class_):
    F = np.atleast_1d(np.asarray(margin, dtype=np.float64))
    if F.ndim != 1 or F.size < 2:
        raise ValueError(f"margin: give the K margins of one row (K ≥ 2); got {margin!r}")
    if isinstance(class_, bool) or not isinstance(class_, (int, np.integer)):
        raise ValueError(f"class_ must be a class index from 0 to {F.size - 1}; got {class_!r}")
    if not 0 <= class_ < F.size:
        raise ValueError(f"class_ must be a class index from 0 to {F.size - 1}; got {class_!r}")
    e = np.exp(F - F.max())
    return F, e / e.sum(), int(class_)


def softmax_gradient(answer, y, margin, order, tol, class_, reveal=False):
    F, p, k = margins(margin, class_)
    if order not in (1, 2):
        raise ValueError(f"order must be 1 (g) or 2 (h); got {order!r}")
    yk, pk = float(int(y) == k), float(p[k])
    sig = float(sigmoid(F[k]))
    if order == 1:
        exact, what = pk - yk, "g"
        line = f"p_{k} − [y = {k}] = {fmt(pk)} − {fmt(yk)}"
        slips = [
            (yk - pk, "y − p is the residual, −g: g = p − y."),
            (sig - yk, "p is softmax(F)[k], not σ(F_k): divide by every class."),
            (pk - 1.0, f"y_k = 1 only in the tree of the row's own class ({int(y)})."),
        ]
    else:
        exact, what = max(2 * pk * (1 - pk), 1e-16), "h"
        line = f"2 p_{k}(1 − p_{k}) = 2 · {fmt(pk)} · {fmt(1 - pk)}"
        slips = [
            (pk * (1 - pk), "that is the exact diagonal p(1 − p); XGBoost doubles it, 2p(1 − p)."),
            (2 * sig * (1 - sig), "p is softmax(F)[k], not σ(F_k): divide by every class."),
        ]
    sol = worked(
        f"{what} of class {k}'s tree (multi:softprob)",
        [(f"p_{k}", f"softmax({fmt_list(F)})[{k}] = {fmt(pk)}"), (what, line), ("", fmt(exact))],
        exact,
        ["h = max(2p(1 − p), 1e-16), as XGBoost computes it"] if order == 2 else [],
    )
    q = (
        f"work out {what} of class {k}'s tree for a row of class {int(y)} at the margins "
        f"F = {fmt_list(F)}"
    )
    return result(what, answer, exact, tol, sol, q, slips, reveal=reveal)
