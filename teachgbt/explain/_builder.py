"""Worked formulas, written once and rendered twice: one ``Line`` per step of a
derivation, and ``Explanation``, which prints in a terminal and shows as LaTeX in
Jupyter. ``teachgbt.explain`` and ``teachgbt.teach.check`` build them with ``line``, ``bracketed``
(a number substituted into a formula: negative ones in brackets), ``number`` (a result)
and ``tex_text`` (plain words inside LaTeX); numbers go through the package's one
formatter.

The tutorial's three formulas with numbers filled in live here too, for explain and check
alike: ``leaf_weight_steps`` (w* = −G/(H+λ)), ``split_gain_steps`` (the gain of a split),
``structure_score_steps`` (Obj*).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core import formulas
from ..core.format import format_number

__all__ = [
    "Line",
    "Explanation",
    "line",
    "bracketed",
    "number",
    "tex_text",
    "leaf_weight_steps",
    "split_gain_steps",
    "structure_score_steps",
]


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
        rows = ["&" + tex_text(self.title)]
        rows.extend("&" + tex_text(n) for n in self.intro)
        for ln in self.lines:
            rows.append(f"{ln.lhs_tex} &= {ln.rhs_tex}")
        rows.extend("&" + tex_text(n) for n in self.notes)
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
    """``s`` as upright words in LaTeX: ``\\text{…}``, with no escape left inside the text."""
    return r"\text{" + "".join(_TEX_TEXT.get(c, c) for c in str(s)) + "}"


def bracketed(x, p):
    """A number as substituted into a formula: negative ones in brackets."""
    s = format_number(x, p)
    return f"({s})" if s.startswith("-") else s


def number(x, p):
    """A result: no brackets."""
    return format_number(x, p)


def line(lhs, rhs, lhs_tex=None, rhs_tex=None):
    """One step ``lhs = rhs``, as text and as LaTeX; the LaTeX defaults to the text set
    upright (``\\text{}``), for steps that are words rather than mathematics."""
    if lhs_tex is None:
        lhs_tex = tex_text(lhs) if lhs else ""
    if rhs_tex is None:
        rhs_tex = tex_text(rhs)
    return Line(lhs, rhs, lhs_tex, rhs_tex)


# ------------------------------------------------------------------ the tutorial's formulas
def leaf_weight_steps(
    G, H, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0, precision=3, title=None, gbdt=False
):
    """w* = −G/(H+λ) (seed 000) with G, H, λ substituted; α and max_delta_step as XGBoost."""
    p = precision
    G, H, lam = float(G), float(H), float(reg_lambda)
    lines = []
    if gbdt:
        lines.append(
            line(
                "w*",
                "Σ residual / (Σ p(1−p) + λ) = −G / (H + λ)",
                "w^*",
                r"\frac{\sum \text{residual}}{\sum p(1-p) + \lambda}"
                r" = -\frac{G}{H + \lambda}",
            )
        )
    else:
        lines.append(line("w*", "−G / (H + λ)", "w^*", r"-\frac{G}{H + \lambda}"))
    Gt = G
    if reg_alpha:
        Gt = float(formulas.soft_threshold(G, reg_alpha))
        lines.insert(
            0,
            line(
                "G_α",
                f"sign(G)·max(|G| − α, 0) = sign({number(G, p)})·max({number(abs(G), p)} − "
                f"{number(reg_alpha, p)}, 0) = {number(Gt, p)}",
                r"G_\alpha",
                rf"\operatorname{{sign}}(G)\max(|G| - \alpha, 0) = "
                rf"{number(Gt, p)}",
            ),
        )
        lines[-1] = line("w*", "−G_α / (H + λ)", "w^*", r"-\frac{G_\alpha}{H + \lambda}")
    w = float(formulas.leaf_weight(G, H, lam, reg_alpha))
    lines.append(
        line(
            "",
            f"−{bracketed(Gt, p)} / ({number(H, p)} + {number(lam, p)})",
            "",
            rf"-\frac{{{bracketed(Gt, p)}}}{{{number(H, p)} + {number(lam, p)}}}",
        )
    )
    lines.append(line("", number(w, p), "", number(w, p)))
    notes = []
    if max_delta_step and abs(w) > max_delta_step:
        w = float(np.clip(w, -max_delta_step, max_delta_step))
        notes.append(
            f"|w*| is capped at max_delta_step = {number(max_delta_step, p)}: w* = {number(w, p)}"
        )
    values = {"G": G, "H": H, "reg_lambda": lam, "reg_alpha": float(reg_alpha), "weight": w}
    return Explanation(
        title or "Optimal leaf weight (seed 000, the structure score)", lines, w, notes, values
    )


def _score_terms(G_L, H_L, G_R, H_R, lam, p):
    G, H = G_L + G_R, H_L + H_R
    terms = [(G_L, H_L), (G_R, H_R), (G, H)]
    sub = [f"{bracketed(g, p)}²/({number(h, p)} + {number(lam, p)})" for g, h in terms]
    sub_tex = [
        rf"\frac{{{bracketed(g, p)}^2}}{{{number(h, p)} + {number(lam, p)}}}" for g, h in terms
    ]
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
        line(
            "Gain",
            "½ [G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)] − γ",
            r"\text{Gain}",
            r"\tfrac12\left[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda} - "
            r"\frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\right] - \gamma",
        ),
        line(
            "",
            f"½ [{sub[0]} + {sub[1]} − {sub[2]}] − {number(gamma, p)}",
            "",
            rf"\tfrac12\left[{sub_tex[0]} + {sub_tex[1]} - {sub_tex[2]}\right] - "
            rf"{number(gamma, p)}",
        ),
        line(
            "",
            f"½ [{number(a, p)} + {number(b, p)} − {number(c, p)}] − {number(gamma, p)}",
            "",
            rf"\tfrac12\left[{number(a, p)} + {number(b, p)} - {number(c, p)}\right] - "
            rf"{number(gamma, p)}",
        ),
        line("", number(gain, p), "", number(gain, p)),
    ]
    notes = [
        f"XGBoost reports loss_chg = {number(a, p)} + {number(b, p)} − {number(c, p)} = "
        f"{number(lc, p)} (no ½, no γ)"
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
    terms = [f"{bracketed(g, p)}²/({number(h, p)} + {number(lam, p)})" for g, h in zip(G, H)]
    terms_tex = [
        rf"\frac{{{bracketed(g, p)}^2}}{{{number(h, p)} + {number(lam, p)}}}" for g, h in zip(G, H)
    ]
    parts = [float(formulas.leaf_score(g, h, lam)) for g, h in zip(G, H)]
    score = float(formulas.structure_score(G, H, lam, gamma))
    lines = [
        line(
            "Obj*",
            "−½ Σ_j G_j²/(H_j+λ) + γT",
            r"\text{Obj}^*",
            r"-\tfrac12 \sum_j \frac{G_j^2}{H_j+\lambda} + \gamma T",
        ),
        line(
            "",
            f"−½ [{' + '.join(terms)}] + {number(gamma, p)}·{T}",
            "",
            rf"-\tfrac12\left[{' + '.join(terms_tex)}\right] + {number(gamma, p)}\cdot {T}",
        ),
        line(
            "",
            f"−½ [{' + '.join(number(v, p) for v in parts)}] + {number(gamma * T, p)}",
            "",
            rf"-\tfrac12\left[{' + '.join(number(v, p) for v in parts)}\right] + "
            rf"{number(gamma * T, p)}",
        ),
        line("", number(score, p), "", number(score, p)),
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
