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
# # Lesson 4 — The complexity of a tree and the structure score
#
# **Goals.** By the end you can price a tree with Ω = γT + ½λ‖w‖², regroup the objective of
# one round leaf by leaf, find each leaf's best weight w* = −G/(H+λ) and the structure score
# Obj* of a whole tree — by hand, on seed 002's five-instance figure — and say what the L1
# penalty (`reg_alpha`) does to a leaf: a soft threshold on G.
#
# | tutorial section | what you do here |
# |---|---|
# | "Model complexity": f_t(x) = w_q(x), Ω(f) = γT + ½λΣw_j² (000; 002 "Define complexity of a tree") | evaluate Ω = γ·3 + ½λ(4 + 0.01 + 1) for lesson 2's first tree |
# | "The structure score": regroup by leaf, G_j, H_j, T independent quadratics (000; 001; 003 "sample-based to node-based") | draw one leaf's quadratic and its minimum |
# | w* = −G/(H+λ), Obj* = −½ΣG²/(H+λ) + γT (000; 002 "The structure score") | read them off the trainer's node table |
# | "The structure score calculation", five instances (002) | draw the slide's figure with numbers and work it by hand |
# | L1 norm (lasso) (002 "Objective function"; XGBoost's `reg_alpha`) | see the soft threshold on G, in a plot and in a trained tree |
# | Exercises | a structure score, a leaf with α, Ω of a tree, and a why-question |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. The complexity of a tree
#
# Seed 000 refines what a tree is: a vector of leaf scores $w \in \mathbb{R}^T$ and a map
# $q(x)$ from an instance to its leaf, $f_t(x) = w_{q(x)}$. Its complexity is
#
# $$\Omega(f) = \gamma T + \tfrac12 \lambda \sum_{j=1}^T w_j^2 :$$
#
# γ is the price of each of the $T$ leaves, λ pulls the scores towards zero. The slides'
# example is lesson 2's first tree, leaf scores 2, 0.1 and −1:
# $\Omega = \gamma \cdot 3 + \tfrac12\lambda(4 + 0.01 + 1)$.

# %%
tree_1 = tg.Tree.from_rules(
    ("age < 15", ("is_male < 0.5", 0.1, 2.0), -1.0), ["age", "is_male", "uses_computer_daily"]
)
w = tree_1.value[tree_1.leaves]
print("leaf scores:", w, "  Σ w² =", round(float(np.sum(w**2)), 4))
for gamma, lam in [(0.0, 1.0), (1.0, 1.0)]:
    omega = gamma * tree_1.n_leaves + 0.5 * lam * np.sum(w**2)
    print(f"γ = {gamma}, λ = {lam}:  Ω = {gamma}·3 + ½·{lam}·5.01 = {omega:.3f}")
assert abs(np.sum(w**2) - 5.01) < 1e-12 and tree_1.n_leaves == 3

# %% [markdown]
# ## 2. Regroup by leaf: one quadratic per leaf
#
# Lesson 3 left round t's objective as $\sum_i [g_i f_t(x_i) + \tfrac12 h_i f_t(x_i)^2] +
# \Omega(f_t)$. Every instance in leaf $j$ gets the same score $w_j$, so sum by leaf, with
# $G_j = \sum_{i\in I_j} g_i$ and $H_j = \sum_{i\in I_j} h_i$:
#
# $$\text{Obj}^{(t)} = \sum_{j=1}^T \left[G_j w_j + \tfrac12 (H_j+\lambda) w_j^2\right] + \gamma T .$$
#
# $T$ independent quadratics (seed 003's "sample-based to node-based" loss). Each is
# smallest at
#
# $$w_j^* = -\frac{G_j}{H_j+\lambda}, \qquad
#   \text{Obj}^* = -\frac12 \sum_{j=1}^T \frac{G_j^2}{H_j+\lambda} + \gamma T .$$
#
# One leaf with G = −3, H = 2, λ = 1: its quadratic, lowest at w* = 1 with value
# −½·9/3 = −1.5. λ makes the bowl steeper and moves the minimum towards 0:

# %%
G, H = -3.0, 2.0
ws = np.linspace(-0.5, 2.5, 121)
fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
for lam in (0.0, 1.0, 4.0):
    ax.plot(ws, G * ws + 0.5 * (H + lam) * ws**2, label=f"λ = {lam:g}")
    w_star = tg.formulas.leaf_weight(G, H, reg_lambda=lam)
    ax.plot(w_star, G * w_star + 0.5 * (H + lam) * w_star**2, "o", color=ax.lines[-1].get_color())
ax.set(xlabel="leaf weight w", ylabel="G·w + ½(H+λ)·w²", title="one leaf's share of the objective")
ax.legend()
assert tg.formulas.leaf_weight(G, H, reg_lambda=1) == 1.0
assert tg.formulas.structure_score([G], [H], reg_lambda=1) == -1.5

# %% [markdown]
# ## 3. The structure score calculation: seed 002's five instances
#
# The slides' figure: five family members with gradient statistics $g_i, h_i$, pushed through
# the tree "age < 15?", then "is male?". Instance 1 (the boy) lands in one leaf, instance 4
# (the girl) in another, instances 2, 3, 5 (mom, grandpa, grandma) in the third; then
# $G_j, H_j$ are summed per leaf and $\text{Obj} = -\tfrac12\sum_j G_j^2/(H_j+\lambda) + 3\gamma$.
# The leaves are numbered as every tree in this course numbers its nodes, level by level:
# the root 0, its children 1 and 2, then 3 and 4 — so the adults are leaf 2, the girl leaf 3
# and the boy leaf 4, in the figure, in the tables and in the trained tree below.
#
# The slide leaves $g_i, h_i$ as symbols. To have numbers: say the previous rounds predicted
# ŷ = 0 and the targets are tree 1's scores (2 for the boy, 0.1 for the girl, −1 for the
# adults); with XGBoost's square loss, $g_i = \hat y_i - y_i$ and $h_i = 1$.

# %%
five = pd.DataFrame(
    {"name": ["boy", "mom", "grandpa", "girl", "grandma"], "age": [10, 38, 75, 8, 72],
     "is_male": [1, 0, 1, 0, 0], "uses_computer_daily": [1, 1, 0, 0, 0]},
    index=pd.Index([1, 2, 3, 4, 5], name="instance"),
)  # fmt: skip
five["y"] = tree_1.predict(five[["age", "is_male", "uses_computer_daily"]])
five["g"] = 0.0 - five["y"]
five["h"] = 1.0
five["leaf"] = tree_1.apply(five[["age", "is_male", "uses_computer_daily"]])
sums = five.groupby("leaf").agg(
    instances=("name", lambda s: ", ".join(str(i) for i in s.index)), G=("g", "sum"), H=("h", "sum")
)
sums["G²/(H+λ)"] = sums["G"] ** 2 / (sums["H"] + 1)
obj = tg.formulas.structure_score(sums["G"], sums["H"], reg_lambda=1, gamma=0)
five.round(2)

# %% [markdown]
# The figure, drawn: the instances with their statistics on the left, the tree with each
# leaf's instance set and sums in the middle, the score on the right.

# %%
fig = plt.figure(figsize=(12, 4.4), layout="constrained")
grid = fig.add_gridspec(2, 2, width_ratios=[1, 2.3], height_ratios=[2.2, 1])
ax = fig.add_subplot(grid[:, 0])
ax.axis("off")
ax.set_title("instance index   gradient statistics", fontsize=10)
for k, (i, row) in enumerate(five.iterrows()):
    ax.text(0.05, 0.85 - 0.17 * k, f"{i}  {row['name']}", fontsize=11, transform=ax.transAxes)
    ax.text(0.55, 0.85 - 0.17 * k, f"g{i} = {row['g']:+.1f}, h{i} = {row['h']:.0f}",
            fontsize=11, transform=ax.transAxes, family="monospace")  # fmt: skip
tree_1.plot(ax=fig.add_subplot(grid[0, 1]), legend=False)
axb = fig.add_subplot(grid[1, 1])
axb.axis("off")
for k, (leaf, s) in enumerate(sums.iterrows()):
    text = f"leaf {leaf}: I = {{{s['instances']}}}\nG = {s['G']:+.1f}, H = {s['H']:.0f}"
    axb.text(0.02 + 0.34 * k, 0.55, text, fontsize=10, va="center", transform=axb.transAxes,
             bbox=dict(boxstyle="round", fc="#f3f3f3", ec="#999999"))  # fmt: skip
axb.text(0.02, 0.0, f"Obj = −½ Σ_j G_j²/(H_j+λ) + 3γ = −½ [9/4 + 0.01/2 + 4/2] = {obj:.4f}"
         "   (λ = 1, γ = 0)", fontsize=11, transform=axb.transAxes)  # fmt: skip
fig.suptitle("seed 002: the structure score calculation", fontsize=12)
plt.show()

# %% [markdown]
# **By hand**, with λ = 1 and γ = 0, leaf by leaf: leaf 2 (the adults) has
# $G_2 = g_2 + g_3 + g_5 = 3$, $H_2 = 3$; leaf 3 (the girl) $G_3 = g_4 = -0.1$, $H_3 = 1$;
# leaf 4 (the boy) $G_4 = g_1 = -2$, $H_4 = 1$; and
#
# $$\text{Obj} = -\tfrac12\left[\frac{9}{4} + \frac{0.01}{2} + \frac{4}{2}\right] = -2.1275 .$$
#
# (The slide with this figure prints the formula without the ½, as XGBoost's code does;
# seed 000's derivation and the slides around it keep it — see `lessons/00_conventions.md`.)
# The smaller the score, the better the structure.

# %%
sums.round(4)

# %%
assert abs(obj - (-2.1275)) < 1e-12
assert sums.index.tolist() == [2, 3, 4] and sums["instances"].tolist() == ["2, 3, 5", "4", "1"]

# %% [markdown]
# The trainer computes the same sums. With the five rows and the targets above, one round of
# depth 2 reaches the same three leaves, numbered alike (its second question differs —
# "age < 9?" separates the girl from the boy as well as "is male?" does, and ties go to the
# first feature — but the leaves hold the same instances), so the same score:

# %%
fitted = tg.BoostingRegressor(
    n_estimators=1, max_depth=2, learning_rate=1, min_child_weight=0, base_score=0
).fit(five[["age", "is_male", "uses_computer_daily"]], five["y"])
nodes = fitted.trace_.nodes(1)
leaves = nodes[nodes["is_leaf"]]
score_trained = tg.formulas.structure_score(leaves["G"], leaves["H"], reg_lambda=1)
assert abs(score_trained - obj) < 1e-9
assert np.allclose(leaves["weight"], tg.formulas.leaf_weight(leaves["G"], leaves["H"]))
assert list(fitted.trees_[0].apply(five[["age", "is_male", "uses_computer_daily"]])) == list(
    five["leaf"]
)
fitted.trees_[0].plot(fields=["n", "G", "H", "weight"])
plt.show()

# %% [markdown]
# `tg.explain.leaf` writes w* out for one leaf with the model's numbers:

# %%
tg.explain.leaf(fitted, 1, int(leaves["node"].iloc[-1]))

# %% [markdown]
# ## 4. The L1 penalty: a soft threshold on G
#
# The slides list the L1 norm (lasso) beside L2; XGBoost adds it to a tree as `reg_alpha`,
# α Σ|w_j|. The quadratic per leaf becomes $G w + \tfrac12(H+\lambda)w^2 + \alpha|w|$, whose
# minimum is
#
# $$w^* = -\frac{\operatorname{sign}(G)\max(|G| - \alpha,\ 0)}{H + \lambda}:$$
#
# |G| first shrinks by α, and a leaf whose |G| ≤ α gets weight exactly 0 — the soft
# threshold.

# %%
Gs = np.linspace(-4, 4, 161)
fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
for alpha in (0.0, 1.0, 2.0):
    ax.plot(Gs, tg.formulas.leaf_weight(Gs, 2.0, reg_lambda=1.0, reg_alpha=alpha),
            label=f"reg_alpha = {alpha:g}")  # fmt: skip
ax.axhline(0, color="grey", lw=0.5)
ax.set(
    xlabel="G", ylabel="w*  (H = 2, λ = 1)", title="L1: a flat zone |G| ≤ α, then −(|G| − α)/(H+λ)"
)
ax.legend()
assert tg.formulas.leaf_weight(-3.0, 2.0, reg_lambda=1.0, reg_alpha=1.0) == 2 / 3
assert tg.formulas.leaf_weight(0.8, 2.0, reg_lambda=1.0, reg_alpha=1.0) == 0.0

# %% [markdown]
# A trained tree obeys it: on the five instances with `reg_alpha=1`, every leaf's weight is
# the soft-thresholded formula, and the girl's leaf (|G| = 0.1 < 1) gets exactly 0.

# %%
lasso = tg.BoostingRegressor(
    n_estimators=1, max_depth=2, learning_rate=1, min_child_weight=0, base_score=0, reg_alpha=1.0
).fit(five[["age", "is_male", "uses_computer_daily"]], five["y"])
lasso_leaves = lasso.trace_.nodes(1).query("is_leaf")
expected = tg.formulas.leaf_weight(lasso_leaves["G"], lasso_leaves["H"], 1.0, reg_alpha=1.0)
assert np.allclose(lasso_leaves["weight"], expected)
assert (lasso_leaves["weight"] == 0).sum() >= 1
lasso_leaves[["node", "n", "G", "H", "weight"]].round(4)

# %% [markdown]
# ## 5. Your turn
#
# Each exercise prints its numbers (yours, if you set `STUDENT` at the top). Answer to 3
# significant digits: within 1 % of the value is right. A wrong answer gets the likely slip
# or a hint; `reveal=True` in the `check` call shows the solution.
#
# **Exercise 4.1.** The structure score Obj* of a tree from its leaves' G and H.

# %%
sheet = tg.exercises.sheet(4, student=STUDENT)
print(sheet["4.1"].prompt)
my_structure_score = None  # ← your answer
sheet["4.1"].check(my_structure_score)

# %% [markdown]
# **Exercise 4.2.** A leaf's weight w* with the L1 penalty `reg_alpha`.

# %%
print(sheet["4.2"].prompt)
my_leaf_weight = None  # ← your answer
sheet["4.2"].check(my_leaf_weight)

# %% [markdown]
# **Exercise 4.3.** The complexity Ω of a tree.

# %%
print(sheet["4.3"].prompt)
my_omega = None  # ← your answer
sheet["4.3"].check(my_omega)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["4.4"].prompt)
my_why = None  # ← your answer
sheet["4.4"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * Ω prices a tree by its leaves (γ each) and its leaf scores (½λ Σ w²).
# * Grouped by leaf, a round's objective is one quadratic per leaf: w* = −G/(H+λ), and
#   Obj* = −½ Σ G²/(H+λ) + γT measures a tree structure — −2.1275 for the slides' five
#   instances with our numbers.
# * `reg_alpha` soft-thresholds G: a leaf with |G| ≤ α scores 0.
#
# Next: lesson 5, how the tree finds its structure — the gain of a split.

# %%
plt.close("all")
