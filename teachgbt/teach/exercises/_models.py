"""Exercises on a small fitted model: the lesson's own data (no generator) or the student's
own small table, drawn. The prompt shows the table and what the trees did with it (which rows
share a leaf), never a number the exercise asks for."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...estimators import BoostingClassifier, BoostingRegressor
from .. import check, datasets
from ._numbers import item

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
        rows = tuple(int(i) for i in rng.choice(n, size=3, replace=False))
    model = BoostingRegressor(**GBDT).fit(X, y)
    ep = model.trace_.epochs()
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
def lesson7(rng):
    if rng is None:
        X, y = datasets.troll2_xy()
        rows = (2, 2, 1)
        shown = datasets.troll2()
    else:
        n = 6
        y = rng.permutation([1] * int(rng.integers(2, 5)) + [0] * 6)[:n]
        if y.min() == y.max():
            y[0] = 1 - y[0]
        X = pd.DataFrame({"age": rng.choice(np.arange(10, 90), n, replace=False).astype(float),
                          "likes_popcorn": rng.integers(0, 2, n).astype(float)})  # fmt: skip
        rows = tuple(int(i) for i in rng.choice(n, size=3, replace=False))
        shown = X.assign(love_troll2=y)
    model = BoostingClassifier(**GBDT).fit(X, y)
    ep = model.trace_.epochs()
    setting = "GBDT classification (seed 004), ν = 0.8, trees of depth 2"
    in2 = rows_with(ep, 2, rows[2])
    before = ", ".join(f"row {i}: {ep.at[i, 'ep_1_pre']:.6f}" for i in in2)
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
    ])  # fmt: skip


# ------------------------------------------------------------------ lesson 8
def lesson8(rng):
    p, n = (0.2, 5) if rng is None else (float(rng.choice([0.1, 0.2, 0.3, 0.4])),
                                         int(rng.choice([3, 5, 7])))  # fmt: skip
    ys = [1.0, 3.0, 2.0, 6.0] if rng is None else [float(v) for v in rng.integers(0, 9, 4)]
    if len(set(ys)) == 1:
        ys[3] += 3
    x4 = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    small = BoostingRegressor(algorithm="gbdt", n_estimators=2, learning_rate=0.5, max_depth=1)
    small.fit(x4, ys)
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
    if rng is not None:
        sold = np.sort(rng.integers(5, 70, 8)).astype(float)
        rows = tuple(int(i) for i in rng.choice([0, 1, 3, 5], size=2, replace=False))
    one = dict(n_estimators=1, max_depth=2, learning_rate=1.0, reg_lambda=0.0, base_score=0.0)
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
