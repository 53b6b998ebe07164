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
# # Lesson 13 — Open a model trained elsewhere
#
# Your team's model was trained with XGBoost, LightGBM or scikit-learn. Its trees hold the
# same quantities as the tutorials' — G, H, w*, the gain — but stored in the library's own
# terms: leaf values already multiplied by η, H called "cover", a gain without the ½.
# `tg.from_xgboost`, `tg.from_lightgbm` and `tg.from_sklearn` turn such a model into a
# teachgbt model that predicts the same and shows the tutorial's numbers. This lesson shows
# how each number is recovered, so you can do it yourself.
#
# **Goals.** By the end you can recover w* from a stored leaf value and η, H from the cover,
# G from w*, H and λ, and the tutorial's gain from XGBoost's gain and `gamma`; draw and
# explain an imported tree; and say which settings a model file does not keep.
#
# | topic | what you do here |
# |---|---|
# | `tg.from_xgboost(model)` | import a live XGBoost classifier; same margins |
# | leaf value = η·w*; H = cover; G = −w*(H + λ) | rebuild w*, H, G from XGBoost's own table |
# | XGBoost's `gain` = `loss_chg` (no ½, no γ) | rebuild teachgbt's `gain` from it |
# | draw and explain the first tree | `tree.plot`, `tg.explain.split` |
# | a model file does not store λ, η, γ | read a saved file: the warning, and how to pass them |
# | LightGBM, scikit-learn | the same for their models (skipped if not installed) |
# | Exercises | w* from a leaf value; G from w*, H, λ; the tutorial's gain from XGBoost's |
#
# XGBoost is needed for most of this lesson; without it the cells say so and skip.

# %%
import tempfile
import warnings
from pathlib import Path

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
    print("XGBoost is not installed: pip install xgboost to run this lesson's cells")

# %% [markdown]
# ## 1. A model trained by XGBoost
#
# Generated data (three features; the label depends on all three), and an XGBoost classifier
# with settings that make a difference to the numbers: λ = 2, η = 0.3, `gamma` = 0.5.

# %%
rng = np.random.default_rng(0)
X = pd.DataFrame(np.round(rng.normal(size=(200, 3)), 2), columns=["a", "b", "c"])
y = (X["a"] + X["b"] * X["c"] > 0).astype(int)
settings = dict(n_estimators=5, max_depth=2, learning_rate=0.3, reg_lambda=2.0, gamma=0.5)
eta, lam, gamma = settings["learning_rate"], settings["reg_lambda"], settings["gamma"]

if xgb is not None:
    est = xgb.XGBClassifier(tree_method="exact", **settings).fit(X, y)
    model = tg.from_xgboost(est)  # λ, η, γ are read from the booster's configuration
    gap = np.abs(model.decision_function(X) - est.predict(X, output_margin=True)).max()
    print(f"{len(model.trees_)} trees; largest margin difference {gap:.1e}")
    assert len(model.trees_) == 5 and gap < 1e-5

# %% [markdown]
# ## 2. What XGBoost stores, and the tutorial's numbers
#
# XGBoost's own table of its first tree (`trees_to_dataframe`): for a split, `Gain` is its
# gain; for a leaf, the `Gain` column holds the leaf's value. `Cover` is H, the sum of the
# hessians of the rows that reached the node.

# %%
if xgb is not None:
    dump = est.get_booster().trees_to_dataframe()
    first = dump[dump["Tree"] == 0].set_index("Node")
    ours = model.trees_[0].to_frame().set_index("node")
    leaf = first["Feature"] == "Leaf"
    print(first[["Feature", "Split", "Gain", "Cover"]].to_string())

# %% [markdown]
# Three facts turn those into the tutorial's numbers:
#
# * a stored leaf value is **η·w\*** (XGBoost multiplies by the learning rate before it
#   saves), so $w^* = \text{value} / \eta$;
# * H is the **cover**;
# * from $w^* = -G/(H+\lambda)$: $G = -w^*(H + \lambda)$.
#
# Every leaf of the imported tree but leaf 3 (exercises 13.1 and 13.2 ask for it), rebuilt
# by hand from XGBoost's table:

# %%
if xgb is not None:
    value = first.loc[leaf, "Gain"]
    w_star = value / eta
    H = first.loc[leaf, "Cover"]
    G = -w_star * (H + lam)
    rebuilt = pd.DataFrame({"value": value, "w* = value/η": w_star, "H = cover": H, "G": G})
    assert np.allclose(rebuilt["value"], ours.loc[leaf.index[leaf], "value"], atol=1e-6)
    assert np.allclose(w_star, ours.loc[leaf.index[leaf], "weight"], atol=1e-5)
    assert np.allclose(H, ours.loc[leaf.index[leaf], "H"], atol=1e-4)
    assert np.allclose(G, ours.loc[leaf.index[leaf], "G"], atol=1e-3)
    print(rebuilt.drop(index=3).round(6).to_string())

# %% [markdown]
# ## 3. XGBoost's gain is `loss_chg`
#
# XGBoost's `Gain` of a split is $\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda} -
# \frac{G^2}{H+\lambda}$: the tutorial's bracket **without the ½**, and **before** γ is
# taken off. teachgbt keeps it as `loss_chg`, and its `gain` column is seed 000's,
# ½(`loss_chg` − `gamma`): the loss decides (lesson 5), and with the logistic loss, as with
# XGBoost's ½(y − ŷ)², the tutorial's γ is `gamma / 2`.

# %%
if xgb is not None:
    split = ~leaf
    xgb_gain = first.loc[split, "Gain"]
    assert np.allclose(xgb_gain, ours.loc[split.index[split], "loss_chg"], rtol=1e-6)
    assert np.allclose(0.5 * (xgb_gain - gamma), ours.loc[split.index[split], "gain"], rtol=1e-5)
    both = {
        "XGBoost Gain = loss_chg": xgb_gain,
        "gain = ½(loss_chg − gamma)": 0.5 * (xgb_gain - gamma),
    }
    print(pd.DataFrame(both).drop(index=0).round(4).to_string())  # the root: exercise 13.3

# %% [markdown]
# ## 4. Draw it, explain it
#
# The imported tree is an ordinary `tg.Tree`: it draws and explains like any other (here
# with what XGBoost stored — H, `loss_chg` and η·w*; w*, G and the gain would give away the
# exercises). `tg.explain.split` writes node 2's gain out with G_L, H_L, G_R, H_R filled in
# (node 1's would show leaf 3's G).

# %%
if xgb is not None:
    model.trees_[0].plot(fields=["H", "loss_chg", "value"])
    plt.show()
    print(tg.explain.split(model, 1, 2))

# %% [markdown]
# ## 5. What a model file does not store
#
# A saved model (`est.save_model("m.ubj")`, or `.json`) keeps the trees — values, covers,
# gains — but not the training settings λ, η and γ. The predictions need none of them; w*,
# G and the gain do. Opened from a file, teachgbt assumes XGBoost's defaults (η = 0.3,
# λ = 1, γ = 0) and warns, naming the columns that depend on them:

# %%
if xgb is not None:
    folder = Path(tempfile.mkdtemp())
    est.save_model(folder / "m.ubj")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        guessed = tg.from_xgboost(folder / "m.ubj")
    message = str(caught[0].message)
    print(message)
    assert "do not store the training parameters" in message
    assert np.allclose(guessed.decision_function(X), model.decision_function(X))
    wrong = guessed.trees_[0].to_frame()
    assert np.allclose(wrong["H"], ours["H"]) and not np.allclose(wrong["G"], ours["G"])

# %% [markdown]
# The margins and H agree; G is off because λ = 1 was assumed instead of 2. Pass what the
# file lacks, and every column agrees:

# %%
if xgb is not None:
    told = tg.from_xgboost(folder / "m.ubj", reg_lambda=lam, learning_rate=eta, gamma=gamma)
    right = told.trees_[0].to_frame()
    for col in ("weight", "G", "H", "gain", "loss_chg", "value"):
        assert np.allclose(right[col], ours[col], equal_nan=True), col
    print("with λ, η and γ given, the file gives the same tree as the live model")

# %% [markdown]
# ## 6. LightGBM and scikit-learn
#
# `tg.from_lightgbm` and `tg.from_sklearn` do the same for those libraries (LightGBM's H is
# its `internal_weight`, scikit-learn's classifiers store no hessian sums). The margins agree
# in both cases. (Each is optional; the cell says so if it is missing.)

# %%
try:
    import lightgbm
except ImportError:
    print("LightGBM is not installed: pip install lightgbm to run this comparison")
else:
    lgb_est = lightgbm.LGBMClassifier(
        n_estimators=5, num_leaves=4, learning_rate=0.3, verbose=-1
    ).fit(X, y)
    from_lgb = tg.from_lightgbm(lgb_est)
    gap = np.abs(from_lgb.decision_function(X) - lgb_est.predict(X, raw_score=True)).max()
    print(f"LightGBM: largest margin difference {gap:.1e}")
    assert gap < 1e-5

try:
    from sklearn.ensemble import GradientBoostingClassifier
except ImportError:
    print("scikit-learn is not installed: pip install scikit-learn to run this comparison")
else:
    sk_est = GradientBoostingClassifier(n_estimators=5, max_depth=2).fit(X, y)
    from_sk = tg.from_sklearn(sk_est)
    gap = np.abs(from_sk.decision_function(X) - sk_est.decision_function(X)).max()
    print(f"scikit-learn: largest margin difference {gap:.1e}")
    assert gap < 1e-9

# %% [markdown]
# ## 7. Your turn
#
# The numbers XGBoost stored for the first tree (η = 0.3, λ = 2, `gamma` = 0.5), rounded as
# printed:

# %%
if xgb is not None:
    leaf3_value = round(float(first.at[3, "Gain"]), 6)
    leaf3_cover = round(float(first.at[3, "Cover"]), 4)
    root_gain = round(float(first.at[0, "Gain"]), 4)
else:  # the same numbers, so that the exercises work without XGBoost
    leaf3_value, leaf3_cover, root_gain = -0.377599, 19.928, 60.5002
print(f"leaf 3: value {leaf3_value}, cover {leaf3_cover};  root: Gain {root_gain}")
sheet = tg.exercises.sheet(13, student=STUDENT)  # these numbers, or yours if STUDENT is set
if STUDENT is None:
    assert np.isclose(sheet["13.1"].answer, leaf3_value / eta, rtol=1e-6)

# %% [markdown]
# **Exercise 13.1.** A leaf's w*, from its stored value and η. Answer to 3 significant
# digits: within 1 % of the value is right. A wrong answer gets the likely slip or a hint;
# `reveal=True` in the `check` call shows the value and the worked solution.

# %%
print(sheet["13.1"].prompt)
my_w_star = None  # ← your answer
sheet["13.1"].check(my_w_star)

# %% [markdown]
# **Exercise 13.2.** The leaf's G, from its w* (exercise 13.1), its H (the cover) and λ.

# %%
print(sheet["13.2"].prompt)
my_G = None  # ← your answer
sheet["13.2"].check(my_G)

# %% [markdown]
# **Exercise 13.3.** The root's gain as seed 000 writes it, from XGBoost's `Gain` and the
# model's `gamma`.

# %%
print(sheet["13.3"].prompt)
my_gain = None  # ← your answer
sheet["13.3"].check(my_gain)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["13.4"].prompt)
my_why = None  # ← your answer
sheet["13.4"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * A stored leaf value is η·w*; H is the cover; G = −w*(H + λ).
# * XGBoost's gain is `loss_chg`, the bracket without the ½ and before γ; seed 000's gain
#   is ½(`loss_chg` − `gamma`).
# * A model file keeps the trees, not λ, η, γ: pass them, or teachgbt assumes the defaults
#   and says which columns depend on them. The predictions never do.

# %%
plt.close("all")
