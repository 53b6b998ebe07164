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
# # Lesson 7 — A GBDT classifier, step by step (Troll 2)
#
# This lesson follows the blog post *一步步透視 GBDT Classifier* ("GBDT classifier step by
# step", seed 004). Six people, three features, one question — do they love the film
# *Troll 2*? — and two boosting rounds computed in full. Lesson 6 did the same for a
# regressor; here the target is yes/no, so the model predicts log-odds.
#
# **Goals.** By the end you can say why a classifier is trained on cross entropy, compute
# F₀ = log(odds) and its probability, explain why the residual y − p is minus the gradient,
# derive the leaf output Σresidual / Σp(1−p) from a second-order Taylor expansion, and fill
# in cells of the tutorial's epoch table yourself.
#
# | seed 004 | what you do here |
# |---|---|
# | Input data and loss function | load the data, one-hot encode the colour |
# | Q: why cross entropy? | derive it as the negative log-likelihood of Bernoulli labels |
# | Step 1: F₀ = log(odds) and its probability | compute it, and check that no other constant does better (exercise 1) |
# | Q: why is the residual the gradient? | check it by finite differences (exercise 2) |
# | Step 2 (A)–(D), epochs 1 and 2 | read the walkthrough and the `ep_…` table |
# | (C) leaf output Σresidual / Σp(1−p); Q: where does it come from? | derive it, work a leaf by hand (exercise 3) |
# | (D) update with learning rate 0.8 | follow row 0 to 1.893147; one epoch-2 probability (exercise 4) |
# | Step 3: the fitted model F_M(x) | predict a new person end to end: each tree's leaf, the log-odds, the probability (exercise 5) |
# | (video) leaf outputs 1.4, −1, −3.3 | see what they are when 2/3 is not rounded |
# | — | a why-question (exercise 6) |
#
# Then a cross-check against scikit-learn. (Lesson 9 sets this GBDT beside XGBoost-style
# boosting on the same data.)

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
# ## 2. Why cross entropy
#
# The model gives each person a probability $p_i = P(y_i = 1 \mid x_i)$. The labels are
# Bernoulli: person $i$ says yes with probability $p_i$, no with $1-p_i$, which one line
# writes as $p_i^{y_i}(1-p_i)^{1-y_i}$. The likelihood of all six answers is the product,
# and the best model makes it as large as possible. Its logarithm turns the product into a
# sum, and maximizing the log-likelihood is minimizing its negative:
#
# $$-\log \prod_i p_i^{y_i}(1-p_i)^{1-y_i} = \sum_i -[y_i\log p_i + (1-y_i)\log(1-p_i)].$$
#
# Each term is the **cross entropy** of one label — the seed's loss function. Written in the
# log-odds $F = \log\frac{p}{1-p}$, with $p = \sigma(F) = 1/(1+e^{-F})$ and
# $\log(1-p) = -\log(1+e^F)$, it becomes
#
# $$L(y, F) = -yF + \log(1 + e^{F}),$$
#
# whose derivative is simply $\frac{dL}{dF} = -y + \frac{e^F}{1+e^F} = p - y$. Check the two
# forms against each other on a few values:


# %%
def cross_entropy(y_true, F):
    """Seed 004's loss written in the log-odds F: −yF + log(1 + e^F)."""
    return np.log1p(np.exp(F)) - y_true * F


F_try = np.array([-2.0, 0.0, 0.7, 3.0])
for label in (0.0, 1.0):
    p_try = 1 / (1 + np.exp(-F_try))
    bernoulli = -(label * np.log(p_try) + (1 - label) * np.log(1 - p_try))
    assert np.allclose(bernoulli, cross_entropy(label, F_try))
print("−[y log p + (1−y) log(1−p)] equals −yF + log(1 + e^F) for y = 0 and y = 1")

# %% [markdown]
# ## 3. Step 1: the starting value F₀ = log(odds)
#
# Before any tree, every person gets the same log-odds F₀. Which constant? The one with the
# smallest total cross entropy. Its derivative $\sum_i (\sigma(F_0) - y_i)$ is zero when
# $\sigma(F_0) = \frac{1}{n}\sum_i y_i$, the share of positives — here 4 of 6 — so
# $F_0 = \log\frac{4/6}{2/6} = \log\frac{4}{2}$, the log of the odds.
#
# **Exercise 1.** Compute F₀ to 3 significant digits (a calculator is fine; within 1 % of
# the value is right): it is the table's `ep_0_pre`, the same for every row. The cell prints
# the data (yours, if you set `STUDENT` at the top). Replace `None` with your number and run
# the cell: a wrong answer gets the likely slip or a hint; `reveal=True` in the `check` call
# shows the value and the solution. (The lesson's model is fitted in the next cell.)

# %%
gbdt = tg.BoostingClassifier(algorithm="gbdt", n_estimators=2, learning_rate=0.8, max_depth=2)
gbdt.fit(X, y)
epochs = gbdt.trace_.epochs()
sheet = tg.exercises.sheet(7, student=STUDENT)

# %%
print(sheet["7.1"].prompt)
my_F0 = None  # ← your answer
sheet["7.1"].check(my_F0)

# %% [markdown]
# The seed's number, 0.69:

# %%
n_pos, n_neg = int(y.sum()), int((~y).sum())
F0 = np.log(n_pos / n_neg)
print(f"F0 = log({n_pos}/{n_neg}) = {F0:.2f}")
assert (n_pos, n_neg) == (4, 2) and round(F0, 2) == 0.69
assert np.allclose(epochs["ep_0_pre"], F0)

# %% [markdown]
# No other constant does better: scan a grid of constants and see where the total cross
# entropy is smallest.

# %%
yv = y.to_numpy(dtype=float)
grid = np.linspace(-1, 2, 3001)
total = cross_entropy(yv[:, None], grid[None, :]).sum(axis=0)
best = grid[np.argmin(total)]
print(f"best constant on the grid: {best:.3f}    log(4/2) = {F0:.3f}")
assert abs(best - F0) < 1e-3

fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
ax.plot(grid, total)
ax.axvline(F0, ls="--", color="gray")
ax.set(xlabel="constant log-odds F₀", ylabel="total cross entropy", title="F₀ = log(4/2)")
plt.show()

# %% [markdown]
# ## 4. The walkthrough, steps (A)–(D)
#
# `tg.walkthrough.troll2()` runs the seed's whole procedure with its settings — learning
# rate ν = 0.8, trees of depth 2, two epochs — and lays out each step: (A) the residuals,
# (B) the regression tree fitted to them, (C) each leaf's output with the formula filled in,
# (D) the updated log-odds and probabilities. In Jupyter it shows as tables and trees;
# `print(walk)` gives the same as plain text. Its tables hold the answers of exercises 2 to
# 5, so the lesson shows it after them (section 8); here we take the steps one at a time.

# %% [markdown]
# ## 5. (A) The residual is minus the gradient
#
# The residual is observed minus predicted probability, $y - p$. Section 2 found
# $\frac{dL}{dF} = p - y$, so the residual is minus the gradient: each tree is fitted to
# the direction of steepest descent, and $F_m = F_{m-1} + \nu f_m$ is a gradient-descent
# step taken in function space.
#
# **Exercise 2.** One row's residual in epoch 1, `ep_1_residual`: first its probability
# p = σ(F₀), then y − p (the shipped numbers ask for row 2, age 44, who does not love the
# film).

# %%
print(sheet["7.2"].prompt)
my_residual = None  # ← your answer
sheet["7.2"].check(my_residual)

# %% [markdown]
# The seed's probability, 0.67, is every row's before the first tree; a lover's residual is
# 1 − 0.67 = 0.33, a hater's 0 − 0.67. A finite difference confirms that the residual is
# minus the gradient, for every row:

# %%
p0 = 1 / (1 + np.exp(-F0))
print(f"probability σ(F0) = {p0:.2f};  residuals: {sorted(set(epochs['ep_1_residual'].round(2)))}")
assert round(p0, 2) == 0.67 and np.allclose(epochs["ep_0_prob"], 4 / 6)

# %%
eps = 1e-6
slope = (cross_entropy(yv, F0 + eps) - cross_entropy(yv, F0 - eps)) / (2 * eps)
assert np.allclose(epochs["ep_1_residual"], -slope, atol=1e-6)
print("on every row, ep_1_residual equals −dL/dF by finite differences (to 1e-6)")

# %% [markdown]
# ## 6. The epoch table
#
# The walkthrough's model is an ordinary estimator: `algorithm="gbdt"` is Friedman's GBDT,
# the algorithm of seed 004, and its trace has the seed's own column names. Row 0 of the
# table (the other rows hold the answers of exercises 3 and 4; the whole table follows them):

# %%
assert np.allclose(tg.walkthrough.troll2(compare=False).epochs.iloc[:, 1:], epochs)
epochs.loc[[0]].round(6)

# %% [markdown]
# Reading row 0, the 12-year-old who likes popcorn and whose favourite colour is blue: this
# person starts at `ep_0_pre` = 0.693147; the residual is 1 − 0.67 = 0.33; tree 1 puts row 0
# in a leaf worth 1.5; the log-odds become 0.693147 + 0.8 × 1.5 = 1.893147 (0.69 + 1.2 = 1.89
# with two decimals) and the probability 0.87.

# %%
row0 = epochs.loc[0]
print(
    f"ep_0_pre + ν·ep_1_leaf_output = {row0['ep_0_pre']:.6f} + 0.8 × {row0['ep_1_leaf_output']:g}"
)
print(f"                              = {row0['ep_1_pre']:.6f}")
assert round(row0["ep_1_residual"], 2) == 0.33 and np.isclose(row0["ep_1_leaf_output"], 1.5)
assert round(row0["ep_1_pre"], 6) == 1.893147 and round(row0["ep_1_prob"], 2) == 0.87

# %% [markdown]
# ## 7. (C) The leaf output, and where it comes from
#
# Each leaf of the new tree outputs
#
# $$w_j = \frac{\sum_{i \in R_j} \text{residual}_i}{\sum_{i \in R_j} p_i (1 - p_i)},$$
#
# with $p_i$ the previous epoch's probability. (Seed 004 calls the leaf output $\gamma_j$; we
# call it $w_j$, as XGBoost does, because γ is the price of a leaf in lessons 4 and 5.) Why?
# Inside leaf $j$ we want the single value w that makes
# $\sum_{i\in R_j} L(y_i, F_{m-1}(x_i) + w)$ smallest. Setting its
# derivative to zero, $\sum_{i \in R_j} [\sigma(F_{m-1}(x_i) + w) - y_i] = 0$, has no closed
# form once the rows start from different log-odds (from epoch 2 on), so the seed expands
# each loss to second order around $F_{m-1}$:
#
# $$L(y_i, F_{m-1} + w) \approx L(y_i, F_{m-1}) + (p_i - y_i)\,w
#   + \tfrac12\, p_i(1-p_i)\,w^2,$$
#
# using $\frac{d^2L}{dF^2} = \frac{d}{dF}(p - y) = p(1-p)$. The sum over the leaf is a
# parabola in w; its minimum is at $w = \sum(y_i - p_i) / \sum p_i(1-p_i)$ — the
# formula above, one Newton step. (It is XGBoost's $w^* = -G/(H+\lambda)$ with λ = 0.)
#
# Leaf 3 of tree 1 holds rows 0, 4 and 5, each with residual 1/3 and
# $p(1-p) = \tfrac23 \cdot \tfrac13 = \tfrac29$: $w = 1 / \tfrac23 = 1.5$.

# %%
in_leaf = epochs["ep_1_leaf_index"] == 3
res = epochs.loc[in_leaf, "ep_1_residual"]
pq = epochs.loc[in_leaf, "ep_0_prob"] * (1 - epochs.loc[in_leaf, "ep_0_prob"])
print(f"rows {list(res.index)}: {res.sum():.4f} / {pq.sum():.4f} = {res.sum() / pq.sum():.4f}")
assert list(res.index) == [0, 4, 5] and np.isclose(res.sum() / pq.sum(), 1.5)

# %% [markdown]
# **Exercise 3.** Another leaf's output with the formula: its residuals over its
# $p(1-p)$ (the shipped numbers ask for leaf 4, which row 2 shares with row 1: one lover,
# one hater).

# %%
print(sheet["7.3"].prompt)
my_leaf = None  # ← your answer
sheet["7.3"].check(my_leaf)

# %% [markdown]
# The Newton step is a *step*, not the exact optimum. In epoch 1 every row starts from F₀, so
# here the exact optimum does have a closed form: σ(F₀ + w) must equal the leaf's share of
# lovers. Leaf 4 holds one lover and one hater, so σ(F₀ + w) = ½ and
# w = logit(½) − F₀ = −log 2 = −0.693; the Newton step says −0.75. In leaf 3 all three love
# the film, so the exact optimum is +∞ — the Newton step's finite 1.5 is what keeps the
# model sane. (A grid search confirms −0.693.)

# %%
rows_leaf4 = epochs.index[epochs["ep_1_leaf_index"] == 4]
steps = np.linspace(-3, 3, 60001)
loss4 = sum(cross_entropy(yv[i], F0 + steps) for i in rows_leaf4)
exact4 = steps[np.argmin(loss4)]
newton4 = epochs.loc[rows_leaf4[0], "ep_1_leaf_output"]
print(f"leaf 4: exact optimum w = {exact4:.3f} = logit(1/2) − F0 = {0 - F0:.3f}; Newton step "
      f"= {newton4:g}")  # fmt: skip
assert round(exact4, 3) == -0.693 and np.isclose(exact4, -F0, atol=1e-4)
assert np.isclose(newton4, -0.75)

# %% [markdown]
# ## 8. (D) The update, and epoch 2
#
# $F_1 = F_0 + \nu f_1$ with ν = 0.8; then epoch 2 repeats (A)–(C) from the new
# probabilities, and $F_2 = F_1 + \nu f_2$.
#
# **Exercise 4.** Follow one row through epoch 2: from its log-odds after epoch 1, its
# probability, its residual, the leaf output of tree 2 (from the rows that share its leaf),
# then `ep_2_pre` and the probability `ep_2_prob` (the shipped numbers follow row 1, age 87,
# who loves the film).

# %%
print(sheet["7.4"].prompt)
my_prob = None  # ← your answer
sheet["7.4"].check(my_prob)

# %% [markdown]
# The trees of both epochs, and the whole epoch table. A leaf's value is a step in
# log-odds, not a probability: a row's probability is σ of its whole sum, F₀ + ν Σ leaf
# outputs.

# %%
tg.draw.draw_model(gbdt)

# %%
epochs.round(6)

# %% [markdown]
# And the walkthrough of section 4, every step laid out, then the same in the explorer,
# where you can pick any row and follow it through both trees:

# %%
troll2_walk = tg.walkthrough.troll2(compare=False)
troll2_walk  # noqa: B018  (Jupyter shows the last expression)

# %%
tg.explore(troll2_walk)

# %% [markdown]
# Each person's probability and residual, epoch by epoch: the lovers climb towards 1, the
# haters fall towards 0, and most residuals shrink. Row 3's grows a little in epoch 2: the
# second tree puts this hater in one leaf with three lovers.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
tg.plot.probabilities(gbdt, ax=ax1)
ax = tg.plot.residuals(gbdt, ax=ax2)
after = 0 - epochs.at[3, "ep_2_prob"]  # row 3's residual after epoch 2
assert abs(after) > abs(epochs.at[3, "ep_2_residual"])
assert epochs.at[3, "ep_2_leaf_index"] == epochs.at[0, "ep_2_leaf_index"]
assert (epochs["ep_2_leaf_index"] == epochs.at[3, "ep_2_leaf_index"]).sum() == 4

# %% [markdown]
# ## 9. Step 3: the fitted model, and a person it has never seen
#
# Seed 004's step 3 outputs the fitted model $F_M(x) = F_0 + \nu \sum_m f_m(x)$: the trees,
# kept, for people who were not in the table. A new person goes down each tree to one leaf;
# the leaf outputs add, times ν, to F₀; σ of the sum is the probability. A 70-year-old who
# likes popcorn and whose favourite colour is red:
#
# * tree 1: `favorite_color_red < 0.5`? no → leaf 2, output −3;
# * tree 2: `age < 65.5`? no → leaf 2, output 1.911059;
# * log-odds F₂(x) = 0.693 + 0.8 × (−3 + 1.911) = −0.178;
# * probability σ(−0.178) = 0.456.

# %%
newcomer = X.iloc[[0]].assign(like_popcorn=True, age=70, favorite_color_blue=0.0,
                              favorite_color_green=0.0, favorite_color_red=1.0)  # fmt: skip
leaves_new = [int(t.apply(newcomer)[0]) for t in gbdt.trees_]
outputs = [float(t.weight[j]) for t, j in zip(gbdt.trees_, leaves_new)]
for k, (j, w) in enumerate(zip(leaves_new, outputs), 1):
    print(f"tree {k}: leaf {j}, output {w:.6f}")
margin_new = F0 + 0.8 * sum(outputs)
p_new = 1 / (1 + np.exp(-margin_new))
print(f"log-odds {F0:.3f} + 0.8 × ({outputs[0]:g} + {outputs[1]:.3f}) = {margin_new:.3f}")
print(f"probability σ({margin_new:.3f}) = {p_new:.3f}")
assert leaves_new == [2, 2] and round(margin_new, 3) == -0.178 and round(p_new, 3) == 0.456
assert np.isclose(p_new, gbdt.predict_proba(newcomer)[0, 1])

# %% [markdown]
# `tg.explain.prediction` writes the same path out, tree by tree (with each tree's η·w*):

# %%
tg.explain.prediction(gbdt, newcomer)

# %% [markdown]
# **Exercise 5.** Another person the model has never seen: their probability of loving the
# film, through F₀ and both trees (the shipped numbers: a 50-year-old who likes popcorn and
# whose favourite colour is red; with `STUDENT` set, a new person for your own model).

# %%
print(sheet["7.5"].prompt)
my_new_prob = None  # ← your answer
sheet["7.5"].check(my_new_prob)

# %% [markdown]
# ## 10. The StatQuest video's numbers
#
# The same example appears in StatQuest's video on gradient boosting for classification,
# whose first tree has leaf outputs **1.4, −1 and −3.3**. They are 1.5, −0.75 and −3.0: the
# video rounds the starting probability 2/3 to 0.7 before dividing.

# %%
leaves = {"leaf 3 (rows 0, 4, 5)": [1, 1, 1], "leaf 4 (rows 1, 2)": [1, 0], "leaf 2 (row 3)": [0]}
video, exact = [], []
for name, labels in leaves.items():
    labels = np.array(labels, dtype=float)
    for p, kept in ((0.7, video), (2 / 3, exact)):
        out = np.sum(labels - p) / (labels.size * p * (1 - p))
        kept.append(out)
        print(
            f"{name:22s} p = {p:.4f}: {np.sum(labels - p):+.3f} / {labels.size * p * (1 - p):.3f}"
            f" = {out:+.3f}"
        )
assert [round(v, 1) for v in video] == [1.4, -1.0, -3.3]
assert np.allclose(exact, [1.5, -0.75, -3.0])
assert sorted(exact) == sorted(gbdt.trees_[0].weight[gbdt.trees_[0].leaves])

# %% [markdown]
# With every digit kept, as teachgbt and scikit-learn keep them, row 0's log-odds after
# epoch 1 is log(2) + 0.8 × 1.5 = 1.893147.
#
# ## 11. Cross-check with scikit-learn
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
    assert np.allclose(stages[0], epochs["ep_1_pre"], atol=1e-9)
    assert np.allclose(stages[1], epochs["ep_2_pre"], atol=1e-9)
    print("agree to 1e-9: True")

# %% [markdown]
# **Exercise 6.** Why? Answer with a letter.

# %%
print(sheet["7.6"].prompt)
my_why = None  # ← your answer
sheet["7.6"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * Cross entropy is the negative log-likelihood of Bernoulli labels; in the log-odds it is
#   −yF + log(1 + e^F), with derivative p − y and second derivative p(1 − p).
# * F₀ is the log-odds of the positive share, log(4/2) = 0.69, probability 0.67: the best
#   constant under cross entropy.
# * The residual y − p is minus the gradient; each tree is a squared-error tree on it.
# * A leaf outputs Σresidual / Σp(1−p), one Newton step from the second-order Taylor
#   expansion; with ν = 0.8 row 0 reaches 1.893147 after epoch 1.
# * A person the model has never seen goes down every tree to a leaf; F₀ + ν Σ leaf outputs
#   is their log-odds, σ of it their probability.
# * The video's 1.4, −1, −3.3 are 1.5, −0.75, −3.0 with p = 2/3 unrounded.
#
# Next, lesson 8 asks why an ensemble of trees beats one tree, and lesson 9 sets this GBDT
# beside XGBoost-style boosting.

# %%
plt.close("all")
