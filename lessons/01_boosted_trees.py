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
# # Lesson 1 — Boosted trees, from the objective to the split
#
# This lesson follows XGBoost's tutorial *Introduction to Boosted Trees* (seed 000), section
# by section, and lets you compute every quantity it derives on a tiny dataset:
#
# | tutorial section | what you will do here |
# |---|---|
# | Objective function: training loss + regularization | evaluate both parts by hand |
# | The step-function picture (bias–variance) | fit a step function, compare a simple and a wiggly fit |
# | Tree ensemble | fit two small trees and watch their scores add up |
# | Additive training | check ŷ⁽ᵗ⁾ = ŷ⁽ᵗ⁻¹⁾ + f_t(x) row by row |
# | Taylor expansion, g_i and h_i | read the gradient statistics of every instance |
# | Model complexity, the structure score | recompute G_j, H_j, w*_j and Obj* from the instances |
# | Learn the tree structure | recompute the gain of a split with a left-to-right scan |
#
# At the end there is a short exercise that `tg.check` marks for you.
#
# Keep `teachgbt/reference.py` open beside this notebook: it is the tutorial's whole algorithm
# in one file of plain loops (g and h, w*, the Gain, the sorted scan, pruning, the additive
# loop), each step citing the tutorial section it implements. Section 7 checks that it grows
# the same trees as the fast trainer.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# %% [markdown]
# ## 1. Objective = training loss + regularization
#
# A model is judged by two numbers added together: how badly it fits the training data,
# $L(\Theta)$, and how complicated it is, $\Omega(\Theta)$. The tutorial writes
#
# $$\text{Obj}(\Theta) = L(\Theta) + \Omega(\Theta).$$
#
# For regression the usual loss is the squared error $\sum_i (y_i-\hat y_i)^2$; for a yes/no
# target it is the logistic loss
# $\sum_i [\,y_i\ln(1+e^{-\hat y_i}) + (1-y_i)\ln(1+e^{\hat y_i})\,]$, where $\hat y_i$ is a
# log-odds score. Both are a few lines of numpy:

# %%
y_true = np.array([1.0, 0.0, 1.0])
score = np.array([2.0, -1.0, -0.5])  # ŷ: for the logistic loss, log-odds

square_loss = np.sum((y_true - score) ** 2)
logistic_loss = np.sum(y_true * np.log1p(np.exp(-score)) + (1 - y_true) * np.log1p(np.exp(score)))
print(f"square loss   = {square_loss:.4f}")
print(f"logistic loss = {logistic_loss:.4f}")

# %% [markdown]
# The third row gets the largest share of the logistic loss: its label is 1 but its score is
# negative. The regularization part comes in section 6, once we have trees to measure.
#
# ## 2. The step-function picture
#
# The tutorial asks you to fit a step function by eye to points measured over time, and
# picks the fit that is *simple and predictive*. A boosted tree model on one feature is
# exactly such a step function: every tree cuts the time axis at a few thresholds, and adding
# trees adds steps. Below, someone's interest in a topic changes at two moments; we watch
# the fit after 1, 3, 7 and 20 rounds.

# %%
rng = np.random.default_rng(0)
t = np.sort(rng.uniform(0, 10, 40))
level = np.where(t < 3, 1.0, np.where(t < 7, 3.0, 2.0))
interest = level + rng.normal(0, 0.3, t.size)
X_time = pd.DataFrame({"time": t})

stairs = tg.BoostingRegressor(n_estimators=20, max_depth=1, learning_rate=0.5).fit(X_time, interest)
ax = tg.plot.staircase(stairs, X_time, interest)

# %% [markdown]
# Which fit is best? A model with many tiny steps follows every wiggle of the noise (low
# bias, high variance); one step misses the shape (high bias). Regularization is how the
# objective expresses the preference for the middle: below, `gamma` (γ, the price of a leaf,
# section 6) removes every step that does not pay for itself.

# %%
fits = [
    tg.BoostingRegressor(n_estimators=30, max_depth=6, learning_rate=1.0, reg_lambda=0),
    tg.BoostingRegressor(n_estimators=1, max_depth=1, learning_rate=1.0),
    tg.BoostingRegressor(n_estimators=30, max_depth=3, learning_rate=0.5, gamma=1.0),
]
labels = ["deep trees, no penalty", "a single stump", "gamma = 1"]
ax = tg.plot.compare_fits(fits, X_time, interest, labels=labels)

# %% [markdown]
# `compare_fits` fitted copies; fitting our own shows the trade-off in numbers: the wiggly
# fit has the smallest training error and by far the most steps (a step is a distinct
# threshold used by any tree).

# %%
for m, label in zip(fits, labels):
    m.fit(X_time, interest)
    mse = np.mean((interest - m.predict(X_time)) ** 2)
    steps = np.unique(np.concatenate([tree.threshold[~tree.is_leaf] for tree in m.trees_]))
    print(f"{label:24s} training MSE {mse:.3f}   steps: {steps.size}")

# %% [markdown]
# ## 3. A tree ensemble: scores that add
#
# A regression tree (CART) gives every leaf a real-valued *score*, not a class. An ensemble
# of $K$ trees predicts the sum of the leaf scores an instance reaches,
#
# $$\hat y_i = \sum_{k=1}^K f_k(x_i).$$
#
# The tutorial's example asks whether the members of a family like computer games. Its
# picture (not reproduced in our copy) has two trees: the first sends children under 15
# to a leaf worth +2 (boys) or +0.1 (girls) and everyone else to −1; the second gives +0.9 to
# those who use a computer daily and −0.9 to the rest. The boy scores 2 + 0.9 = **2.9**, the
# grandpa −1 − 0.9 = **−1.9**. We build a family of ten and let those two trees define the
# target:

# %%
family = pd.DataFrame(
    {
        "age": [10, 8, 38, 75, 72, 41, 14, 35, 12, 30],
        "is_male": [1, 0, 0, 1, 0, 1, 1, 0, 0, 1],
        "uses_computer_daily": [1, 0, 1, 0, 0, 1, 0, 0, 1, 0],
    },
    index=["boy", "girl", "mom", "grandpa", "grandma", "dad", "teen", "aunt", "cousin", "uncle"],
)
tree_a = np.where(family["age"] < 15, np.where(family["is_male"] == 1, 2.0, 0.1), -1.0)
tree_b = np.where(family["uses_computer_daily"] == 1, 0.9, -0.9)
likes_games = pd.Series(tree_a + tree_b, index=family.index, name="likes_games")
family.assign(likes_games=likes_games)

# %% [markdown]
# Now boosting grows its own two trees on this data (depth 2, no shrinkage, no penalty, and
# a start of ŷ⁽⁰⁾ = 0 as in the tutorial). Round 1 fits the scores, round 2 what round 1
# left over:

# %%
ens = tg.BoostingRegressor(
    n_estimators=2, max_depth=2, learning_rate=1.0, reg_lambda=0, min_child_weight=0, base_score=0
).fit(family, likes_games)
print(ens.trees_[0])

# %%
ens.trees_[1].draw()

# %% [markdown]
# The trees are not the tutorial's (greedy growth picks other splits), but the principle is
# the same: each instance collects one score per tree and the scores add. `tg.explain.prediction`
# follows the boy and the grandpa through both trees; they land on 2.9 and −1.9 again.

# %%
tg.explain.prediction(ens, family.loc["boy"])

# %%
print(tg.explain.prediction(ens, family.loc["grandpa"]))

# %% [markdown]
# The same model — a sum of trees — is what a random forest predicts with. Boosting and
# random forests differ only in *how the trees are trained*.
#
# ## 4. Additive training
#
# We cannot optimize all trees at once, so boosting adds one tree per round and keeps the
# earlier ones fixed:
#
# $$\hat y_i^{(0)} = 0,\qquad \hat y_i^{(t)} = \hat y_i^{(t-1)} + f_t(x_i).$$
#
# The trace's epoch table holds $\hat y^{(t)}$ as `ep_t_pre` and the leaf each row received
# as `ep_t_leaf_output`. With learning rate 1 the update is plain addition:

# %%
ep = ens.trace_.epochs().set_index(family.index)
cols = ["ep_0_pre", "ep_1_leaf_output", "ep_1_pre", "ep_2_leaf_output", "ep_2_pre"]
ep[cols].round(3) + 0.0  # + 0.0 shows float32's −0.0 as 0.0

# %%
step_2 = ep["ep_1_pre"] + ens.trees_[1].predict(family)
print("ep_2_pre == ep_1_pre + f_2(x):", np.allclose(step_2, ep["ep_2_pre"]))

# %% [markdown]
# ## 5. The second-order view: g_i and h_i
#
# Which tree should round $t$ add? The one that lowers the objective most. The tutorial
# expands the loss around the current prediction to second order,
#
# $$l(y_i, \hat y_i^{(t-1)} + f_t(x_i)) \approx l(y_i, \hat y_i^{(t-1)}) + g_i f_t(x_i)
#   + \tfrac12 h_i f_t(x_i)^2,$$
#
# where $g_i$ and $h_i$ are the first and second derivatives of the loss at
# $\hat y_i^{(t-1)}$. From here on the tree learner sees nothing of the loss but these two
# numbers per instance — which is why any twice-differentiable loss works with the same
# solver.
#
# From now on we also switch on the L2 penalty (λ = 1, XGBoost's default) and a learning
# rate of 0.5. teachgbt, like XGBoost, uses the squared error $\tfrac12(y-\hat y)^2$, so
# $g_i = \hat y_i - y_i$ and $h_i = 1$ (lesson 2 explains the ½).

# %%
model = tg.BoostingRegressor(
    n_estimators=2, max_depth=2, learning_rate=0.5, reg_lambda=1, min_child_weight=0, base_score=0
).fit(family, likes_games)
inst = model.trace_.instances(2).set_index(family.index)
inst.round(4)

# %%
print("g == margin - y:", np.allclose(inst["g"], inst["margin"] - inst["y"]))
print("h == 1:         ", np.allclose(inst["h"], 1.0))

# %% [markdown]
# For the logistic loss the statistics are $g_i = p_i - y_i$ and $h_i = p_i(1-p_i)$ with
# $p_i = \sigma(\hat y_i)$: the hessian now differs from instance to instance. The same
# family, with "likes games" turned into yes/no:

# %%
likes_yes = (likes_games > 0).astype(int)
clf = tg.BoostingClassifier(n_estimators=2, max_depth=2, min_child_weight=0).fit(family, likes_yes)
ci = clf.trace_.instances(2).set_index(family.index)
print("g == p - y:     ", np.allclose(ci["g"], ci["prob"] - ci["y"], atol=1e-6))
print("h == p(1 - p):  ", np.allclose(ci["h"], ci["prob"] * (1 - ci["prob"]), atol=1e-6))
ci.round(4)

# %% [markdown]
# ## 6. Model complexity and the structure score
#
# A tree is a vector of leaf weights $w$ plus a map $q(x)$ from an instance to its leaf. Its
# complexity is
#
# $$\Omega(f) = \gamma T + \tfrac12 \lambda \sum_{j=1}^T w_j^2,$$
#
# $T$ leaves, each costing γ, and weights that λ pulls towards zero. Group the instances
# by leaf, with $G_j = \sum_{i\in I_j} g_i$ and $H_j = \sum_{i\in I_j} h_i$, and the
# objective of round $t$ becomes one small quadratic per leaf,
# $\sum_j [G_j w_j + \tfrac12 (H_j+\lambda) w_j^2] + \gamma T$. Each is smallest at
#
# $$w_j^* = -\frac{G_j}{H_j+\lambda}, \qquad
#   \text{Obj}^* = -\frac12 \sum_{j=1}^T \frac{G_j^2}{H_j+\lambda} + \gamma T .$$
#
# Let us "push the statistics to the leaves" ourselves for tree 2 and compare with the
# node table the trainer kept:

# %%
by_leaf = inst.groupby("leaf").agg(n=("g", "size"), G=("g", "sum"), H=("h", "sum"))
by_leaf["w*"] = tg.formulas.leaf_weight(by_leaf["G"], by_leaf["H"], reg_lambda=1)
by_leaf.round(4)

# %%
nodes = model.trace_.nodes(2)
nodes[["node", "is_leaf", "feature", "threshold", "n", "G", "H", "weight", "value"]].round(4)

# %% [markdown]
# `weight` is $w^*$; `value` is what the leaf really adds to the prediction, $\eta\, w^*$
# (shrinkage, lesson 2). `tg.explain.leaf` writes the formula out for one leaf:

# %%
tg.explain.leaf(model, 2, 4)

# %% [markdown]
# The structure score of the whole tree measures how good its *shape* is; lower is better.
# Compared with the score of keeping all ten instances in one leaf:

# %%
leaves = nodes[nodes["is_leaf"]]
obj_tree = tg.formulas.structure_score(leaves["G"], leaves["H"], reg_lambda=1)
obj_root = tg.formulas.structure_score(nodes["G"][:1], nodes["H"][:1], reg_lambda=1)
omega = 1 * 0.5 * np.sum(leaves["weight"] ** 2)  # γ = 0, λ = 1
print(f"Obj* of tree 2:                {obj_tree:.4f}")
print(f"Obj* of a single leaf:         {obj_root:.4f}")
print(f"Ω of tree 2, ½λΣw*² (γ = 0):   {omega:.4f}")

# %% [markdown]
# ## 7. Learning the structure: the gain of a split
#
# Enumerating every tree shape is hopeless, so the tree grows greedily: try to split one leaf
# into two and keep the split whose objective drops most,
#
# $$\text{Gain} = \frac12\left[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda}
#   - \frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\right] - \gamma ,$$
#
# the score of the new left leaf, plus the new right leaf, minus the leaf we had, minus the
# price of one more leaf. (One convention to know: the `gamma` you pass to teachgbt, as to
# XGBoost, is compared with the bracket *without* the ½ — the `loss_chg` column — so the
# tutorial's γ is `gamma / 2`, and the `gain` column is ½(`loss_chg` − `gamma`).) The gains of
# the splits in a tree add up to exactly the drop from the single-leaf score to the tree's
# score (with γ = 0):

# %%
print(f"sum of split gains:      {nodes['gain'].sum():.4f}")
print(f"Obj*(leaf) - Obj*(tree): {obj_root - obj_tree:.4f}")

# %% [markdown]
# Every candidate the trainer weighed at the root of tree 2 is in `trace_.splits`; the one
# it kept is marked `chosen`.

# %%
cands = model.trace_.splits(2, 0)
cands.round(4)

# %%
tg.explain.split(model, 2, 0)

# %% [markdown]
# ### The left-to-right scan
#
# For a numeric feature, sort the instances by its value and walk from left to right: after
# each step the left side's $G_L$, $H_L$ are running sums, and the right side is the rest.
# One pass gives the gain of every threshold. Here is the scan over `age`, written out:

# %%
order = inst.assign(age=family["age"]).sort_values("age")
G, H = order["g"].sum(), order["h"].sum()
scan = pd.DataFrame(
    {
        "threshold": (order["age"].to_numpy()[:-1] + order["age"].to_numpy()[1:]) / 2,
        "G_L": order["g"].cumsum().to_numpy()[:-1],
        "H_L": order["h"].cumsum().to_numpy()[:-1],
    }
)
scan["gain"] = tg.formulas.split_gain(scan["G_L"], scan["H_L"], G - scan["G_L"], H - scan["H_L"])
scan.round(4)

# %%
by_trainer = cands[cands["feature"] == "age"].sort_values("threshold")
print("the same gains as the trainer's:", np.allclose(scan["gain"], by_trainer["gain"]))

# %% [markdown]
# The picture of the same scan: the gain at each threshold, the running sums on the right axis
# and the best threshold starred.

# %%
ax = tg.plot.split_scan(model, 2, 0, "age")

# %% [markdown]
# ### The whole algorithm, in one file
#
# `teachgbt/reference.py` does all of the above with plain loops: `grad_hess` (g, h),
# `leaf_weight` (w*), `best_split` (this scan, for every feature, with missing values sent
# both ways), `grow_tree` (level by level, then pruning), and `fit` (the additive loop). Read
# it top to bottom; then see that it grows the same trees as the trainer we used:

# %%
ref = tg.reference.fit(
    family,
    likes_games,
    objective="reg:squarederror",
    n_estimators=2,
    max_depth=2,
    learning_rate=0.5,
    reg_lambda=1,
    min_child_weight=0,
    base_score=0,
)
print(ref.trees[1])
same = all(
    np.array_equal(a.feature, b.feature) and np.allclose(a.value, b.value)
    for a, b in zip(ref.trees, model.trees_)
)
print("same trees as the trainer:", same)
print("same margins:", np.allclose(ref.decision_function(family), model.decision_function(family)))

# %% [markdown]
# ## 8. Your turn
#
# Take the `uses_computer_daily < 0.5` candidate at the root of tree 2 (its row in `cands`
# above). With its $G_L, H_L, G_R, H_R$ and λ = 1, work out by hand:
#
# 1. the leaf weight $w^*$ of its left side;
# 2. the gain of the split.
#
# Put your answers in the cell below and run it. The values there now are a first attempt:
# one is right and one forgot something — the checker says which and shows the worked
# solution.

# %%
row = cands[cands["feature"] == "uses_computer_daily"].iloc[0]
print(row[["G_L", "H_L", "G_R", "H_R"]].round(3).to_dict())

my_leaf_weight = -0.67  # ← your answer
my_gain = 3.97  # ← your answer

print(tg.check.leaf_weight(my_leaf_weight, G=row["G_L"], H=row["H_L"], reg_lambda=1))

# %%
print(
    tg.check.split_gain(
        my_gain, G_L=row["G_L"], H_L=row["H_L"], G_R=row["G_R"], H_R=row["H_R"], reg_lambda=1
    )
)

# %% [markdown]
# ## What you have seen
#
# * The objective has a loss part and a complexity part; on one feature a boosted model is a
#   step function, and γ keeps only the steps that pay for themselves.
# * An ensemble adds one score per tree; boosting adds trees one round at a time.
# * Each round sees the loss only through $g_i$ and $h_i$; summed per leaf they give
#   $w^* = -G/(H+\lambda)$ and the structure score.
# * A split's gain compares the two new leaves with the old one; a sorted left-to-right scan
#   finds the best threshold in one pass.
#
# Lesson 2 works through the CSC411 slides (why ensembles help, pruning, shrinkage); lesson
# 3 the GBDT classifier step by step; lesson 4 what XGBoost adds in practice.

# %%
plt.close("all")
