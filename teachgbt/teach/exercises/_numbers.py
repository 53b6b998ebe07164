"""Exercises worked from a few numbers: each builder takes a random generator (None: the
numbers the lesson ships with) and returns (prompt, run, kind) triples. A prompt gives the
inputs, never the answer nor the work."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...core import formulas
from ...core.tree import Tree
from .. import check


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


def steps(lo, hi, step):
    """Round numbers from lo to hi: the kind a learner can work by hand."""
    return [round(float(v), 6) for v in np.arange(lo, hi + step / 2, step)]


def nums(values):
    return "(" + ", ".join(f"{v:g}" for v in values) + ")"


def item(prompt, run, kind="number"):
    return (prompt, run, kind)


# ------------------------------------------------------------------ lesson 1
def lesson1(rng):
    d = Draw(rng)
    y = d.many([3, 1, 2], list(range(0, 6)), 3)
    off = d.many([0.5, 0, 1.5], steps(-1.5, 1.5, 0.5), 3)
    y_hat = [a + b for a, b in zip(y, off)]
    y1, s1 = d(1, [0, 1]), d(0.0, [-1.0, -0.5, 0.5, 1.0, 1.5])
    w = d.many([1.0, 3.0], steps(-2, 3, 0.5), 2)
    lam, gam = d(1.0, [1.0, 2.0]), d(0.5, [0.5, 1.0, 2.0])
    return [
        item(f"The square loss Σ(y − ŷ)² of the predictions ŷ = {nums(y_hat)} of the targets "
             f"y = {nums(y)}.",
             lambda v, r: check.loss(v, y=y, y_hat=y_hat, kind="square", reveal=r)),
        item(f"The logistic loss of one instance with label y = {y1} and score ŷ = {s1:g} "
             "(natural logarithm).",
             lambda v, r: check.loss(v, y=[y1], y_hat=[s1], kind="logistic", reveal=r)),
        item(f"A stump has leaf scores {w[0]:g} and {w[1]:g}. Its complexity "
             f"Ω = γT + ½λΣw² for γ = {gam:g} and λ = {lam:g}.",
             lambda v, r: check.complexity(v, w=w, reg_lambda=lam, gamma=gam, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 2
FAMILY = ["age", "is_male", "uses_computer_daily"]


def lesson2(rng):
    d = Draw(rng)
    boy, girl, old = d.distinct([2.0, 0.1, -1.0], steps(-2, 3, 0.5), 3)
    no, yes = d.many([-0.9, 0.9], steps(-1.5, 1.5, 0.5), 2)
    t1 = Tree.from_rules(("age < 15", ("is_male < 0.5", girl, boy), old), FAMILY)
    t2 = Tree.from_rules(("uses_computer_daily < 0.5", no, yes), FAMILY)
    trees = (f"Tree 1: age < 15? then is male? (yes: {boy:g}, no: {girl:g}); 15 or older: "
             f"{old:g}. Tree 2: uses a computer daily? (yes: {yes:g}, no: {no:g}).")  # fmt: skip
    people = [(8, 0, 0, "the girl"), (38, 0, 1, "the mom")]
    if rng is not None:
        people = [(int(rng.integers(5, 14)), int(rng.integers(2)), int(rng.integers(2)), "a child"),
                  (int(rng.integers(20, 80)), int(rng.integers(2)), int(rng.integers(2)),
                   "an adult")]  # fmt: skip
    out = []
    for age, male, comp, who in people:
        x = pd.DataFrame([[age, male, comp]], columns=FAMILY)
        desc = (f"{who} (age {age}, {'male' if male else 'not male'}, "
                f"{'uses' if comp else 'does not use'} a computer daily)")  # fmt: skip
        out.append(item(f"{trees} What does the two-tree ensemble predict for {desc}?",
                        lambda v, r, x=x: check.prediction(v, [t1, t2], x, reveal=r)))  # fmt: skip
    return out


# ------------------------------------------------------------------ lesson 3
LOGS = {"ln 2": math.log(2), "ln 3": math.log(3), "−ln 2": -math.log(2), "0": 0.0,
        "ln 4": math.log(4), "−ln 3": -math.log(3)}  # fmt: skip


def lesson3(rng):
    d = Draw(rng)
    y, m = d(3, list(range(-3, 6))), d(1, list(range(-2, 5)))
    if y == m:
        m += 1
    name = d("ln 2", list(LOGS))
    yl, ml = d(1, [0, 1]), LOGS[name]
    m0, w, eta = d(0.5, steps(-1, 1.5, 0.5)), d(1.5, steps(-2, 3, 0.5)), d(0.3, [0.1, 0.2, 0.3])
    return [
        item(f"XGBoost's square loss ½(y − ŷ)²: its gradient g for an instance with y = {y} "
             f"when the model so far predicts ŷ = {m}.",
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
    G = d.many([-2.0, -0.1, 3.0], steps(-3, 3, 0.5), 3)
    H = d.many([1.0, 1.0, 3.0], steps(1, 4, 1), 3)
    lam = d(2.0, [1.0, 2.0, 3.0])
    Ga, Ha, la, al = d(-5.0, [-5.0, -4.0, -3.0, 3.0, 4.0, 5.0]), d(2.0, [1.0, 2.0, 3.0]), 1.0, 1.0
    w = d.many([2.0, 0.1, -1.0], steps(-2, 2, 0.5), 3)
    gam, lw = d(0.5, [0.5, 1.0]), d(2.0, [1.0, 2.0])
    return [
        item(f"A tree's leaves have G = {nums(G)} and H = {nums(H)}; λ = {lam:g}, γ = 0. Its "
             "structure score Obj*?",
             lambda v, r: check.structure_score(v, G=G, H=H, reg_lambda=lam, reveal=r)),
        item(f"A leaf with G = {Ga:g}, H = {Ha:g}, λ = {la:g} and reg_alpha α = {al:g}. Its "
             "weight w*?",
             lambda v, r: check.leaf_weight(v, G=Ga, H=Ha, reg_lambda=la, reg_alpha=al,
                                            reveal=r)),
        item(f"The complexity Ω of a tree with leaf scores {nums(w)}, for γ = {gam:g} and "
             f"λ = {lw:g}.",
             lambda v, r: check.complexity(v, w=w, reg_lambda=lw, gamma=gam, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 5
def lesson5(rng):
    d = Draw(rng)
    GL, HL = d(-2.1, steps(-3, -0.5, 0.5)), d(2.0, [1.0, 2.0, 3.0])
    GR, HR = d(3.0, steps(0.5, 4, 0.5)), d(3.0, [1.0, 2.0, 3.0, 4.0])
    model_gamma = d(1.0, [0.5, 1.0, 2.0])
    w, eta = d(0.7, steps(-1.5, 1.5, 0.1)), d(0.1, [0.1, 0.2, 0.3, 0.5])
    split = f"G_L = {GL:g}, H_L = {HL:g}, G_R = {GR:g}, H_R = {HR:g}, λ = 1"
    return [
        item(f"The gain of a split with {split} and γ = 0.",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR, reveal=r)),
        item(f"The gain the trainer records (its `gain` column) for the same split ({split}) in "
             f"a model trained with gamma={model_gamma:g} (XGBoost's gamma).",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR,
                                           gamma=model_gamma / 2, reveal=r)),
        item(f"A leaf has w* = {w:g}; with shrinkage η = {eta:g}, what is a row's margin after "
             "the round, if it was 0 before?",
             lambda v, r: check.margin_update(v, margin=0.0, weight=w, learning_rate=eta,
                                              reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 9
def lesson9(rng):
    d = Draw(rng)
    G, H = d(-1.0, steps(-2, 2, 0.5)), d(2 / 3, [0.5, 2 / 3, 1.0, 1.5])
    if G == 0:
        G = -1.0
    GL, HL = d(-2 / 3, [-1.0, -0.5, -2 / 3]), d(10 / 9, [0.75, 1.0, 1.25])
    GR, HR = d(2 / 3, [0.5, 1.0, 1.5]), d(2 / 9, [0.25, 0.5])
    Hs = "2/3" if rng is None else f"{H:g}"
    lam = d(1.0, [0.0, 1.0])
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
    y = d.many([0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1], [0, 1], 12)
    G = [sum(0.5 - v for v in y[i : i + 3]) for i in range(0, 12, 3)]
    H = [0.75] * 4
    cut = d(2, [1, 2, 3])
    GL, HL, GR, HR = sum(G[:cut]), sum(H[:cut]), sum(G[cut:]), sum(H[cut:])
    bins = ", ".join(f"bin {i + 1}: G = {g:g}, H = {h:g}" for i, (g, h) in enumerate(zip(G, H)))
    where = f"the first {cut} bin{'s' * (cut > 1)} left, the rest right"
    return [
        item(f"Four bins ({bins}). The tutorial's gain of the split with {where}, λ = 1, γ = 0.",
             lambda v, r: check.split_gain(v, G_L=GL, H_L=HL, G_R=GR, H_R=HR, reveal=r)),
        item(f"The same four bins ({bins}): if the tree stopped at that split ({where}), the "
             "weight w* of its right-hand leaf, λ = 1.",
             lambda v, r: check.leaf_weight(v, G=GR, H=HR, reg_lambda=1.0, reveal=r)),
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
    n_other, n_own = d(1, [0, 1, 2]), d(2, [1, 2, 3])
    share = counts[2] / sum(counts)
    g = n_other * share + n_own * (share - 1)
    h = (n_other + n_own) * 2 * share * (1 - share)
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
             f"cherr{'y' if n_own == 1 else 'ies'} to one leaf. Its weight w*, λ = 1.",
             lambda v, r: check.leaf_weight(v, G=g, H=h, reg_lambda=1.0, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 13
def lesson13(rng):
    d = Draw(rng)
    eta, lam, gam = d(0.3, [0.1, 0.3, 0.5]), d(2.0, [1.0, 2.0, 3.0]), d(0.5, [0.5, 1.0, 2.0])
    value = d(-0.377599, steps(-0.6, 0.6, 0.05))
    if value == 0:
        value = 0.25
    cover, lc = d(19.928, steps(5, 30, 0.5)), d(60.5002, steps(10, 80, 2.5))
    return [
        item(f"A leaf's stored value is {value:g} in a model trained with η = {eta:g}. Its w*?",
             lambda v, r: check.recovered(v, "weight", value=value, learning_rate=eta,
                                          reveal=r)),
        item(f"That leaf (stored value {value:g}, η = {eta:g}) has cover H = {cover:g}; the "
             f"model's λ = {lam:g}. Its G?",
             lambda v, r: check.recovered(v, "G", weight=value / eta, H=cover, reg_lambda=lam,
                                          reveal=r)),
        item(f"XGBoost's Gain of the root is {lc:g} in a model with gamma = {gam:g}. The root's "
             "gain as seed 000 writes it?",
             lambda v, r: check.recovered(v, "gain", loss_chg=lc, gamma=gam, reveal=r)),
    ]  # fmt: skip


# ------------------------------------------------------------------ lesson 15
SHADES = ("red", "green", "blue", "yellow")


def lesson15(rng):
    """Four colours with their G and H at a node: one colour's w*, and the gain of the best
    cut of the colours sorted by w* (XGBoost's partition scan; no missing values)."""
    d = Draw(rng)
    while True:  # distinct weights: the sorted order has no ties to break
        G = d.many([-3.0, 2.0, 4.0, -1.5], steps(-5, 5, 0.5), 4)
        H = d.many([2.0, 3.0, 1.0, 4.0], steps(1, 5, 1), 4)
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
