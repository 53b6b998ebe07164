"""Lesson 14's exercises ("Any loss"): g and h of the Poisson loss, a refreshed
absolute-error leaf, a leaf capped by max_delta_step. Each builder takes a random generator
(None: the numbers the lesson ships with) and returns (prompt, run, kind) triples."""

from __future__ import annotations

import numpy as np

from .. import check
from ._numbers import Draw, item, nums, steps

__all__ = ["BUILDERS", "WHY"]

POISSON_STEP = 0.7  # count:poisson's max_delta_step


def lesson14(rng):
    d = Draw(rng)
    y = d(3.0, [float(v) for v in range(0, 7)])
    m = d(0.5, steps(-1.0, 1.5, 0.5))
    residuals = d.many([2.5, -1.0, 0.5, 4.0, -3.0], steps(-4, 4, 0.5), 5)
    eta = d(0.3, [0.1, 0.3, 0.5])
    G = d(-99.0, steps(-60, -10, 5))
    H = d(round(6 * float(np.exp(POISSON_STEP)), 4), steps(4, 30, 2))
    return [
        item(f"g of the Poisson loss (count:poisson) for a row with y = {y:g} at the margin "
             f"ŷ = {m:g}.",
             lambda v, r: check.objective_gradient(v, "count:poisson", y, m, 1, reveal=r)),
        item(f"h of the same row, as XGBoost computes it (max_delta_step = {POISSON_STEP:g}).",
             lambda v, r: check.objective_gradient(v, "count:poisson", y, m, 2, reveal=r)),
        item(f"An absolute-error leaf holds rows with residuals y − ŷ = {nums(residuals)}. What "
             f"does it add to the margin after XGBoost's refresh, with η = {eta:g}?",
             lambda v, r: check.refreshed_leaf(v, residuals, eta, 0.5, reveal=r)),
        item(f"A count:poisson leaf has G = {G:g}, H = {H:g}; λ = 1, max_delta_step = "
             f"{POISSON_STEP:g}, η = {eta:g}. What does it add to the margin?",
             lambda v, r: check.clipped_leaf(v, G, H, 1.0, POISSON_STEP, eta, reveal=r)),
    ]  # fmt: skip


BUILDERS = {14: lesson14}

# the lesson's "why" question: (question, choices, right letter, why, {wrong: what it misses})
WHY = (
    "Why does XGBoost refresh an absolute-error leaf after growing the tree?",
    ["the absolute error has no gradient at all",
     "with its stand-in h = 1, −G/(H+λ) only counts rows above and below ŷ, so a leaf moves "
     "by at most about 1 whatever the residuals' size; the median of the leaf's residuals is "
     "the step that minimises the loss",
     "the refresh makes training faster"],
    "b", "The true h of |y − ŷ| is 0: the Taylor step has no curvature to size it. The tree's "
    "splits still come from g (the signs), but each leaf's value is then the median residual "
    "(the α-quantile for the quantile loss): seed 003's F* = argmin E[Ψ] for that leaf.",
    {"a": "its gradient is sign(ŷ − y): the splits are chosen with it.",
     "c": "it costs a sort per leaf; it is there for the leaf's value, not for speed."},
)  # fmt: skip
