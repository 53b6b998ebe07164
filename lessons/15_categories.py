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
# # Lesson 15 — Categories as categories
#
# Seed 002 turns a text column into numbers by **one-hot encoding**: `favorite_color`
# becomes three 0/1 columns, and a tree splits one colour off at a time. XGBoost, LightGBM
# and scikit-learn's HistGradientBoosting can also split a column of categories
# **natively**, into two *sets*: `colour ∈ {red, pink}` to the left, every other colour to
# the right. How do you choose a set of colours? There are 2^(k−1) − 1 ways to cut k
# categories into two groups — 511 for ten colours. XGBoost tries only k − 1 of them: it
# sorts the categories by their leaf weight w* = −G/(H+λ) and cuts that order like a
# numeric feature. This lesson does it by hand, then lets the trainer do it.
#
# **Goals.** By the end you can compute each category's G, H and w* at a node, sort them,
# find the best cut of the sorted order and its gain; say when XGBoost uses one-hot splits
# instead (fewer than `max_cat_to_onehot` categories); and read a set split in a tree, an
# explanation and a prediction, missing and unseen categories included.
#
# | topic | what you do here |
# |---|---|
# | one-hot against native sets | the same data, two ways: trees, depth, fit |
# | the sorting trick by hand | four colours: w*, the three cuts, all seven groupings |
# | the trainer does the same | `explain.split`, `trace_.splits`, `trace_.category_stats` |
# | one-hot below `max_cat_to_onehot` | one colour against the rest, missing on either side |
# | missing and unseen categories | the default direction; a new colour goes "no" |
# | beside XGBoost | the same sets, node for node (skipped without XGBoost) |
# | Exercises | a colour's w*; the best cut's gain; why sort |

# %%
import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

try:
    import xgboost as xgb
except ImportError:
    xgb = None
    print("XGBoost is not installed: pip install xgboost for the comparison in section 6")

# %% [markdown]
# ## 1. One-hot against native sets, on the same data
#
# A shop sells more on some days: the colour of the week's poster matters, in two groups
# (red, pink and orange sell; blue, green and grey do not), and so does the temperature.

# %%
rng = np.random.default_rng(0)
colours = ["red", "pink", "orange", "blue", "green", "grey"]
lift = {"red": 2.0, "pink": 2.0, "orange": 2.0, "blue": -2.0, "green": -2.0, "grey": -2.0}
n = 240
colour = rng.choice(colours, n)
temperature = np.round(rng.normal(20, 5, n))
sales = np.array([lift[c] for c in colour]) + 0.2 * (temperature - 20) + rng.normal(0, 0.5, n)
data = pd.DataFrame({"temperature": temperature,
                     "colour": pd.Categorical(colour, categories=colours)})  # fmt: skip
train, test = data.iloc[:160], data.iloc[160:]
y_train, y_test = sales[:160], sales[160:]
data.head()

# %% [markdown]
# The same trainer, the same settings (XGBoost's `hist` method, trees of depth 2), twice:
# once on one-hot columns, once with `enable_categorical=True`, which splits the column
# natively.

# %%
settings = dict(tree_method="hist", n_estimators=20, max_depth=2, learning_rate=0.3)
onehot_X = pd.get_dummies(data, columns=["colour"], dtype=float)
onehot = tg.BoostingRegressor(**settings).fit(onehot_X.iloc[:160], y_train)
native = tg.BoostingRegressor(enable_categorical=True, **settings).fit(train, y_train)


def rmse(model, X, y):
    return float(np.sqrt(np.mean((model.predict(X) - y) ** 2)))


scores = pd.DataFrame(
    {
        "test RMSE": [rmse(onehot, onehot_X.iloc[160:], y_test), rmse(native, test, y_test)],
        "first tree's root": [
            str(onehot.trees_[0]).splitlines()[0].split("|")[0].strip(),
            str(native.trees_[0]).splitlines()[0].split("|")[0].strip(),
        ],
    },  # fmt: skip
    index=["one-hot columns", "native sets"],
)
scores.round(4)

# %% [markdown]
# The native tree groups the three good colours against the three bad ones in **one**
# split; a one-hot split can only peel off one colour at a time, so with depth 2 it needs
# several trees to say what the native tree says at its root.

# %%
assert set(native.trees_[0].set_labels(0)) in ({"red", "pink", "orange"},
                                               {"blue", "green", "grey"})  # fmt: skip
assert scores.loc["native sets", "test RMSE"] < scores.loc["one-hot columns", "test RMSE"]
for model, title in ((onehot, "one-hot: one colour at a time"),
                     (native, "native: a set of colours")):  # fmt: skip
    model.trees_[0].plot().set_title(title)
plt.show()

# %% [markdown]
# ## 2. The sorting trick, by hand
#
# Four colours at a node, with the sums of their rows' gradients and hessians (λ = 1, no
# missing values):

# %%
lam = 1.0
toy = pd.DataFrame({"G": [-6.0, 2.0, 4.0, -1.0], "H": [3.0, 2.0, 4.0, 1.0]},
                   index=["red", "green", "blue", "yellow"])  # fmt: skip
toy["w* = −G/(H+λ)"] = -toy["G"] / (toy["H"] + lam)
toy.round(4)

# %% [markdown]
# **Step 1: sort the colours by w\*.** A colour whose rows want a low leaf weight goes first.
# **Step 2: cut the order** after the first, second and third colour: three candidate splits,
# each scored with the tutorial's gain ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] (γ = 0).

# %%
order = toy.sort_values("w* = −G/(H+λ)").index.tolist()
G, H = toy["G"].sum(), toy["H"].sum()
cuts = []
for j in range(1, 4):
    left = order[:j]
    GL, HL = toy.loc[left, "G"].sum(), toy.loc[left, "H"].sum()
    gain = tg.formulas.split_gain(GL, HL, G - GL, H - HL, reg_lambda=lam)
    cuts.append({"left set": "{" + ", ".join(left) + "}", "G_L": GL, "H_L": HL, "gain": gain})
cuts = pd.DataFrame(cuts)
print("sorted:", order)
cuts.round(4)

# %% [markdown]
# The order is blue, green, yellow, red; the best cut puts **{blue, green}** on one side:
# gain 7.4260. Is that really the best of *all* the ways to split four colours in two? There
# are 2³ − 1 = 7 groupings; try each:

# %%
every = []
for size in (1, 2):
    for left in itertools.combinations(toy.index, size):
        if size == 2 and "red" not in left:
            continue  # {a, b} against {c, d} is the same grouping as {c, d} against {a, b}
        GL, HL = toy.loc[list(left), "G"].sum(), toy.loc[list(left), "H"].sum()
        gain = tg.formulas.split_gain(GL, HL, G - GL, H - HL, reg_lambda=lam)
        every.append({"left set": "{" + ", ".join(left) + "}", "gain": gain})
every = pd.DataFrame(every).sort_values("gain", ascending=False)
assert len(every) == 7
assert np.isclose(every["gain"].max(), cuts["gain"].max())
assert np.isclose(cuts["gain"].max(), 7.425974, atol=1e-6) and order == [
    "blue", "green", "yellow", "red"]  # fmt: skip
every.round(4)

# %% [markdown]
# The best of the seven is the best of the three cuts: sorting lined up the colours that
# want the same weight. For the squared error this always holds (Fisher, 1958); for other
# losses XGBoost and LightGBM use it as a fast, good guess.
#
# ## 3. The trainer does the same
#
# Rows that give exactly those sums: XGBoost's squared error has h = 1 per row and, from a
# start of 0, g = −y. Red's three rows sum to G = −6, so y = 2 each; and so on.

# %%
rows = {"red": [2.0, 2.0, 2.0], "green": [-1.0, -1.0], "blue": [-1.0] * 4, "yellow": [1.0]}
toy_X = pd.DataFrame({"colour": pd.Categorical([c for c in rows for _ in rows[c]],
                                               categories=list(rows))})  # fmt: skip
toy_y = np.concatenate(list(rows.values()))
toy_model = tg.BoostingRegressor(tree_method="hist", enable_categorical=True, n_estimators=1,
                                 max_depth=1, base_score=0.0, learning_rate=1.0,
                                 min_child_weight=0.0).fit(toy_X, toy_y)  # fmt: skip
print(tg.explain.split(toy_model, 1, 0))

# %%
tree = toy_model.trees_[0]
assert sorted(tree.set_labels(0)) == ["blue", "green"]
assert np.isclose(tree.gain[0], cuts["gain"].max())
stats = toy_model.trace_.category_stats(1, 0)
assert stats["category"].tolist() == order
stats.round(4)

# %% [markdown]
# `explain.split` lists the colours in the order tried, each with G, H, G/(H+λ) and w*,
# then the gain of the cut after each colour: with the missing values outside the set, and
# inside it (there are none here, so both are the same). `trace_.splits` lists every
# candidate the trainer looked at, one row per set:

# %%
toy_model.trace_.splits(1, 0)

# %% [markdown]
# ## 4. Few categories: one against the rest
#
# With fewer than `max_cat_to_onehot` categories (4 by default, XGBoost's) a native split
# tries one category against all the others, with the missing values on either side: the
# same splits one-hot columns give. Raise the limit above four and the toy's root becomes a
# single colour:

# %%
one = tg.BoostingRegressor(tree_method="hist", enable_categorical=True, n_estimators=1,
                           max_depth=1, base_score=0.0, learning_rate=1.0,
                           min_child_weight=0.0, max_cat_to_onehot=5).fit(toy_X, toy_y)  # fmt: skip
print(one.trees_[0])
assert len(one.trees_[0].sets[0]) == 1
ax = tg.plot.split_scan(one, 1, 0, "colour")
plt.show()

# %% [markdown]
# ## 5. Missing values and colours never seen
#
# A missing colour goes the split's default direction, learned as for numbers (the scan
# tries the missing values on both sides). A colour the model never saw goes where the
# colours outside the set go — "no" — as XGBoost sends a category code it does not know.
# So where a new colour lands depends on which group a split happens to list: here the sets
# list the colours that sell badly, and purple is taken for a good seller.

# %%
new = pd.DataFrame({"temperature": [20.0, 20.0, 20.0],
                    "colour": pd.Categorical(["red", None, "purple"],
                                             categories=colours + ["purple"])})  # fmt: skip
print("\n".join(str(tg.explain.prediction(native, new.iloc[[2]])).splitlines()[:3]))
first = native.trees_[0]
path = first.path(native.model_.check_X(new.iloc[[2]])[0][0])
assert path[1] == first.right[0]  # purple: not in the set
pd.DataFrame({"colour": new["colour"].astype(str), "prediction": native.predict(new)})

# %% [markdown]
# ## 6. Beside XGBoost
#
# XGBoost with `enable_categorical=True` on the same data grows the same trees, set for set
# (XGBoost stores its set as the categories sent *right*; teachgbt draws its set on the
# left, "yes"): the same predictions.

# %%
if xgb is not None:
    theirs = xgb.XGBRegressor(enable_categorical=True, n_jobs=1, **settings).fit(train, y_train)
    gap = np.abs(native.predict(test) - theirs.predict(test)).max()
    print(f"largest difference in predictions: {gap:.1e}")
    assert gap < 1e-5
    imported = tg.from_xgboost(theirs)
    assert imported.trees_[0].set_labels(0) == native.trees_[0].set_labels(0)

# %% [markdown]
# ## 7. Your turn
#
# **Exercise 15.1.** A colour's w* at a node, from its G and H (λ = 1). Answer to 3
# significant digits: within 1 % of the value is right. A wrong answer gets the likely slip
# or a hint; `reveal=True` in the `check` call shows the value and the worked solution.

# %%
sheet = tg.exercises.sheet(15, student=STUDENT)  # these numbers, or yours if STUDENT is set
print(sheet["15.1"].prompt)
my_w_star = None  # ← your answer
sheet["15.1"].check(my_w_star)

# %% [markdown]
# **Exercise 15.2.** The gain of the best cut of the sorted colours.

# %%
print(sheet["15.2"].prompt)
my_gain = None  # ← your answer
sheet["15.2"].check(my_gain)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["15.3"].prompt)
my_why = None  # ← your answer
sheet["15.3"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * A native split sends a *set* of categories one way: `colour ∈ {red, pink}? yes`.
# * XGBoost sorts the categories by w* = −G/(H+λ) and tries each cut of that order, both
#   ways for the missing values, moving at most `max_cat_threshold` − 1 of them; below
#   `max_cat_to_onehot` categories it tries one against the rest.
# * A missing category goes the default way; one never seen goes with the categories
#   outside the set.
# * `tg.explain.split`, `trace_.splits` and `trace_.category_stats` show each step; the
#   importers read the sets of XGBoost, LightGBM and HistGradientBoosting models.

# %%
plt.close("all")
