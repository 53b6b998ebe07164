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
# # Lesson 8 — Why ensembles, and which kinds
#
# The CSC411 slides *Ensemble methods / Gradient Boost Tree* (seed 002) open with two
# questions before any boosting: *why* combine many models, and *how*. This lesson answers
# both with numbers you can run.
#
# **Goals.** By the end you can compute the error of a majority vote of n independent
# voters as a binomial sum, say when voting helps and when it hurts, explain why real
# ensembles fall short of that formula, and tell bagging, boosting, stacking and voting
# apart by what each one trains and how it combines.
#
# | seed 002 | what you do here |
# |---|---|
# | Why ensemble? 21.6 % and 64.8 % for three voters | derive the binomial sum and compute both; five voters by hand (exercise 1) |
# | 2.6 % and 82.6 % with 21 voters | the same sum for any n; `tg.plot.vote_error` |
# | "We want each individual accurate and make different errors" | simulate independent against copied voters |
# | Type of ensemble methods: Bayesian voting, bagging, boosting, stacking | a small runnable example of each kind |
# | Objective – GBT, additive training | follow two boosting rounds by hand (exercises 2 and 3) |

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. The majority vote as a binomial sum
#
# Three people vote on a yes/no question; each is wrong with probability p, independently
# of the others. The vote is wrong when a majority — at least two — are wrong. Exactly k of
# n voters are wrong with probability $\binom{n}{k} p^k (1-p)^{n-k}$ (choose which k, then
# multiply their chances), so for odd n
#
# $$P(\text{majority wrong}) = \sum_{k=(n+1)/2}^{n} \binom{n}{k} p^k (1-p)^{n-k}.$$
#
# For three voters at p = 0.3 the slides' sum:
# $\binom{3}{2}(0.3)^2(0.7) + \binom{3}{3}(0.3)^3 = 0.189 + 0.027 = 21.6\,\%$.


# %%
def vote_error(p, n):
    """The binomial sum above, for an odd number n of independent voters."""
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range((n + 1) // 2, n + 1))


by_hand = math.comb(3, 2) * 0.3**2 * 0.7 + math.comb(3, 3) * 0.3**3
print(f"three voters at 30 %: {by_hand:.1%}")
assert round(by_hand, 3) == 0.216 and np.isclose(vote_error(0.3, 3), by_hand)

# %% [markdown]
# The slides' four numbers: 21.6 % and 64.8 % for three voters who are wrong 30 % and 60 %
# of the time; 2.6 % and 82.6 % with 21 voters. `tg.plot.majority_vote_error` sums the same
# terms (and counts a tie of an even number of voters as half an error).

# %%
slides = {(3, 0.3): 0.216, (3, 0.6): 0.648, (21, 0.3): 0.026, (21, 0.6): 0.826}
for (n_voters, p), stated in slides.items():
    err = tg.plot.majority_vote_error(p, n_voters)
    print(f"{n_voters:2d} voters, each wrong {p:.0%}: the majority is wrong {err:.1%}")
    assert round(err, 3) == stated and np.isclose(err, vote_error(p, n_voters))

# %% [markdown]
# **Exercise 1.** Work out, with the binomial sum, the probability that a majority of
# independent voters is wrong, as a fraction (0 to 1) to 3 significant digits: within 1 % of
# the value is right. The cell prints the numbers (yours, if you set `STUDENT` at the top).
# A wrong answer gets the likely slip or a hint; `reveal=True` in the `check` call shows the
# value and the worked solution.

# %%
sheet = tg.exercises.sheet(8, student=STUDENT)
print(sheet["8.1"].prompt)
my_vote_error = None  # ← your answer
sheet["8.1"].check(my_vote_error)

# %% [markdown]
# Voting helps only when each voter is better than a coin (p < 0.5); then more voters help
# more. Above 0.5 it makes things worse, and more voters make it worse faster. The plot
# shows the whole curve:

# %%
ax = tg.plot.vote_error([0.3, 0.6], [3, 21])
ax.set_ybound(lower=-0.05)  # room below 0 for the 2.6 % label
plt.show()

# %% [markdown]
# ## 2. "Make different errors"
#
# The sum assumes the voters err *independently*. Three copies of one voter are no better
# than one voter. A simulation of 100 000 questions:

# %%
rng = np.random.default_rng(0)
wrong = rng.random((100_000, 3)) < 0.3  # three independent voters
copies = np.repeat(wrong[:, :1], 3, axis=1)  # one voter, three times
independent = np.mean(wrong.sum(axis=1) >= 2)
copied = np.mean(copies.sum(axis=1) >= 2)
print(f"independent voters: {independent:.1%}    identical voters: {copied:.1%}")
assert abs(independent - 0.216) < 0.005 and abs(copied - 0.3) < 0.005

# %% [markdown]
# Real models trained on the same data are somewhere in between: they agree on the easy
# points and often err together on the hard ones. Every kind of ensemble below is a way to
# make models that are accurate *and* different.
#
# ## 3. Four kinds of ensembles
#
# A small problem to try them on: two features, the label says whether the point lies
# inside a circle, and 15 % of the labels are flipped (noise no model can learn — the best
# possible error on fresh points is 15 %).

# %%
data_rng = np.random.default_rng(2)


def make_points(n):
    X = data_rng.uniform(-1, 1, (n, 2))
    inside = (X**2).sum(axis=1) < 0.5
    flipped = data_rng.random(n) < 0.15
    return X, np.where(flipped, ~inside, inside).astype(int)


X, y = make_points(400)
X_test, y_test = make_points(4000)


def test_error(predicted):
    return float(np.mean(predicted != y_test))


fig, ax = plt.subplots(figsize=(4.2, 4), layout="constrained")
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=12)
ax.add_patch(plt.Circle((0, 0), np.sqrt(0.5), fill=False, ls="--"))
ax.set(title="400 training points, 15 % flipped", aspect="equal")
plt.show()

# %% [markdown]
# One deep tree is the single voter every ensemble starts from. (A teachgbt model with one
# round and learning rate 1 is one tree.)


# %%
def one_tree(X_fit, y_fit):
    tree = tg.BoostingClassifier(algorithm="gbdt", n_estimators=1, learning_rate=1.0, max_depth=6)
    return tree.fit(X_fit, y_fit)


single = test_error(one_tree(X, y).predict(X_test))
print(f"one tree of depth 6: test error {single:.1%}")

# %% [markdown]
# ### Bagging (bootstrap aggregation)
#
# Train each voter on a *bootstrap sample* — n rows drawn with replacement — so that each
# sees a slightly different dataset, then take the majority vote. (A random forest also
# picks features at random at every split, to make the trees differ more.)

# %%
votes = []
for _ in range(25):
    rows = data_rng.integers(0, len(y), len(y))
    votes.append(one_tree(X[rows], y[rows]).predict(X_test))
votes = np.array(votes)  # (25 trees, 4000 test points)
each = float(np.mean(votes != y_test))
bagged = test_error((votes.mean(axis=0) > 0.5).astype(int))
promised = tg.plot.majority_vote_error(each, 25)
print(f"25 bootstrap trees: each wrong {each:.1%} on average; their vote {bagged:.1%}")
print(f"the binomial sum for 25 independent voters at {each:.1%} would promise {promised:.1%}")
assert bagged < each and promised < bagged

# %% [markdown]
# The vote beats its average tree, but falls far short of the binomial promise: the trees
# are not independent (they share most of their data), and the 15 % flipped labels are
# wrong for every voter at once.
#
# ### Boosting
#
# Boosting trains its voters *one after another*, each fitted to what the ensemble so far
# gets wrong, and adds their scores instead of counting votes (seed 002's "additive
# training": $\hat y^{(t)} = \hat y^{(t-1)} + f_t(x)$). That is what every other lesson of
# this course does:

# %%
boosted = tg.BoostingClassifier(n_estimators=50, max_depth=3, learning_rate=0.3).fit(X, y)
boosted_error = test_error(boosted.predict(X_test))
print(f"boosting, 50 trees of depth 3: test error {boosted_error:.1%}")
assert boosted_error < single

# %% [markdown]
# ### Voting and stacking (with scikit-learn)
#
# *Voting* combines models of different kinds — here a tree, logistic regression and
# k-nearest neighbours — by averaging their probabilities. *Stacking* learns the
# combination: a second-level model is trained on the first-level models' out-of-fold
# predictions. The slides' *Bayesian voting* is voting with each model's vote weighted by
# how probable the model is given the data. (scikit-learn is optional; the cell says so if
# it is missing.)

# %%
try:
    from sklearn.ensemble import StackingClassifier, VotingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier
except ImportError:
    print("scikit-learn is not installed: pip install scikit-learn to run voting and stacking")
else:
    members = [
        ("tree", DecisionTreeClassifier(max_depth=6, random_state=0)),
        ("logistic", LogisticRegression()),
        ("knn", KNeighborsClassifier(n_neighbors=15)),
    ]
    results = {name: test_error(m.fit(X, y).predict(X_test)) for name, m in members}
    results["voting (soft)"] = test_error(
        VotingClassifier(members, voting="soft").fit(X, y).predict(X_test)
    )
    results["stacking"] = test_error(
        StackingClassifier(members, final_estimator=LogisticRegression()).fit(X, y).predict(X_test)
    )
    print(pd.Series(results, name="test error").map("{:.1%}".format).to_string())

# %% [markdown]
# (Logistic regression cannot draw a circle from x₁ and x₂ — it is near a coin flip alone —
# yet the combination can still use it where it helps.)
#
# ## 4. Boosting by hand: two rounds of additive training
#
# Four points on a line, x = 1, 2, 3, 4 with y = 1, 3, 2, 6, squared error, trees of depth
# 1, learning rate 0.5. F₀ is the mean, 3. The residuals are −2, 0, −1, 3; the best single
# split is x < 3.5 (left: −2, 0, −1, mean −1; right: 3), so tree 1's leaves are −1 and 3.

# %%
x4 = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
y4 = pd.Series([1.0, 3.0, 2.0, 6.0], name="y")
small = tg.BoostingRegressor(algorithm="gbdt", n_estimators=2, learning_rate=0.5, max_depth=1)
small.fit(x4, y4)
steps = small.trace_.epochs()
assert np.allclose(steps["ep_1_residual"], [-2, 0, -1, 3])
assert small.trace_.nodes(1)["threshold"][0] == 3.5
assert np.allclose(steps["ep_1_leaf_output"], [-1, -1, -1, 3])
tg.draw.draw_model(small, rounds=[1])

# %% [markdown]
# **Exercise 2.** Now four points of your own (the cell prints them; with `STUDENT` set,
# yours), with the same settings. The ensemble after one tree is $F_1 = F_0 + 0.5 f_1$:
# what does it predict for the last point, `ep_1_pre`? Work F₀, the residuals, tree 1's leaf
# outputs (the split is given) and then F₁, as above.

# %%
print(sheet["8.2"].prompt)
my_pre = None  # ← your answer
sheet["8.2"].check(my_pre)

# %% [markdown]
# **Exercise 3.** Tree 2 is fitted to what $F_1$ still gets wrong. What is the first point's
# residual in round 2, `ep_2_residual`?

# %%
print(sheet["8.3"].prompt)
my_residual = None  # ← your answer
sheet["8.3"].check(my_residual)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["8.4"].prompt)
my_why = None  # ← your answer
sheet["8.4"].check(my_why)

# %%
steps.round(4)

# %% [markdown]
# ## What you have seen
#
# * The majority of n independent voters, each wrong with probability p, is wrong with
#   probability $\sum_{k > n/2} \binom{n}{k} p^k (1-p)^{n-k}$: 21.6 % and 64.8 % for three
#   voters at 30 % and 60 %, 2.6 % and 82.6 % for 21.
# * It helps only for p < 0.5 and only as far as the voters err independently.
# * Bagging makes voters differ by resampling; boosting by fitting each to the others'
#   mistakes and adding scores; voting averages different kinds of models; stacking learns
#   how to combine them.
#
# Lesson 9 looks at two ways of boosting — classic GBDT and XGBoost — side by side.

# %%
plt.close("all")
