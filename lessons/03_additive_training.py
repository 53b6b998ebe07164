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
# # Lesson 3 — Additive training: gradient descent in function space
#
# **Goals.** By the end you can explain why boosting adds one tree at a time, how that is
# gradient descent with functions instead of numbers, what the line search and the
# second-order Taylor expansion add, and compute $g_i$ and $h_i$ for the square and the
# logistic loss — the only two numbers per instance a tree learner needs, which is why a
# custom loss needs nothing else.
#
# | tutorial section | what you do here |
# |---|---|
# | Additive training: ŷ⁽⁰⁾ = 0, ŷ⁽ᵗ⁾ = ŷ⁽ᵗ⁻¹⁾ + f_t(x) (seed 000; 002 "Additive training") | check the update row by row in the epoch table |
# | Forward stagewise additive modeling, optimization in function space, the line search (seed 003) | fit a tree to the negative gradient, then search the step α along it, for two losses |
# | Taylor expansion to second order, g_i and h_i (000; 001; 002 "Taylor expansion approximation") | draw a loss and its first- and second-order approximations |
# | "think of square loss": g = 2(ŷ − y), h = 2 (000 and 002 write (y − ŷ)²) against XGBoost's ŷ − y, 1 | train with both conventions and see the same trees once λ is halved |
# | logistic loss: g = p − y, h = p(1 − p) | read them in the trace |
# | "it only depends on g_i and h_i … customization of loss functions" (000; 003 "XGBoost") | train with a loss of your own, given as a function returning (g, h) |
# | Exercises | g and h by hand, one round's update with shrinkage, and a why-question |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. Additive training
#
# The parameters are now trees, and there is no gradient to take with respect to a tree's
# rules. Seed 000's way out: fix what has been learned and add one new tree at a time,
#
# $$\hat y_i^{(0)} = 0,\qquad \hat y_i^{(t)} = \hat y_i^{(t-1)} + f_t(x_i),$$
#
# choosing $f_t$ to lower $\sum_i l(y_i, \hat y_i^{(t-1)} + f_t(x_i)) + \Omega(f_t)$.
#
# Lesson 2's family again, larger, with the two-tree scores as the target. Boosting grows its
# own two trees (depth 2, no shrinkage, no penalty, a start of ŷ⁽⁰⁾ = 0). The epoch table
# keeps $\hat y^{(t)}$ as `ep_t_pre` and the leaf each row received as `ep_t_leaf_output`:

# %%
family = tg.datasets.family()  # lesson 2's five, and five more
tree_1 = tg.Tree.from_rules(("age < 15", ("is_male < 0.5", 0.1, 2.0), -1.0), list(family))
tree_2 = tg.Tree.from_rules(("uses_computer_daily < 0.5", -0.9, 0.9), list(family))
likes_games = pd.Series(tree_1.predict(family) + tree_2.predict(family), index=family.index)
family.assign(likes_games=likes_games)

# %%
ens = tg.BoostingRegressor(
    n_estimators=2, max_depth=2, learning_rate=1.0, reg_lambda=0, min_child_weight=0, base_score=0
).fit(family, likes_games)
ep = ens.trace_.epochs().set_index(family.index)
cols = ["ep_0_pre", "ep_1_leaf_output", "ep_1_pre", "ep_2_leaf_output", "ep_2_pre"]
ep[cols].round(3) + 0.0  # + 0.0 shows float32's −0.0 as 0.0

# %%
assert (ep["ep_0_pre"] == 0).all()
assert np.allclose(ep["ep_1_pre"], ep["ep_0_pre"] + ens.trees_[0].predict(family))
assert np.allclose(ep["ep_2_pre"], ep["ep_1_pre"] + ens.trees_[1].predict(family))

# %% [markdown]
# Each row's prediction is the one before plus the new tree's leaf. (Greedy growth picked
# other splits than the tutorial's trees; lesson 5 shows how it picks.)
#
# ## 2. Gradient descent in function space
#
# Seed 003 writes the same idea as optimisation: the model is a point
# $F = (F(x_1), \dots, F(x_n))$ in an $n$-dimensional space, the loss $\Psi(F)$ a function of
# that point. *Forward stagewise additive modeling* moves it one base learner at a time,
#
# $$(\alpha_m, f_m) = \arg\min_{\alpha, f} \sum_i \Psi(y_i, F_{m-1}(x_i) + \alpha f(x_i)),
# \qquad F_m = F_{m-1} + \alpha_m f_m .$$
#
# *Gradient boosting* (Friedman) makes that tractable: fit $f_m$ to the negative gradient
# $-\partial\Psi/\partial F$ at $F_{m-1}$ (steepest descent, with a tree standing in for the
# gradient vector), then choose the step $\alpha_m$ by a *line search* along it.
#
# For the square loss ½(y − F)² the negative gradient is the residual y − F. Below: one tree
# fitted to it on 200 people, then the loss along the tree for steps α from 0 to 8. The same
# for the logistic loss on a yes/no target, whose negative gradient is y − p:

# %%
rng = np.random.default_rng(1)
people = pd.DataFrame(
    {
        "age": rng.integers(5, 80, 200),
        "is_male": rng.integers(0, 2, 200),
        "uses_computer_daily": rng.integers(0, 2, 200),
    }
)
score = tree_1.predict(people) + tree_2.predict(people) + rng.normal(0, 0.5, 200)
flip = rng.random(200) < 0.2  # a fifth of the answers are noise: no leaf is all yes or all no
likes_yes = ((score > 0) ^ flip).astype(float)


def fit_tree(X, target):
    """A depth-2 regression tree fitted to ``target`` (leaf = mean of the target)."""
    one = tg.BoostingRegressor(
        n_estimators=1, max_depth=2, learning_rate=1.0, reg_lambda=0, base_score=0
    )
    return one.fit(X, target).trees_[0]


def square_loss(y, F):
    return np.sum(0.5 * (y - F) ** 2)


def logistic_loss(y, F):
    return np.sum(y * np.log1p(np.exp(-F)) + (1 - y) * np.log1p(np.exp(F)))


alphas = np.linspace(0, 8, 161)
searches = {}
for name, loss, y in [("square", square_loss, score), ("logistic", logistic_loss, likes_yes)]:
    F0 = np.zeros(len(y))
    p0 = 1 / (1 + np.exp(-F0))
    negative_gradient = y - F0 if name == "square" else y - p0
    f = fit_tree(people, negative_gradient).predict(people)
    searches[name] = [loss(y, F0 + a * f) for a in alphas]

fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
for ax, (name, curve) in zip(axes, searches.items()):
    best = alphas[np.argmin(curve)]
    ax.plot(alphas, curve)
    ax.axvline(best, color="grey", ls=":")
    ax.set(
        xlabel="step α along the tree", ylabel=f"{name} loss", title=f"{name}: best α = {best:.2f}"
    )
alpha_square = alphas[np.argmin(searches["square"])]
alpha_logistic = alphas[np.argmin(searches["logistic"])]

# %%
assert abs(alpha_square - 1.0) < 0.05
assert 2.5 < alpha_logistic < alphas[-1]

# %% [markdown]
# For the square loss the best step is α = 1: a leaf holding the mean residual already is
# the best constant for its rows. For the logistic loss the mean of y − p is far too timid:
# the best step is more than 2.5 times longer. The tree knew the *direction*, not the
# *distance*. Seed 003's question, "why not just learn the residual?", has its answer here:
# only for the square loss is the residual the whole story.
#
# ## 3. The second-order Taylor expansion
#
# XGBoost does the line search's job inside each leaf. It expands the loss around the current
# prediction to second order,
#
# $$l(y_i, \hat y_i^{(t-1)} + f) \approx l(y_i, \hat y_i^{(t-1)}) + g_i f + \tfrac12 h_i f^2,
# \qquad g_i = \partial_{\hat y} l,\quad h_i = \partial^2_{\hat y} l,$$
#
# and minimises the quadratic: the step then carries its own length, −g/h for one instance
# (lesson 4 does it per leaf). For the logistic loss of one instance with y = 1 at
# ŷ = ln 3 (p = 3/4):

# %%
y1, m0 = 1.0, np.log(3)
p = 1 / (1 + np.exp(-m0))
g, h = p - y1, p * (1 - p)
f = np.linspace(-3, 5, 161)
exact = np.log1p(np.exp(-(m0 + f)))
first = np.log1p(np.exp(-m0)) + g * f
second = first + 0.5 * h * f**2

fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
ax.plot(f, exact, color="black", lw=2, label="l(y, ŷ + f), logistic")
ax.plot(f, first, ls="--", label="first order: l + g·f")
ax.plot(f, second, ls="-.", label="second order: l + g·f + ½h·f²")
ax.axvline(-g / h, color="grey", ls=":", label=f"the quadratic's minimum, f = −g/h = {-g / h:.2f}")
ax.set(xlabel="f, what the new tree adds", ylabel="loss", ylim=(-0.5, 2.5))
ax.legend(fontsize=8)
print(f"p = {p:.4f}, g = p − y = {g:.4f}, h = p(1 − p) = {h:.4f}, −g/h = {-g / h:.3f}")

# %%
assert abs(g - (-1 / 4)) < 1e-12 and abs(h - 3 / 16) < 1e-12 and abs(-g / h - 4 / 3) < 1e-12
near = np.abs(f) <= 1
assert np.all(np.abs(second - exact)[near] <= np.abs(first - exact)[near] + 1e-12)

# %% [markdown]
# Near f = 0 the second-order curve hugs the loss; its minimum, f = −g/h = 4/3, is a step
# with a length, which the first-order line never gives.
#
# ## 4. g and h for the square loss — and a factor of 2
#
# The slides "think of square loss", $l = (y_i - \hat y_i)^2$, as seed 000 writes it too:
#
# $$g_i = 2(\hat y_i - y_i), \qquad h_i = 2 .$$
#
# XGBoost and teachgbt put a ½ in front, $l = \tfrac12 (y_i-\hat y_i)^2$, so that
# $g_i = \hat y_i - y_i$ and $h_i = 1$. On the ice-cream toy data (eight days at a kiosk)
# the trace shows XGBoost's convention:

# %%
X, sold = tg.datasets.ice_cream_xy()
params = dict(n_estimators=2, max_depth=2, learning_rate=0.3, min_child_weight=0, base_score=40)
xgb_style = tg.BoostingRegressor(reg_lambda=1, **params).fit(X, sold)
inst = xgb_style.trace_.instances(2)
assert np.allclose(inst["g"], inst["margin"] - inst["y"]) and np.allclose(inst["h"], 1.0)
inst.round(4)

# %% [markdown]
# Does the convention matter? Doubling every $g_i$ and $h_i$ gives the leaf weight
# $-\sum 2(\hat y_i - y_i) / (\sum 2 + \lambda) = -\sum(\hat y_i - y_i)/(n + \lambda/2)$: the
# slides' convention with λ grows the trees XGBoost's grows with λ/2. An objective may be any
# function returning $(g, h)$, so we can train with the slides' derivatives and λ = 2:


# %%
def slides_square_loss(y, margin):
    return 2 * (margin - y), np.full_like(y, 2.0)


slides_style = tg.BoostingRegressor(reg_lambda=2, objective=slides_square_loss, **params)
slides_style.fit(X, sold)
assert np.allclose(slides_style.predict(X), xgb_style.predict(X))
assert np.allclose(slides_style.trace_.instances(1)["g"], 2 * xgb_style.trace_.instances(1)["g"])
print("same predictions with the slides' g, h and λ = 2 as with XGBoost's and λ = 1")

# %% [markdown]
# ## 5. g and h for the logistic loss
#
# For labels 0/1 and $p_i = \sigma(\hat y_i)$: $g_i = p_i - y_i$ and $h_i = p_i(1-p_i)$ — the
# hessian now differs from instance to instance. (Seed 004's *residual* y − p is −g.) The
# family, with "likes games" turned into yes/no:

# %%
clf = tg.BoostingClassifier(n_estimators=2, max_depth=2, min_child_weight=0)
clf.fit(family, (likes_games > 0).astype(int))
ci = clf.trace_.instances(2).set_index(family.index)
assert np.allclose(ci["g"], ci["prob"] - ci["y"], atol=1e-6)
assert np.allclose(ci["h"], ci["prob"] * (1 - ci["prob"]), atol=1e-6)
ci.round(4)

# %% [markdown]
# ## 6. A loss of your own needs only g and h
#
# "One important advantage of this definition is that it only depends on $g_i$ and $h_i$":
# after the expansion, the tree learner never sees the loss again. A loss of your own is a
# function `(y, margin) -> (g, h)`. The pseudo-Huber loss
# $\delta^2(\sqrt{1 + (r/\delta)^2} - 1)$ with $r = \hat y - y$ behaves like the square loss
# for small errors and like |r| for large ones; with δ = 1,
# $g = r/\sqrt{1+r^2}$ and $h = (1+r^2)^{-3/2}$:


# %%
def pseudo_huber(y, margin):
    r = margin - y
    return r / np.sqrt(1 + r**2), (1 + r**2) ** -1.5


robust = tg.BoostingRegressor(objective=pseudo_huber, **params).fit(X, sold)
first_round = robust.trace_.instances(1)
g_ours, h_ours = pseudo_huber(first_round["y"].to_numpy(), first_round["margin"].to_numpy())
assert np.allclose(first_round["g"], g_ours, atol=1e-5)
assert np.allclose(first_round["h"], h_ours, atol=1e-5)
robust.trace_.nodes(1)[["node", "is_leaf", "feature", "threshold", "G", "H", "weight"]].round(3)

# %% [markdown]
# The same solver grew this tree from our $g_i$ and $h_i$; every leaf weight is still
# $-G/(H+\lambda)$ (lesson 4).
#
# ## 7. Your turn
#
# Each exercise prints its numbers (yours, if you set `STUDENT` at the top). Answer to 3
# significant digits: within 1 % of the value is right. A wrong answer gets the likely slip
# or a hint; `reveal=True` in the `check` call shows the solution.
#
# **Exercise 3.1.** XGBoost's square loss ½(y − ŷ)²: the gradient $g$ of one instance.

# %%
sheet = tg.exercises.sheet(3, student=STUDENT)
print(sheet["3.1"].prompt)
my_g_square = None  # ← your answer
sheet["3.1"].check(my_g_square)

# %% [markdown]
# **Exercise 3.2.** The logistic loss: the gradient $g$ of one instance (p = σ(ŷ)).

# %%
print(sheet["3.2"].prompt)
my_g_logistic = None  # ← your answer
sheet["3.2"].check(my_g_logistic)

# %% [markdown]
# **Exercise 3.3.** The same instance's hessian $h$.

# %%
print(sheet["3.3"].prompt)
my_h_logistic = None  # ← your answer
sheet["3.3"].check(my_h_logistic)

# %% [markdown]
# **Exercise 3.4.** One round of additive training with seed 002's shrinkage: the tree adds
# η·w*.

# %%
print(sheet["3.4"].prompt)
my_new_margin = None  # ← your answer
sheet["3.4"].check(my_new_margin)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["3.5"].prompt)
my_why = None  # ← your answer
sheet["3.5"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * Boosting adds one tree per round: ŷ⁽ᵗ⁾ = ŷ⁽ᵗ⁻¹⁾ + f_t(x).
# * That is gradient descent in function space; the line search finds how far to step, and
#   for the logistic loss the residual alone steps too short.
# * The second-order expansion gives every instance a g and an h; the square loss has
#   g = ŷ − y, h = 1 (the tutorials' 2(ŷ − y), 2 come from their loss without the ½), the
#   logistic loss g = p − y, h = p(1 − p).
# * Any loss with g and h trains with the same solver.
#
# Next: lesson 4, what the tree does with the g's and h's — the structure score.

# %%
plt.close("all")
