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
# # Lesson 12 — Why this prediction? Contributions, by hand and by TreeSHAP
#
# A boosted model predicts a margin for a row. Which features pushed it up, which down, and
# by how much? `tg.explain.contributions(model, X)` splits every row's margin into one
# number per feature plus a `bias`, and the pieces add up to the margin exactly. There are
# two ways to split it: follow the row's path (Saabas, `method="path"`) or take Shapley
# values (SHAP, the default). On a small tree you can do both by hand.
#
# **Goals.** By the end you can compute a tree's expected value at each node, the path
# contribution of a feature, and its Shapley value by enumerating the feature sets; say why
# the two differ; read a waterfall; and know that the numbers are XGBoost's `pred_contribs`.
#
# | topic | what you do here |
# |---|---|
# | a tree's expected value: the cover-weighted mean of its leaves | compute it at every node of a depth-2 tree |
# | `method="path"` (Saabas, XGBoost's `approx_contribs`) | follow one row's path and hand each change to the feature split on |
# | `method="shap"` (TreeSHAP, XGBoost's `pred_contribs`) | enumerate the four feature sets of a two-feature tree and average |
# | `bias` = base margin + Σ expected values; rows sum to the margin | check it on a model of 30 trees |
# | `tg.plot.contributions` | one row's waterfall, from the bias to the margin |
# | XGBoost | the same numbers, live (skipped if not installed) |
# | Exercises | a path contribution, a Shapley value |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. One tree to take apart
#
# Eight days of an ice-cream stand: was it sunny, was it a weekend, how many ice creams were
# sold. One tree of depth 2, squared error, λ = 0, learning rate 1 and `base_score=0`, so that
# every leaf is the mean of its days and every cover H (the hessian sum) is a count of days.

# %%
days = pd.DataFrame({"sunny": [0, 0, 0, 1, 1, 1, 1, 1], "weekend": [0, 1, 1, 0, 0, 1, 1, 1]})
sold = np.array([10, 20, 24, 30, 34, 50, 56, 62.0])
one = dict(n_estimators=1, max_depth=2, learning_rate=1.0, reg_lambda=0.0)
stand = tg.BoostingRegressor(base_score=0.0, **one).fit(days, sold)
tree = stand.trees_[0]
nodes = tree.to_frame()
assert np.allclose(nodes["H"], nodes["n"])  # squared error: h = 1 per row
assert np.allclose(nodes.loc[nodes["is_leaf"], "value"], [10, 22, 32, 56])
tree.plot(fields=["n", "H", "value"])
plt.show()

# %% [markdown]
# ## 2. Expected values
#
# What does the tree predict for a day we know nothing about? Each leaf's value, weighted by
# its share of the days (its cover H): the **expected value** at the root. The same at every
# node: the cover-weighted mean of the leaves below it.
#
# * root: (1·10 + 2·22 + 2·32 + 3·56) / 8 = 286 / 8 = 35.75
# * not sunny (node 1): (1·10 + 2·22) / 3 = 18
# * sunny (node 2): (2·32 + 3·56) / 5 = 46.4

# %%
E = tg.explain.attributions.expected_values(tree)
assert np.allclose(E[:3], [35.75, 18.0, 46.4])
pd.DataFrame({"node": nodes["node"], "H": nodes["H"], "E[node]": E}).round(3)

# %% [markdown]
# ## 3. The path contribution (Saabas)
#
# Take a sunny weekend, row 5. It starts at the root's 35.75; the split on `sunny` moves it to
# 46.4, the split on `weekend` to the leaf's 56. Give each feature the change its split made:
#
# * sunny: 46.4 − 35.75 = 10.65
# * weekend: 56 − 46.4 = 9.6
#
# and 35.75 (the `bias`) + 10.65 + 9.6 = 56, the prediction.

# %%
path = tg.explain.contributions(stand, days, method="path")
assert np.allclose(path.loc[5, ["sunny", "weekend", "bias"]], [10.65, 9.6, 35.75])
assert np.allclose(path.sum(axis=1), stand.predict(days))
path.loc[[1, 5]].round(2)  # rows 0, 3 and 4 are your exercises

# %% [markdown]
# Simple, but it depends on the order of the splits: the feature asked first gets the change
# from the root, whatever the others would have said.
#
# ## 4. The Shapley value (SHAP), by enumerating feature sets
#
# Make it fair. Let v(S) be what the tree expects when only the features in S are known: at a
# split on a known feature follow the row; at a split on an unknown one take both children,
# weighted by cover. For the sunny weekend:
#
# * v(∅) = 35.75, nothing known;
# * v({sunny}) = 46.4, the sunny branch's expected value;
# * v({weekend}) = (3·22 + 5·56) / 8 = 43.25: both branches, each at its weekend leaf;
# * v({sunny, weekend}) = 56, the leaf.
#
# A feature's Shapley value averages what it adds over the orders in which the features
# could arrive. With two features, half the time it comes first and half the time second:
#
# * φ_sunny = ½[v({sunny}) − v(∅)] + ½[v({sunny, weekend}) − v({weekend})]
#   = ½(10.65) + ½(12.75) = 11.70
# * φ_weekend = ½[v({weekend}) − v(∅)] + ½[v({sunny, weekend}) − v({sunny})]
#   = ½(7.5) + ½(9.6) = 8.55
#
# Again 35.75 + 11.70 + 8.55 = 56.

# %%
x5 = days.loc[5].to_numpy(dtype=float)
v = {
    S: tg.explain.attributions.expected_value_given(tree, x5, set(S))
    for S in [(), (0,), (1,), (0, 1)]
}
assert np.allclose([v[()], v[(0,)], v[(1,)], v[(0, 1)]], [35.75, 46.4, 43.25, 56.0])
phi_sunny = 0.5 * (v[(0,)] - v[()]) + 0.5 * (v[(0, 1)] - v[(1,)])
phi_weekend = 0.5 * (v[(1,)] - v[()]) + 0.5 * (v[(0, 1)] - v[(0,)])
shap = tg.explain.contributions(stand, days)  # method="shap" is the default
assert np.allclose([phi_sunny, phi_weekend], [11.70, 8.55])
assert np.allclose(shap.loc[5, ["sunny", "weekend"]], [phi_sunny, phi_weekend])
assert np.allclose(shap.sum(axis=1), stand.predict(days))
pd.concat({"path (Saabas)": path, "SHAP": shap}, axis=1).loc[[1, 5]].round(2)

# %% [markdown]
# Both split the same total, leaf − root = 56 − 35.75 = 20.25; SHAP gives `sunny` a little
# more (11.70 against 10.65), because knowing `weekend` alone already says a lot. A tree with
# M features has 2^M sets: TreeSHAP (Lundberg et al.) gets the same values in one walk per
# leaf instead, which is what `tg.explain.contributions` runs on large models.
#
# ## 5. The bias, and a model of many trees
#
# With the default `base_score` the model starts at the mean, 35.75, and the tree fits what
# is left: its expected value is then 0. The `bias` column is the base margin plus every
# tree's expected value, so it is the same 35.75 either way:

# %%
from_mean = tg.BoostingRegressor(**one).fit(days, sold)
tree_mean = tg.explain.attributions.expected_values(from_mean.trees_[0])[0]
print(f"base_score_ = {from_mean.base_score_:.2f}, E[tree] = {tree_mean:.2f}")
assert np.isclose(from_mean.base_score_, 35.75) and abs(tree_mean) < 1e-9
assert np.allclose(tg.explain.contributions(from_mean, days), shap)

# %% [markdown]
# The same on a classifier of 30 trees on generated data: five features, of which the label
# depends on the first three. Each row's contributions plus `bias` make its margin, the
# log-odds:

# %%
rng = np.random.default_rng(3)
Z = pd.DataFrame(np.round(rng.normal(size=(300, 5)), 2), columns=list("abcde"))
label = (Z["a"] + Z["b"] * Z["c"] + 0.5 * rng.normal(size=300) > 0).astype(int)
clf = tg.BoostingClassifier(n_estimators=30, max_depth=3, learning_rate=0.3).fit(Z, label)
contrib = tg.explain.contributions(clf, Z)
assert np.allclose(contrib.sum(axis=1), clf.decision_function(Z), atol=1e-5)
mean_abs = contrib.drop(columns="bias").abs().mean().sort_values(ascending=False)
print("mean |contribution| per feature:", mean_abs.round(3).to_dict())
assert set(mean_abs.index[:3]) == {"a", "b", "c"}
contrib.head().round(3)

# %% [markdown]
# The features the label depends on (a, b, c) carry the largest contributions on average.
# One row as a waterfall, from the bias to the margin (the top axis reads it as a
# probability):

# %%
ax = tg.plot.contributions(clf, Z.iloc[0])
plt.show()

# %% [markdown]
# ## 6. The same numbers as XGBoost
#
# XGBoost computes the same two things: `pred_contribs=True` (TreeSHAP) and, with
# `approx_contribs=True`, the path attribution. Train XGBoost with the same settings (its
# `exact` method grows the same trees as teachgbt) and compare, live. (XGBoost is optional;
# the cell says so if it is missing.)

# %%
try:
    import xgboost as xgb
except ImportError:
    print("XGBoost is not installed: pip install xgboost to run this comparison")
else:
    native = xgb.XGBClassifier(
        n_estimators=30, max_depth=3, learning_rate=0.3, tree_method="exact"
    ).fit(Z, label)
    dm = xgb.DMatrix(Z)
    theirs = native.get_booster().predict(dm, pred_contribs=True)
    theirs_path = native.get_booster().predict(dm, pred_contribs=True, approx_contribs=True)
    ours_path = tg.explain.contributions(clf, Z, method="path")
    gap = np.abs(theirs - contrib.to_numpy()).max()
    gap_path = np.abs(theirs_path - ours_path.to_numpy()).max()
    print(f"largest difference: SHAP {gap:.1e}, path {gap_path:.1e}")
    assert gap < 1e-4 and gap_path < 1e-4

# %% [markdown]
# ## 7. Your turn
#
# Back to the ice-cream tree of sections 1–4 (with `STUDENT` set, a tree on your own sales).
# Answer to 3 significant digits: within 1 % of the value is right. A wrong answer gets the
# likely slip or a hint; `reveal=True` in the `check` call shows the value and the worked
# solution.
#
# **Exercise 12.1.** A path (Saabas) contribution (the shipped numbers: `weekend` for row 3,
# a sunny weekday).

# %%
sheet = tg.exercises.sheet(12, student=STUDENT)
print(sheet["12.1"].prompt)
my_path_weekend = None  # ← your answer
sheet["12.1"].check(my_path_weekend)

# %% [markdown]
# **Exercise 12.2.** A Shapley value: work out v(∅), v({sunny}), v({weekend}) and
# v({sunny, weekend}) for the row, then the Shapley value (the shipped numbers: `sunny` for
# row 0, a cloudy weekday).

# %%
print(sheet["12.2"].prompt)
my_shap_sunny = None  # ← your answer
sheet["12.2"].check(my_shap_sunny)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["12.3"].prompt)
my_why = None  # ← your answer
sheet["12.3"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * A tree's expected value at a node is the cover-weighted mean of the leaves below it.
# * The path attribution hands each split's change of expected value to its feature; it
#   depends on the order of the splits.
# * The Shapley value averages a feature's effect over the orders it could arrive in:
#   v(S) for every set S, by hand for two features; TreeSHAP does it fast.
# * Either way `bias` (base margin + expected values) plus the contributions is the margin,
#   and the numbers are XGBoost's `pred_contribs` and `approx_contribs`.
#
# Next, lesson 13 opens a model trained by XGBoost, LightGBM or scikit-learn.

# %%
plt.close("all")
