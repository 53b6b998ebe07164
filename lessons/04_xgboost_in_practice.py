# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lesson 4 — XGBoost in practice: missing values, histograms, γ
#
# Lessons 1–3 derived the formulas. This one looks at what XGBoost adds to make them work on
# real data, following two seeds: the Chinese walk-through of XGBoost's derivation (seed 001:
# exact greedy split finding costs $O(d\,n\log n)$; approximate algorithms propose candidate
# split points) and the blog post *XGBoost Explanation* (seed 003: sample-based to node-based
# loss; sparse data; weighted quantile split search; blocked data).
#
# | seeds | what you will do here |
# |---|---|
# | 001, 003: from the loss of each instance to the loss of each leaf | check the regrouping numerically |
# | 003: boosting that deals with sparse data | see where missing values go, and how the direction is learned |
# | 001: exact greedy, $O(d\,n\log n)$; approximate candidates | compare `tree_method="exact"` with `"hist"` and `max_bin` |
# | 003: parallel computation, blocked data | what is computed once and what per node |
# | — | check teachgbt against XGBoost itself, and read γ against XGBoost's `gain` |

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# %% [markdown]
# ## The data
#
# 300 customers of a shop: `income` (in thousands; one in five did not say), `age` and
# `visits` last month; did they buy? Customers who kept their income to themselves bought
# more often than the others — the fact that a value is missing carries information.

# %%
rng = np.random.default_rng(11)
n = 300
income = rng.lognormal(3.3, 0.4, n).round(1)
age = rng.integers(18, 75, n).astype(float)
visits = rng.poisson(3, n).astype(float)
score = 0.08 * (income - 28) - 0.04 * (age - 45) + 0.35 * (visits - 3)
bought = rng.random(n) < 1 / (1 + np.exp(-score))
hidden = rng.random(n) < 0.2
bought = np.where(hidden, rng.random(n) < 0.75, bought).astype(int)
income[hidden] = np.nan
X = pd.DataFrame({"income": income, "age": age, "visits": visits})

print(f"income missing for {X['income'].isna().mean():.0%} of customers")
print(
    f"bought: {bought[hidden].mean():.0%} of those without income, "
    f"{bought[~hidden].mean():.0%} of the others"
)

# %%
params = dict(n_estimators=20, max_depth=3, learning_rate=0.3, base_score=0.5)
clf = tg.BoostingClassifier(**params).fit(X, bought)

# %% [markdown]
# ## 1. From instances to leaves
#
# Both seeds make the same move: the round-$t$ objective is written per *instance*,
# $\sum_i [g_i f_t(x_i) + \tfrac12 h_i f_t(x_i)^2] + \gamma T + \tfrac12\lambda\sum_j w_j^2$,
# and since every instance in leaf $j$ receives the same $w_j$ it regroups per *leaf*,
# $\sum_j [G_j w_j + \tfrac12 (H_j + \lambda) w_j^2] + \gamma T$. At the optimal weights that
# is the structure score $-\tfrac12 \sum_j G_j^2/(H_j+\lambda) + \gamma T$. Three ways to
# compute one number, for tree 1:

# %%
inst = clf.trace_.instances(1)
nodes = clf.trace_.nodes(1).set_index("node")
w = nodes.loc[inst["leaf"], "weight"].to_numpy()  # w*_q(x_i) for every instance
leaves = nodes[nodes["is_leaf"]]
wj, Gj, Hj = leaves["weight"], leaves["G"], leaves["H"]
lam = 1.0

per_instance = np.sum(inst["g"] * w + 0.5 * inst["h"] * w**2) + 0.5 * lam * np.sum(wj**2)
per_leaf = np.sum(Gj * wj + 0.5 * (Hj + lam) * wj**2)
structure = tg.formulas.structure_score(Gj, Hj, reg_lambda=lam)
print(f"sum over instances: {per_instance:.6f}")
print(f"sum over leaves:    {per_leaf:.6f}")
print(f"structure score:    {structure:.6f}")

# %% [markdown]
# The per-leaf form is what makes split finding cheap: a candidate split needs only four
# sums, $G_L, H_L, G_R, H_R$.
#
# ## 2. Sparsity-aware split finding
#
# Where should a customer without an income go at the split "income < 41.15"? XGBoost's
# answer: each split learns a **default direction**. The scan runs over the instances that
# *have* a value; those without are added as a block, once to the left and once to the
# right, and the better of the two is kept. The node table records the result in
# `default_left`:

# %%
nodes[
    ["depth", "is_leaf", "feature", "threshold", "default_left", "n", "G", "H", "loss_chg"]
].round(3)

# %% [markdown]
# The root splits on income and sends missing incomes **right**, with the high earners —
# the customers most likely to buy. The candidate table at the root holds income's
# candidates in both directions; features without missing values have one direction only:

# %%
cands = clf.trace_.splits(1, 0)
cands.groupby(["feature", "default_left"]).size().rename("candidates").to_frame()

# %%
chosen = cands[cands["chosen"]].iloc[0]
twins = cands[(cands["feature"] == "income") & (cands["threshold"] == chosen["threshold"])]
twins.round(4)

# %% [markdown]
# The two rows differ exactly by the missing block: moving it from one side to the other
# changes $G_L$ by the $G$ of the customers without income.

# %%
g_missing = inst.loc[X["income"].isna().to_numpy(), "g"].sum()
left_true = twins.loc[twins["default_left"], "G_L"].iloc[0]
left_false = twins.loc[~twins["default_left"], "G_L"].iloc[0]
print(f"G of the missing block: {g_missing:.4f}")
print(f"G_L (missing left) − G_L (missing right): {left_true - left_false:.4f}")

# %% [markdown]
# Along income, both scans side by side: the faint curve sends missing incomes right (it
# holds the chosen split, starred), the solid one sends them left. The right-hand axis shows
# the running sums of the missing-right scan. The points at the far ends, near 0 and at
# 151.6, are the splits "missing against everyone else": every known income on one side.

# %%
ax = tg.plot.split_scan(clf, 1, 0, "income")

# %% [markdown]
# A new customer without an income follows the default branch of every tree:

# %%
newcomer = {"income": np.nan, "age": 30.0, "visits": 2.0}
print(tg.explain.prediction(clf, newcomer, iteration_range=(0, 2)))

# %% [markdown]
# ## 3. Exact greedy vs histograms
#
# The exact method sorts every feature and tries a threshold between every two neighbouring
# distinct values: seed 001 counts $O(d\,n\log n)$ per node level. On large data XGBoost
# proposes a limited set of candidate thresholds instead. `tree_method="hist"` bins each
# feature once into at most `max_bin` bins, at its quantiles (a feature with fewer distinct
# values keeps them all), sums $g$ and $h$ per bin, and scans bins instead of instances.
#
# Candidates at the root, per feature:

# %%
counts = {"exact": clf.trace_.splits(1, 0).groupby("feature").size()}
fitted = {"exact": clf}
for max_bin in (4, 16, 256):
    m = tg.BoostingClassifier(tree_method="hist", max_bin=max_bin, **params).fit(X, bought)
    counts[f"hist, max_bin={max_bin}"] = m.trace_.splits(1, 0).groupby("feature").size()
    fitted[f"hist, max_bin={max_bin}"] = m
pd.DataFrame(counts)

# %% [markdown]
# Income counts twice (both directions). With `max_bin=256` every distinct value is a cut
# and hist considers exactly the exact method's splits; note that its thresholds are data
# values (`x < 41.2`) where exact puts them halfway between neighbours (`x < 41.15`). Fewer
# bins mean coarser thresholds and, here, a worse fit:

# %%
for name, m in fitted.items():
    root = m.trace_.nodes(1).iloc[0]
    loss = m.loss_.loss(bought, m.decision_function(X))
    rule = f"{root['feature']} < {root['threshold']:.6g}"
    print(f"{name:18s} root: {rule:15s} training logloss {loss:.4f}")

# %% [markdown]
# With 4 bins, income's candidate thresholds are the data values at its quartiles (plus,
# at both ends, the "missing against everyone else" splits):

# %%
four = fitted["hist, max_bin=4"].trace_.splits(1, 0)
cuts = np.unique(four.loc[four["feature"] == "income", "threshold"])
inner = cuts[(cuts > X["income"].min()) & (cuts < X["income"].max())]
print("income cut points:", np.round(inner, 2))
print("income quartiles: ", np.round(np.nanquantile(X["income"], [0.25, 0.5, 0.75]), 2))

# %% [markdown]
# XGBoost's *weighted* quantile sketch (seed 003) places the cuts so that each bin holds an
# equal share of the hessian $\sum h_i$ rather than of the rows (used by its `approx`
# method); teachgbt's `hist` uses plain quantiles.
#
# What the bins buy is speed. The exact method's cost grows with the number of rows at every
# node; the histogram method touches each row once per node to fill the bins and then scans
# only `max_bin` boundaries. Larger generated data, 5 trees of depth 4:

# %%
big_rng = np.random.default_rng(0)
for rows in (10_000, 40_000):
    Z = big_rng.normal(size=(rows, 8))
    yz = (Z[:, 0] + Z[:, 1] ** 2 + big_rng.normal(size=rows) > 1).astype(int)
    for method in ("exact", "hist"):
        start = time.perf_counter()
        tg.BoostingClassifier(tree_method=method, n_estimators=5, max_depth=4).fit(Z, yz)
        print(f"{rows:6d} rows, {method:5s}: {time.perf_counter() - start:.2f} s")

# %% [markdown]
# ### Parallel computation and blocked data
#
# Seed 003 lists two more engineering features. Both are about doing the expensive part
# once: XGBoost sorts each feature a single time into a compressed column **block** and
# reuses that order at every node (teachgbt's exact trainer sorts once per fit as well), and
# the per-feature scans are independent of each other, so they run in **parallel**. The
# histogram method goes further: the two children's histograms add up to the parent's, so
# only the smaller child is counted and the other is a subtraction.
#
# ## 4. Checking against XGBoost
#
# Everything above is checkable against the real library. With the same parameters
# (`base_score` given, as XGBoost would otherwise estimate it) the margins agree to float32
# precision, and tree 1 has the same splits, default directions, covers and leaf values.
# (XGBoost is optional; the cell says so if it is missing.)

# %%
try:
    import xgboost as xgb
except ImportError:
    xgb = None
    print("XGBoost is not installed: pip install xgboost to run this check")
else:
    for method in ("exact", "hist"):
        ours = tg.BoostingClassifier(tree_method=method, **params).fit(X, bought)
        theirs = xgb.XGBClassifier(tree_method=method, **params).fit(X, bought)
        gap = np.abs(ours.decision_function(X) - theirs.predict(X, output_margin=True)).max()
        print(f"{method:5s}: largest margin difference over 20 trees {gap:.1e}")

# %%
if xgb is not None:
    theirs = xgb.XGBClassifier(tree_method="exact", **params).fit(X, bought)
    dump = theirs.get_booster().trees_to_dataframe().query("Tree == 0")
    side_by_side = pd.DataFrame(
        {
            "feature": nodes["feature"].fillna("Leaf").to_numpy(),
            "xgb Feature": dump["Feature"].to_numpy(),
            "threshold": nodes["threshold"].to_numpy(),
            "xgb Split": dump["Split"].to_numpy(),
            "default_left": np.where(nodes["is_leaf"], None, nodes["default_left"]),
            "xgb missing→Yes": np.where(
                dump["Feature"] == "Leaf", None, dump["Missing"] == dump["Yes"]
            ),
            "H": nodes["H"].to_numpy(),
            "xgb Cover": dump["Cover"].to_numpy(),
            "loss_chg or value": np.where(nodes["is_leaf"], nodes["value"], nodes["loss_chg"]),
            "xgb Gain": dump["Gain"].to_numpy(),
        }
    )
    print(side_by_side.round(4).to_string())

# %% [markdown]
# Two things to read in that table. XGBoost's `Gain` of a split is teachgbt's `loss_chg`,
# and its `Gain` of a leaf is the leaf's value η·w*. And `loss_chg` is **not** the
# tutorial's gain: it has no ½ and no γ. Which brings us to γ.
#
# A `max_bin` smaller than the number of distinct values would not match this closely:
# XGBoost's quantile sketch chooses its cut points differently from teachgbt's plain
# quantiles.
#
# ## 5. γ against XGBoost's gain
#
# The tutorial's gain is $\tfrac12[\dots] - \gamma$, and a split pays for itself when it is
# positive. XGBoost computes the bracket without the ½ — `loss_chg` — and keeps a split when
# `loss_chg` ≥ `gamma`. The two rules agree when the tutorial's γ is `gamma / 2`, and that is
# the one convention teachgbt follows: its `gamma` is XGBoost's, and its `gain` column is the
# tutorial's gain ½(`loss_chg` − `gamma`), so the sign of `gain` says what `gamma` decided.
# With `gamma=2`:

# %%
g2 = tg.BoostingClassifier(**{**params, "n_estimators": 3, "gamma": 2.0}).fit(X, bought)
splits_g2 = pd.concat(
    [g2.trace_.nodes(t).assign(tree=t) for t in (1, 2, 3)], ignore_index=True
).query("not is_leaf")
splits_g2[["tree", "node", "feature", "threshold", "loss_chg", "gain"]].round(3)

# %% [markdown]
# `gain` is ½(`loss_chg` − 2) on every row. The exact method post-prunes: bottom up, it
# removes a split whose two children are leaves when its gain is negative. So a negative
# gain can survive only above a split that is kept — lesson 2's XOR root. Check both rules:

# %%
print(
    "gain == ½(loss_chg − gamma):",
    np.allclose(splits_g2["gain"], 0.5 * (splits_g2["loss_chg"] - 2)),
)
for t in (1, 2, 3):
    nodes_t = g2.trace_.nodes(t)
    for node in nodes_t.query("not is_leaf and gain < 0")["node"]:
        children = nodes_t[nodes_t["parent"] == node]
        print(f"tree {t}, node {node}: gain < 0, kept above a split:", (~children["is_leaf"]).any())
print("negative gains:", int((splits_g2["gain"] < 0).sum()), "of", len(splits_g2), "splits")

# %% [markdown]
# `tg.explain.split` shows both numbers for the first split of tree 1:

# %%
tg.explain.split(g2, 1, 0)

# %% [markdown]
# XGBoost agrees with this tree (teachgbt prunes as XGBoost does, so the trees match); its
# dump reports the same `loss_chg` as `Gain`:

# %%
if xgb is not None:
    xg2 = xgb.XGBClassifier(tree_method="exact", **{**params, "n_estimators": 3, "gamma": 2.0})
    xg2.fit(X, bought)
    gap = np.abs(g2.decision_function(X) - xg2.predict(X, output_margin=True)).max()
    dump2 = xg2.get_booster().trees_to_dataframe().query("Feature != 'Leaf'")
    print(f"largest margin difference: {gap:.1e}")
    print(
        "XGBoost Gain == loss_chg:",
        np.allclose(np.sort(dump2["Gain"]), np.sort(splits_g2["loss_chg"]), rtol=1e-5),
    )

# %% [markdown]
# So an XGBoost `gamma` of 2 is the tutorial's γ of 1. Pre-stopping (`pruning="pre"`, what
# XGBoost's `hist` method does) refuses a split as soon as its gain would be negative, so
# there no kept split ever shows a negative gain:

# %%
pre = tg.BoostingClassifier(**{**params, "n_estimators": 3, "gamma": 2.0, "pruning": "pre"})
pre.fit(X, bought)
kept = pd.concat([pre.trace_.nodes(t) for t in (1, 2, 3)]).query("not is_leaf")
print(f"splits kept: {len(kept)}; smallest gain: {kept['gain'].min():.3f}")

# %% [markdown]
# ## What you have seen
#
# * The per-instance objective regroups per leaf; four sums decide every split.
# * Missing values are not guessed: each split learns where they go (`default_left`), by
#   trying the missing block on both sides.
# * The exact method tries every distinct value; `hist` tries `max_bin` quantile cuts,
#   fitting almost as well with enough bins and much faster on many rows.
# * teachgbt reproduces XGBoost's margins and trees; XGBoost's `Gain` is `loss_chg`, the
#   tutorial's bracket without ½, compared with `gamma` directly; the tutorial's γ is
#   `gamma / 2`, and teachgbt's `gain` is ½(`loss_chg` − `gamma`).

# %%
plt.close("all")
