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
# # Lesson 6 — GBDT regression, step by step
#
# Seed 004 (*一步步透視 GBDT Classifier*) opens by pointing to its regression twin: "GBDT
# classification tree algorithm 跟 regression tree 並無不同" — the classification algorithm
# is no different from the regression one. This lesson does the regression version on a
# toy of eight days at an ice-cream kiosk, with seed 004's steps and column names, so that
# lesson 7's classifier has only one new idea left: log-odds.
#
# **Goals.** By the end you can start a GBDT regressor from the mean, compute residuals,
# read a regression tree fitted to them, give each leaf the mean of its residuals, apply
# the learning rate, and say what shrinkage buys.
#
# | tutorial | what you do here |
# |---|---|
# | seed 004, Step 1: initialize with a constant $F_0$ | F₀ = the mean of y, and why (exercise 1) |
# | seed 004, Step 2 (A): residuals of $F_{m-1}$ | compute them (exercise 2), see them as minus the gradient |
# | seed 004, Step 2 (B): a regression tree on the residuals | read tree 1 and its splits |
# | seed 004, Step 2 (C): each leaf's output | the mean residual of the leaf (exercise 3) |
# | seed 004, Step 2 (D): $F_m = F_{m-1} + \nu f_m$ | update with ν = 0.8 (exercise 4) |
# | seed 003, forward stagewise additive modelling; seed 002, shrinkage ε ≈ 0.1 | compare learning rates |
# | — | a why-question (exercise 5) |
#
# One picture per step.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. The data
#
# Eight days: the temperature (°C), whether it was a weekend, the weather (text), and the
# number of ice creams sold. The weather column is one-hot encoded, as in lesson 7.

# %%
X, y = tg.datasets.ice_cream_xy()
tg.datasets.ice_cream()

# %% [markdown]
# `tg.walkthrough.ice_cream()` runs seed 004's procedure with its settings — learning rate
# ν = 0.8, trees of depth 2, two epochs — and lays out every step. We go through it piece by
# piece below, exercises first; the whole of it is shown at the end of section 6.

# %%
walk = tg.walkthrough.ice_cream(compare=False)
model = walk.model
epochs = model.trace_.epochs()
sheet = tg.exercises.sheet(6, student=STUDENT)  # your numbers if STUDENT is set

# %% [markdown]
# ## 2. Step 1: F₀ is the mean
#
# Before any tree every day gets the same prediction F₀. Which constant is best for the
# squared error $\sum_i \tfrac12 (y_i - F_0)^2$? Its derivative $\sum_i (F_0 - y_i)$ is zero
# when $F_0 = \frac1n \sum_i y_i$: the mean.
#
# **Exercise 1.** F₀, the epoch table's `ep_0_pre` (the same on every row). The cell prints
# the days (yours, if you set `STUDENT` at the top). Replace `None` with your number, to 3
# significant digits (within 1 % of the value is right), and run the cell: a wrong answer
# gets the likely slip or a hint; `reveal=True` in the `check` call shows the value and the
# worked solution.

# %%
print(sheet["6.1"].prompt)
my_F0 = None  # ← your answer
sheet["6.1"].check(my_F0)

# %% [markdown]
# The sales add up to 286, so F₀ = 286 / 8 = 35.75:

# %%
F0 = y.mean()
print(f"F0 = {y.sum()} / {len(y)} = {F0}")
assert y.sum() == 286 and F0 == 35.75 and np.allclose(epochs["ep_0_pre"], 35.75)

fig, ax = plt.subplots(figsize=(7, 3.2), layout="constrained")
ax.bar(X.index, y, color="tab:blue", label="ice creams sold")
ax.axhline(F0, color="black", ls="--", label="F₀ = mean = 35.75")
ax.set(xlabel="day (row)", ylabel="ice creams", title="Step 1: every day starts at the mean")
ax.legend()
plt.show()

# %% [markdown]
# ## 3. (A) The residuals
#
# The residual is observed minus predicted, $y - F_0$. For the squared error
# $L = \tfrac12(y - F)^2$ it is exactly minus the gradient, $-\frac{dL}{dF} = y - F$, so a
# tree fitted to the residuals points downhill: seed 003 calls this steepest descent in
# function space. The hot days are above the mean, the cold ones below.
#
# **Exercise 2.** One day's residual in epoch 1, `ep_1_residual`.

# %%
print(sheet["6.2"].prompt)
my_residual = None  # ← your answer
sheet["6.2"].check(my_residual)

# %%
assert np.allclose(epochs["ep_1_residual"], y - F0)
fig, ax = plt.subplots(figsize=(7, 3.2), layout="constrained")
ax.scatter(X["temperature"], epochs["ep_1_residual"])
for i, (t, r) in enumerate(zip(X["temperature"], epochs["ep_1_residual"])):
    ax.annotate(str(i), (t, r), textcoords="offset points", xytext=(4, 4))
ax.axhline(0, color="gray", lw=0.8)
ax.set(xlabel="temperature (°C)", ylabel="residual y − F₀", title="(A) residuals of F₀")
plt.show()

# %% [markdown]
# ## 4. (B) A regression tree on the residuals
#
# Tree 1 is an ordinary squared-error regression tree with the residuals as its target. Its
# root asks `temperature < 20`; each side splits once more on temperature (the leaves' outputs
# are section 5's exercise, so the picture shows only how many days reach each node):

# %%
model.trees_[0].draw(fields=["n"])

# %%
nodes = model.trace_.nodes(1)
assert list(nodes["feature"][:3]) == ["temperature"] * 3
assert list(nodes["threshold"][:3]) == [20.0, 17.5, 23.5]
nodes.loc[~nodes["is_leaf"], ["node", "feature", "threshold", "n", "loss_chg"]].round(4)

# %% [markdown]
# ## 5. (C) Each leaf outputs its mean residual
#
# For the squared error the leaf value that lowers the loss most is the mean of the leaf's
# residuals (the same Newton step as lesson 7's Σresidual / Σp(1−p), with every second
# derivative equal to 1). The cold days 0, 4 and 6 share a leaf:
# (−23.75 − 15.75 − 18.75) / 3 = −19.416667.
#
# **Exercise 3.** Another leaf's output, `ep_1_leaf_output` (the shipped numbers ask for the
# hottest days, 3, 5 and 7).

# %%
print(sheet["6.3"].prompt)
my_leaf = None  # ← your answer
sheet["6.3"].check(my_leaf)

# %%
leaves = walk.rounds[0].leaves
assert np.isclose(leaves.set_index("rows").at["0, 4, 6", "leaf_output"], -58.25 / 3)
for _, leaf in leaves.iterrows():
    rows = epochs["ep_1_leaf_index"] == leaf["leaf"]
    assert np.isclose(leaf["leaf_output"], epochs.loc[rows, "ep_1_residual"].mean())
leaves[["leaf", "rows", "formula"]]

# %% [markdown]
# The picture: each leaf is a flat piece at the mean of the residuals that fall in it.

# %%
fig, ax = plt.subplots(figsize=(7, 3.2), layout="constrained")
ax.scatter(X["temperature"], epochs["ep_1_residual"], label="residual")
grid = pd.DataFrame({c: np.zeros(200) for c in X.columns})
grid["temperature"] = np.linspace(10, 30, 200)
ax.plot(grid["temperature"], model.trees_[0].weight[model.trees_[0].apply(grid.to_numpy())],
        color="tab:orange", label="tree 1's leaf outputs")  # fmt: skip
ax.set(xlabel="temperature (°C)", ylabel="residual", title="(C) leaves = mean residuals")
ax.legend()
plt.show()

# %% [markdown]
# ## 6. (D) The update, with a learning rate
#
# $F_1 = F_0 + \nu f_1$ with ν = 0.8: each day moves 80 % of the way its leaf suggests.
#
# **Exercise 4.** One day's prediction after epoch 1, `ep_1_pre`.

# %%
print(sheet["6.4"].prompt)
my_pre = None  # ← your answer
sheet["6.4"].check(my_pre)

# %% [markdown]
# Epoch 2 repeats (A)–(D) from $F_1$: new residuals, a new tree (it splits on the weather
# this time), new leaf means, $F_2 = F_1 + \nu f_2$. The whole epoch table, in seed 004's
# columns:

# %%
assert np.allclose(epochs["ep_1_pre"], 35.75 + 0.8 * epochs["ep_1_leaf_output"])
assert np.allclose(epochs["ep_2_pre"], epochs["ep_1_pre"] + 0.8 * epochs["ep_2_leaf_output"])
assert model.trace_.nodes(2)["feature"][0] == "weather_sunny"
epochs.round(4)

# %% [markdown]
# And the whole walkthrough at once (`print(walk)` gives plain text instead):

# %%
walk  # noqa: B018  (Jupyter shows the last expression)

# %%
fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
days = np.arange(len(y))
ax.bar(days - 0.3, np.full(len(y), F0), width=0.2, label="F₀")
ax.bar(days - 0.1, epochs["ep_1_pre"], width=0.2, label="F₁")
ax.bar(days + 0.1, epochs["ep_2_pre"], width=0.2, label="F₂")
ax.scatter(days + 0.3, y, color="black", zorder=3, label="sold")
ax.set(xlabel="day (row)", ylabel="ice creams", title="(D) predictions epoch by epoch")
ax.legend(ncols=4, fontsize="small")
plt.show()

# %% [markdown]
# The training error falls with each epoch: the mean of ½(y − F)² drops from 158.47 at F₀
# (2535.5 / 16) to 15.14 after one tree and 1.80 after two.

# %%
half_mse = [0.5 * np.mean((y - epochs[f"ep_{k}_pre"]) ** 2) for k in (0, 1, 2)]
print("½·mean squared error after epochs 0, 1, 2:", np.round(half_mse, 3))
assert np.isclose(half_mse[0], 2535.5 / 16) and [round(v, 2) for v in half_mse] == [
    158.47,
    15.14,
    1.80,
]

# %% [markdown]
# scikit-learn's `GradientBoostingRegressor` is the same algorithm (scikit-learn is
# optional; the cell says so if it is missing):

# %%
try:
    from sklearn.ensemble import GradientBoostingRegressor
except ImportError:
    print("scikit-learn is not installed: pip install scikit-learn to run this check")
else:
    sk = GradientBoostingRegressor(n_estimators=2, learning_rate=0.8, max_depth=2).fit(X, y)
    stages = list(sk.staged_predict(X))
    assert np.allclose(stages[0], epochs["ep_1_pre"]) and np.allclose(stages[1], epochs["ep_2_pre"])
    print("scikit-learn's staged predictions equal ep_1_pre and ep_2_pre")

# %% [markdown]
# ## 7. Shrinkage
#
# Seed 003 calls boosting *forward stagewise additive modelling*: each stage adds one
# function and never revisits the earlier ones. Seed 002 adds: "usually, instead we do
# $y^{(t)} = y^{(t-1)} + \epsilon f_t(x_i)$ … ε is called step-size or shrinkage, usually set
# around 0.1 … we do not do full optimization in each step and reserve chance for future
# rounds, it helps prevent overfitting."
#
# On temperature alone, one tree of depth 1 per round, the model is a step function. With ν
# = 1 it jumps to each round's full correction; with ν = 0.1 it creeps, and after the same
# number of rounds it is smoother and further from the points:

# %%
Xt = X[["temperature"]]
fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), layout="constrained", sharey=True)
for ax, nu in zip(axes, (1.0, 0.1)):
    m = tg.BoostingRegressor(algorithm="gbdt", n_estimators=10, learning_rate=nu, max_depth=1)
    tg.plot.staircase(m.fit(Xt, y), Xt, y, rounds=[1, 3, 10], ax=ax)
    ax.set_title(f"ν = {nu}: after 1, 3 and 10 rounds")
plt.show()

# %% [markdown]
# The training loss per round for three learning rates. Small steps need more rounds; on
# real data they usually generalize better, which is why ε ≈ 0.1 is the default habit.

# %%
fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
final = {}
for nu in (1.0, 0.3, 0.1):
    m = tg.BoostingRegressor(algorithm="gbdt", n_estimators=30, learning_rate=nu, max_depth=1)
    m.fit(Xt, y)
    ep = m.trace_.epochs()  # ep_k_pre: the prediction after k rounds (k = 0: F0)
    loss = [0.5 * np.mean((y - ep[f"ep_{k}_pre"]) ** 2) for k in range(31)]
    ax.plot(loss, label=f"ν = {nu}")
    final[nu] = loss[-1]
ax.set(xlabel="rounds", ylabel="½·mean squared error", yscale="log", title="shrinkage")
ax.legend()
plt.show()
assert final[1.0] < final[0.3] < final[0.1]

# %% [markdown]
# **Exercise 5.** Why? Answer with a letter.

# %%
print(sheet["6.5"].prompt)
my_why = None  # ← your answer
sheet["6.5"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * F₀ is the mean, 286 / 8 = 35.75: the best constant under squared error.
# * The residual y − F is minus the gradient of ½(y − F)²; each tree is a squared-error
#   regression tree on the residuals.
# * A leaf outputs the mean residual of its rows; the update adds ν times it.
# * A small learning rate (shrinkage) takes many small steps instead of a few large ones.
#
# Lesson 7 does the same with a yes/no target: F₀ becomes log(odds), and the leaf's mean
# becomes Σresidual / Σp(1−p).

# %%
plt.close("all")
