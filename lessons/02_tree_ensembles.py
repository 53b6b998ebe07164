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
# # Lesson 2 — Tree ensembles: a score on every leaf, and scores that add
#
# **Goals.** By the end you can write a regression tree (CART) by hand as rules with a score
# on every leaf, add the scores of several trees into one prediction, and explain why a
# forest of trees and a boosted model are *the same model* trained two different ways.
#
# This lesson follows the "Tree Ensemble" section of seed 000 (*Introduction to Boosted
# Trees*):
#
# | tutorial section | what you do here |
# |---|---|
# | "a CART that classifies if someone will like computer games" | write the tutorial's first tree with `tg.Tree.from_rules` and draw it |
# | "an example of tree ensemble of two trees" (the TwoCART picture) | write the second tree, draw both, add their scores: the boy 2 + 0.9 = 2.9, the grandpa −1 − 0.9 = −1.9 |
# | ŷ_i = Σ_k f_k(x_i), f_k ∈ F; obj = Σ l + Σ Ω(f_k) | evaluate the sum for the whole family |
# | "what is the model of random forest? It is exactly tree ensembles!" | grow a bagged forest and a boosted ensemble; predict with both through one function |
# | Exercises | the scores of two family members, and a why-question, checked by `tg.check` |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. A CART: rules, and a score on each leaf
#
# A decision tree's leaves hold decisions; a CART's leaves hold a real *score*. The
# tutorial's first tree asks whether someone is younger than 15, then whether they are male,
# and gives boys +2, girls +0.1 and everyone 15 or older −1.
#
# `tg.Tree.from_rules` writes such a tree by hand: a leaf is its score, a split is a tuple
# `("feature < threshold", yes, no)`. A yes/no feature is a 0/1 column, so "is male?" is the
# rule `is_male < 0.5`, whose *yes* side holds the girls.

# %%
features = ["age", "is_male", "uses_computer_daily"]
tree_1 = tg.Tree.from_rules(
    ("age < 15", ("is_male < 0.5", 0.1, 2.0), -1.0),
    feature_names=features,
)
tree_1.plot()
plt.show()

# %% [markdown]
# The family of the tutorial's picture: a boy, a girl, their mom, grandpa and grandma. The
# tree sends each to a leaf; `predict` returns that leaf's score.

# %%
family = pd.DataFrame(
    {
        "age": [10, 8, 38, 75, 72],
        "is_male": [1, 0, 0, 1, 0],
        "uses_computer_daily": [1, 0, 1, 0, 0],
    },
    index=["boy", "girl", "mom", "grandpa", "grandma"],
)
family.assign(tree_1=tree_1.predict(family))

# %%
assert list(tree_1.predict(family)) == [2.0, 0.1, -1.0, -1.0, -1.0]

# %% [markdown]
# ## 2. Two trees, and their scores add
#
# One tree is rarely strong enough. The tutorial's ensemble adds a second tree, on whether
# someone uses a computer daily (+0.9 if so, −0.9 if not); "the prediction scores of each
# individual tree are summed up to get the final score". Here are both trees, as the
# tutorial's TwoCART picture draws them:

# %%
tree_2 = tg.Tree.from_rules(("uses_computer_daily < 0.5", -0.9, 0.9), feature_names=features)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), width_ratios=[3, 2], layout="constrained")
tree_1.plot(ax=axes[0])
axes[0].set_title("tree 1")
tree_2.plot(ax=axes[1])
axes[1].set_title("tree 2")
plt.show()

# %% [markdown]
# The ensemble predicts $\hat y_i = \sum_{k=1}^K f_k(x_i)$, here with $K = 2$:

# %%
scores = family.assign(f_1=tree_1.predict(family), f_2=tree_2.predict(family))
scores["ŷ = f_1 + f_2"] = scores["f_1"] + scores["f_2"]
scores.loc[["boy", "grandpa"]].round(3)  # the girl is your exercise

# %%
assert abs(scores.at["boy", "ŷ = f_1 + f_2"] - 2.9) < 1e-9  # 2 + 0.9
assert abs(scores.at["grandpa", "ŷ = f_1 + f_2"] - (-1.9)) < 1e-9  # −1 − 0.9

# %% [markdown]
# The boy gets 2 + 0.9 = **2.9** and the grandpa −1 − 0.9 = **−1.9**, the tutorial's
# numbers. The two trees complement each other: tree 1 knows nothing about computers, tree
# 2 nothing about age.
#
# In symbols, $f_k \in \mathcal{F}$, the set of all possible CARTs, and the objective adds
# one complexity term per tree:
#
# $$\text{obj}(\Theta) = \sum_{i=1}^n l(y_i, \hat y_i) + \sum_{k=1}^K \Omega(f_k).$$
#
# The parameters Θ are now the trees themselves: their rules and their leaf scores.
#
# ## 3. Random forests and boosting: one model
#
# "What is the model of random forest? It is exactly tree ensembles!" A prediction service
# for tree ensembles needs one function, and it serves every kind:


# %%
def predict_ensemble(trees, X, base_score=0.0):
    """ŷ = base_score + Σ_k f_k(x): the whole model, for any list of tg.Tree."""
    return base_score + sum(tree.predict(X) for tree in trees)


assert np.allclose(predict_ensemble([tree_1, tree_2], family), scores["ŷ = f_1 + f_2"])

# %% [markdown]
# Now a larger family of 200 with a noisy "likes computer games" score, and two ways of
# *training* an ensemble of 20 trees on it:
#
# * **subsampled bagging**: 20 independent trees, each grown on its own random 70 % of the
#   rows and fitted to the target itself; the forest averages them, which is a sum of trees
#   whose scores are divided by 20. (A *random forest* would also draw a random subset of
#   the features at every split; lesson 8 has one. The model is the same sum of trees.)
# * **boosting**: 20 trees grown one after another, each fitted to what the trees before it
#   still get wrong (lesson 3 says exactly how).

# %%
rng = np.random.default_rng(1)
n = 200
people = pd.DataFrame(
    {
        "age": rng.integers(5, 80, n),
        "is_male": rng.integers(0, 2, n),
        "uses_computer_daily": rng.integers(0, 2, n),
    }
)
likes = predict_ensemble([tree_1, tree_2], people) + rng.normal(0, 0.5, n)

K = 20
forest = []
for k in range(K):
    # one tree on a random 70 % of the rows, its leaf scores divided by K (learning_rate)
    bag = tg.BoostingRegressor(
        n_estimators=1, max_depth=3, learning_rate=1 / K, reg_lambda=0, base_score=0,
        subsample=0.7, random_state=k,
    )  # fmt: skip
    forest += bag.fit(people, likes).trees_
boosted = tg.BoostingRegressor(n_estimators=K, max_depth=3, learning_rate=0.3, base_score=0)
boosted.fit(people, likes)

print(type(forest[0]).__name__, len(forest), "trees in the forest;",
      type(boosted.trees_[0]).__name__, len(boosted.trees_), "in the boosted model")  # fmt: skip

# %%
pred_forest = predict_ensemble(forest, people)
pred_boosted = predict_ensemble(boosted.trees_, people)
assert np.allclose(pred_boosted, boosted.predict(people))
for name, pred in [("bagging", pred_forest), ("boosting", pred_boosted)]:
    print(f"{name:14s} training MSE {np.mean((likes - pred) ** 2):.3f}")
side_by_side = pd.DataFrame(
    {
        "two trees": scores["ŷ = f_1 + f_2"],
        "forest": predict_ensemble(forest, family),
        "boosted": boosted.predict(family),
    }
)
assert (side_by_side["forest"] - side_by_side["two trees"]).abs().max() < 0.5
assert (side_by_side["boosted"] - side_by_side["two trees"]).abs().max() < 0.5
side_by_side.loc[["boy", "grandpa", "grandma"]].round(2)

# %% [markdown]
# Both are lists of the same `tg.Tree` objects and one function predicts with both: the
# model is the same, only the training differs. Both land within 0.5 of the
# family's two-tree scores above. The first tree of each shows the difference in training: the forest's tree
# is fitted to the target (scores near the target's size, ÷ 20), the boosted one only takes
# the first step, 0.3 of the way (the learning rate, lesson 5).

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), layout="constrained")
forest[0].plot(ax=axes[0], fields=["n", "value"])
axes[0].set_title("bagging, tree 1 of 20 (scores ÷ 20)")
boosted.trees_[0].plot(ax=axes[1], fields=["n", "value"])
axes[1].set_title("boosting, tree 1 of 20 (scores × 0.3)")
plt.show()

# %% [markdown]
# (Majority votes and the other kinds of ensembles — bagging, boosting, stacking — are
# lesson 8.)
#
# ## 4. Your turn
#
# Each exercise prints its numbers (yours, if you set `STUDENT` at the top). Answer to 3
# significant digits: within 1 % of the value is right. A wrong answer gets the likely slip
# or a hint; `reveal=True` in the `check` call shows the solution.
#
# **Exercise 2.1.** What does a two-tree ensemble predict for one person? Work it out from
# the trees' rules, as from the two pictures of section 2.

# %%
sheet = tg.exercises.sheet(2, student=STUDENT)
print(sheet["2.1"].prompt)
my_girl_score = None  # ← your answer
sheet["2.1"].check(my_girl_score)

# %% [markdown]
# **Exercise 2.2.** And for someone who is not in the picture?

# %%
print(sheet["2.2"].prompt)
my_friend_score = None  # ← your answer
sheet["2.2"].check(my_friend_score)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["2.3"].prompt)
my_why = None  # ← your answer
sheet["2.3"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * A CART is rules plus a score on every leaf; `tg.Tree.from_rules` writes one by hand.
# * An ensemble predicts the sum of its trees' scores: 2 + 0.9 = 2.9 for the boy,
#   −1 − 0.9 = −1.9 for the grandpa.
# * A forest (bagged, or a random forest) and a boosted model are both sums of trees; they
#   differ only in how the trees are trained.
#
# Next: lesson 3, how boosting trains its trees — additive training.

# %%
plt.close("all")
