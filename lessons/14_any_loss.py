# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lesson 14 — Any loss
#
# Seed 003 starts from the population objective: the best model is
# $F^* = \arg\min_F \mathbb{E}[\Psi(y, F(x))]$ for a loss Ψ of your choice. Seed 000 then
# expands any twice-differentiable loss to second order around the current prediction,
#
# $$l(y_i, \hat y_i + f(x_i)) \approx l(y_i, \hat y_i) + g_i f(x_i) + \tfrac12 h_i f(x_i)^2,$$
#
# and from there on the trainer needs only each row's $g_i$ and $h_i$: the split gain and
# the leaf weight $w^* = -G/(H+\lambda)$ are the same for every loss. This lesson fits one
# small data set with five losses side by side — squared, absolute, pseudo-Huber, quantile
# and Poisson — and looks at the two places where the Taylor step alone is not enough:
# the absolute and quantile losses (h = 0) and the Poisson loss (h → 0 as the mean does).
#
# **Goals.** By the end you can say what constant each loss predicts (its F*), compute g
# and h of a row for each loss, explain why XGBoost refreshes an absolute-error leaf to a
# median after growing the tree, and why count:poisson caps every leaf at 0.7.
#
# | topic | what you do here |
# |---|---|
# | F* = argmin E[Ψ(y, F)] for a constant | mean, median, quantile, log of the mean: XGBoost's base scores |
# | the Taylor step for any l | g and h per row for five losses, checked by finite differences |
# | five losses, one data set | `objective=` of `BoostingRegressor`; the fits drawn side by side |
# | absolute error: the leaf refresh | h = 1 is a stand-in; −G/(H+λ) beside the refreshed median |
# | Poisson: `max_delta_step` | one Newton step on e^ŷ overshoots; XGBoost caps it at 0.7 |
# | beside XGBoost | the same trees and margins, live (skipped if not installed) |
# | Exercises | g and h of a Poisson row, a refreshed leaf, a capped leaf |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

try:
    import xgboost as xgb
except ImportError:
    xgb = None
    print("XGBoost is not installed: pip install xgboost for the side-by-side cells")

# %% [markdown]
# ## 1. F* for a constant: what each loss predicts
#
# Before any tree, a model is one number for every row. Which number? The one that
# minimises the mean loss — seed 003's $F^*$ for a model with no features. Eight counts,
# one of them an outlier:

# %%
y8 = np.array([0.0, 1, 1, 2, 3, 4, 6, 15])
losses = {
    "squared": tg.losses.SquaredError(),
    "absolute": tg.losses.AbsoluteError(),
    "pseudo-Huber (s = 1)": tg.losses.PseudoHuber(huber_slope=1.0),
    "quantile (α = 0.8)": tg.losses.Quantile(quantile_alpha=0.8),
    "Poisson": tg.losses.Poisson(),
}
grid = np.linspace(-1, 16, 3401)  # candidate constants, on the prediction's scale


def mean_loss(loss, c):
    """The mean loss of predicting c for every row (Poisson's margin is log c)."""
    margin = np.log(c) if isinstance(loss, tg.losses.Poisson) else c
    return loss.loss(y8, np.full(len(y8), margin))


best = {}
fig, ax = plt.subplots(figsize=(7, 3.8))
for name, loss in losses.items():
    cs = grid[grid > 0] if name == "Poisson" else grid
    values = np.array([mean_loss(loss, c) for c in cs])
    best[name] = cs[np.argmin(values)]
    ax.plot(cs, values - values.min(), label=f"{name}: F* ≈ {best[name]:.2f}")
ax.set_ylim(0, 6)
ax.set_xlabel("the constant prediction c")
ax.set_ylabel("mean loss − its minimum")
ax.legend(fontsize="small")
plt.show()

# %% [markdown]
# The squared loss lands on the mean (4), which the outlier drags up; the absolute loss on
# the median (any point between the two middle values 2 and 3 is as good); the 0.8-quantile
# loss above 80 % of the rows; Poisson, whose margin is log c, on the mean again — but
# reached through the log, so its margin is log 4. Pseudo-Huber sits between the mean and
# the median: squared near the centre, absolute (slope s) in the tails.
#
# These are XGBoost's base scores: when `base_score` is not given, it estimates this
# constant — the mean for the squared and the Poisson loss, the median for the absolute
# loss. Two estimates are near, not at, the minimum: for the quantile loss XGBoost
# interpolates at rank α(n + 1), between the 7th and 8th of the eight values, where the
# minimum of the mean loss is the 7th value itself (with many rows the two meet); for
# pseudo-Huber it takes one Newton step from 0. `default_base_score` is the estimate, in
# the space XGBoost stores it:

# %%
estimates = {name: loss.default_base_score(y8) for name, loss in losses.items()}
print(pd.Series(estimates).round(4).to_string())
assert estimates["squared"] == 4.0 and estimates["Poisson"] == 4.0
assert estimates["absolute"] == 2.5  # the middle of 2 and 3: XGBoost's interpolation
assert abs(best["squared"] - 4) < 0.01 and 2 <= best["absolute"] <= 3
assert abs(best["Poisson"] - 4) < 0.01
assert abs(best["quantile (α = 0.8)"] - 6) < 0.01  # the 7th value of the sorted eight
assert np.isclose(estimates["quantile (α = 0.8)"], 6 + 0.2 * (15 - 6))  # rank 0.8·9 = 7.2
print("Poisson's start margin:", round(losses["Poisson"].base_margin(estimates["Poisson"]), 4))

# %% [markdown]
# ## 2. The Taylor step for any loss: g and h per row
#
# At the start every row's margin is the base margin. Each loss gives each row its own g
# and h (`loss.grad_hess(y, margin)`, in XGBoost's formulas):
#
# | loss | l(y, ŷ) | g | h |
# |---|---|---|---|
# | squared | ½(y − ŷ)² | ŷ − y | 1 |
# | absolute | \|y − ŷ\| | sign(ŷ − y) | 0, XGBoost uses 1 |
# | pseudo-Huber | s²(√(1 + d²/s²) − 1), d = ŷ − y | d / √(1 + d²/s²) | s³ / (s² + d²)^{3/2} |
# | quantile α | α(y − ŷ) above, (1 − α)(ŷ − y) below | 1 − α if ŷ ≥ y, else −α | 0, XGBoost uses 1 |
# | Poisson | e^ŷ − y·ŷ (ŷ the log of the mean) | e^ŷ − y | e^ŷ, XGBoost uses e^(ŷ + 0.7) |

# %%
table = {}
for name, loss in losses.items():
    start = np.full(len(y8), loss.base_margin(loss.default_base_score(y8)))
    g, h = loss.grad_hess(y8, start)
    table[(name, "g")], table[(name, "h")] = g, h
    # g is the slope of the loss itself: central differences of loss.loss, row by row
    step = 1e-5
    up = np.array([loss.loss(y8[i : i + 1], start[i : i + 1] + step) for i in range(8)])
    down = np.array([loss.loss(y8[i : i + 1], start[i : i + 1] - step) for i in range(8)])
    kink = np.isclose(start, y8)  # |y − ŷ| has no slope where ŷ = y
    assert np.allclose(g[~kink], ((up - down) / (2 * step))[~kink], atol=1e-5)
gh = pd.DataFrame(table, index=pd.Index(y8, name="y"))
print(gh.round(3).to_string())

# %% [markdown]
# Three things to see. The squared loss's g grows with the residual: the outlier (y = 15)
# pulls eleven times harder than a row 1 away. The absolute and quantile losses' g is a
# sign — every row pulls with the same force, so the outlier counts like any other row.
# And their h is not the loss's curvature: |y − ŷ| is a straight line on each side, its
# second derivative is 0, and −G/0 has no meaning. XGBoost puts h = 1 in its place — good
# enough to rank splits, not to size a leaf (section 4). Poisson's h is e^(ŷ + 0.7), not
# e^ŷ: section 5 says why.

# %%
assert np.allclose(gh[("squared", "h")], 1) and np.allclose(gh[("absolute", "h")], 1)
assert np.allclose(gh[("Poisson", "h")], np.exp(np.log(4) + 0.7))
assert np.allclose(np.abs(gh[("absolute", "g")]), 1)

# %% [markdown]
# ## 3. Five losses, one data set
#
# Counts that grow with x, a few far too large (a data-entry slip, say). Each loss is an
# `objective=` of `tg.BoostingRegressor`, XGBoost's names; the rest is the same model.

# %%
rng = np.random.default_rng(4)
x = np.sort(rng.uniform(0, 10, 120))
y = rng.poisson(np.exp(0.25 * x)).astype(float)
y[rng.choice(120, 6, replace=False)] += 40  # outliers
X = x.reshape(-1, 1)
settings = dict(tree_method="hist", n_estimators=30, max_depth=2, learning_rate=0.3)
objectives = {
    "squared": dict(objective="reg:squarederror"),
    "absolute": dict(objective="reg:absoluteerror"),
    "pseudo-Huber": dict(objective="reg:pseudohubererror", huber_slope=2.0),
    "quantile 0.8": dict(objective="reg:quantileerror", quantile_alpha=0.8),
    "Poisson": dict(objective="count:poisson"),
}
models = {name: tg.BoostingRegressor(**settings, **o).fit(X, y) for name, o in objectives.items()}
ax = tg.plot.compare_fits(list(models.values()), X, y, labels=list(models))
ax.set_title("One data set, five losses (30 rounds each)")
plt.show()

# %% [markdown]
# The squared error chases the outliers (its leaves are means), and so does Poisson (its
# F* is a mean too, though its trees add to log(mean), so its steps multiply); the absolute
# error and pseudo-Huber ignore them; the 0.8-quantile runs above most rows, as it should.
# The same trees,
# the same gain formula, five different g and h. Their base scores are section 1's
# constants for this data (pseudo-Huber's one Newton step from 0 lands above the mean
# here: far from y, its h is small and the step long):

# %%
starts = pd.DataFrame(
    {
        "base_score_": {n: m.base_score_ for n, m in models.items()},
        "base_margin_": {n: m.base_margin_ for n, m in models.items()},
        "objective": {n: m.loss_.name for n, m in models.items()},
    }
)
print(starts.round(4).to_string())
assert np.isclose(models["Poisson"].base_margin_, np.log(y.mean()), atol=1e-6)
assert np.isclose(models["squared"].base_score_, y.mean(), rtol=1e-6)

# %% [markdown]
# ## 4. Absolute error: why the leaf is refreshed
#
# With h = 1 per row, a leaf's Newton step is $-G/(H+\lambda) = (\#\text{above} -
# \#\text{below})/(n + \lambda)$: it counts rows, so it is never larger than 1 whatever the
# residuals' size. A leaf whose rows all sit 40 above the prediction would need 40 rounds
# (at η = 1) to get there. So XGBoost's `hist` grows the tree with these g and h and then
# **refreshes** each leaf: its value becomes η × the median of its rows' residuals y − ŷ —
# the leaf's own F* from section 1. The nodes table keeps both numbers:

# %%
absolute = models["absolute"]
nodes = absolute.trace_.nodes(1)
leaves = nodes[nodes.is_leaf][["node", "n", "G", "H", "newton_weight", "weight", "value"]]
print(leaves.round(3).to_string(index=False))
rows = absolute.trace_.instances(1)
first = int(leaves.node.iloc[0])
mine = rows[rows.leaf == first]
median = np.median(mine.y - mine.margin)
assert np.isclose(leaves.weight.iloc[0], median, atol=1e-5)
assert np.allclose(leaves.newton_weight, -leaves.G / (leaves.H + 1), atol=1e-6)
print(tg.explain.leaf(absolute, 1, first))

# %% [markdown]
# `weight` is the refreshed median q, which the model uses; `newton_weight` is
# −G/(H+λ), a count. XGBoost's `exact` method does not refresh (its last step, the pruner,
# keeps no record of which row reached which leaf), so there an absolute-error model moves
# by at most η per round. The same data, scaled by 100:

# %%
big = 100 * y
curves = {}
for method in ("exact", "hist"):
    m = tg.BoostingRegressor(objective="reg:absoluteerror", tree_method=method, n_estimators=30,
                             max_depth=2, learning_rate=0.3).fit(X, big)  # fmt: skip
    curves[method] = [np.mean(np.abs(big - m.model_.predict(m.model_.check_X(X)[0], (0, k))))
                      for k in range(1, 31)]  # fmt: skip
fig, ax = plt.subplots(figsize=(6, 3.2))
for method, c in curves.items():
    ax.plot(range(1, 31), c, marker=".", label=f"tree_method={method!r}")
ax.set_xlabel("rounds")
ax.set_ylabel("mean |y − ŷ|")
ax.legend()
plt.show()
start = np.mean(np.abs(big - np.median(big)))  # the base score: the median
print(f"mean |y − ŷ|: {start:.1f} at the start; after 30 rounds exact "
      f"{curves['exact'][-1]:.1f}, hist {curves['hist'][-1]:.1f}")  # fmt: skip
# exact: no leaf moves more than η·n/(n + λ) < 0.3 a round, 9 in 30 rounds
assert start - curves["exact"][-1] < 30 * 0.3
assert start - curves["hist"][-1] > 10 * (start - curves["exact"][-1])

# %% [markdown]
# ## 5. Poisson: why `max_delta_step`
#
# Poisson's margin is log(mean). One leaf holding six rows, five of them 1 and one 100,
# starting from the margin 0 (a mean of 1): G = Σ(e^0 − y) = 6 − 105 = −99 and the true
# h = e^0 = 1 per row, so the Newton step is w* = 99/(6 + 1) ≈ 14.1 — a mean of e^14 ≈
# 1.4 million for rows whose mean is 17.5. Newton's step assumes the loss is a parabola,
# and e^ŷ is anything but far from its base. It is worse for a leaf whose rows are all 0:
# its best mean is 0, whose log is −∞, and every round's step heads there.
#
# XGBoost's count:poisson therefore does two things: it inflates h by e^0.7 (a smaller
# step), and it caps |w*| at `max_delta_step` = 0.7 — a leaf may multiply the mean by at
# most e^0.7 ≈ 2 per unit of η. Unset, `max_delta_step` is 0.7 for count:poisson.

# %%
X6, y6 = np.arange(6.0).reshape(-1, 1), np.array([1, 1, 1, 1, 1, 100.0])
one_leaf = dict(objective="count:poisson", n_estimators=1, max_depth=1, gamma=1e9,
                learning_rate=1.0, base_score=1.0)  # fmt: skip
raw = tg.BoostingRegressor(**one_leaf, max_delta_step=0.0).fit(X6, y6)
capped = tg.BoostingRegressor(**one_leaf).fit(X6, y6)
for name, m in (("max_delta_step=0", raw), ("default (0.7)", capped)):
    root = m.trees_[0].to_frame().iloc[0]
    print(f"{name:>17}: G = {root.G:.2f}, H = {root.H:.3f}, leaf = {root.value:.4f}, "
          f"predicted mean = {np.exp(root.value):,.2f}")  # fmt: skip
assert np.isclose(raw.trees_[0].value[0], 99 / 7, rtol=1e-5)
assert np.isclose(capped.trees_[0].value[0], 0.7, rtol=1e-6)
print(tg.explain.leaf(capped, 1, 0))

# %% [markdown]
# ## 6. Beside XGBoost
#
# Every model above is XGBoost's, tree for tree: the same objectives, base scores, g and h,
# the refresh in `hist` and the cap for Poisson.

# %%
if xgb is not None:
    for name, o in objectives.items():
        theirs = xgb.XGBRegressor(**settings, **o).fit(X, y)
        gap = np.abs(models[name].predict(X) - theirs.predict(X)).max()
        print(f"{name:>13}: largest prediction difference {gap:.1e}")
        assert gap < 1e-4 * max(1.0, np.abs(theirs.predict(X)).max())

# %% [markdown]
# ## Exercises
#
# Each exercise gives its numbers (your own, with `STUDENT` set at the top); put your answer,
# to 3 significant digits (within 1 % of the value is right), in place of `None` and run the
# cell. A wrong answer gets the likely slip or a hint; `reveal=True` in the `check` call shows
# the solution.
#
# **14.1** g of a Poisson row. **14.2** Its h, as XGBoost computes it.

# %%
sheet = tg.exercises.sheet(14, student=STUDENT)
print(sheet["14.1"].prompt)
my_g = None  # ← your answer
sheet["14.1"].check(my_g)

# %%
print(sheet["14.2"].prompt)
my_h = None  # ← your answer
sheet["14.2"].check(my_h)

# %% [markdown]
# **14.3** A refreshed absolute-error leaf (section 4).

# %%
print(sheet["14.3"].prompt)
my_leaf = None  # ← your answer
sheet["14.3"].check(my_leaf)

# %% [markdown]
# **14.4** A Poisson leaf and `max_delta_step` (section 5).

# %%
print(sheet["14.4"].prompt)
my_capped = None  # ← your answer
sheet["14.4"].check(my_capped)

# %% [markdown]
# **14.5** Why?

# %%
print(sheet["14.5"].prompt)
my_why = None  # ← your answer
sheet["14.5"].check(my_why)
