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
# # Lesson 3 — A GBDT classifier, step by step (Troll 2)
#
# This lesson follows the blog post *一步步透視 GBDT Classifier* ("GBDT classifier step by
# step", seed 004). Six people, three features, one question — do they love the film
# *Troll 2*? — and two boosting rounds computed in full:
#
# | seed 004 | what you will do here |
# |---|---|
# | Input data and loss function | load the data, one-hot encode the colour |
# | Step 1: F₀ = log(odds) = 0.69, probability 0.67 | compute it, and check that no other constant does better |
# | Step 2 (A)–(D), epochs 1 and 2 | print the full walkthrough and the `ep_…` table |
# | (C) leaf output Σresidual / Σp(1−p) | work a leaf by hand and check it |
# | The math behind: residual, log-odds, leaf formula | verify each claim numerically |
# | (video) leaf outputs 1.4, −1, −3.3 | see why they are 1.5, −0.75, −3.0 unrounded |
#
# Then the same data through XGBoost-style boosting, side by side, and a cross-check against
# scikit-learn.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# %% [markdown]
# ## 1. The data
#
# The target `love_troll2` is yes/no; the features are `like_popcorn` (yes/no), `age` and
# `favorite_color`. (The seed's code spells one colour `gree`; it is `green` here.)

# %%
tg.datasets.troll2()

# %% [markdown]
# Trees split on numbers, so the text column becomes one 0/1 column per colour:

# %%
X, y = tg.datasets.troll2_xy()
X.assign(love_troll2=y)

# %% [markdown]
# ## 2. Step 1: the starting value F₀ = log(odds)
#
# A GBDT classifier predicts **log-odds**, $F(x) = \log\frac{p}{1-p}$, and turns them into a
# probability with the sigmoid, $p = \sigma(F) = 1/(1+e^{-F})$. Before any tree, every
# person gets the same value: the log of the odds of the positive class. Four of six love the
# film:

# %%
n_pos, n_neg = int(y.sum()), int((~y).sum())
F0 = np.log(n_pos / n_neg)
p0 = 1 / (1 + np.exp(-F0))
print(f"F0 = log({n_pos}/{n_neg}) = {F0:.2f}    probability σ(F0) = {p0:.2f}")

# %% [markdown]
# Why log(odds)? F₀ is the constant $\gamma$ that makes the total cross entropy
# $\sum_i -[y_i \log p + (1-y_i)\log(1-p)]$, $p = \sigma(\gamma)$, as small as possible.
# Scan a grid of constants and see where the minimum falls:

# %%
yv = y.to_numpy(dtype=float)
gammas = np.linspace(-1, 2, 3001)
p_grid = 1 / (1 + np.exp(-gammas))
total = -(yv[:, None] * np.log(p_grid) + (1 - yv[:, None]) * np.log(1 - p_grid)).sum(axis=0)
best = gammas[np.argmin(total)]
print(f"best constant on the grid: {best:.3f}    log(4/2) = {F0:.3f}")

# %% [markdown]
# Setting the derivative $\sum_i (\sigma(\gamma) - y_i)$ to zero gives $\sigma(\gamma) = 4/6$,
# the share of positives, hence $\gamma = \log(4/2)$.
#
# ## 3. The walkthrough
#
# `tg.walkthrough.troll2()` runs the seed's whole procedure with its settings — learning
# rate ν = 0.8, trees of depth 2, two epochs — and prints each step: (A) the residuals,
# (B) the regression tree fitted to them, (C) each leaf's output with the formula filled in,
# (D) the updated log-odds and probabilities. It ends with the XGBoost-style comparison we
# come back to in section 6.

# %%
walk = tg.walkthrough.troll2()
print(walk)

# %% [markdown]
# ## 4. The epoch table
#
# The same numbers come from an ordinary estimator: `algorithm="gbdt"` is Friedman's GBDT,
# the algorithm of seed 004. Its trace has the seed's own column names.

# %%
gbdt = tg.BoostingClassifier(algorithm="gbdt", n_estimators=2, learning_rate=0.8, max_depth=2)
gbdt.fit(X, y)
epochs = gbdt.trace_.epochs()
epochs.round(6)

# %% [markdown]
# Reading one row, the boy of 12 who likes popcorn and blue: he starts at `ep_0_pre` = 0.69;
# his residual is 1 − 0.67 = 0.33; tree 1 puts him in a leaf worth 1.5; his log-odds become
# 0.69 + 0.8 × 1.5 = 1.893147 and his probability 0.87.

# %%
row0 = epochs.loc[0]
print(
    f"ep_0_pre + ν·ep_1_leaf_output = {row0['ep_0_pre']:.6f} + 0.8 × {row0['ep_1_leaf_output']:g}"
)
print(f"                              = {row0['ep_0_pre'] + 0.8 * row0['ep_1_leaf_output']:.6f}")

# %% [markdown]
# ### (A) The residual is minus the gradient
#
# The residual is observed minus predicted probability, $y - p$. The derivative of the cross
# entropy with respect to the log-odds is $p - y$, so the residual is minus the gradient:
# each tree takes a step downhill. A finite difference confirms it for every row:


# %%
def cross_entropy(y_true, F):
    return np.log1p(np.exp(F)) - y_true * F


eps = 1e-6
slope = (cross_entropy(yv, F0 + eps) - cross_entropy(yv, F0 - eps)) / (2 * eps)
pd.DataFrame({"ep_1_residual": epochs["ep_1_residual"], "-dL/dF": -slope}).round(6)

# %% [markdown]
# ### (C) The leaf output
#
# Each leaf of the new tree outputs
#
# $$\gamma_j = \frac{\sum_{i \in R_j} \text{residual}_i}{\sum_{i \in R_j} p_i (1 - p_i)},$$
#
# with $p_i$ the previous epoch's probability. Leaf 3 of tree 1 holds rows 0, 4 and 5, each
# with residual 1/3 and $p(1-p) = \tfrac23 \cdot \tfrac13 = \tfrac29$:

# %%
in_leaf = epochs["ep_1_leaf_index"] == 3
res = epochs.loc[in_leaf, "ep_1_residual"]
pq = epochs.loc[in_leaf, "ep_0_prob"] * (1 - epochs.loc[in_leaf, "ep_0_prob"])
print(f"rows {list(res.index)}: {res.sum():.4f} / {pq.sum():.4f} = {res.sum() / pq.sum():.4f}")

# %% [markdown]
# Now you: compute a cell of the table by hand and let `tg.check.epoch` mark it. Try row 2's
# leaf output in epoch 1 (row 2 is in leaf 4 with row 1), and row 1's probability after
# epoch 2. Change the answers to your own and run the cells.

# %%
tg.check.epoch(-0.75, gbdt, "ep_1_leaf_output", row=2)

# %%
print(tg.check.epoch(0.84, gbdt, "ep_2_prob", row=1))

# %% [markdown]
# ### Where the leaf formula comes from
#
# Inside one leaf we look for the single value γ that lowers
# $\sum_{i\in R_j} L(y_i, F_{m-1}(x_i) + \gamma)$ most. That has no closed form, so the seed
# expands the loss to second order around $F_{m-1}$: first derivative $p_i - y_i$, second
# derivative $p_i(1-p_i)$. The quadratic's minimum is one Newton step,
# $\gamma = \sum (y_i - p_i) / \sum p_i(1-p_i)$ — the formula above; it is also XGBoost's
# $w^* = -G/(H+\lambda)$ with λ = 0.
#
# It is a *step*, not the exact optimum. In leaf 4 (one lover, one hater) the exact optimum
# brings the probability to ½, γ = −0.693; the Newton step says −0.75. In leaf 3 all three
# love the film, so the exact optimum is +∞ — the Newton step's finite 1.5 is what keeps the
# model sane.

# %%
rows_leaf4 = epochs.index[epochs["ep_1_leaf_index"] == 4]
grid = np.linspace(-3, 3, 60001)
loss4 = sum(cross_entropy(yv[i], F0 + grid) for i in rows_leaf4)
print(f"leaf 4: exact optimum γ = {grid[np.argmin(loss4)]:.3f}, Newton step = {-0.75}")

# %% [markdown]
# ## 5. The StatQuest video's numbers
#
# The same example appears in StatQuest's video on gradient boosting for classification,
# whose first tree has leaf outputs **1.4, −1 and −3.3**. They are 1.5, −0.75 and −3.0: the
# video rounds the starting probability 2/3 to 0.7 before dividing.

# %%
leaves = {"leaf 3 (rows 0, 4, 5)": [1, 1, 1], "leaf 4 (rows 1, 2)": [1, 0], "leaf 2 (row 3)": [0]}
for name, labels in leaves.items():
    labels = np.array(labels, dtype=float)
    for p in (0.7, 2 / 3):
        out = np.sum(labels - p) / np.sum(np.full(labels.size, p * (1 - p)))
        print(
            f"{name:22s} p = {p:.4f}: {np.sum(labels - p):+.3f} / {labels.size * p * (1 - p):.3f}"
            f" = {out:+.3f}"
        )

# %% [markdown]
# With every digit kept, as teachgbt and scikit-learn keep them, row 0's log-odds after epoch
# 1 is log(2) + 0.8 × 1.5 = 1.893147.
#
# ## 6. Pictures of the two epochs
#
# The trees themselves (each leaf shows the probability its value alone would give):

# %%
tg.draw.draw_model(gbdt)

# %% [markdown]
# Each person's probability and residual, epoch by epoch: the lovers climb towards 1, the
# haters fall towards 0, and most residuals shrink. Row 3's grows a little in epoch 2: the
# second tree puts this hater in one leaf with three lovers.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
tg.plot.probabilities(gbdt, ax=ax1)
ax = tg.plot.residuals(gbdt, ax=ax2)

# %% [markdown]
# ## 7. The same data, XGBoost-style
#
# With `algorithm="xgboost"` the leaves get the same Newton value (with λ = 0), but the
# *splits* are chosen differently: GBDT fits the residuals by squared error, counting every
# row alike; XGBoost's gain weighs each row by its hessian $p(1-p)$. In epoch 1 all rows
# have the same $p$, so the two agree; in epoch 2 they part.

# %%
cmp = tg.walkthrough.troll2_compare()
cmp.rounds.round(4)

# %%
cmp.root_candidates(2).round(4)

# %% [markdown]
# GBDT scores each side of a split by (Σ residual)² over its *row count*, XGBoost over its
# *hessian sum*. GBDT's favourite, `age < 65.5`, puts row 1 (the largest residual) alone.
# XGBoost prefers `favorite_color_green < 0.5`, which pairs row 1 with row 4: row 4 is
# already confident (p = 0.87), its hessian 0.11 is small, so it dilutes the pair much less
# for XGBoost than for GBDT. The predictions after epoch 2:

# %%
cmp.instances.round(4)

# %% [markdown]
# ## 8. Cross-check with scikit-learn
#
# scikit-learn's `GradientBoostingClassifier` is the same algorithm; with the same settings
# its log-odds after each stage match the epoch table. (scikit-learn is optional; the cell
# says so if it is missing.)

# %%
try:
    from sklearn.ensemble import GradientBoostingClassifier
except ImportError:
    print("scikit-learn is not installed: pip install scikit-learn to run this check")
else:
    sk = GradientBoostingClassifier(n_estimators=2, learning_rate=0.8, max_depth=2).fit(X, y)
    stages = [s.ravel() for s in sk.staged_decision_function(X)]
    check = pd.DataFrame(
        {
            "sklearn stage 1": stages[0],
            "ep_1_pre": epochs["ep_1_pre"],
            "sklearn stage 2": stages[1],
            "ep_2_pre": epochs["ep_2_pre"],
        }
    )
    print(check.round(6))
    print(
        "agree to 1e-9:",
        np.allclose(stages[0], epochs["ep_1_pre"], atol=1e-9)
        and np.allclose(stages[1], epochs["ep_2_pre"], atol=1e-9),
    )

# %% [markdown]
# ## What you have seen
#
# * F₀ is the log-odds of the positive share, log(4/2) = 0.69, probability 0.67: the best
#   constant under cross entropy.
# * The residual y − p is minus the gradient; each tree is a squared-error tree on it.
# * A leaf outputs Σresidual / Σp(1−p), one Newton step; with ν = 0.8 row 0 reaches
#   1.893147 after epoch 1.
# * The video's 1.4, −1, −3.3 are 1.5, −0.75, −3.0 with p = 2/3 unrounded.
# * XGBoost-style boosting values leaves the same way but ranks splits by hessian-weighted
#   gain, so its trees part from GBDT's once the probabilities differ.

# %%
plt.close("all")
