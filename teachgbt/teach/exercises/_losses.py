"""Lesson 14's exercises ("Any loss"): g and h of the Poisson loss, a refreshed
absolute-error leaf, a leaf capped by max_delta_step. Each builder takes a random generator
(None: the numbers the lesson ships with) and returns items (``_numbers.item``); a student's
numbers are drawn from pools wide enough for ten different answers in 32 students, and drawn
again when an answer would be near 0."""

from __future__ import annotations

import numpy as np

from .. import check
from ._numbers import Draw, far_from_zero, item, nums, redrawn, steps

__all__ = ["BUILDERS", "WHY"]

POISSON_STEP = 0.7  # count:poisson's max_delta_step


def lesson14(rng):
    d = Draw(rng)
    y, m = redrawn(rng, lambda: (d(3.0, [float(v) for v in range(0, 7)]),
                                 d(0.5, steps(-1.0, 1.5, 0.1))),
                   lambda g: far_from_zero(float(np.exp(g[1])) - g[0]))  # fmt: skip
    shipped = [2.5, -1.0, 1.5, 4.0, -3.0]
    residuals, eta = redrawn(rng, lambda: (d.many(shipped, steps(-4, 4, 0.5), 5),
                                           d(0.3, [0.1, 0.2, 0.3, 0.4, 0.5])),
                             lambda g: far_from_zero(float(np.median(g[0]))))  # fmt: skip
    eta_c = d(0.3, steps(0.1, 0.9, 0.05))
    G = d(-99.0, steps(-40, -2, 2))  # with these H, w* = −G/(H+λ) falls below and above the cap
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
             f"{POISSON_STEP:g}, η = {eta_c:g}. What does it add to the margin?",
             lambda v, r: check.clipped_leaf(v, G, H, 1.0, POISSON_STEP, eta_c, reveal=r)),
    ]  # fmt: skip


BUILDERS = {14: lesson14}

# the lesson's "why" question: (question, choices, right letter, why, {wrong: what it misses})
WHY = (
    "Why does XGBoost refresh an absolute-error leaf after growing the tree?",
    ["the absolute error has no gradient at all, so the tree needs values from somewhere",
     "with h = 1 standing in, −G/(H+λ) counts rows, not how far off they are; the median is",
     "the refresh makes training faster, since a median is cheaper to find than a Newton "
     "step"],
    "b", "The true h of |y − ŷ| is 0: the Taylor step has no curvature to size it, and with the "
    "stand-in h = 1 the leaf −G/(H+λ) only counts rows above and below ŷ, so it moves by at "
    "most about 1 whatever the residuals' size. The tree's splits still come from g (the "
    "signs), but each leaf's value is then the median residual (the α-quantile for the "
    "quantile loss): seed 003's F* = argmin E[Ψ] for that leaf.",
    {"a": "its gradient is sign(ŷ − y): the splits are chosen with it.",
     "c": "it costs a sort per leaf; it is there for the leaf's value, not for speed."},
)  # fmt: skip
