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
# # Lesson 1 — Elements of supervised learning
#
# **Goals.** By the end you can say what a *model*, its *parameters* Θ and an *objective*
# are; compute the square and the logistic loss by hand; say why the objective always adds
# a regularization term to the training loss; and read seed 000's step-function picture as
# the bias–variance trade-off.
#
# This lesson follows the first section of XGBoost's *Introduction to Boosted Trees*
# (seed 000) and the "Recap: supervised learning" slides of CSC411 (seed 002):
#
# | tutorial section | what you do here |
# |---|---|
# | Model and parameters (000; 002 "Recap") | predict with a linear model ŷ = Σ_j w_j x_ij; read ŷ as a score or, through σ, a probability |
# | Objective = training loss + regularization (000; 002 "Objective function") | compute the square loss, the logistic loss, and the L2 and L1 penalties of Θ |
# | The step-function picture (000) | fit steps to points over time; compare a wiggly, a too-simple and a regularized fit |
# | Bias–variance trade-off (000) | measure each fit on fresh data from the same process |
# | Exercises | a square loss, a logistic loss, the complexity of a tree and a why-question, checked by `tg.check` |
#
# Lesson 2 moves on to trees and ensembles. Every number the text states is checked by an
# `assert` in a cell, so the text stays true.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. Model and parameters
#
# A *model* says how a prediction $\hat y_i$ is made from the features $x_i$. The linear
# model is the plainest: $\hat y_i = \sum_j w_j x_{ij}$. Its *parameters*, the part learned
# from data, are the coefficients: $\Theta = \{w_j \mid j = 1, \dots, d\}$.
#
# What $\hat y_i$ means depends on the task: for regression it is the predicted value; for
# logistic regression it is a *score* (log-odds), and $\sigma(\hat y_i) = 1/(1+e^{-\hat y_i})$
# is the probability that the instance is positive; for ranking it orders the instances.

# %%
X_lin = np.array([[1.0, 2.0], [1.0, -1.0], [1.0, 0.5]])  # a constant column and one feature
w = np.array([0.5, 0.75])  # Θ
y_hat = X_lin @ w
p = 1 / (1 + np.exp(-y_hat))
print("ŷ   =", y_hat)
print("σ(ŷ) =", p.round(4))
assert np.allclose(y_hat, [2.0, -0.25, 0.875])

# %% [markdown]
# ## 2. Objective = training loss + regularization
#
# To choose Θ we need a number that says how good it is, the *objective*, and seed 000
# insists it always has two parts:
#
# $$\text{Obj}(\Theta) = L(\Theta) + \Omega(\Theta).$$
#
# The **training loss** $L$ measures how well the model fits the training data. Two losses
# recur throughout the course:
#
# * square loss: $L = \sum_i (y_i - \hat y_i)^2$;
# * logistic loss, for labels 0/1 and scores $\hat y_i$:
#   $L = \sum_i [\,y_i \ln(1+e^{-\hat y_i}) + (1-y_i)\ln(1+e^{\hat y_i})\,]$.
#
# Three instances with labels 1, 0, 1 and scores 2, −1, −0.5:

# %%
y_true = np.array([1.0, 0.0, 1.0])
score = np.array([2.0, -1.0, -0.5])

square_loss = np.sum((y_true - score) ** 2)
per_instance = y_true * np.log1p(np.exp(-score)) + (1 - y_true) * np.log1p(np.exp(score))
logistic_loss = per_instance.sum()
print(f"square loss   = {square_loss:.4f}")
print("logistic loss per instance:", per_instance.round(4), f"  sum = {logistic_loss:.4f}")
assert abs(square_loss - 4.25) < 1e-12
assert abs(logistic_loss - 1.4143) < 1e-4
assert per_instance.argmax() == 2

# %% [markdown]
# The square loss is 1 + 1 + 2.25 = 4.25; the logistic loss is 1.4143, and the third
# instance pays most of it: its label is 1 but its score is negative. (The logistic loss is
# the cross-entropy $-[y\ln p + (1-y)\ln(1-p)]$ written in the score: with
# $p = \sigma(\hat y)$, $-\ln p = \ln(1+e^{-\hat y})$.)

# %%
p_true = 1 / (1 + np.exp(-score))
cross_entropy = -(y_true * np.log(p_true) + (1 - y_true) * np.log(1 - p_true))
assert np.allclose(cross_entropy, per_instance)

# %% [markdown]
# The **regularization** $\Omega$ measures how complicated the model is — "what people usually
# forget to add", says seed 000. The slides give two for a linear model: the L2 norm
# $\Omega(w) = \lambda\|w\|^2$ and the L1 norm (lasso) $\Omega(w) = \lambda\|w\|_1$. For our
# $w = (0.5, 0.75)$ and $\lambda = 1$:

# %%
lam = 1.0
l2, l1 = lam * np.sum(w**2), lam * np.sum(np.abs(w))
print(f"L2: {l2}   L1: {l1}")
print(f"Obj = square loss + L2 = {square_loss + l2}")
assert (l2, l1) == (0.8125, 1.25)

# %% [markdown]
# For trees, Ω will count the leaves and penalise their scores: $\Omega(f) = \gamma T +
# \tfrac12\lambda\sum_j w_j^2$ (lesson 4).
#
# ## 3. The step-function picture
#
# Seed 000 asks you to fit a step function by eye to points measured over time, and marks
# the best fit as the one that is *simple and predictive*. A boosted tree model on one
# feature is exactly such a step function: every tree cuts the time axis at a few thresholds
# and adds a constant between them. Below, someone's interest in a topic changes at two
# moments; the plot shows the fit after a few rounds of boosting.

# %%
rng = np.random.default_rng(0)


def interest_over_time(n):
    t = np.sort(rng.uniform(0, 10, n))
    level = np.where(t < 3, 1.0, np.where(t < 7, 3.0, 2.0))
    return pd.DataFrame({"time": t}), level + rng.normal(0, 0.3, n)


X_time, interest = interest_over_time(40)
stairs = tg.BoostingRegressor(n_estimators=20, max_depth=1, learning_rate=0.5)
stairs.fit(X_time, interest)
ax = tg.plot.staircase(stairs, X_time, interest)

# %% [markdown]
# Which fit is best? The tutorial's picture shows three: one with many tiny steps, one with
# a single step in the wrong place, and the marked one. We grow all three: deep trees with no
# penalty (λ = 0), a single stump, and boosting with a price on every leaf (`gamma`, γ, which
# lesson 4 defines).

# %%
fits = [
    tg.BoostingRegressor(n_estimators=30, max_depth=6, learning_rate=1.0, reg_lambda=0),
    tg.BoostingRegressor(n_estimators=1, max_depth=1, learning_rate=1.0),
    tg.BoostingRegressor(n_estimators=30, max_depth=3, learning_rate=0.5, gamma=1.0),
]
labels = ["many steps: deep trees, no penalty", "too simple: a single stump", "gamma = 1"]
for m in fits:
    m.fit(X_time, interest)
ax = tg.plot.compare_fits(fits, X_time, interest, labels=labels)

# %% [markdown]
# ## 4. Bias and variance, in numbers
#
# The wiggly fit follows the noise: smallest training error, most steps (*low bias, high
# variance*). The stump misses the shape (*high bias*). To see which is *predictive*, measure
# each on 400 fresh points from the same process:

# %%
X_new, interest_new = interest_over_time(400)
rows = []
for m, label in zip(fits, labels):
    steps = np.unique(np.concatenate([tree.threshold[~tree.is_leaf] for tree in m.trees_]))
    rows.append(
        {
            "fit": label,
            "steps": steps.size,
            "training MSE": np.mean((interest - m.predict(X_time)) ** 2),
            "fresh-data MSE": np.mean((interest_new - m.predict(X_new)) ** 2),
        }
    )
table = pd.DataFrame(rows).set_index("fit")
table.round(3)

# %%
wiggly, stump, regularized = table.index
assert table["training MSE"].idxmin() == wiggly
assert table["fresh-data MSE"].idxmin() == regularized
assert table.loc[wiggly, "steps"] > table.loc[regularized, "steps"] > table.loc[stump, "steps"]

# %% [markdown]
# The regularized fit wins on fresh data even though the wiggly one wins on the training
# data: the trade-off between *predictive* (small L) and *simple* (small Ω) is the
# bias–variance trade-off, and the objective L + Ω is how boosting states it.
#
# Seed 000 ends the section by asking what boosted trees and random forests have in common.
# With these elements the answer is short: the same *model* (a sum of trees, lesson 2),
# different ways of *training* it (lesson 3).
#
# ## 5. Your turn
#
# Each exercise prints its numbers (yours, if you set `STUDENT` at the top). Replace `None`
# with your answer, to 3 significant digits, and run the cell: an answer within 1 % of the
# value is right (the prompt says so, with the least it allows near 0). A wrong answer gets
# the likely slip or a hint, and you try again; `reveal=True` in the `check` call shows the
# value and the worked solution.
#
# **Exercise 1.1.** A square loss $\sum_i (y_i - \hat y_i)^2$.

# %%
sheet = tg.exercises.sheet(1, student=STUDENT)
print(sheet["1.1"].prompt)

# %%
my_square_loss = None  # ← your answer
sheet["1.1"].check(my_square_loss)

# %% [markdown]
# **Exercise 1.2.** A logistic loss of two instances, with the natural logarithm.

# %%
print(sheet["1.2"].prompt)
my_logistic_loss = None  # ← your answer
sheet["1.2"].check(my_logistic_loss)

# %% [markdown]
# **Exercise 1.3.** The complexity of a tree, seed 000's
# $\Omega(f) = \gamma T + \tfrac12\lambda\sum_j w_j^2$.

# %%
print(sheet["1.3"].prompt)
my_omega = None  # ← your answer
sheet["1.3"].check(my_omega)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["1.4"].prompt)
my_why = None  # ← your answer
sheet["1.4"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * A model makes ŷ from x; its parameters Θ are what is learned.
# * The objective is training loss plus regularization; the square loss and the logistic
#   loss are the two the course uses.
# * A boosted model on one feature is a step function; the simple and predictive fit beats
#   the wiggly one on fresh data.
#
# Next: lesson 2, trees with a score on every leaf, and ensembles of them.

# %%
plt.close("all")
