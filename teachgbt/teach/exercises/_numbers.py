"""Exercises worked from a few numbers: each builder takes a random generator (None: the
numbers the lesson ships with) and returns items (see ``item``). A prompt gives the inputs,
never the answer nor the work.

A student's numbers are drawn from pools wide enough that 32 students see at least ten
different answers to every exercise; a draw whose answer would be 0, or too near 0 for a
relative tolerance to mean anything, is drawn again.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...core import formulas
from ...core.tree import Tree
from .. import check
from ..check import FLOOR, RELATIVE

ACCEPTED = (
    f"[3 significant digits: right within {RELATIVE:.0%} of the value, "
    f"and never closer than ±{FLOOR:g}]"
)
SMALLEST = 0.05  # a drawn answer nearer 0 than this is drawn again


class Draw:
    """The shipped number without a generator; else one of ``options``, drawn."""

    def __init__(self, rng):
        self.rng = rng

    def __call__(self, shipped, options):
        if self.rng is None:
            return shipped
        return options[int(self.rng.integers(len(options)))]

    def many(self, shipped, options, size):
        if self.rng is None:
            return list(shipped)
        return [options[int(i)] for i in self.rng.integers(len(options), size=size)]

    def distinct(self, shipped, options, size):
        if self.rng is None:
            return list(shipped)
        return [options[int(i)] for i in self.rng.choice(len(options), size=size, replace=False)]


def redrawn(rng, draw, ok):
    """``draw()`` until ``ok`` holds (the shipped numbers, rng None, are drawn once)."""
    for _ in range(200):
        got = draw()
        if rng is None or ok(got):
            return got
    raise RuntimeError("no draw met the exercise's conditions")  # never with these pools


def far_from_zero(*answers):
    return all(abs(a) >= SMALLEST for a in answers)


def steps(lo, hi, step, zero=True):
    """Round numbers from lo to hi: the kind a learner can work by hand."""
    out = [round(float(v), 6) for v in np.arange(lo, hi + step / 2, step)]
    return out if zero else [v for v in out if v != 0]


def nums(values):
    return "(" + ", ".join(f"{v:g}" for v in values) + ")"


def item(prompt, run, kind="number", slips=(), notes=()):
    """An exercise: its prompt (the tolerance is added to a numeric one), the call that
    marks it, and slips and notes of its own for the checker (``tg.check.asked``)."""
    if kind == "number":
        prompt = f"{prompt} {ACCEPTED}"
    return (prompt, run, kind, tuple(slips), tuple(notes))


# ------------------------------------------------------------------ lesson 1
def lesson1(rng):
    d = Draw(rng)
    y, off = redrawn(rng, lambda: (d.many([3, 1, 2], list(range(0, 6)), 3),
                                   d.many([0.5, 0, 1.5], steps(-1.5, 1.5, 0.5), 3)),
                     lambda g: any(g[1]))  # fmt: skip
    y_hat = [a + b for a, b in zip(y, off)]
    y2, s2 = d.many([1, 0], [0, 1], 2), d.many([0.5, 1.5], steps(-2, 2, 0.5, zero=False), 2)
    w = d.many([1.2, -0.5], steps(-2, 2.5, 0.1, zero=False), 2)
    lam, gam = d(1.5, [1.0, 1.5, 2.0]), d(0.3, [0.2, 0.3, 0.5, 1.0])
    return [
        item(f"The square loss Σ(y − ŷ)² of the predictions ŷ = {nums(y_hat)} of the targets "
             f"y = {nums(y)}.",
             lambda v, r: check.loss(v, y=y, y_hat=y_hat, kind="square", reveal=r)),
        item(f"The logistic loss Σ[y ln(1+e^−ŷ) + (1−y) ln(1+e^ŷ)] of two instances, labels "
             f"y = {nums(y2)} and scores ŷ = {nums(s2)} (natural logarithm).",
             lambda v, r: check.loss(v, y=y2, y_hat=s2, kind="logistic", reveal=r)),
        item(f"A stump has leaf scores {w[0]:g} and {w[1]:g}. Its complexity "
             f"Ω = γT + ½λΣw² for γ = {gam:g} and λ = {lam:g}.",
             lambda v, r: check.complexity(v, w=w, reg_lambda=lam, gamma=gam, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 2
FAMILY = ["age", "is_male", "uses_computer_daily"]
SCORES = steps(-2, 2.5, 0.1, zero=False)


def lesson2(rng):
    d = Draw(rng)

    def draw():
        boy, girl, old = d.distinct([2.0, 0.1, -1.0], SCORES, 3)
        no, yes = d.distinct([-0.9, 0.9], SCORES, 2)
        people = [(8, 0, 0, "the girl"), (12, 1, 0, "her brother's friend")]
        if rng is not None:
            people = [(int(rng.integers(5, 15)), int(rng.integers(2)), int(rng.integers(2)),
                       "a child"),
                      (int(rng.integers(20, 80)), int(rng.integers(2)), int(rng.integers(2)),
                       "an adult")]  # fmt: skip
        return boy, girl, old, no, yes, people

    def totals(g):
        boy, girl, old, no, yes, people = g
        first = [(boy if m else girl) if a < 15 else old for a, m, _, _ in people]
        return [f + (yes if c else no) for f, (_, _, c, _) in zip(first, people)]

    got = redrawn(rng, draw, lambda g: far_from_zero(*totals(g)))
    boy, girl, old, no, yes, people = got
    t1 = Tree.from_rules(("age < 15", ("is_male < 0.5", girl, boy), old), FAMILY)
    t2 = Tree.from_rules(("uses_computer_daily < 0.5", no, yes), FAMILY)
    trees = (f"Tree 1: age < 15? then is male? (yes: {boy:g}, no: {girl:g}); 15 or older: "
             f"{old:g}. Tree 2: uses a computer daily? (yes: {yes:g}, no: {no:g}).")  # fmt: skip
    out = []
    for age, male, comp, who in people:
        x = pd.DataFrame([[age, male, comp]], columns=FAMILY)
        desc = (f"{who} (age {age}, {'male' if male else 'not male'}, "
                f"{'uses' if comp else 'does not use'} a computer daily)")  # fmt: skip
        out.append(item(f"{trees} What does the two-tree ensemble predict for {desc}?",
                        lambda v, r, x=x: check.prediction(v, [t1, t2], x, reveal=r)))  # fmt: skip
    return out


# ------------------------------------------------------------------ lesson 3
# margins ŷ = ±ln k, so that p = σ(ŷ) = k/(k+1) is a fraction a learner can work by hand
RATIOS = {"2": 2.0, "3": 3.0, "4": 4.0, "5": 5.0, "6": 6.0, "7": 7.0, "8": 8.0, "9": 9.0,
          "3/2": 1.5, "5/2": 2.5, "7/2": 3.5, "4/3": 4 / 3, "5/3": 5 / 3, "7/3": 7 / 3,
          "8/3": 8 / 3, "5/4": 1.25, "7/4": 1.75, "9/4": 2.25, "6/5": 1.2, "7/5": 1.4,
          "8/5": 1.6}  # fmt: skip
LOG_MARGINS = {f"{sign}ln {name}": s * math.log(r) for name, r in RATIOS.items()
               for sign, s in (("", 1), ("−", -1))}  # fmt: skip


def lesson3(rng):
    d = Draw(rng)
    y, m = redrawn(rng, lambda: (d(3.5, steps(-3, 5, 0.5)), d(1.2, steps(-2, 4, 0.2))),
                   lambda g: abs(g[1] - g[0]) >= SMALLEST)  # fmt: skip
    name = d("ln 2", list(LOG_MARGINS))
    yl, ml = d(1, [0, 1]), LOG_MARGINS[name]
    m0, w, eta = redrawn(rng, lambda: (d(0.5, steps(-1, 1.5, 0.25)),
                                       d(1.5, steps(-2, 3, 0.5, zero=False)),
                                       d(0.3, [0.1, 0.2, 0.3, 0.5])),
                         lambda g: far_from_zero(g[0] + g[2] * g[1]))  # fmt: skip
    return [
        item(f"XGBoost's square loss ½(y − ŷ)²: its gradient g for an instance with y = {y:g} "
             f"when the model so far predicts ŷ = {m:g}.",
             lambda v, r: check.gradient(v, y=y, margin=m, loss="squared", reveal=r)),
        item(f"The logistic loss for an instance with y = {yl} at the margin ŷ = {name}: its "
             "gradient g.",
             lambda v, r: check.gradient(v, y=yl, margin=ml, loss="logistic", reveal=r)),
        item(f"The same instance (y = {yl}, ŷ = {name}): its hessian h.",
             lambda v, r: check.gradient(v, y=yl, margin=ml, loss="logistic", order=2,
                                         reveal=r)),
        item(f"A row's margin is ŷ⁽ᵗ⁻¹⁾ = {m0:g}; the new tree's leaf for it has the optimal "
             f"weight w* = {w:g}, and the learning rate is η = {eta:g}. What is ŷ⁽ᵗ⁾?",
             lambda v, r: check.margin_update(v, margin=m0, weight=w, learning_rate=eta,
                                              reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 4
def lesson4(rng):
    d = Draw(rng)
    G, H, lam = redrawn(
        rng,
        lambda: (
            d.many([-2.0, -0.1, 3.0], steps(-3, 3, 0.5), 3),
            d.many([1.0, 1.0, 3.0], steps(1, 4, 1), 3),
            d(2.0, [1.0, 2.0, 3.0]),
        ),
        lambda g: far_from_zero(formulas.structure_score(g[0], g[1], g[2])),
    )
    Ga = d(-4.5, [s * v for v in steps(2, 5, 0.5) for s in (-1, 1)])
    Ha, al = d(2.0, [1.0, 2.0, 3.0]), d(1.0, [0.5, 1.0, 1.5])
    w = d.many([1.5, -0.5, 0.8], steps(-2, 2, 0.1, zero=False), 3)
    gam, lw = d(0.5, [0.3, 0.5, 1.0]), d(2.0, [1.0, 2.0, 3.0])
    return [
        item(f"A tree's leaves have G = {nums(G)} and H = {nums(H)}; λ = {lam:g}, γ = 0. Its "
             "structure score Obj*?",
             lambda v, r: check.structure_score(v, G=G, H=H, reg_lambda=lam, reveal=r)),
        item(f"A leaf with G = {Ga:g}, H = {Ha:g}, λ = 1 and reg_alpha α = {al:g}. Its "
             "weight w*?",
             lambda v, r: check.leaf_weight(v, G=Ga, H=Ha, reg_lambda=1.0, reg_alpha=al,
                                            reveal=r)),
        item(f"The complexity Ω of a tree with leaf scores {nums(w)}, for γ = {gam:g} and "
             f"λ = {lw:g}.",
             lambda v, r: check.complexity(v, w=w, reg_lambda=lw, gamma=gam, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 5
HALF_LOSS = "XGBoost's ½(y − ŷ)² loss (g = ŷ − y, h = 1)"


def _gain(GL, HL, GR, HR, lam, gamma):
    return float(formulas.split_gain(GL, HL, GR, HR, lam, gamma))


def lesson5(rng):
    d = Draw(rng)
    GL, HL, GR, HR, model_gamma = redrawn(
        rng,
        lambda: (d(-2.1, steps(-3, -0.5, 0.1)), d(2.0, [1.0, 2.0, 3.0]),
                 d(3.0, steps(0.5, 4, 0.1)), d(3.0, [1.0, 2.0, 3.0, 4.0]),
                 d(1.0, [0.4, 0.6, 1.0, 1.4, 2.0])),
        lambda g: far_from_zero(_gain(*g[:4], 1.0, g[4] / 2)),
    )  # fmt: skip
    split = f"G_L = {GL:g}, H_L = {HL:g}, G_R = {GR:g}, H_R = {HR:g}, λ = 1"
    return [
        item(f"The gain of a split with {split} and γ = 0.",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR, reveal=r)),
        item(f"The gain the trainer records (its `gain` column) for the same split ({split}) in "
             f"a model trained with {HALF_LOSS} and gamma={model_gamma:g} (XGBoost's gamma). "
             "A negative gain means the split is pruned: mind the sign.",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR,
                                           gamma=model_gamma / 2, reveal=r),
             notes=[f"γ = gamma / 2 = {model_gamma / 2:g}: with XGBoost's ½-loss the "
                    "tutorial's γ is half of XGBoost's gamma"]),
        _shrunk_margin(d, rng),
        _pruned_tree(d, rng),
    ]  # fmt: skip


def _shrunk_margin(d, rng):
    """5.3: a leaf's w* from G and H, then the margin after the round, with shrinkage."""
    m, G, H, lam, eta = redrawn(
        rng,
        lambda: (d(0.4, steps(-1, 1, 0.2, zero=False)), d(-2.1, steps(-3, 3, 0.3, zero=False)),
                 d(2.0, [1.0, 2.0, 3.0, 4.0]), d(1.0, [1.0, 2.0]), d(0.3, [0.1, 0.2, 0.3, 0.5])),
        lambda g: far_from_zero(g[0] - g[4] * g[1] / (g[2] + g[3])),
    )  # fmt: skip
    w = -G / (H + lam)
    return item(
        f"A row's margin before the round is {m:g}. The new tree puts it in a leaf with "
        f"G = {G:g}, H = {H:g}; λ = {lam:g}, learning rate η = {eta:g}. Its margin after the "
        "round?",
        lambda v, r: check.margin_update(v, margin=m, weight=w, learning_rate=eta, reveal=r),
        slips=[(m - eta * G / H, "λ is missing from w* = −G/(H + λ).")],
    )  # fmt: skip


def pruned(GLL, HLL, GLR, HLR, GR, HR, lam, gamma):
    """Post-pruning of a root whose left child splits again, bottom up: the leaves (G, H)
    that stay. The lower split goes when its gain < 0; then the root, when both its
    children are leaves and its gain < 0."""
    GL, HL = GLL + GLR, HLL + HLR
    if _gain(GLL, HLL, GLR, HLR, lam, gamma) >= 0:
        return [(GLL, HLL), (GLR, HLR), (GR, HR)]
    if _gain(GL, HL, GR, HR, lam, gamma) >= 0:
        return [(GL, HL), (GR, HR)]
    return [(GL + GR, HL + HR)]


def _pruned_tree(d, rng):
    """5.4: a small tree pruned with λ and γ, bottom up, then its structure score."""

    def draw():
        return (d(-3.0, steps(-3, 3, 0.5, zero=False)), d(2.0, [1.0, 2.0, 3.0]),
                d(-1.0, steps(-3, 3, 0.5, zero=False)), d(1.0, [1.0, 2.0, 3.0]),
                d(2.5, steps(-3, 3, 0.5, zero=False)), d(3.0, [1.0, 2.0, 3.0, 4.0]),
                d(1.0, [0.6, 1.0, 1.4, 2.0, 3.0]))  # fmt: skip

    def score(leaves, gamma):
        G, H = zip(*leaves)
        return float(formulas.structure_score(G, H, 1.0, gamma))

    def ok(g):
        *sums, model_gamma = g
        gam = model_gamma / 2
        gains = (_gain(*sums[:4], 1.0, gam), _gain(sums[0] + sums[2], sums[1] + sums[3],
                                                   *sums[4:], 1.0, gam))  # fmt: skip
        return far_from_zero(score(pruned(*sums, 1.0, gam), gam), *gains)

    *sums, model_gamma = redrawn(rng, draw, ok)
    gam = model_gamma / 2
    kept = pruned(*sums, 1.0, gam)
    G, H = [g for g, _ in kept], [h for _, h in kept]
    full = [(sums[0], sums[1]), (sums[2], sums[3]), (sums[4], sums[5])]
    one = [(sums[0] + sums[2] + sums[4], sums[1] + sums[3] + sums[5])]
    whole = pruned(*sums, 1.0, model_gamma)
    slips = [
        (score(full, gam), "that is the tree before pruning: a split whose two children are "
         "leaves goes when its gain is negative."),
        (score(one, gam), "that prunes too much: a split goes only when its own gain is "
         "negative, and the root only once both its children are leaves."),
        (score(whole, model_gamma), "XGBoost's gamma taken whole: with its ½-loss the "
         "tutorial's γ is gamma / 2, in the gains and in γT."),
    ]  # fmt: skip
    a, b, c = (f"(G = {g:g}, H = {h:g})" for g, h in full)
    return item(
        f"A tree grown with {HALF_LOSS}, λ = 1 and XGBoost's gamma = {model_gamma:g}: the root "
        f"splits into a left child and a right leaf {c}; the left child splits again into "
        f"leaves {a} and {b}. Post-prune it bottom up (a split whose children are leaves goes "
        "when its gain ½[…] − γ is negative), then give the structure score "
        "Obj* = −½ Σ G²/(H+λ) + γT of the tree that is left.",
        lambda v, r: check.structure_score(v, G=G, H=H, reg_lambda=1.0, gamma=gam, reveal=r),
        slips=slips,
        notes=[f"γ = gamma / 2 = {gam:g}; the leaves left after pruning: "
               + ", ".join(f"(G = {g:g}, H = {h:g})" for g, h in kept)],
    )  # fmt: skip


# ------------------------------------------------------------------ lesson 9
def lesson9(rng):
    d = Draw(rng)
    G, H = d(-1.0, steps(-2, 2, 0.25, zero=False)), d(2 / 3, [0.5, 2 / 3, 0.75, 1.0, 1.5])
    GL, HL, GR, HR, lam = redrawn(
        rng,
        lambda: (d(-2 / 3, [-1.0, -0.75, -0.5, -0.25]), d(10 / 9, [0.75, 1.0, 1.25, 1.5]),
                 d(2 / 3, [0.25, 0.5, 1.0, 1.5]), d(2 / 9, [0.25, 0.5, 0.75]),
                 d(1.0, [0.5, 1.0, 2.0])),
        lambda g: far_from_zero(_gain(*g, 0.0)),
    )  # fmt: skip
    Hs = "2/3" if rng is None else f"{H:g}"
    split = ("G_L = −2/3, H_L = 10/9, G_R = 2/3, H_R = 2/9" if rng is None
             else f"G_L = {GL:g}, H_L = {HL:g}, G_R = {GR:g}, H_R = {HR:g}")  # fmt: skip
    return [
        item(f"XGBoost's leaf weight w* for a leaf with G = {G:g}, H = {Hs} and λ = 1.",
             lambda v, r: check.leaf_weight(v, G=G, H=H, reg_lambda=1.0, reveal=r)),
        item(f"The tutorial's gain ½[…] − γ of a split with {split}, λ = {lam:g} and γ = 0.",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR, reg_lambda=lam,
                                           reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 10
def lesson10(rng):
    d = Draw(rng)

    def draw():
        y = d.many([0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1], [0, 1], 12)
        return y, d(2, [1, 2, 3]), d(1.0, [0.5, 1.0, 2.0])

    def sums(g):
        y, cut, _ = g
        G = [sum(0.5 - v for v in y[i : i + 3]) for i in range(0, 12, 3)]
        return G, sum(G[:cut]), 0.75 * cut, sum(G[cut:]), 0.75 * (4 - cut)

    def ok(g):
        _, GL, HL, GR, HR = sums(g)
        return far_from_zero(_gain(GL, HL, GR, HR, g[2], 0.0), GR)

    got = redrawn(rng, draw, ok)
    _, cut, lam = got
    G, GL, HL, GR, HR = sums(got)
    bins = ", ".join(f"bin {i + 1}: G = {g:g}, H = 0.75" for i, g in enumerate(G))
    where = f"the first {cut} bin{'s' * (cut > 1)} left, the rest right"
    return [
        item(f"Four bins ({bins}). The tutorial's gain of the split with {where}, λ = {lam:g}, "
             "γ = 0.",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR, reg_lambda=lam,
                                           reveal=r)),
        item(f"The same four bins ({bins}): if the tree stopped at that split ({where}), the "
             f"weight w* of its right-hand leaf, λ = {lam:g}.",
             lambda v, r: check.leaf_weight(v, G=GR, H=HR, reg_lambda=lam, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 11
def lesson11(rng):
    d = Draw(rng)
    F = d.many([0.0067, 0.2462, -0.0389], steps(-1, 1, 0.25), 3)
    k = d(0, [0, 1, 2])
    counts = d.many([4, 3, 2], [1, 2, 3, 4, 5], 3)
    start = np.log(np.asarray(counts, float) / sum(counts))
    start -= start.mean()
    row_class, tree_class = d(1, [0, 1, 2]), d(0, [0, 1, 2])

    def leaf(g):
        n_other, n_own = g
        share = counts[2] / sum(counts)
        G = n_other * share + n_own * (share - 1)
        return G, (n_other + n_own) * 2 * share * (1 - share)

    n_other, n_own = redrawn(
        rng,
        lambda: (d(1, [0, 1, 2, 3]), d(2, [1, 2, 3])),
        lambda g: far_from_zero(-leaf(g)[0] / (leaf(g)[1] + 1)),
    )
    G, H = leaf((n_other, n_own))
    names = ("apple", "banana", "cherry")
    return [
        item(f"A row's margins after round 1 are F = {nums(F)} (apple, banana, cherry). Its "
             f"probability of {names[k]}?",
             lambda v, r: check.softmax_probability(v, F, class_=k, reveal=r)),
        item(f"Class counts {counts[0]} apples, {counts[1]} bananas, {counts[2]} cherries; every "
             f"row starts at the class shares. h of the {names[tree_class]} tree (class "
             f"{tree_class}) for a row of class {row_class} ({names[row_class]}), "
             "multi:softprob.",
             lambda v, r: check.gradient(v, y=row_class, margin=start, loss="softmax", order=2,
                                         class_=tree_class, reveal=r)),
        item(f"With those counts ({counts[0]}, {counts[1]}, {counts[2]}), the cherry tree of round "
             f"1 sends {n_other} non-cherr{'y' if n_other == 1 else 'ies'} and {n_own} "
             f"cherr{'y' if n_own == 1 else 'ies'} to one leaf. Its weight w*, λ = 1 "
             "(multi:softprob: every row's h is 2p(1 − p)).",
             lambda v, r: check.leaf_weight(v, G=G, H=H, reg_lambda=1.0, reveal=r),
             slips=[(-G / (H / 2 + 1), "H without its 2: multi:softprob's h is 2p(1 − p) for "
                     "every row, so H = Σ 2p(1 − p).")]),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 13
def lesson13(rng):
    d = Draw(rng)
    eta, lam, gam = d(0.3, [0.1, 0.3, 0.5]), d(2.0, [1.0, 2.0, 3.0]), d(0.5, [0.5, 1.0, 2.0])
    value = d(-0.377599, steps(-0.6, 0.6, 0.05, zero=False))
    cover, lc = d(19.928, steps(5, 30, 0.5)), d(60.5002, steps(10, 80, 2.5))
    return [
        item(f"A leaf's stored value is {value:g} in a model trained with η = {eta:g}. Its w*?",
             lambda v, r: check.recovered(v, "weight", value=value, learning_rate=eta,
                                          reveal=r)),
        item(f"That leaf (stored value {value:g}, η = {eta:g}) has cover H = {cover:g}; the "
             f"model's λ = {lam:g}. Its G?",
             lambda v, r: check.recovered(v, "G", weight=value / eta, H=cover, reg_lambda=lam,
                                          reveal=r)),
        item(f"XGBoost's Gain of the root is {lc:g} in a model trained with the logistic loss "
             f"and gamma = {gam:g}. The root's gain as seed 000 writes it, ½[…] − γ?",
             lambda v, r: check.recovered(v, "gain", loss_chg=lc, gamma=gam, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 15
SHADES = ("red", "green", "blue", "yellow")


def lesson15(rng):
    """Four colours with their G and H at a node: one colour's w*, and the gain of the best
    cut of the colours sorted by w* (XGBoost's partition scan; no missing values)."""
    d = Draw(rng)
    while True:  # distinct weights: the sorted order has no ties to break
        G = d.many([-3.0, 2.0, 3.5, -1.5], steps(-5, 5, 0.5), 4)
        H = d.many([2.0, 3.0, 2.0, 4.0], steps(1, 5, 1), 4)
        w = [-g / (h + 1.0) for g, h in zip(G, H)]
        if len(set(w)) == 4:
            break
    k = d(2, [0, 1, 2, 3])
    order = sorted(range(4), key=lambda c: w[c])
    cuts = []
    for j in range(1, 4):  # the first j colours of the sorted order against the rest
        GL, HL = sum(G[c] for c in order[:j]), sum(H[c] for c in order[:j])
        GR, HR = sum(G) - GL, sum(H) - HL
        cuts.append((formulas.split_gain(GL, HL, GR, HR, 1.0), GL, HL, GR, HR))
    _, GL, HL, GR, HR = max(cuts)
    table = "; ".join(f"{c}: G = {g:g}, H = {h:g}" for c, g, h in zip(SHADES, G, H))
    return [
        item(f"At a node the colours have {table}. The weight w* of {SHADES[k]}, λ = 1 (the "
             "number the categories are sorted by).",
             lambda v, r: check.leaf_weight(v, G=G[k], H=H[k], reg_lambda=1.0, reveal=r)),
        item(f"The same colours ({table}), no missing values. Sort them by w*, try each cut of "
             "that order (the first colours against the rest): the gain ½[…] − γ of the best "
             "cut, λ = 1, γ = 0.",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR, reveal=r)),
    ]  # fmt: skip


BUILDERS = {1: lesson1, 2: lesson2, 3: lesson3, 4: lesson4, 5: lesson5, 9: lesson9,
            10: lesson10, 11: lesson11, 13: lesson13, 15: lesson15}  # fmt: skip
