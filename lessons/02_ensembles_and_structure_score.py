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
# # Lesson 2 — Ensembles, the structure score, pruning and shrinkage
#
# This lesson follows the CSC411 slides *Ensemble methods / Gradient Boost Tree* (seed 002)
# in their order:
#
# | slides | what you will do here |
# |---|---|
# | Why ensemble? | compute the majority-vote errors 21.6 %, 64.8 %, 2.6 % and 82.6 % and plot them |
# | Taylor expansion, "think of square loss" | compare the slides' g = 2(ŷ−y), h = 2 with XGBoost's g = ŷ−y, h = 1 |
# | Define complexity of a tree | evaluate Ω = 3γ + ½λ(4 + 0.01 + 1) |
# | The structure score calculation | work the five-instance table by hand, then check it |
# | Categorical variables | one-hot encode a text column and score its splits |
# | Pruning and regularization | grow the same tree with pre-stopping and with post-pruning |
# | Recap: shrinkage ε ≈ 0.1 | compare learning rates on held-out data |

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# %% [markdown]
# ## 1. Why an ensemble?
#
# Three people vote; each is wrong 30 % of the time, independently of the others. The vote
# is wrong when at least two of them are:
#
# $$\binom{3}{2}(0.3)^2(0.7) + \binom{3}{3}(0.3)^3 = 21.6\,\%.$$

# %%
p = 0.3
by_hand = math.comb(3, 2) * p**2 * (1 - p) + math.comb(3, 3) * p**3
print(f"three voters at 30 %: {by_hand:.1%}")

# %% [markdown]
# `tg.plot.majority_vote_error` sums the same binomial terms for any number of voters. The
# slides' four numbers:

# %%
for n_voters in (3, 21):
    for p in (0.3, 0.6):
        err = tg.plot.majority_vote_error(p, n_voters)
        print(f"{n_voters:2d} voters, each wrong {p:.0%}: the majority is wrong {err:.1%}")

# %% [markdown]
# The vote helps only when each voter is better than a coin (p < 0.5), and then more voters
# help more; above 0.5 it makes things worse. The plot shows the whole curve:

# %%
ax = tg.plot.vote_error([0.3, 0.6], [3, 21])
ax.set_ybound(lower=-0.05)  # room below 0 for the 2.6 % label

# %% [markdown]
# The formula assumes the voters err *independently*: "we want each individual accurate and
# make different errors". Three copies of one voter are no better than one. A quick
# simulation of 100 000 questions makes the point:

# %%
rng = np.random.default_rng(0)
wrong = rng.random((100_000, 3)) < 0.3  # three independent voters
copies = np.repeat(wrong[:, :1], 3, axis=1)  # one voter, three times
print(f"independent voters: {np.mean(wrong.sum(axis=1) >= 2):.1%}")
print(f"identical voters:   {np.mean(copies.sum(axis=1) >= 2):.1%}")

# %% [markdown]
# Boosting builds its voters on purpose to make *different* errors: each new tree is fitted
# to what the ensemble so far gets wrong.
#
# ## 2. g and h for the square loss — and a factor of 2
#
# The slides expand the loss to second order around the previous prediction and, "if you are
# not comfortable with this, think of square loss": for $l = (y_i - \hat y_i)^2$,
#
# $$g_i = 2(\hat y_i - y_i), \qquad h_i = 2.$$
#
# XGBoost (and teachgbt) define the squared error with a ½ in front,
# $l = \tfrac12 (y_i-\hat y_i)^2$, so that $g_i = \hat y_i - y_i$ and $h_i = 1$. On the
# ice-cream toy data (eight days at a kiosk) the trace shows XGBoost's convention:

# %%
X, sold = tg.datasets.ice_cream_xy()
params = dict(n_estimators=2, max_depth=2, learning_rate=0.3, min_child_weight=0, base_score=40)
xgb_style = tg.BoostingRegressor(reg_lambda=1, **params).fit(X, sold)
xgb_style.trace_.instances(1)

# %% [markdown]
# Does the convention matter? Doubling every $g_i$ and $h_i$ turns the leaf weight into
#
# $$w^* = -\frac{\sum 2(\hat y_i - y_i)}{\sum 2 + \lambda}
#       = -\frac{\sum (\hat y_i - y_i)}{n + \lambda/2},$$
#
# so the slides' convention with penalty λ gives the trees XGBoost's gives with λ/2: *the
# trees are the same with λ halved*. The objective accepts any function returning $(g, h)$,
# so we can train with the slides' derivatives and λ = 2 and compare with XGBoost's
# convention and λ = 1:


# %%
def slides_square_loss(y, margin):
    return 2 * (margin - y), np.full_like(y, 2.0)


slides_style = tg.BoostingRegressor(reg_lambda=2, objective=slides_square_loss, **params)
slides_style.fit(X, sold)
print("same predictions:", np.allclose(slides_style.predict(X), xgb_style.predict(X)))
slides_style.trace_.instances(1).head(3)

# %% [markdown]
# The weights agree, and every bracket doubles (G² grows 4×, H + λ grows 2×): the slides'
# ½[…] is exactly XGBoost's `loss_chg`. That is why the slides' γ and XGBoost's `gamma` are
# the same number — a split stays when ½[…] ≥ γ in the slides, when `loss_chg` ≥ `gamma` in
# XGBoost. (Seed 000 writes the loss with the ½, so its γ is `gamma / 2`: lesson 4.)

# %%
both = pd.DataFrame(
    {
        "XGBoost loss_chg (λ=1)": xgb_style.trace_.nodes(1)["loss_chg"],
        "slides' ½[…] (λ=2)": 0.5 * slides_style.trace_.nodes(1)["loss_chg"],
        "XGBoost w* (λ=1)": xgb_style.trace_.nodes(1)["weight"],
        "slides' w* (λ=2)": slides_style.trace_.nodes(1)["weight"],
    }
)
both.round(3)

# %% [markdown]
# ## 3. The complexity of a tree
#
# The slides price a tree by its number of leaves $T$ and the size of its leaf weights,
# $\Omega(f) = \gamma T + \tfrac12\lambda\sum_j w_j^2$. Their example tree has three leaves
# with weights 2, 0.1 and −1 (the "likes computer games" tree of lesson 1):
#
# $$\Omega = \gamma \cdot 3 + \tfrac12 \lambda (4 + 0.01 + 1).$$

# %%
w = np.array([2.0, 0.1, -1.0])
print("Σ w² =", round(float(np.sum(w**2)), 4))
for gamma, lam in [(0.0, 1.0), (1.0, 1.0)]:
    omega = gamma * w.size + 0.5 * lam * np.sum(w**2)
    print(f"γ = {gamma}, λ = {lam}:  Ω = {gamma}·3 + ½·{lam}·5.01 = {omega:.3f}")

# %% [markdown]
# ## 4. The structure score, five instances
#
# The slides' table: five family members with gradient statistics $g_i, h_i$, and a tree that
# asks "age < 15?" and then "is male?". Instance 1 (the boy) lands in leaf 1, instance 4
# (the girl) in leaf 2, instances 2, 3, 5 (mom, grandpa, grandma) in leaf 3.
#
# To have numbers, say the previous rounds predicted $\hat y_i = 0$ and the targets are the
# first tree's scores from lesson 1 (2 for the boy, 0.1 for the girl, −1 for the adults).
# With the squared error, $g_i = \hat y_i - y_i$ and $h_i = 1$:

# %%
five = pd.DataFrame(
    {"age": [10, 38, 75, 8, 72], "is_male": [1, 0, 1, 0, 0]},
    index=pd.Index([1, 2, 3, 4, 5], name="instance"),
)
five["y"] = [2.0, -1.0, -1.0, 0.1, -1.0]
five["g"] = 0.0 - five["y"]
five["h"] = 1.0
five["leaf"] = np.where(five["age"] < 15, np.where(five["is_male"] == 1, 1, 2), 3)
five.round(2)

# %% [markdown]
# **By hand**: $G_1 = g_1$, $G_2 = g_4$, $G_3 = g_2 + g_3 + g_5$, the same for $H$; with
# λ = 1 and γ = 0,
#
# $$\text{Obj} = -\tfrac12\left[\frac{G_1^2}{H_1+\lambda} + \frac{G_2^2}{H_2+\lambda}
#   + \frac{G_3^2}{H_3+\lambda}\right] + 3\gamma
#   = -\tfrac12\left[\frac{4}{2} + \frac{0.01}{2} + \frac{9}{4}\right] = -2.1275 .$$
#
# (The slide with this table prints the formula without the ½; the slides before and after
# it, and XGBoost, have the ½. The smaller the score, the better the structure.)

# %%
sums = five.groupby("leaf")[["g", "h"]].sum().rename(columns={"g": "G", "h": "H"})
sums["G²/(H+λ)"] = sums["G"] ** 2 / (sums["H"] + 1)
sums["w* = −G/(H+λ)"] = -sums["G"] / (sums["H"] + 1)
print(sums)
print("Obj =", -0.5 * sums["G²/(H+λ)"].sum())

# %%
print(tg.formulas.structure_score(sums["G"], sums["H"], reg_lambda=1, gamma=0))

# %%
tg.check.structure_score(-2.13, G=sums["G"], H=sums["H"], reg_lambda=1)

# %% [markdown]
# Now let teachgbt grow the tree itself from these five rows. It reaches the *same three
# leaves* with a different second question: "age < 9?" separates the girl from the boy as
# well as "is male?" does, and with equal gains the first feature wins. Same leaves, same
# $G_j, H_j$, same structure score.

# %%
fitted = tg.BoostingRegressor(
    n_estimators=1, max_depth=2, learning_rate=1, min_child_weight=0, base_score=0
).fit(five[["age", "is_male"]], five["y"])
print(fitted.trees_[0])
leaves = fitted.trace_.nodes(1).query("is_leaf")
print("structure score:", tg.formulas.structure_score(leaves["G"], leaves["H"], reg_lambda=1))

# %% [markdown]
# ## 5. Greedy growth and categorical variables
#
# Since there are too many tree shapes to score them all, the tree is grown greedily: for each
# leaf, each feature, sort and scan (lesson 1), keep the best split. Sorting costs
# $O(n \log n)$ per feature and level, hence $O(n\,d\,K \log n)$ for a tree of depth $K$.
#
# Trees split on numbers. A text column such as the ice-cream data's `weather` becomes one
# 0/1 column per category (one-hot encoding); "weather_sunny < 0.5" then asks "is it not
# sunny?", and its gain comes from the same formula as any other split:

# %%
days = tg.datasets.ice_cream()
tg.datasets.one_hot(days.drop(columns="ice_creams_sold"))

# %%
root = xgb_style.trace_.splits(1, 0)
root[root["feature"].str.startswith("weather")].round(3)

# %% [markdown]
# At the root, temperature wins (see `root` for all candidates); deeper trees use the
# weather columns too. With many categories the one-hot columns are mostly zeros — sparse
# data, which XGBoost handles specially (lesson 4).
#
# ## 6. Pruning: pre-stopping vs post-pruning
#
# A split's gain can be negative: when the loss it saves is less than the price γ of the
# extra leaf. (teachgbt's `gain` column is ½(`loss_chg` − `gamma`), so its sign says what
# `gamma` decides.) Two ways to act on that:
#
# * **pre-stopping**: do not make a split whose gain is too small — but a poor split can
#   open the way to excellent ones below it;
# * **post-pruning**: grow to full depth first, then undo, from the bottom up, every split
#   whose two children are leaves and whose gain is too small.
#
# The classic case is an XOR pattern: the target is high when exactly one of `x1`, `x2` is
# above ½. Splitting on either feature alone helps almost nothing; splitting on both helps a
# lot.

# %%
grid = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
x1, x2 = (a.ravel() for a in np.meshgrid(grid, grid))
xor = pd.DataFrame({"x1": x1, "x2": x2})
high1, high2 = x1 > 0.5, x2 > 0.5
target = np.where(high1 ^ high2, 2.0, np.where(high1 & high2, 0.5, 0.0))

full = tg.BoostingRegressor(n_estimators=1, max_depth=2, learning_rate=1.0).fit(xor, target)
full.trace_.nodes(1)[["node", "feature", "threshold", "n", "gain", "loss_chg"]].round(3)

# %% [markdown]
# The root split is worth only 0.97 (`loss_chg`), its children 30.1 and 16.9. With
# `gamma=5` both strategies see a root that does not pay for itself; `pruning="pre"` stops
# there, `pruning="post"` first grows the children and then keeps everything, because no
# split with two leaf children is below `gamma`:

# %%
for how in ("pre", "post"):
    m = tg.BoostingRegressor(
        n_estimators=1, max_depth=2, learning_rate=1.0, gamma=5.0, pruning=how
    ).fit(xor, target)
    mse = np.mean((target - m.predict(xor)) ** 2)
    print(f'pruning="{how}": leaves {m.trees_[0].n_leaves}, training MSE {mse:.3f}')
    print(m.trees_[0], "\n")

# %% [markdown]
# Note the root's `gain`, ½(0.97 − 5) ≈ −2.02, in the post-pruned tree: negative, yet kept,
# because of what it made possible. Post-pruning removes only a split whose two children are
# leaves, so a negative gain survives only above a split that is kept. (XGBoost's `exact`
# method post-prunes, its `hist` method pre-stops.)
#
# ## 7. Shrinkage
#
# The slides' recap: each round computes $g_i, h_i$, grows a tree greedily with the
# structure score, and adds it — but usually only a fraction of it,
#
# $$\hat y^{(t)} = \hat y^{(t-1)} + \epsilon f_t(x), \qquad \epsilon \approx 0.1,$$
#
# so that no single tree commits the model too far and later rounds have room to correct.
# In teachgbt and XGBoost ε is `learning_rate` (η). Trees store η·w*, as the `value` column:

# %%
xgb_style.trace_.nodes(1).query("is_leaf")[["node", "weight", "value"]].round(3)

# %% [markdown]
# On generated data with a held-out half, compare three step sizes over 200 rounds:

# %%
rng = np.random.default_rng(7)


def make_data(n):
    Z = rng.uniform(-2, 2, size=(n, 4))
    y = np.sin(2 * Z[:, 0]) + Z[:, 1] ** 2 + 0.5 * Z[:, 2] * Z[:, 3] + rng.normal(0, 0.4, n)
    return pd.DataFrame(Z, columns=["x1", "x2", "x3", "x4"]), y


X_train, y_train = make_data(300)
X_valid, y_valid = make_data(300)

fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharey=True, layout="constrained")
for eta, ax in zip((1.0, 0.3, 0.1), axes):
    m = tg.BoostingRegressor(n_estimators=200, max_depth=3, learning_rate=eta)
    m.fit(X_train, y_train, eval_set=[(X_valid, y_valid)])
    tg.plot.loss_curve(m, ax=ax)
    ax.set_title(f"learning_rate = {eta}")
    rmse = m.evals_result_["validation_0"]["rmse"]
    print(f"η = {eta}: best held-out RMSE {min(rmse):.3f} at round {int(np.argmin(rmse)) + 1}")

# %% [markdown]
# With η = 1 the training error collapses within a few rounds while the held-out error
# stalls early at a higher level; smaller steps take more rounds but end lower on held-out
# data. With η = 0.1, 200 rounds are not quite enough yet.
#
# ## What you have seen
#
# * A majority vote of independent, better-than-chance voters beats each voter: 21.6 % →
#   2.6 % from 3 to 21 voters at 30 %; worse-than-chance voters make it worse.
# * The slides' square loss has g = 2(ŷ − y), h = 2; XGBoost's has the ½, g = ŷ − y, h = 1;
#   the trees agree once λ is halved, and the slides' γ is XGBoost's `gamma`.
# * The structure score of a fixed tree is a sum over its leaves, easy to work by hand.
# * Categorical features become one-hot columns; pre-stopping can miss what post-pruning
#   keeps; shrinkage trades rounds for accuracy.

# %%
plt.close("all")
