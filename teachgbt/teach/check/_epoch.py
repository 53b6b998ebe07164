"""``teachgbt.teach.check.epoch``: one cell of seed 004's epoch table, its worked solution and the
slips a learner makes there (seed 004's log-odds against probability, above all)."""

from __future__ import annotations

import math
import re

import numpy as np

from ... import explain
from ...core.format import format_number, split_rule
from ...core.losses import LINKS, logit, sigmoid
from ...explain import Explanation, bracketed, line, tex_text
from ._core import div, result

COLUMN = re.compile(r"^ep_(\d+)_(pre|prob|residual|leaf_index|leaf_output)$")
VIDEO = "probabilities rounded to one decimal (the video's 0.7 for 2/3): keep them exact."
AS_PROBABILITY = "that is a probability; ep_{t}_pre is the log-odds, log(p / (1 − p))."
AS_LOG_ODDS = "that is the log-odds; the probability is σ(log-odds) = 1 / (1 + e^−log-odds)."
LOG10 = "that is log base 10; the log-odds use the natural log, ln."
ETA_ON_LEAF = "η applied to the leaf: the leaf output is before the learning rate."
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def epoch(answer, model, column, row, tol=None, precision=3, reveal=False):
    """Check one cell of ``model.trace_.epochs()`` (see ``teachgbt.teach.check.epoch``)."""
    if not hasattr(model, "trace_"):
        raise ValueError("the model has no training trace (trace_); fit it first")
    m = COLUMN.match(str(column))
    table = model.trace_.epochs()
    if m is None or column not in table.columns:
        raise ValueError(f"unknown column {column!r}; the table has {list(table.columns)}")
    if not isinstance(row, (int, np.integer)) or not 0 <= row < len(table):
        raise ValueError(f"row must be from 0 to {len(table) - 1}; got {row!r}")
    cell = _Cell(model, table, column, int(row), int(m.group(1)), precision)
    build = getattr(cell, m.group(2))
    what, sol, slips, hint, cell_tol = build()
    q = f"work out {column} of row {row} in the epoch table (model.trace_.epochs())"
    tol = tol if cell_tol is None else cell_tol
    return result(what, answer, cell.exact, tol, sol, q, slips, hint, reveal)


class _Cell:
    """One cell of the table and what its solution needs."""

    def __init__(self, model, table, column, row, t, p):
        self.model, self.table, self.column, self.row, self.t, self.p = (
            model, table, column, row, t, p
        )  # fmt: skip
        self.exact = float(table.at[row, column])
        self.loss = model.loss_
        # the table's prob columns, and residuals of probabilities, where a margin means one
        self.clf = self.loss.has_probability
        self.gbdt = getattr(model, "algorithm", "xgboost") == "gbdt"
        self.title = f"{column}, row {row}"

    def r(self, x):
        return format_number(x, self.p)

    def n(self, x):
        return bracketed(x, self.p)

    def y(self, t):
        return model_y(self.model, t)

    def explanation(self, lines, notes=()):
        return Explanation(self.title, lines, self.exact, list(notes), {self.column: self.exact})

    def pre(self):
        if self.t == 0:
            return self.start()
        t, tab, row = self.t, self.table, self.row
        before = float(tab.at[row, f"ep_{t - 1}_pre"])
        out = float(tab.at[row, f"ep_{t}_leaf_output"])
        eta = self.model.model_.tree(t).learning_rate
        lines = [
            line(self.column, f"ep_{t - 1}_pre + η × ep_{t}_leaf_output"),
            line("", f"{self.n(before)} + {format_number(eta, 6)} × {self.n(out)}"),
            line("", self.r(self.exact)),
        ]
        slips = [
            (before + eta * eta * out, "the learning rate applied twice: η once, to the leaf."),
            (before + out, "the learning rate is missing: add η × the leaf output."),
        ]
        if self.clf:
            prob = float(tab.at[row, f"ep_{t - 1}_prob"])
            slips += [
                (sigmoid(self.exact), AS_PROBABILITY.format(t=t)),
                (prob + eta * out, "the step adds to the previous log-odds, not the probability."),
            ]
        return self.column, self.explanation(lines), slips, "", None

    def start(self):
        base = float(self.model.base_score_)
        if self.loss.link in ("log", "logitraw"):
            return self.start_linked(base)
        if self.loss.link != "logit":
            y = self.y(1) if self.model.trace_.n_rounds else None
            lines = [line("ep_0_pre", f"F₀ = base_score = {self.r(self.exact)}")]
            notes, slips = [], []
            if y is not None and abs(self.exact - y.mean()) < 1e-6 * max(1, abs(y.mean())):
                lines = [
                    line("ep_0_pre", "F₀ = mean of y = Σ y / n"),
                    line("", f"{self.r(y.sum())} / {y.size}"),
                    line("", self.r(self.exact)),
                ]
                slips = [(y.sum(), "that is the sum of y; F₀ is the mean, Σ y / n.")]
            return "ep_0_pre", self.explanation(lines, notes), slips, "", None
        odds = base / (1 - base)
        lines = [
            line("ep_0_pre", f"F₀ = log(odds) = log({self.r(base)} / (1 − {self.r(base)}))",
                 tex_text("ep_0_pre"), rf"F_0 = \log\frac{{{self.r(base)}}}{{1 - {self.r(base)}}}"),
            line("", self.r(self.exact)),
        ]  # fmt: skip
        notes = ["base_score is the probability every row starts from"]
        if self.model.trace_.n_rounds:
            y = self.y(1)
            n1, n0 = int((y == 1).sum()), int((y == 0).sum())
            if n0 and n1 and abs(base - n1 / len(y)) < 1e-6:
                notes = [f"base_score is the share of rows with y = 1, {n1} of {len(y)}, so "
                         f"F₀ = log({n1}/{n0}) (seed 004)"]  # fmt: skip
        slips = [
            (base, AS_PROBABILITY.format(t=0)),
            (math.log10(odds), LOG10),
            (odds, "that is the odds; F₀ is their logarithm, ln(odds)."),
            (sigmoid(base), "σ turns log-odds into a probability; F₀ goes back: log(p/(1 − p))."),
        ]  # fmt: skip
        return "ep_0_pre", self.explanation(lines, notes), slips, "", None

    def start_linked(self, base):
        """F₀ of a log link (the mean stored, its log the margin) or of binary:logitraw
        (base_score used as the log-odds itself, no link)."""
        name = self.loss.name
        if self.loss.link == "logitraw":
            lines = [line("ep_0_pre", f"F₀ = base_score = {self.r(self.exact)}")]
            notes = [f"{name} uses base_score as the log-odds itself: no logit is applied"]
            slips = [(float(logit(base)), "that is logit(base_score); binary:logitraw starts "
                      "from base_score itself as the log-odds.")]  # fmt: skip
            return "ep_0_pre", self.explanation(lines, notes), slips, "", None
        lines = [
            line("ep_0_pre", f"F₀ = log(base_score) = log({self.r(base)})", tex_text("ep_0_pre"),
                 rf"F_0 = \log {self.r(base)}"),
            line("", self.r(self.exact)),
        ]  # fmt: skip
        notes = [f"{name} stores base_score as the mean; the margin is its log (prediction = "
                 "e^margin)"]  # fmt: skip
        slips = [
            (base, "that is base_score, the mean; the margin F₀ is its log."),
            (math.log10(base) if base > 0 else math.nan, "that is log base 10; the margin uses "
             "the natural log, ln."),
        ]  # fmt: skip
        return "ep_0_pre", self.explanation(lines, notes), slips, "", None

    def prob(self):
        t, pre = self.t, float(self.table.at[self.row, f"ep_{self.t}_pre"])
        lines = [
            line(self.column, f"σ(ep_{t}_pre) = 1 / (1 + e^−{self.n(pre)})", tex_text(self.column),
                 rf"\sigma({tex_text(f'ep_{t}_pre')}) = \frac{{1}}{{1 + e^{{-{self.n(pre)}}}}}"),
            line("", self.r(self.exact)),
        ]  # fmt: skip
        notes = []
        if self.loss.link == "logitraw":
            notes = [f"{self.loss.name} predicts the margin itself; its probability is σ of it"]
        slips = [(pre, AS_LOG_ODDS), (round(self.exact, 1), VIDEO)]
        if t >= 1:
            before = float(self.table.at[self.row, f"ep_{t - 1}_pre"])
            out = float(self.table.at[self.row, f"ep_{t}_leaf_output"])
            eta = self.model.model_.tree(t).learning_rate
            slips += [
                (sigmoid(before + out), "the learning rate is missing: σ(F + η × leaf output)."),
                (sigmoid(before + eta * eta * out), "the learning rate applied twice."),
                (1 / (1 + 10.0 ** (-pre)), "σ uses e, not 10: 1 / (1 + e^−F)."),
            ]
        if t >= 2:
            slips += self.stale(before, eta)
        return self.column, self.explanation(lines, notes), slips, "", None

    def stale(self, before, eta):
        """Epoch t's slips of a learner who reuses epoch t − 2's numbers: the leaf worked
        with the old probabilities, or the step added to F₀."""
        t, tab = self.t, self.table
        out = float(tab.at[self.row, f"ep_{t}_leaf_output"])
        f0 = float(tab.at[self.row, "ep_0_pre"])
        prev = f"F{t - 1}".translate(SUBSCRIPT)
        slips = [(sigmoid(f0 + eta * out), f"started from F₀: epoch {t} adds η × its leaf "
                  f"output to ep_{t - 1}_pre ({prev}), not to F₀.")]  # fmt: skip
        if self.clf:
            rows = (tab[f"ep_{t}_leaf_index"] == tab.at[self.row, f"ep_{t}_leaf_index"]).to_numpy()
            y = self.y(t)[rows]
            old = tab[f"ep_{t - 2}_prob"].to_numpy()[rows]
            lam = 0.0 if self.gbdt else self.model.params_.reg_lambda
            w_old = div(np.sum(y - old), np.sum(old * (1 - old)) + lam)
            slips.append((sigmoid(before + eta * w_old), f"the probabilities of an earlier epoch: "
                          f"epoch {t}'s residuals and p(1 − p) use ep_{t - 1}_prob, the "
                          f"probabilities after epoch {t - 1}, not ep_{t - 2}_prob."))  # fmt: skip
        return slips

    def residual(self):
        t, tab, row = self.t, self.table, self.row
        y = float(self.y(t)[row])
        if not self.clf and self.loss.link != "identity":
            return self.residual_linked(y)
        prev = f"ep_{t - 1}_prob" if self.clf else f"ep_{t - 1}_pre"
        pv = float(tab.at[row, prev])
        lines = [
            line(self.column, f"y − {prev} = {self.r(y)} − {self.n(pv)}", tex_text(self.column),
                 rf"y - {tex_text(prev)} = {self.r(y)} - {self.n(pv)}"),
            line("", self.r(self.exact)),
        ]  # fmt: skip
        notes = [
            "residual = observed − predicted probability (seed 004)"
            if self.clf
            else "residual = observed − prediction"
        ]
        slips = [(pv - y, "the sign: the residual is y − prediction, not prediction − y.")]
        if self.clf:
            pre = float(tab.at[row, f"ep_{t - 1}_pre"])
            slips += [
                (y - round(pv, 1), VIDEO),
                (y - pre, "the residual uses the probability p = σ(F), not the log-odds F."),
            ]
        return self.column, self.explanation(lines, notes), slips, "", None

    def residual_linked(self, y):
        """y − ŷ where the prediction ŷ is not the margin: e^margin (a log link), the class
        (binary:hinge)."""
        t, loss = self.t, self.loss
        pre = float(self.table.at[self.row, f"ep_{t - 1}_pre"])
        pv = float(np.asarray(self.model.model_.link(np.array([pre]))).reshape(-1)[0])
        link = LINKS[loss.link]

        def of(margin):  # the prediction's formula, in brackets when it is words
            text = link.prediction_of(margin)
            return f"({text})" if " " in text else text

        lines = [
            line(self.column, f"y − ŷ = y − {of(f'ep_{t - 1}_pre')}"),
            line("", f"{self.r(y)} − {of(self.n(pre))}"),
            line("", f"{self.r(y)} − {self.n(pv)}"),
            line("", self.r(self.exact)),
        ]
        notes = [f"residual = observed − prediction; {loss.name}: {link.formula}"]
        what = "the class it predicts" if loss.link == "hinge" else f"ŷ = {link.prediction_of()}"
        slips = [
            (pv - y, "the sign: the residual is y − prediction, not prediction − y."),
            (y - pre, f"that subtracts the margin; {loss.name}'s prediction is {what}."),
        ]
        return self.column, self.explanation(lines, notes), slips, "", None

    def leaf_index(self):
        leaf_id = int(self.exact)
        tree = self.model.model_.tree(self.t)
        ex = Explanation(self.title, [line(self.column, str(leaf_id))], float(leaf_id), [], {},
                         intro=[route(tree, leaf_id, self.t)])  # fmt: skip
        hint = f"follow the row from the root of tree {self.t}, one rule at a time."
        return "leaf", ex, [], hint, 0.0

    def leaf_output(self):
        t, tab = self.t, self.table
        tree = self.model.model_.tree(t)
        leaf_id = int(tab.at[self.row, f"ep_{t}_leaf_index"])
        rows = (tab[f"ep_{t}_leaf_index"] == leaf_id).to_numpy()
        res = tab[f"ep_{t}_residual"].to_numpy()[rows]
        eta = tree.learning_rate
        lead = f"{self.column}, row {self.row}: the row reaches leaf {leaf_id} of tree {t}. "
        slips = [(eta * self.exact, ETA_ON_LEAF)]
        if self.clf:
            sol = explain.leaf(self.model, t, leaf_id)
            sol.title = lead + sol.title
            prm = self.model.params_
            slips += [
                (-self.exact, "the sign: the leaf output is Σ(y − p) / Σ p(1 − p); rows with "
                 "y = 0 pull it down, rows with y = 1 up."),
                (res.sum(), "the denominator is missing: divide Σ residual by Σ p(1 − p)."),
                (res.mean(), "that is the mean residual, a regressor's leaf; a classifier's "
                 "leaf divides Σ residual by Σ p(1 − p)."),
            ]  # fmt: skip
            if t == 1:  # the video's slip: p0 = 2/3 rounded to 0.7 before the leaf formula
                y = self.y(t)[rows]
                p1 = tab[f"ep_{t - 1}_prob"].to_numpy()[rows].round(1)
                lam = 0.0 if self.gbdt else prm.reg_lambda
                slips.append((div(np.sum(y - p1), np.sum(p1 * (1 - p1)) + lam), VIDEO))
        elif self.gbdt:  # a squared-error leaf is the mean of its rows' residuals
            each = " + ".join(self.n(v) for v in res)
            sol = Explanation(
                lead + f"tree {t}, leaf {leaf_id}: n = {res.size} rows",
                [line("leaf output", "mean residual = Σ residual / n"),
                 line("", f"({each}) / {res.size}"), line("", self.r(self.exact))],
                self.exact, ["the squared error's best constant for the leaf's rows is their mean"],
                {self.column: self.exact},
            )  # fmt: skip
            slips += [
                (res.sum(), "that is the sum of the residuals; the leaf output is their mean."),
                (-self.exact, "the sign: the residuals are y − F, observed minus predicted."),
            ]
        else:
            sol = explain.leaf(self.model, t, leaf_id)
            sol.title = lead + sol.title
        return self.column, sol, slips, "", None


def model_y(model, t):
    return model.trace_.instances(t)["y"].to_numpy().astype(float)


def route(tree, leaf_id, t):
    """The rules answered on the way from the root of tree t to ``leaf_id``."""
    steps, i = [], int(leaf_id)
    while tree.parent[i] >= 0:
        a = int(tree.parent[i])
        steps.append(f"{split_rule(tree, a)}? {'yes' if int(tree.left[a]) == i else 'no'}")
        i = a
    route_ = "; ".join(reversed(steps)) or "(a single leaf)"
    return f"tree {t}: {route_} → leaf {leaf_id}"
