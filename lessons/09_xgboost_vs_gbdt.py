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
# # Lesson 9 — XGBoost-style boosting and classic GBDT, side by side
#
# Lessons 1–5 built XGBoost's boosting from seed 000: a second-order expansion, leaf weights
# $w^* = -G/(H+\lambda)$, a split gain that weighs each row by its hessian. Lessons 6–7 built
# Friedman's classic GBDT from seed 004: a squared-error tree on the residuals, then a Newton
# value per leaf. Seed 003 (*XGBoost Explanation*) puts them next to each other: "instead of
# to fit the minus gradient … XGBoost learns the Taylor expansion at this point". This lesson
# runs both on the same data and shows exactly where they agree and where they part.
#
# **Goals.** By the end you can say which parts of the two algorithms are the same (the
# starting value, the Newton leaf value), which part differs (how a split is scored), why
# they grow the same trees for squared error and for the first round of Troll 2, and check
# both against the real libraries.
#
# | tutorial | what you do here |
# |---|---|
# | seed 003: gradient boosting fits the minus gradient | GBDT's split score: squared error of the residuals |
# | seed 003/000: XGBoost expands the loss to second order | XGBoost's split score G²/(H+λ) (exercise 2) and leaf $-G/(H+\lambda)$ (exercise 1) |
# | seed 004's Troll 2 data, two rounds | `tg.walkthrough.troll2_compare()`: round 1 agrees, round 2 parts |
# | regression (lesson 6's ice-cream toy) | `tg.walkthrough.compare`: every h = 1, the same trees throughout |
# | — | parity: teachgbt's GBDT against scikit-learn, its XGBoost-style boosting against XGBoost |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. Two recipes for one round
#
# Both start from the same $F_0$ (the log-odds of the class prior for a classifier, the mean
# for a regressor) and compute, for each row, the gradient $g_i = p_i - y_i$ (minus the
# residual) and the hessian $h_i = p_i(1-p_i)$. Then:
#
# | | classic GBDT (seed 004, scikit-learn) | XGBoost-style (XGBoost's `loss_chg`; the tutorials' Gain is ½ of it, less γ) |
# |---|---|---|
# | split score | drop in squared error of the residuals: $\frac{G_L^2}{n_L} + \frac{G_R^2}{n_R} - \frac{G^2}{n}$ | $\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda} - \frac{G^2}{H+\lambda}$ |
# | leaf value | $\sum$residual $/ \sum p(1-p)$ | $-G/(H+\lambda)$ — the same with λ = 0 |
# | regularization | depth, learning rate | also λ, γ (lesson 5), `min_child_weight` |
#
# The only difference in the recipe is the denominator of the split score: GBDT counts
# rows, XGBoost adds up their hessians. When every $h_i$ is the same number, the two scores
# are proportional and pick the same split.
#
# ## 2. Troll 2, both ways
#
# `tg.walkthrough.troll2_compare()` runs seed 004's settings (ν = 0.8, depth 2, two rounds)
# through both, XGBoost-style with λ = 0 and `min_child_weight` = 0 so that its leaf values
# equal GBDT's:

# %%
cmp = tg.walkthrough.troll2_compare()
rounds = cmp.rounds.set_index("round")
assert rounds.at[1, "same_tree"] and not rounds.at[2, "same_tree"]
cmp.rounds.round(4)

# %% [markdown]
# In round 1 every row has $p = 2/3$, so every $h_i = 2/9$: XGBoost's score is GBDT's divided
# by 2/9, and both choose `favorite_color_red < 0.5` at the root. The root's squared-error
# improvement is 0.533333 and XGBoost's score 0.533333 / (2/9) = 2.4.

# %%
first = cmp.root_candidates(1)
red = first[first["gbdt_chosen"]].iloc[0]
print(red[["feature", "threshold", "squared_error_improvement", "xgboost_loss_chg"]])
assert red["feature"] == "favorite_color_red" and red["xgboost_chosen"]
assert round(red["squared_error_improvement"], 6) == 0.533333
assert np.isclose(red["xgboost_loss_chg"], 2.4, rtol=1e-5)
assert np.allclose(
    first["xgboost_loss_chg"], first["squared_error_improvement"] / (2 / 9), rtol=1e-5
)

# %% [markdown]
# **Exercise 1.** XGBoost's leaf weight with λ = 1 instead of 0. (The shipped numbers are
# the leaf of rows 0, 4 and 5 in round 1: three rows with $g_i = 2/3 - 1$ and $h_i = 2/9$.)
# The cell prints the numbers (yours, if you set `STUDENT` at the top). Answer to 3
# significant digits: within 1 % of the value is right. A wrong answer gets the likely slip
# or a hint; `reveal=True` in the `check` call shows the worked solution.

# %%
sheet = tg.exercises.sheet(9, student=STUDENT)
print(sheet["9.1"].prompt)
my_weight = None  # ← your answer
sheet["9.1"].check(my_weight)

# %% [markdown]
# **Exercise 2.** The tutorial's gain of a split. (The shipped numbers are the root split
# `favorite_color_red < 0.5` of round 1 — rows 0, 1, 2, 4, 5 left, row 3 right — now with
# λ = 1: its G and H sums are the prompt's.)

# %%
print(sheet["9.2"].prompt)
my_gain = None  # ← your answer
sheet["9.2"].check(my_gain)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["9.3"].prompt)
my_why = None  # ← your answer
sheet["9.3"].check(my_why)

# %% [markdown]
# In round 2 the probabilities differ from row to row, and so do the hessians: from 0.11
# for the confident rows to 0.25 for rows 1 and 2, still near ½. The criteria now disagree
# at the root:

# %%
second = cmp.root_candidates(2)
g_best = second[second["gbdt_chosen"]].iloc[0]
x_best = second[second["xgboost_chosen"]].iloc[0]
assert (g_best["feature"], g_best["threshold"]) == ("age", 65.5)
assert (x_best["feature"], x_best["threshold"]) == ("favorite_color_green", 0.5)
assert round(rounds.at[2, "h_min"], 2) == 0.11 and round(rounds.at[2, "h_max"], 2) == 0.25
second.head(6).round(4)

# %% [markdown]
# GBDT's favourite, `age < 65.5`, puts row 1 (the largest residual) alone. XGBoost prefers
# `favorite_color_green < 0.5`, which pairs row 1 with row 4: row 4 is already confident
# (p = 0.87), its hessian 0.11 is small, so it dilutes the pair much less for XGBoost than
# for GBDT. Each criterion's scores, scaled so that its best is 1:

# %%
top = second.head(6)
labels = [f"{f} < {t:g}" for f, t in zip(top["feature"], top["threshold"])]
fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
pos = np.arange(len(top))
ax.barh(pos - 0.2, top["squared_error_improvement"] / second["squared_error_improvement"].max(),
        height=0.4, label="GBDT: squared-error improvement")  # fmt: skip
ax.barh(pos + 0.2, top["xgboost_loss_chg"] / second["xgboost_loss_chg"].max(),
        height=0.4, label="XGBoost: G²/H score")  # fmt: skip
ax.set_yticks(pos, labels)
ax.invert_yaxis()
ax.set(xlabel="score / best score", title="Round 2, root candidates")
ax.legend(loc="lower right", fontsize="small")
plt.show()
row4_p = cmp.gbdt.trace_.epochs().at[4, "ep_1_prob"]
assert round(row4_p, 2) == 0.87 and round(row4_p * (1 - row4_p), 2) == 0.11

# %% [markdown]
# The two second trees, GBDT's first:

# %%
tg.draw.draw_model(cmp.gbdt, rounds=[2])

# %%
tg.draw.draw_model(cmp.xgboost, rounds=[2])

# %% [markdown]
# And the log-odds after round 2, per person. Only row 1 ends equal, at 1.622: both second
# trees give it a leaf of its own, and a one-row leaf's Newton value (y − p)/p(1 − p) is the
# same in both. Every other row differs — row 2, for one, ends at −1.585 with GBDT and
# −1.334 with XGBoost.

# %%
same = np.isclose(cmp.instances["gbdt_ep_2_pre"], cmp.instances["xgboost_ep_2_pre"])
assert list(np.flatnonzero(same)) == [1] and round(cmp.instances.at[1, "gbdt_ep_2_pre"], 3) == 1.622
assert round(cmp.instances.at[2, "gbdt_ep_2_pre"], 3) == -1.585
assert round(cmp.instances.at[2, "xgboost_ep_2_pre"], 3) == -1.334
cmp.instances.round(4)

# %% [markdown]
# The XGBoost-style model in the explorer: pick a node of round 2 to see every candidate
# split with its G_L, H_L, G_R, H_R and score, or a row to follow its path:

# %%
tg.explore(cmp.xgboost)

# %% [markdown]
# ## 3. Regression: the same trees throughout
#
# For the squared error ½(y − F)², $h_i = 1$ for every row in every round, so $H = n$ and
# the two split scores are identical (with λ = 0). `tg.walkthrough.compare` takes any small
# dataset; on lesson 6's ice-cream toy the trees never part:

# %%
X_ice, y_ice = tg.datasets.ice_cream_xy()
ice = tg.walkthrough.compare(X_ice, y_ice, classifier=False)
assert ice.rounds["same_tree"].all() and ice.rounds["h_equal"].all()
ice.rounds.round(4)

# %% [markdown]
# ## 4. Parity with the real libraries
#
# teachgbt's GBDT is scikit-learn's `GradientBoostingClassifier`; its XGBoost-style
# boosting is XGBoost's `tree_method="exact"`. With the same settings the log-odds agree
# (XGBoost computes in float32, so to about 1e-6). Both libraries are optional; each cell
# says so if its library is missing.

# %%
X, y = tg.datasets.troll2_xy()
try:
    from sklearn.ensemble import GradientBoostingClassifier
except ImportError:
    print("scikit-learn is not installed: pip install scikit-learn to run this check")
else:
    sk = GradientBoostingClassifier(n_estimators=2, learning_rate=0.8, max_depth=2).fit(X, y)
    gap = np.abs(sk.decision_function(X) - cmp.gbdt.decision_function(X)).max()
    print(f"GBDT vs scikit-learn: largest log-odds difference {gap:.1e}")
    assert gap < 1e-9

# %%
try:
    import xgboost as xgb
except ImportError:
    print("XGBoost is not installed: pip install xgboost to run this check")
else:
    settings = dict(n_estimators=2, learning_rate=0.8, max_depth=2, reg_lambda=0.0,
                    min_child_weight=0.0, base_score=4 / 6, tree_method="exact")  # fmt: skip
    theirs = xgb.XGBClassifier(**settings).fit(X, y)
    gap = np.abs(theirs.predict(X, output_margin=True) - cmp.xgboost.decision_function(X)).max()
    print(f"XGBoost-style vs XGBoost: largest log-odds difference {gap:.1e}")
    assert gap < 1e-5
    print(pd.DataFrame({"teachgbt": cmp.xgboost.decision_function(X),
                        "xgboost": theirs.predict(X, output_margin=True)}).round(6))  # fmt: skip

# %% [markdown]
# ## What you have seen
#
# * GBDT and XGBoost-style boosting share the start F₀ and the Newton leaf value; they
#   differ in the split score: row counts against hessian sums (plus λ).
# * With equal hessians — the first Troll 2 round, every round of squared error — they grow
#   the same trees; once the probabilities spread, XGBoost favours splits that group
#   uncertain rows, and the trees part.
# * teachgbt's two algorithms reproduce scikit-learn and XGBoost.
#
# Lesson 10 takes XGBoost-style boosting to a million rows.

# %%
plt.close("all")
