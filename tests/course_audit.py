"""The course audit (issue 28): can a teacher grade by the exercises? Measured over 32 students.

    python tests/course_audit.py            # the per-lesson table, from the sheets
    python tests/course_audit.py --shown    # ... and every lesson run for visible answers

For every lesson and every student ``student-01`` … ``student-32`` it builds the sheet and
records, for each numeric exercise:

* **wrong accepted**: does the checker accept the answer 3 % off, 10 % off (either side),
  with its sign flipped, or 0? (one count per (exercise, student) pair that accepts any);
* **right rejected**: does it reject the answer written to 3 or to 4 significant digits?
* **slips**: the usual slips of the exercise, each worked out here from the exercise's own
  inputs with this file's formulas (never the checker's), and whether the checker's reply
  names each one (the words it must contain are listed with the slip);
* **distinct answers** over the 32 students, and answers that are 0;
* **key noise**: numbers in the teacher's key with an exponent or more than 7 significant
  digits (float noise such as ``1.66533e-16``);

and for each lesson's "why" question: how often the right option is the longest, how often
each letter is right, and whether every wrong option is named when chosen.

The inputs of an exercise are read by recording the ``tg.check`` call its sheet makes (the
checker is treated as a black box), so the audit runs on any version of the package.

**Visible answers** (``--shown``, and ``tests/test_course_audit.py``): each lesson is run
unanswered, cell by cell, as Jupyter would (printed text, the displayed value of the last
line in all its forms — text, HTML, LaTeX, SVG — and the titles, labels, legends and texts
of every figure), and everything shown up to each exercise's own check cell is searched for
its answer or the answer's magnitude: a number shown there that rounds the answer (at least
2 significant digits, or exactly the answer, such as 0.75) and lies within 1 % of it, so
that typed in it would be accepted; and for the numbers one step from the answer that the
exercise asks the student to work out on the way (``steps``), the same with 3 digits.
"""

from __future__ import annotations

import ast
import contextlib
import html
import inspect
import io
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.py"))
STUDENTS = [f"student-{i:02d}" for i in range(1, 33)]
OFF = (1.03, 0.97, 1.10, 0.90)  # the wrong answers: 3 % and 10 % off, either side


# ------------------------------------------------------------------ recording the inputs
def _checkers():
    import teachgbt.teach.check as C

    return C, [n for n in C.__all__ if n[0].islower() and inspect.isfunction(getattr(C, n))]


@contextlib.contextmanager
def _recording():
    """Every tg.check call made inside, as (name, bound arguments)."""
    C, names = _checkers()
    calls, saved = [], {n: getattr(C, n) for n in names}

    def wrapped(name, f):
        sig = inspect.signature(f)

        def call(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            calls.append((name, dict(bound.arguments)))
            return f(*args, **kwargs)

        return call

    for n, f in saved.items():
        setattr(C, n, wrapped(n, f))
    try:
        yield calls
    finally:
        for n, f in saved.items():
            setattr(C, n, f)


class Item:
    """One exercise of one student's sheet, with the tg.check call it makes."""

    def __init__(self, lesson, student, ex):
        from teachgbt.teach.check import quietly

        self.lesson, self.student, self.ex = lesson, student, ex
        self.id, self.kind, self.prompt = ex.id, ex.kind, ex.prompt
        with _recording() as calls, quietly():
            self.unanswered = ex.check(None)
            self.revealed = ex.check(None, reveal=True)
        self.name, self.args = calls[-1]
        self.answer = ex.answer

    def check(self, value):
        return self.ex.check(value)


def sheet_items(lesson, student):
    import teachgbt as tg

    return [Item(lesson, student, ex) for ex in tg.exercises.sheet(lesson, student=student)]


# ------------------------------------------------------------------ the slips, worked here
def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def _arr(x):
    return np.atleast_1d(np.asarray(x, dtype=float))


def _bracket(GL, HL, GR, HR, lam):
    return GL**2 / (HL + lam) + GR**2 / (HR + lam) - (GL + GR) ** 2 / (HL + HR + lam)


def _model_gamma(prompt):
    m = re.search(r"gamma\s*=\s*([0-9.]+)", prompt)
    return float(m.group(1)) if m else None


def slips(item):
    """The usual slips of ``item``: (value, words the reply must contain, what the slip is)."""
    p, a = item.args, item.answer
    build = _BATTERY.get(item.name)
    out = build(p, a, item) if build else []
    return [(float(v), kw, what) for v, kw, what in out if np.isfinite(float(v))]


def _loss(p, a, item):
    y, yh = _arr(p["y"]), _arr(p["y_hat"])
    if p["kind"] == "square":
        t = (y - yh) ** 2
        return [(t.mean(), ("mean",), "mean for sum"), (0.5 * t.sum(), ("½",), "XGBoost's ½"),
                (np.abs(y - yh).sum(), ("squared",), "not squared")]  # fmt: skip
    t = y * np.log1p(np.exp(-yh)) + (1 - y) * np.log1p(np.exp(yh))
    swapped = (1 - y) * np.log1p(np.exp(-yh)) + y * np.log1p(np.exp(yh))
    out = [
        (t.sum() / math.log(10), ("log base 10",), "log₁₀"),
        (swapped.sum(), ("swapped",), "y and 1 − y swapped"),
        (-t.sum(), ("sign",), "sign"),
    ]
    if t.size > 1:
        out.append((t.mean(), ("mean",), "mean for sum"))
    return out  # fmt: skip


def _complexity(p, a, item):
    w, lam, gam = _arr(p["w"]), float(p["reg_lambda"]), float(p["gamma"])
    T, S = w.size, float(np.sum(w**2))
    out = [
        (gam * T + lam * S, ("½",), "½ missing"),
        (gam * T + 0.5 * lam * np.abs(w).sum(), ("squared",), "w not squared"),
    ]
    if gam:
        out.append((0.5 * lam * S, ("γT",), "γT missing"))
    return out  # fmt: skip


def _prediction(p, a, item):
    X, trees = p["x"], p["trees"]
    scores = [float(t.predict(X)[0]) for t in trees]
    base = float(p["base_score"])
    if p.get("link") != "logistic":
        return [(base + scores[0], ("first tree",), "first tree alone"),
                (base + np.mean(scores), ("average",), "average for sum")]  # fmt: skip
    leaves = [int(t.apply(X)[0]) for t in trees]
    w = sum(float(t.weight[j]) for t, j in zip(trees, leaves))
    return [(_sigmoid(base + scores[0]), ("first tree",), "first tree alone"),
            (base + sum(scores), ("log-odds",), "log-odds for p"),
            (_sigmoid(sum(scores)), ("F₀ is missing",), "F₀ missing"),
            (_sigmoid(base + w), ("learning rate is missing",), "η missing")]  # fmt: skip


def _gradient(p, a, item):
    loss, order = p["loss"], p["order"]
    if loss == "softmax":
        F = _arr(p["margin"])
        e = np.exp(F - F.max())
        pk, k = float((e / e.sum())[p["class_"]]), p["class_"]
        yk, sig = float(int(p["y"]) == k), _sigmoid(F[k])
        if order == 1:
            return [(yk - pk, ("residual",), "y − p"), (sig - yk, ("softmax",), "σ(F_k)")]
        return [(pk * (1 - pk), ("2p(1 − p)",), "p(1 − p) without the 2"),
                (2 * sig * (1 - sig), ("softmax",), "σ(F_k)")]  # fmt: skip
    y, m = float(p["y"]), float(p["margin"])
    if loss == "squared":
        if order == 1:
            return [(y - m, ("residual",), "y − ŷ"), (2 * (m - y), ("(y − ŷ)²",), "2(ŷ − y)")]
        return [(2.0, ("(y − ŷ)²",), "h = 2")]
    pr = _sigmoid(m)
    p1 = round(pr, 1)
    if order == 1:
        return [(y - pr, ("residual",), "y − p"), (p1 - y, ("rounded",), "p rounded"),
                (m - y, ("margin",), "margin for p")]  # fmt: skip
    return [(p1 * (1 - p1), ("rounded",), "p rounded"), (m * (1 - m), ("margin",), "margin for p")]


def _margin_update(p, a, item):
    m, w, eta = float(p["margin"]), float(p["weight"]), float(p["learning_rate"])
    out = [(m + eta * eta * w, ("twice",), "η twice"), (m + w, ("missing",), "η missing"),
           (m - eta * w, ("sign",), "sign")]  # fmt: skip
    if m:
        out.append((eta * (m + w), ("margin so far",), "η on the margin"))
    return out


def _structure_score(p, a, item):
    G, H = _arr(p["G"]), _arr(p["H"])
    lam, gam = float(p["reg_lambda"]), float(p["gamma"])
    S, T = float(np.sum(G**2 / (H + lam))), gam * G.size
    out = [(-S + T, ("½ is missing",), "½ missing"),
           (-0.5 * float(np.sum(G**2 / H)) + T, ("λ is missing",), "λ missing"),
           (0.5 * S + T, ("sign",), "sign")]  # fmt: skip
    if gam:
        out.append((-0.5 * S, ("γT",), "γT missing"))
    return out


def _leaf_weight(p, a, item):
    G, H, lam, al = (float(p[k]) for k in ("G", "H", "reg_lambda", "reg_alpha"))
    Ga = math.copysign(max(abs(G) - al, 0.0), G)
    out = [(-Ga / H, ("λ is missing",), "λ missing"), (Ga / (H + lam), ("sign",), "sign")]
    if al:
        out += [
            (-G / (H + lam), ("α is missing",), "α missing"),
            (-math.copysign(abs(G) + al, G) / (H + lam), ("α added",), "α added to |G|"),
        ]
    if "2p(1 − p)" in item.prompt or "multi:softprob" in item.prompt:  # a softmax class leaf
        out.append((-G / (H / 2 + lam), ("2p(1 − p)",), "h without its 2"))
    return out  # fmt: skip


def _split_gain(p, a, item):
    GL, HL, GR, HR, lam, gam = (float(p[k]) for k in ("G_L", "H_L", "G_R", "H_R", "reg_lambda",
                                                      "gamma"))  # fmt: skip
    B = _bracket(GL, HL, GR, HR, lam)
    out = [(B - (2 * gam if _model_gamma(item.prompt) else gam), ("loss_chg",), "no ½"),
           (0.5 * _bracket(GL, HL, GR, HR, 0.0) - gam, ("λ is missing",), "λ missing"),
           (-a, ("sign",), "sign")]  # fmt: skip
    if gam:
        out.append((0.5 * B, ("γ is missing",), "γ missing"))
    model_gamma = _model_gamma(item.prompt)
    if model_gamma is not None and math.isclose(model_gamma, 2 * gam):
        out += [(0.5 * B - model_gamma, ("whole",), "the model's gamma subtracted whole"),
                (B - model_gamma, ("loss_chg − gamma",), "loss_chg − gamma")]  # fmt: skip
    return out


def _vote_error(p, a, item):
    pr, n = float(p["p"]), int(p["n_voters"])

    def term(k, comb=True):
        return (math.comb(n, k) if comb else 1) * pr**k * (1 - pr) ** (n - k)

    first = n // 2 + 1
    return [(sum(term(k) for k in range(n // 2, n + 1)), ("too early",), "sum from ⌊n/2⌋"),
            (1 - a, ("is right",), "P(right)"),
            (sum(term(k, False) for k in range(first, n + 1)), ("C(n, k)",), "no C(n, k)"),
            (100 * a, ("percentage",), "a percentage"),
            (term(first), ("one term",), "only the first term")]  # fmt: skip


def _epoch(p, a, item):
    import teachgbt as tg

    model, column, row = p["model"], p["column"], int(p["row"])
    t = model.trace_.epochs()
    k, part = re.match(r"ep_(\d+)_(\w+)$", column).groups()
    k = int(k)
    clf = isinstance(model, tg.BoostingClassifier)
    y = model.trace_.instances(max(k, 1))["y"].to_numpy(dtype=float)
    eta = float(model.trees_[max(k, 1) - 1].learning_rate)
    lam = 0.0 if model.algorithm == "gbdt" else float(model.params_.reg_lambda)
    if part == "pre" and k == 0:
        if not clf:
            return [(y.sum(), ("sum",), "sum for mean")]
        b = y.mean()
        return [(b, ("probability",), "probability for log-odds"),
                (math.log10(b / (1 - b)), ("log base 10",), "log₁₀"),
                (b / (1 - b), ("odds",), "odds for log-odds")]  # fmt: skip
    if part == "residual":
        pv = float(t.at[row, f"ep_{k - 1}_prob" if clf else f"ep_{k - 1}_pre"])
        out = [(pv - y[row], ("sign",), "sign")]
        if clf:
            out += [(y[row] - round(pv, 1), ("rounded",), "p rounded"),
                    (y[row] - float(t.at[row, f"ep_{k - 1}_pre"]), ("log-odds",),
                     "log-odds for p")]  # fmt: skip
        return out
    rows = (t[f"ep_{k}_leaf_index"] == t.at[row, f"ep_{k}_leaf_index"]).to_numpy()
    res = t[f"ep_{k}_residual"].to_numpy()[rows]
    if part == "leaf_output":
        out = [(eta * a, ("η applied to the leaf",), "η on the leaf"), (-a, ("sign",), "sign")]
        if not clf:
            return out + [(res.sum(), ("sum",), "sum for mean")]
        out += [(res.sum(), ("denominator",), "no Σp(1 − p)"),
                (res.mean(), ("mean residual",), "mean residual")]  # fmt: skip
        if k == 1:
            p1 = t["ep_0_prob"].to_numpy()[rows].round(1)
            out.append(((y[rows] - p1).sum() / ((p1 * (1 - p1)).sum() + lam), ("rounded",),
                        "p rounded"))  # fmt: skip
        return out
    before = float(t.at[row, f"ep_{k - 1}_pre"])
    out_k = float(t.at[row, f"ep_{k}_leaf_output"])
    if part == "pre":
        out = [(before + eta * eta * out_k, ("twice",), "η twice"),
               (before + out_k, ("missing",), "η missing")]  # fmt: skip
        return out + ([(_sigmoid(a), ("probability",), "probability")] if clf else [])
    pre = float(t.at[row, f"ep_{k}_pre"])
    out = [(pre, ("log-odds",), "log-odds for p"), (round(a, 1), ("rounded",), "p rounded"),
           (_sigmoid(before + out_k), ("missing",), "η missing"),
           (_sigmoid(before + eta * eta * out_k), ("twice",), "η twice")]  # fmt: skip
    if k >= 2:
        old = t[f"ep_{k - 2}_prob"].to_numpy()[rows]
        w_old = (y[rows] - old).sum() / ((old * (1 - old)).sum() + lam)
        out += [(_sigmoid(before + eta * w_old), (f"ep_{k - 1}_prob",), "stale p"),
                (_sigmoid(float(t.at[row, "ep_0_pre"]) + eta * out_k), ("F₁",),
                 "started from F₀")]  # fmt: skip
    return out


def _recovered(p, a, item):
    what = p["what"]
    if what == "weight":
        v, eta = float(p["value"]), float(p["learning_rate"])
        return [(v * eta, ("divide",), "× η"), (v, ("still holds",), "value as w*")]
    if what == "G":
        w, H, lam = float(p["weight"]), float(p["H"]), float(p["reg_lambda"])
        return [(w * (H + lam), ("sign",), "sign"), (-w * H, ("λ is missing",), "λ missing"),
                (-w / (H + lam), ("multiply",), "divided")]  # fmt: skip
    lc, g = float(p["loss_chg"]), float(p["gamma"])
    return [
        (lc - g, ("½ is missing",), "½ missing"),
        (0.5 * lc, ("γ is missing",), "γ missing"),
        (0.5 * lc - g, ("whole",), "gamma whole"),
        (lc, ("as stored",), "loss_chg"),
    ]


def _contribution(p, a, item):
    import teachgbt as tg

    model, x, feature, method = p["model"], p["x"], p["feature"], p["method"]
    other = "path" if method == "shap" else "shap"
    c = tg.explain.contributions(model, x, method=other)
    whole = float(c.drop(columns="bias").iloc[0].sum())
    return [(float(c[feature].iloc[0]), ("SHAP" if method == "path" else "path",), "the other"),
            (-a, ("sign",), "sign"), (whole, ("whole tree",), "whole tree")]  # fmt: skip


def _softmax_probability(p, a, item):
    F, k = _arr(p["margin"]), int(p["class_"])
    e = np.exp(F)
    return [(_sigmoid(F[k]), ("σ(F_k)",), "σ(F_k)"),
            (e[k] / (e.sum() - e[k]), ("own term",), "own term missing"),
            (F[k] / F.sum() if F.sum() else math.nan, ("exponentiated",), "not exponentiated"),
            (1 / F.size, ("1/K",), "1/K")]  # fmt: skip


def _objective_gradient(p, a, item):
    if p["objective"] != "count:poisson":
        return []
    y, m, mds = float(p["y"]), float(p["margin"]), 0.7  # count:poisson's max_delta_step
    if p["order"] == 1:  # g = e^ŷ − y
        return [(-(math.exp(m) - y), ("sign",), "sign"), (m - y, ("margin",), "margin for e^ŷ")]
    return [(math.exp(m), ("inflates",), "h without e^0.7"),
            (math.exp(m) * mds, ("product",), "e^ŷ·0.7")]  # fmt: skip


def _refreshed_leaf(p, a, item):
    r, eta = _arr(p["residuals"]), float(p["learning_rate"])
    newton = float(np.sum(np.sign(r))) / (r.size + 1.0)  # −G/(H+λ), g = sign(ŷ − y), h = 1, λ = 1
    return [(float(np.median(r)), ("learning rate is missing",), "η missing"),
            (eta * float(np.mean(r)), ("mean residual",), "the mean"),
            (eta * newton, ("Newton step",), "−G/(H+λ) unrefreshed")]  # fmt: skip


def _clipped_leaf(p, a, item):
    G, H, lam, mds, eta = (float(p[k]) for k in ("G", "H", "reg_lambda", "max_delta_step",
                                                 "learning_rate"))  # fmt: skip
    w = -G / (H + lam)
    capped = max(-mds, min(mds, w))
    return [(eta * w, ("cap is missing",), "no cap"),
            (capped, ("learning rate is missing",), "η missing"),
            (max(-mds, min(mds, eta * w)), ("before η",), "the cap on η·w*")]  # fmt: skip


_BATTERY = {"loss": _loss, "complexity": _complexity, "prediction": _prediction,
            "gradient": _gradient, "margin_update": _margin_update,
            "structure_score": _structure_score, "leaf_weight": _leaf_weight,
            "split_gain": _split_gain, "vote_error": _vote_error, "epoch": _epoch,
            "recovered": _recovered, "contribution": _contribution,
            "softmax_probability": _softmax_probability,
            "objective_gradient": _objective_gradient, "refreshed_leaf": _refreshed_leaf,
            "clipped_leaf": _clipped_leaf}  # fmt: skip


def steps(item):
    """Numbers one step from the answer that the exercise asks the student to work out on
    the way (none of them is in its prompt): shown before it, they give it away too."""
    p = item.args
    if item.name == "margin_update":
        return [float(p["learning_rate"]) * float(p["weight"])]
    if item.name == "split_gain" and not float(p["gamma"]):
        return [_bracket(*(float(p[k]) for k in ("G_L", "H_L", "G_R", "H_R", "reg_lambda")))]
    if item.name != "epoch":
        return []
    model, column, row = p["model"], p["column"], int(p["row"])
    t = model.trace_.epochs()
    k, part = re.match(r"ep_(\d+)_(\w+)$", column).groups()
    k = int(k)
    if part == "pre" and k:
        return [float(model.trees_[k - 1].learning_rate) * float(t.at[row, f"ep_{k}_leaf_output"])]
    if part == "prob":
        return [float(t.at[row, f"ep_{k}_pre"])]
    return []


def question_extras(item):
    """Numbers the unanswered check prints that its prompt does not: the "not answered yet"
    line may repeat only the prompt's inputs."""
    asked = {v for v, _ in numbers_in(item.prompt)}
    said = numbers_in(str(item.unanswered))
    return sorted({v for v, d in said if v not in asked and abs(v) not in asked})


# ------------------------------------------------------------------ the sheet statistics
def probe(item):
    """(wrong answers accepted, right forms rejected) for one numeric item."""
    a = float(item.answer)
    wrong = [a * f for f in OFF]
    if a != 0:
        wrong += [-a, 0.0]
    accepted = [w for w in wrong if item.check(w).correct]
    forms = [float(f"{a:.3g}"), float(f"{a:.4g}")]
    rejected = [f for f in forms if not item.check(f).correct]
    return accepted, rejected


def named(item):
    """For each slip of ``item`` far enough from the answer: (what, named?, the reply)."""
    a, out = float(item.answer), []
    for value, words, what in slips(item):
        if abs(value - a) <= 0.02 * abs(a) + 1e-4:
            continue  # indistinguishable from the answer at 3 significant digits
        r = item.check(value)
        said = "" if r.correct else (r.slip or "")
        out.append((what, (not r.correct) and any(w in said for w in words), said or str(r)))
    return out


_NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")


def key_noise(sheet):
    """Numbers in the teacher's key written with an exponent or more than 7 digits."""
    bad = []
    for line in sheet.key().splitlines()[1:]:
        value = line.split(": ", 1)[-1]
        digits = value.lstrip("-").replace(".", "").lstrip("0")
        if "e" in value or len(digits) > 7:
            bad.append(line)
    return bad


def why_stats(item):
    """(the right option is the longest, its letter, every wrong option has a named slip)."""
    p = item.args
    choices, right = list(p["choices"]), p["right"]
    i = ord(right) - 97
    longest = len(choices[i]) >= max(len(c) for j, c in enumerate(choices) if j != i)
    slips_ = p.get("slips") or {}
    others = [chr(97 + j) for j in range(len(choices)) if j != i]
    return longest, right, all(slips_.get(x) for x in others)


def lesson_stats(lesson, students=STUDENTS):
    s = defaultdict(int)
    answers = defaultdict(list)
    s["lesson"] = lesson
    for student in students:
        import teachgbt as tg

        sh = tg.exercises.sheet(lesson, student=student)
        s["key_noise"] += len(key_noise(sh))
        for item in sheet_items(lesson, student):
            if item.kind == "choice":
                longest, letter, all_named = why_stats(item)
                s["why"] += 1
                s["why_right_longest"] += longest
                s[f"why_letter_{letter}"] += 1
                s["why_unnamed"] += not all_named
                continue
            s["pairs"] += 1
            s["question_extras"] += bool(question_extras(item))
            s["prompt_gives"] += any(gives_away(item.answer, v, d) for v, d in
                                     numbers_in(item.prompt))  # fmt: skip
            answers[item.id].append(float(item.answer))
            acc, rej = probe(item)
            s["wrong_accepted"] += bool(acc)
            s["right_rejected"] += bool(rej)
            for what, ok, said in named(item):
                s["slips"] += 1
                s["slips_named"] += ok
                if not ok:
                    s.setdefault("unnamed", Counter())[f"{item.id} {what}"] += 1
                    s.setdefault("replies", {})[f"{item.id} {what}"] = said
    s["exercises"] = len(answers)
    s["distinct_min"] = min((len({round(v, 6) for v in vs}) for vs in answers.values()), default=0)
    s["zeros"] = sum(abs(v) < 1e-9 for vs in answers.values() for v in vs)
    s["distinct"] = {k: len({round(v, 6) for v in vs}) for k, vs in answers.items()}
    return dict(s)


# ------------------------------------------------------------------ visible answers
def _figure_texts():
    import matplotlib.pyplot as plt

    texts = []
    for num in plt.get_fignums():
        fig = plt.figure(num)
        texts += [t.get_text() for t in fig.texts]
        if fig._suptitle is not None:
            texts.append(fig._suptitle.get_text())
        for ax in fig.axes:
            texts += [ax.get_title(loc) for loc in ("left", "center", "right")]
            texts += [ax.get_xlabel(), ax.get_ylabel()]
            texts += [t.get_text() for t in ax.texts]
            if ax.get_legend() is not None:
                texts += [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")
    return [t for t in texts if t]


def _shown(value):
    """Everything Jupyter could show of ``value``, as text."""
    out = [repr(value)]
    bundle = {}
    if hasattr(value, "_repr_mimebundle_"):
        got = value._repr_mimebundle_()
        bundle = got[0] if isinstance(got, tuple) else got
    for mime, attr in (
        ("text/html", "_repr_html_"),
        ("text/latex", "_repr_latex_"),
        ("image/svg+xml", "_repr_svg_"),
        ("text/markdown", "_repr_markdown_"),
    ):
        text = bundle.get(mime)
        if text is None and hasattr(value, attr):
            text = getattr(value, attr)()
        if text:
            out.append(html.unescape(re.sub(r"<[^>]+>", " ", text)) if "<" in text else text)
    return "\n".join(out)  # fmt: skip


def run_lesson(text, folder):
    """Run a lesson's source unanswered, cell by cell, in ``folder``: [(cell source, text
    shown by the cell)]."""
    cells = re.split(r"^# %%.*$", text, flags=re.MULTILINE)[1:]
    heads = re.findall(r"^# %%.*$", text, flags=re.MULTILINE)
    scope = {"__name__": "__lesson__"}
    shown, path = [], "lesson"
    os.chdir(folder)
    for head, source in zip(heads, cells):
        if "[markdown]" in head:  # the text a student reads
            shown.append((source, re.sub(r"^# ?", "", source, flags=re.MULTILINE)))
            continue
        out = io.StringIO()
        tree = ast.parse(source)
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        body = ast.Module(tree.body[:-1] if last else tree.body, type_ignores=[])
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(body, str(path), "exec"), scope)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), str(path), "eval"), scope)
                if value is not None:
                    out.write("\n" + _shown(value))
        shown.append((source, out.getvalue() + "\n" + "\n".join(_figure_texts())))
    return shown


_CHECK = re.compile(r'sheet\["([0-9.]+)"\]\.check\(')


def numbers_in(text):
    """The numbers in ``text``: (value, decimals shown)."""
    found = set()
    for tok in _NUMBER.findall(text):
        tok = tok.replace("−", "-")
        if "e" in tok:
            continue
        dec = len(tok.split(".")[1]) if "." in tok else 0
        found.add((float(tok), dec))
    return found


def gives_away(answer, value, dec, digits=2, signs=(1, -1)):
    """Whether the shown number ``value`` (``dec`` decimals) gives ``answer`` away: it rounds
    the answer (or its magnitude), with at least ``digits`` significant digits or exactly,
    and within 1 % (typed in, it would be accepted)."""
    for x in (s * answer for s in signs):
        if x == 0 or round(x, dec) != value:
            continue
        shown = len(f"{abs(value):.{dec}f}".replace(".", "").lstrip("0"))
        exact = abs(value - x) <= 1e-9 * abs(x)
        if (shown >= digits or exact) and abs(value - x) <= 0.01 * abs(x):
            return True
    return False


def visible_answers(path, student=None):
    """[(exercise id, answer, the shown number that gives it away)] for one lesson."""
    import teachgbt as tg

    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("TEACHGBT_CHECK_STRICT", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    args = [sys.executable, __file__, "--run", str(Path(path).parent)]
    source = Path(path).read_text(encoding="utf-8")
    if student is not None:
        source = source.replace("STUDENT = None", f"STUDENT = {student!r}", 1)
    run = subprocess.run(args, input=source, capture_output=True, text=True, env=env,
                         timeout=900)  # fmt: skip
    if run.returncode != 0:
        raise RuntimeError(f"{Path(path).name} failed:\n{run.stderr[-3000:]}")
    cells = json.loads(run.stdout)
    sheet = tg.exercises.sheet(int(Path(path).name[:2]), student=student)
    seen, hits = set(), []
    for source, text in cells:
        seen |= numbers_in(text)
        for ex_id in _CHECK.findall(source):
            ex = sheet[ex_id]
            if ex.kind == "choice":
                continue
            a = float(ex.answer)
            hits += [(ex_id, a, v) for v, d in sorted(seen) if gives_away(a, v, d)]
            for x in steps(Item(sheet.lesson, student, ex)):  # a step: 3 digits, its sign
                hits += [(ex_id, x, v) for v, d in sorted(seen) if gives_away(x, v, d, 3, (1,))]
    return hits


def _run_from_stdin(folder):
    """``--run FOLDER``: run the lesson source given on stdin in FOLDER, JSON on stdout."""
    real = sys.stdout
    cells = run_lesson(sys.stdin.read(), folder)
    real.write(json.dumps(cells))


# ------------------------------------------------------------------ the table
def table(shown=False):
    rows = []
    head = ("| lesson | exercises | pairs | slips named | wrong accepted | right rejected | "
            "min distinct | zeros | key noise | why: right longest | question line | "
            "visible |")  # fmt: skip
    rows += [head, "|" + "---|" * 12]
    tot = Counter()
    why_letters = Counter()
    unnamed = Counter()
    for path in LESSONS:
        lesson = int(path.name[:2])
        s = lesson_stats(lesson)
        vis = len({h[0] for h in visible_answers(path)}) if shown else "–"
        rows.append(
            f"| {lesson} | {s['exercises']} | {s['pairs']} | {s['slips_named']}/{s['slips']} | "
            f"{s['wrong_accepted']} | {s['right_rejected']} | {s['distinct_min']} | "
            f"{s['zeros']} | {s['key_noise']} | {s['why_right_longest']}/{s['why']} | "
            f"{s['question_extras']} | {vis} |"
        )
        for k in (
            "exercises",
            "pairs",
            "slips_named",
            "slips",
            "wrong_accepted",
            "right_rejected",
            "zeros",
            "key_noise",
            "why_right_longest",
            "why",
            "question_extras",
        ):
            tot[k] += s[k]  # fmt: skip
        if shown:
            tot["visible"] += vis
        why_letters.update({k[-1]: v for k, v in s.items() if k.startswith("why_letter_")})
        unnamed.update(s.get("unnamed", Counter()))
    rows.append(
        f"| all | {tot['exercises']} | {tot['pairs']} | {tot['slips_named']}/{tot['slips']} | "
        f"{tot['wrong_accepted']} | {tot['right_rejected']} | | {tot['zeros']} | "
        f"{tot['key_noise']} | {tot['why_right_longest']}/{tot['why']} | "
        f"{tot['question_extras']} | {tot['visible'] if shown else '–'} |"
    )
    n = sum(why_letters.values())
    rows.append("\nright letters: " + ", ".join(f"{k} {v / n:.0%}" for k, v in
                                                sorted(why_letters.items())))  # fmt: skip
    rows.append("slips not named (exercise, slip: students): " + "; ".join(
        f"{k}: {v}" for k, v in unnamed.most_common()))  # fmt: skip
    return "\n".join(rows)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--run":
        _run_from_stdin(sys.argv[2])
    else:
        os.environ.pop("TEACHGBT_CHECK_STRICT", None)
        print(table(shown="--shown" in sys.argv))
