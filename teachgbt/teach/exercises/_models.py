"""Exercises on a small fitted model: the lesson's own data (no generator) or the student's
own small table, drawn. The prompt shows the table and what the trees did with it (which rows
share a leaf, the trees' rules), never a number the exercise asks for. The rows asked about
are drawn among those whose answer is not near 0."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...core.format import split_rule
from ...estimators import BoostingClassifier, BoostingRegressor
from ...explain import contributions
from .. import check, datasets
from ._numbers import SMALLEST, item, redrawn

GBDT = dict(algorithm="gbdt", n_estimators=2, learning_rate=0.8, max_depth=2)


def table(X, y, name="y"):
    shown = X.copy()
    shown[name] = y
    return shown.to_string()


def rows_with(epochs, t, row):
    """The rows round t's tree puts in the same leaf as ``row``."""
    leaf = epochs.at[row, f"ep_{t}_leaf_index"]
    return [int(i) for i in epochs.index[epochs[f"ep_{t}_leaf_index"] == leaf]]


def said(rows):
    return "row " + str(rows[0]) if len(rows) == 1 else "rows " + ", ".join(map(str, rows))


def far_row(rng, epochs, column):
    """A row drawn among those whose ``column`` is not near 0."""
    rows = np.flatnonzero(np.abs(epochs[column].to_numpy()) >= SMALLEST)
    return int(rng.choice(rows if rows.size else np.arange(len(epochs))))


def rules(tree, node=0):
    """A tree written out: its rules, and each leaf's output w (before η)."""
    if tree.is_leaf[node]:
        return f"leaf {node}, output {tree.weight[node]:.4g}"
    left, right = int(tree.left[node]), int(tree.right[node])
    return f"[{split_rule(tree, node)}? yes: {rules(tree, left)}; no: {rules(tree, right)}]"


def epoch_items(model, asks):
    return [
        item(prompt, lambda v, r, c=column, w=row: check.epoch(v, model, c, w, reveal=r))
        for prompt, column, row in asks
    ]


# ------------------------------------------------------------------ lesson 6
def lesson6(rng):
    if rng is None:
        X, y = datasets.ice_cream_xy()
        rows = (3, 5, 1)
    else:
        n = 6
        temp = np.sort(rng.choice(np.arange(10, 31), size=n, replace=False)).astype(float)
        sunny = rng.integers(0, 2, n).astype(float)
        sales = np.round(2 * temp - 10 + 8 * sunny + rng.integers(-6, 7, n)).clip(1)
        order = rng.permutation(n)
        X = pd.DataFrame({"temperature": temp[order], "weather_sunny": sunny[order]})
        y = sales[order]
    model = BoostingRegressor(**GBDT).fit(X, y)
    ep = model.trace_.epochs()
    if rng is not None:
        rows = (far_row(rng, ep, "ep_1_residual"), far_row(rng, ep, "ep_1_leaf_output"),
                int(rng.integers(len(ep))))  # fmt: skip
    data = table(X, np.asarray(y), "sold")
    share = rows_with(ep, 1, rows[1])
    setting = "GBDT regression (squared error), ν = 0.8, trees of depth 2"
    return epoch_items(model, [
        (f"{setting}, on these days:\n{data}\nF₀, the start every day shares (`ep_0_pre`).",
         "ep_0_pre", 0),
        (f"The same days. Row {rows[0]}'s residual in epoch 1 (`ep_1_residual`).",
         "ep_1_residual", rows[0]),
        (f"The same days. Tree 1 puts {said(share)} in one leaf. That leaf's output "
         f"(`ep_1_leaf_output` of row {rows[1]}).", "ep_1_leaf_output", rows[1]),
        (f"The same days. Tree 1 puts {said(rows_with(ep, 1, rows[2]))} in one leaf. Row "
         f"{rows[2]}'s prediction after epoch 1 (`ep_1_pre`), with ν = 0.8.",
         "ep_1_pre", rows[2]),
    ])  # fmt: skip


# ------------------------------------------------------------------ lesson 7
def troll2_like(rng):
    """A table like seed 004's, of 6 to 10 people: never as many lovers as haters (F₀ = 0
    would be a trivial answer), ages as whole numbers."""
    n = int(rng.integers(6, 11))
    lovers = int(rng.choice([k for k in range(1, n) if 2 * k != n]))
    y = rng.permutation([1] * lovers + [0] * (n - lovers))
    ages = rng.choice(np.arange(10, 90), n, replace=False)
    popcorn = rng.integers(0, 2, n).astype(bool)
    X = pd.DataFrame({"like_popcorn": popcorn.astype(float), "age": ages.astype(float)})
    shown = pd.DataFrame({"like_popcorn": popcorn, "age": ages, "love_troll2": y.astype(bool)})
    return X, y, shown


def newcomer(rng, model, X):
    """A person not in the table whose probability is not near 0 (where a relative
    tolerance would mean nothing)."""
    taken = set(X["age"].astype(int))
    ages = rng.permutation([a for a in range(10, 90) if a not in taken])
    for age in ages:
        new = pd.DataFrame({"like_popcorn": [float(rng.integers(2))], "age": [float(age)]})
        if model.predict_proba(new)[0, 1] >= 0.02:
            break
    return new


def lesson7(rng):
    if rng is None:
        X, y = datasets.troll2_xy()
        shown = datasets.troll2()
        model = BoostingClassifier(**GBDT).fit(X, y)
        rows = (2, 2, 1)
        new = X.iloc[[0]].assign(like_popcorn=True, age=50, favorite_color_blue=0.0,
                                 favorite_color_green=0.0, favorite_color_red=1.0)  # fmt: skip
        who = "a 50-year-old who likes popcorn and whose favourite colour is red"
    else:
        X, y, shown = troll2_like(rng)
        model = BoostingClassifier(**GBDT).fit(X, y)
        ep = model.trace_.epochs()
        rows = (int(rng.integers(len(X))), far_row(rng, ep, "ep_1_leaf_output"),
                int(rng.integers(len(X))))  # fmt: skip
        new = newcomer(rng, model, X)
        age, popcorn = int(new.at[0, "age"]), bool(new.at[0, "like_popcorn"])
        who = f"a {age}-year-old who {'likes' if popcorn else 'does not like'} popcorn"
    ep = model.trace_.epochs()
    setting = "GBDT classification (seed 004), ν = 0.8, trees of depth 2"
    in2 = rows_with(ep, 2, rows[2])
    before = ", ".join(f"row {i}: {ep.at[i, 'ep_1_pre']:.6f}" for i in in2)
    trees = "; ".join(f"tree {k}: {rules(t)}" for k, t in enumerate(model.trees_, 1))
    f0 = float(ep.at[0, "ep_0_pre"])
    return epoch_items(model, [
        (f"{setting}, on these people:\n{shown.to_string()}\nF₀, the starting log-odds "
         "(`ep_0_pre`).", "ep_0_pre", 0),
        (f"The same people. Row {rows[0]}'s residual in epoch 1 (`ep_1_residual`).",
         "ep_1_residual", rows[0]),
        (f"The same people. Tree 1 puts {said(rows_with(ep, 1, rows[1]))} in one leaf. That "
         f"leaf's output (`ep_1_leaf_output` of row {rows[1]}).", "ep_1_leaf_output", rows[1]),
        (f"The same people. After epoch 1 the log-odds are ({before}); tree 2 puts "
         f"{said(in2)} in one leaf. Row {rows[2]}'s probability after epoch 2 (`ep_2_prob`).",
         "ep_2_prob", rows[2]),
    ]) + [item(
        f"The same model ({trees}). A new person, {who}: the probability the model gives that "
        "they love Troll 2, through F₀ and both trees, ν = 0.8.",
        lambda v, r: check.prediction(v, model.trees_, new, base_score=f0, link="logistic",
                                      reveal=r),
    )]  # fmt: skip


# ------------------------------------------------------------------ lesson 8
def four_points(ys):
    x4 = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    small = BoostingRegressor(algorithm="gbdt", n_estimators=2, learning_rate=0.5, max_depth=1)
    return small.fit(x4, ys)


def lesson8(rng):
    p, n = (0.2, 5) if rng is None else (float(rng.choice([0.2, 0.25, 0.3, 0.35, 0.4, 0.45])),
                                         int(rng.choice([3, 5, 7, 9])))  # fmt: skip

    def ok(ys):
        ep = four_points(ys).trace_.epochs()
        return abs(ep.at[3, "ep_1_pre"]) >= SMALLEST and abs(ep.at[0, "ep_2_residual"]) >= SMALLEST

    ys = redrawn(rng, lambda: [2.0, 5.0, 3.0, 8.0] if rng is None
                 else [float(v) for v in rng.integers(0, 10, 4)], ok)  # fmt: skip
    small = four_points(ys)
    t = small.trees_[0]
    split = f"x < {t.threshold[0]:g}" if t.feature[0] >= 0 else "no split (one leaf)"
    pts = ", ".join(f"(x = {i + 1}, y = {v:g})" for i, v in enumerate(ys))
    setting = (f"Four points {pts}; squared error, trees of depth 1, learning rate 0.5; tree 1 "
               f"splits at {split}.")  # fmt: skip
    vote = item(
        f"{n} independent voters, each wrong {p:.0%} of the time. The probability that their "
        "majority is wrong.",
        lambda v, r: check.vote_error(v, p=p, n_voters=n, reveal=r),
    )
    return [vote] + epoch_items(small, [
        (f"{setting} What does F₁ = F₀ + 0.5 f₁ predict for the last point (`ep_1_pre`)?",
         "ep_1_pre", 3),
        (f"{setting} The first point's residual in round 2 (`ep_2_residual`).",
         "ep_2_residual", 0),
    ])  # fmt: skip


# ------------------------------------------------------------------ lesson 12
def lesson12(rng):
    days = pd.DataFrame({"sunny": [0, 0, 0, 1, 1, 1, 1, 1], "weekend": [0, 1, 1, 0, 0, 1, 1, 1]})
    sold = np.array([10, 20, 24, 30, 34, 50, 56, 62.0])
    rows = (3, 0)
    one = dict(n_estimators=1, max_depth=2, learning_rate=1.0, reg_lambda=0.0, base_score=0.0)

    def ok(g):
        sold, rows = g
        fit = BoostingRegressor(**one).fit(days, sold)
        path = contributions(fit, days.loc[[rows[0]]], method="path").at[rows[0], "weekend"]
        shap = contributions(fit, days.loc[[rows[1]]], method="shap").at[rows[1], "sunny"]
        return abs(path) >= SMALLEST and abs(shap) >= SMALLEST

    if rng is not None:
        sold, rows = redrawn(rng, lambda: (np.sort(rng.integers(5, 70, 8)).astype(float),
                                           tuple(int(i) for i in rng.choice([0, 1, 3, 5], 2,
                                                                            replace=False))),
                             ok)  # fmt: skip
    stand = BoostingRegressor(**one).fit(days, sold)
    tree = stand.trees_[0].to_frame()
    rules = "; ".join(
        f"node {int(r.node)}: " + (f"leaf {r.value:g} (n = {int(r.n)})" if r.is_leaf
                                   else f"{r.feature} < {r.threshold:g}?")
        for r in tree.itertuples()
    )  # fmt: skip
    setting = (f"One tree (λ = 0, η = 1, base_score 0) on these days:\n"
               f"{table(days, sold, 'sold')}\nIts nodes: {rules}.")  # fmt: skip

    def ask(row, feature, method):
        x = days.loc[[row]]
        return lambda v, r: check.contribution(v, stand, x, feature, method=method, reveal=r)

    d0 = days.loc[rows[0]]
    d1 = days.loc[rows[1]]
    return [
        item(f"{setting} Row {rows[0]} (sunny = {d0.sunny}, weekend = {d0.weekend}): the path "
             "(Saabas) contribution of `weekend`.", ask(rows[0], "weekend", "path")),
        item(f"The same tree. Row {rows[1]} (sunny = {d1.sunny}, weekend = {d1.weekend}): the "
             "Shapley value of `sunny`.", ask(rows[1], "sunny", "shap")),
    ]  # fmt: skip


BUILDERS = {6: lesson6, 7: lesson7, 8: lesson8, 12: lesson12}
