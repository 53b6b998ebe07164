"""How an explanation renders: one ``Line`` per step of a derivation, and ``Explanation``,
which prints in a terminal and shows as LaTeX in Jupyter. ``teachgbt.explain`` and
``teachgbt.check`` build them; numbers go through the package's one formatter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._format import format_number

__all__ = ["Line", "Explanation", "tex_text"]


# ------------------------------------------------------------------ rendering
@dataclass
class Line:
    """One row of a derivation: ``lhs = rhs`` (lhs empty on continuation rows)."""

    lhs: str
    rhs: str
    lhs_tex: str
    rhs_tex: str


@dataclass
class Explanation:
    """A worked formula: ``str()`` for a terminal, ``_repr_latex_`` for Jupyter.

    ``value`` is the result; ``values`` every named intermediate (G, H, λ, ...).
    """

    title: str
    lines: list
    value: float
    notes: list = field(default_factory=list)
    values: dict = field(default_factory=dict)
    intro: list = field(default_factory=list)

    def __str__(self):
        width = max((len(ln.lhs) for ln in self.lines), default=0)
        out = [self.title]
        out.extend(f"  {n}" for n in self.intro)
        for ln in self.lines:
            out.append(f"  {ln.lhs.rjust(width)} = {ln.rhs}")
        out.extend(f"  {n}" for n in self.notes)
        return "\n".join(out)

    def __repr__(self):
        return str(self)

    def _repr_latex_(self):
        rows = [rf"&\text{{{_tex_text(self.title)}}}"]
        rows.extend(rf"&\text{{{_tex_text(n)}}}" for n in self.intro)
        for ln in self.lines:
            rows.append(f"{ln.lhs_tex} &= {ln.rhs_tex}")
        rows.extend(rf"&\text{{{_tex_text(n)}}}" for n in self.notes)
        return "$$\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}$$"


# Text inside \text{} is shown verbatim by MathJax, so a TeX escape there prints its
# backslash ("G\_L"): a special character closes the \text{}, is written in math mode, and
# reopens it; the few with no math-mode form become their Unicode look-alikes.
_TEX_TEXT = {
    "\\": "∖",
    "^": "ˆ",
    "~": "∼",
    "_": r"}\_\text{",
    "%": r"}\%\text{",
    "&": r"}\&\text{",
    "#": r"}\#\text{",
    "$": r"}\$\text{",
    "{": r"}\{\text{",
    "}": r"}\}\text{",
}


def tex_text(s):
    """``s`` for the inside of ``\\text{…}``: no escape is left inside the text."""
    return "".join(_TEX_TEXT.get(c, c) for c in str(s))


_tex_text = tex_text


def _n(x, p):
    """A number as substituted into a formula: negative ones in brackets."""
    s = format_number(x, p)
    return f"({s})" if s.startswith("-") else s


def _r(x, p):
    """A result: no brackets."""
    return format_number(x, p)


def _line(lhs, rhs, lhs_tex, rhs_tex):
    return Line(lhs, rhs, lhs_tex, rhs_tex)
