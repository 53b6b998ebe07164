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
# # Lesson 11 — More than two classes: softmax, K trees a round
#
# Lessons 3 to 9 boosted one margin: a number per row, turned into a probability by the
# sigmoid. With K ≥ 3 classes the model keeps **K margins** per row, one per class, and turns
# them into K probabilities with the softmax. Every round then grows **K trees**, one per
# class, each on its own g and h. This is XGBoost's `multi:softprob`, number for number.
#
# **Goals.** By the end you can turn K margins into probabilities, compute g and h of one
# class for one row (and say why XGBoost doubles h), tell which tree of `trees_` belongs to
# which class, say where the starting margins come from, and work out a class tree's leaf.
#
# | topic | what you do here |
# |---|---|
# | softmax: p_k = e^{F_k} / Σ_j e^{F_j} | compute it for one row; see that a shift of all margins changes nothing |
# | the starting margins: XGBoost's centred log priors | rebuild `base_score_` from the class counts |
# | g = p − y, h = 2p(1 − p) per class | read `trace_.instances(t, class_=k)`; check g by finite differences; see why the 2 |
# | K trees per round | map `trees_` to `tree.round`, `tree.class_`; add a class's trees up to its margin |
# | the probabilities, round by round | `tg.plot.probabilities(model, class_=...)` |
# | XGBoost `multi:softprob` | the same probabilities and trees, live (skipped if not installed) |
# | Exercises | a softmax probability, a class's h for one row, the leaf of a class tree |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. The data: nine fruits, three classes
#
# Two measurements and a label with three values. Four apples, three bananas, two cherries —
# on purpose not the same number of each.

# %%
fruit = pd.DataFrame(
    {
        "length": [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0],
        "width": [1.0, 1.0, 2.0, 1.0, 2.0, 3.0, 2.0, 3.0, 3.0],
    }
)
kind = pd.Series(["apple"] * 4 + ["banana"] * 3 + ["cherry"] * 2, name="kind")
params = dict(n_estimators=10, max_depth=2, learning_rate=0.5, reg_lambda=1.0)
model = tg.BoostingClassifier(**params).fit(fruit, kind)
K = len(model.classes_)
print(model.classes_, f"K = {K}")
assert list(model.classes_) == ["apple", "banana", "cherry"]

# %% [markdown]
# ## 2. The softmax
#
# Each row has K margins $F_1, \dots, F_K$, one per class. The softmax makes them positive
# and makes them sum to one:
#
# $$p_k = \frac{e^{F_k}}{\sum_{j=1}^K e^{F_j}} .$$
#
# With K = 2 and the margins (F, 0) it is the sigmoid, $e^F/(e^F + 1) = 1/(1 + e^{-F})$: the
# binary model is the case where one class's margin is held at 0. Adding the same number to
# every margin changes no probability (it multiplies the top and the bottom by the same
# $e^c$). `predict_proba` is the softmax of `decision_function`:


# %%
def softmax(F):
    e = np.exp(F - F.max(axis=-1, keepdims=True))  # the shift keeps e^F from overflowing
    return e / e.sum(axis=-1, keepdims=True)


F = model.decision_function(fruit)  # (9 rows, K margins)
assert np.allclose(softmax(F), model.predict_proba(fruit))
assert np.allclose(softmax(F + 7.0), softmax(F))
assert np.isclose(softmax(np.array([1.3, 0.0]))[0], 1 / (1 + np.exp(-1.3)))  # K = 2: sigmoid
pd.DataFrame(F, columns=[f"F_{c}" for c in model.classes_]).join(
    pd.DataFrame(model.predict_proba(fruit), columns=[f"p_{c}" for c in model.classes_])
).round(3)

# %% [markdown]
# ## 3. Where the margins start
#
# Before any tree, every row gets the same K margins: `base_score_`. XGBoost 3.2
# estimates them from the class shares π_k = 4/9, 3/9, 2/9 as **centred log priors**,
#
# $$F_k^{(0)} = \log(\pi_k + 10^{-6}) - \frac1K \sum_j \log(\pi_j + 10^{-6}),$$
#
# and teachgbt does the same. The softmax of log π is π, and centring is a shift that
# changes nothing, so before the first tree every row's probabilities are the class shares.

# %%
share = kind.value_counts(normalize=True).sort_index().to_numpy()
log_prior = np.log(share + 1e-6)
centred = log_prior - log_prior.mean()
print("base_score_ =", np.round(model.base_score_, 4), "  shares =", np.round(share, 4))
assert np.allclose(model.base_score_, centred, atol=1e-6)
assert np.allclose(softmax(centred), share, atol=1e-5)
assert np.allclose(share, [4 / 9, 3 / 9, 2 / 9])

# %% [markdown]
# ## 4. g and h, class by class
#
# The loss of one row is the cross entropy $-\log p_y$ (y: its class). With
# $y_k = [y = k]$, its derivatives in the margin $F_k$ are
#
# $$g_k = p_k - y_k, \qquad \frac{\partial^2}{\partial F_k^2} = p_k(1 - p_k),$$
#
# the same formulas as the binary case (lesson 7), one per class. Class k's tree is grown on
# every row's $g_k$ and $h_k$: the cherries have $y_{\text{cherry}} = 1$, everything else 0.
# `trace_.instances(t, class_=k)` is the table class k's tree of round t saw:

# %%
cherry = 2
inst = model.trace_.instances(1, class_=cherry)
inst.round(4)

# %%
y_cherry = (kind == "cherry").to_numpy(dtype=float)
p0 = share[cherry]  # round 1 starts from the priors: p = 2/9 for every row
assert np.allclose(inst["y"], y_cherry) and np.allclose(inst["prob"], p0, atol=1e-6)
assert np.allclose(inst["g"], p0 - y_cherry, atol=1e-6)
assert np.allclose(inst["h"], 2 * p0 * (1 - p0), atol=1e-6)
print(f"p = 2/9 = {p0:.4f};  g = {p0 - 1:.4f} for a cherry, {p0:.4f} otherwise")
print(f"h = 2p(1 − p) = {2 * p0 * (1 - p0):.4f}, not p(1 − p) = {p0 * (1 - p0):.4f}")

# %% [markdown]
# g is the derivative; a finite difference of $-\log p_y$ in $F_{\text{cherry}}$ confirms it
# for a cherry (row 8) and a banana (row 4), and the second difference gives $p(1-p)$:

# %%
F0 = np.asarray(model.base_score_, dtype=float)
eps = 1e-4


def cross_entropy(F, y):
    return -np.log(softmax(F)[y])


for row, y_row in ((8, 2), (4, 1)):
    up, down = F0.copy(), F0.copy()
    up[cherry] += eps
    down[cherry] -= eps
    slope = (cross_entropy(up, y_row) - cross_entropy(down, y_row)) / (2 * eps)
    curve = (
        cross_entropy(up, y_row) - 2 * cross_entropy(F0, y_row) + cross_entropy(down, y_row)
    ) / eps**2
    assert np.isclose(slope, inst.at[row, "g"], atol=1e-6)
    assert np.isclose(curve, p0 * (1 - p0), atol=1e-5)
print("g = p − y and ∂²/∂F² = p(1 − p): both confirmed by finite differences")

# %% [markdown]
# **Why XGBoost uses 2p(1 − p).** The exact second derivative of the loss is a K × K matrix,
# $\text{diag}(p) - pp^\top$: moving $F_j$ changes $p_k$ too. But each round grows the K trees
# separately, as if the matrix were diagonal, and then applies all K steps at once. A
# diagonal D is safe for that when $D - (\text{diag}(p) - pp^\top)$ has no negative
# eigenvalue (the quadratic with D lies above the loss's own). Row k of the exact matrix has
# $p_k(1-p_k)$ on the diagonal and off-diagonal entries $-p_kp_j$ that add up to
# $-p_k(1-p_k)$; doubling the diagonal covers them (Gershgorin's circle theorem), and
# nothing smaller does in general. So XGBoost takes $h_k = \max(2p_k(1-p_k), 10^{-16})$: a
# cautious, slightly shorter Newton step. With K = 2 the binary logistic loss has no such
# coupling, and its h is $p(1-p)$ (lesson 7).

# %%
p_row = softmax(F[8])  # any row, any margins
exact_hessian = np.diag(p_row) - np.outer(p_row, p_row)
for factor in (1.0, 2.0):
    D = np.diag(factor * p_row * (1 - p_row))
    low = np.linalg.eigvalsh(D - exact_hessian).min()
    print(f"h = {factor:g}·p(1−p): smallest eigenvalue of D − exact = {low:+.4f}")
assert np.linalg.eigvalsh(np.diag(2 * p_row * (1 - p_row)) - exact_hessian).min() >= -1e-12
assert np.linalg.eigvalsh(np.diag(p_row * (1 - p_row)) - exact_hessian).min() < 0
half = np.array([0.5, 0.5])  # two classes at ½: any factor below 2 fails
assert (
    np.linalg.eigvalsh(
        np.diag(1.9 * half * (1 - half)) - np.diag(half) + np.outer(half, half)
    ).min()
    < 0
)

# %% [markdown]
# ## 5. K trees per round
#
# `trees_` lists the trees in XGBoost's order: round by round, and within a round class by
# class. The tree at index i of `trees_` (Python counts from 0) belongs to round i // K + 1
# (rounds count from 1) and class i % K, and each tree says so itself:

# %%
order = pd.DataFrame(
    {
        "index in trees_": range(len(model.trees_)),
        "tree.round": [t.round for t in model.trees_],
        "tree.class_": [t.class_ for t in model.trees_],
        "class": [model.classes_[t.class_] for t in model.trees_],
    }
)
assert len(model.trees_) == K * params["n_estimators"]
assert all(t.round == i // K + 1 and t.class_ == i % K for i, t in enumerate(model.trees_))
order.head(7)

# %% [markdown]
# Class k's margin is its start plus the values of its own trees — every K-th tree, from the
# k-th:

# %%
for k in range(K):
    own = model.trees_[k::K]
    rebuilt = model.base_score_[k] + sum(t.predict(fruit) for t in own)
    assert np.allclose(rebuilt, F[:, k], atol=1e-6)
print("F_k = base_score_[k] + Σ (class k's trees): checked for every class")

# %% [markdown]
# The cherry tree of round 1, `model.trees_[2]` (`trace_.nodes(1, class_=2)` is its table).
# Each leaf holds w* = −G/(H+λ) and the value η·w* it adds to the cherry margin (the picture
# shows each node's rows and gain: the leaves' numbers are exercise 11.3):

# %%
cherry_nodes = model.trace_.nodes(1, class_=cherry)
assert cherry_nodes.equals(model.trees_[2].to_frame())
leaves = cherry_nodes[cherry_nodes["is_leaf"]]
assert np.allclose(leaves["weight"], -leaves["G"] / (leaves["H"] + 1.0))
model.trees_[2].plot(fields=["n", "gain"])
plt.show()

# %% [markdown]
# ## 6. The probabilities, round by round
#
# `tg.plot.probabilities(model)` shows for each class the probability its own rows get;
# `class_=k` shows $p_k$ of every row, class k's rows against the others. They start at the
# shares (4/9, 3/9, 2/9) and pull apart:

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
tg.plot.probabilities(model, ax=ax1)
tg.plot.probabilities(model, class_=cherry, ax=ax2)
plt.show()
proba = model.predict_proba(fruit)
own_class = proba[np.arange(len(kind)), pd.Categorical(kind).codes]
assert (own_class > share[pd.Categorical(kind).codes]).all()  # every row gained on its class

# %% [markdown]
# ## 7. Beside XGBoost's `multi:softprob`
#
# The same settings in XGBoost (labels as 0, 1, 2). XGBoost estimates the same centred log
# priors, and grows the same trees in the same order: its dump's tree number i (XGBoost
# numbers its trees from 0, as `trees_` indexes them) is `trees_[i]`, of class i % K.
# (XGBoost is optional; the cell says so if it is missing.)

# %%
try:
    import xgboost as xgb
except ImportError:
    print("XGBoost is not installed: pip install xgboost to run this comparison")
else:
    codes = pd.Categorical(kind).codes
    native = xgb.XGBClassifier(objective="multi:softprob", tree_method="exact", **params)
    native.fit(fruit, codes)
    gap = np.abs(native.predict_proba(fruit) - model.predict_proba(fruit)).max()
    print(f"largest difference in predict_proba: {gap:.1e}")
    assert gap < 1e-5
    dump = native.get_booster().trees_to_dataframe()
    leaf_sums = dump[dump["Feature"] == "Leaf"].groupby("Tree")["Gain"].sum()  # leaf values
    ours = [t.value[t.is_leaf].sum() for t in model.trees_]
    assert np.allclose(leaf_sums.to_numpy(), ours, atol=1e-5)
    print("tree by tree, the same leaf values: XGBoost's tree number i is trees_[i] in both")

# %% [markdown]
# ## 8. Your turn
#
# Answer to 3 significant digits: within 1 % of the value is right. A wrong answer gets the
# likely slip or a hint; `reveal=True` in the `check` call shows the value and the worked
# solution. With `STUDENT` set, the numbers are your own.
#
# **Exercise 11.1.** A softmax probability from a row's three margins (the shipped numbers:
# row 8, a cherry, after round 1; its probability of being an *apple*, which no plot above
# shows).

# %%
F_row8 = model.decision_function(fruit, iteration_range=(0, 1))[8]
sheet = tg.exercises.sheet(11, student=STUDENT)
print(sheet["11.1"].prompt)
my_p_apple = None  # ← your answer
sheet["11.1"].check(my_p_apple)

# %% [markdown]
# **Exercise 11.2.** In round 1 every row starts at the class shares. h of one class's tree
# for one row (the shipped numbers: the *apple* tree, class 0, for row 4, a banana).

# %%
print(sheet["11.2"].prompt)
my_h_apple = None  # ← your answer
sheet["11.2"].check(my_h_apple)

# %% [markdown]
# **Exercise 11.3.** A leaf of the cherry tree of round 1: work out G and H from its rows' g
# and h (section 4), then its weight w* = −G/(H+λ), λ = 1 (the shipped numbers: leaf 2, with
# rows 6, 7 and 8, a banana and two cherries, each starting at p_cherry = 2/9).

# %%
print("rows in leaf 2:", list(inst.index[inst["leaf"] == 2]))
print(sheet["11.3"].prompt)
my_cherry_leaf = None  # ← your answer
sheet["11.3"].check(my_cherry_leaf)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["11.4"].prompt)
my_why = None  # ← your answer
sheet["11.4"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * K classes, K margins per row; the softmax turns them into probabilities and ignores a
#   common shift. With K = 2 it is the sigmoid.
# * The margins start at XGBoost's centred log priors, whose softmax is the class shares.
# * Class k's tree is grown on g = p_k − y_k and h = 2p_k(1 − p_k): the factor 2 makes the
#   K separate steps safe together.
# * `trees_` runs round by round, class by class: `trees_[i]` is round i // K + 1, class i % K
#   (`tree.round`, `tree.class_`); a class's margin adds up its own trees.
#
# Next, lesson 12 asks *why* the model predicted what it did for one row.

# %%
plt.close("all")
