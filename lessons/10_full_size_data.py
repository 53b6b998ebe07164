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
# # Lesson 10 — Full-size data: histograms, quantile sketches, missing values, many machines
#
# Lessons 1–9 worked on a handful of rows. This one follows what seeds 001 and 003 say
# XGBoost adds to make the same formulas work on a million rows: the Chinese walk-through of
# XGBoost's derivation (seed 001: exact greedy split finding costs $O(d\,n\log n)$;
# approximate algorithms propose candidate split points) and the blog post *XGBoost
# Explanation* (seed 003: sparse data, weighted quantile split search, parallel and
# distributed computation, blocked data).
#
# **Goals.** By the end you can compute a histogram trainer's cut points by hand, explain
# what the *weighted* quantile sketch weighs and why, say where a missing value goes and how
# that direction is learned, show why summing per-machine histograms finds the same split
# as one machine, and fit a million rows.
#
# | seeds | what you do here |
# |---|---|
# | 001: exact greedy costs $O(d\,n\log n)$; approximate candidates | bin a feature into quantile cut points by hand; a split's gain and a leaf from the bins (exercises 1, 2) |
# | 003: weighted quantile split search | work weighted quantiles by hand on 12 rows (what XGBoost's sketch approximates) |
# | 003: boosting that deals with sparse data | see where missing values go, and how the direction is learned |
# | 003: parallel and distributed computation | sum per-shard G/H histograms and find the same split |
# | 003: blocked data; a million rows | fit 1M rows with a progress bar, beside XGBoost and LightGBM |
#
# (How γ reads against XGBoost's reported gain is lesson 5's story; here `gamma` stays 0.)

# %%
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# CI sets a smaller size; the lesson as shipped fits a million rows
ROWS = int(os.environ.get("TEACHGBT_LESSON_ROWS", "1000000"))

# %% [markdown]
# ## 1. Why histograms
#
# The exact method sorts every feature and tries a threshold between every two neighbouring
# distinct values: with n rows and d features that is $O(d\,n\log n)$ per level of the tree
# (seed 001). `tree_method="hist"` bins each feature *once*, into at most `max_bin` bins,
# adds up $g$ and $h$ per bin, and then scans bins instead of rows. Its candidate thresholds
# are the **cut points** between bins.
#
# ### Quantile cut points, by hand
#
# Twelve ages, sorted, binned into `max_bin` = 4 bins. teachgbt takes the values at
# positions $\lfloor k\,m / \mathrm{max\_bin} \rfloor$, k = 1, 2, 3, of the sorted list of m
# values: positions 3, 6 and 9 (counting from 0).

# %%
ages = np.array([19, 23, 25, 31, 33, 38, 41, 47, 52, 58, 64, 71], dtype=float)
y12 = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1])
positions = [k * len(ages) // 4 for k in (1, 2, 3)]
print("positions:", positions, "  cut points:", ages[positions])
assert positions == [3, 6, 9] and list(ages[positions]) == [31, 41, 58]

# %% [markdown]
# A bin holds the values from its lower cut (included) to its upper cut (excluded), so the
# bins here are [19, 31), [31, 41), [41, 58), [58, 71]. Ask the trainer which thresholds it
# considered at the root (with `min_child_weight=0`, so that no bin is too light to split
# off); they are the cut points:

# %%
ages_frame = pd.DataFrame({"age": ages})
hist12 = tg.BoostingClassifier(tree_method="hist", max_bin=4, n_estimators=1, max_depth=1,
                               base_score=0.5, min_child_weight=0).fit(ages_frame, y12)  # fmt: skip
considered = np.unique(hist12.trace_.splits(1, 0)["threshold"])
print("thresholds considered at the root:", considered)
assert list(considered) == [31, 41, 58]

# %% [markdown]
# The trainer never looks at single rows again: it adds up $g$ and $h$ per bin. The model
# starts from probability ½, so every row has $g = p - y = 0.5 - y$ (±0.5) and
# $h = p(1-p) = 0.25$. The four bins' sums:

# %%
g12 = 0.5 - y12
code12 = np.searchsorted(ages[positions], ages, side="right")  # bin of each age
bins12 = pd.DataFrame({"G": np.bincount(code12, weights=g12),
                       "H": np.bincount(code12, weights=np.full(12, 0.25))},
                      index=["[19, 31)", "[31, 41)", "[41, 58)", "[58, 71]"])  # fmt: skip
assert list(bins12["G"]) == [0.5, -0.5, -0.5, -0.5] and list(bins12["H"]) == [0.75] * 4
bins12.round(2)

# %% [markdown]
# **Exercise 1.** A candidate split puts the first bins left and the rest right (the shipped
# numbers: `age < 41`, two bins each side). Add up $G_L, H_L, G_R, H_R$ from the bins and
# compute the tutorial's gain with λ = 1:
#
# $$\text{Gain} = \tfrac12\left[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda}
#   - \frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\right].$$
#
# The cell prints the bins (yours, if you set `STUDENT` at the top). Answer to 3 significant
# digits: within 1 % of the value is right. A wrong answer gets the likely slip or a hint;
# `reveal=True` in the `check` call shows the worked solution.

# %%
at41 = hist12.trace_.splits(1, 0).query("threshold == 41").iloc[0]
sheet = tg.exercises.sheet(10, student=STUDENT)
print(sheet["10.1"].prompt)
my_gain = None  # ← your answer
sheet["10.1"].check(my_gain)

# %%
if STUDENT is None:  # the shipped bins are the trainer's own candidate table
    assert np.isclose(tg.formulas.split_gain(*at41[["G_L", "H_L", "G_R", "H_R"]]),
                      sheet["10.1"].answer)  # fmt: skip

# %% [markdown]
# **Exercise 2.** If the tree stopped there, the right-hand leaf would get the weight
# $w^* = -G_R/(H_R+\lambda)$. What is it?

# %%
print(sheet["10.2"].prompt)
my_weight = None  # ← your answer
sheet["10.2"].check(my_weight)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["10.3"].prompt)
my_why = None  # ← your answer
sheet["10.3"].check(my_why)

# %% [markdown]
# ### Weighted quantiles (seed 003's weighted quantile sketch)
#
# Plain quantiles give each bin the same number of *rows*. Weighted quantiles give each bin
# the same share of the *hessians* $h_i$ instead: the round's objective
# $\sum_i [g_i f(x_i) + \tfrac12 h_i f(x_i)^2]$ is, up to a constant,
# $\sum_i \tfrac12 h_i (f(x_i) + g_i/h_i)^2$ — a squared error weighted by $h_i$ — so a row
# with a large hessian counts for more, and deserves finer bins around it.
#
# For the logistic loss $h_i = p_i(1-p_i)$: largest for rows the model is unsure about
# (p ≈ ½), small for rows it already gets right. Suppose after some rounds the model is
# sure about the young and the old, unsure in the middle:

# %%
p12 = np.array([0.05, 0.08, 0.1, 0.3, 0.45, 0.5, 0.5, 0.55, 0.7, 0.9, 0.92, 0.95])
h12 = p12 * (1 - p12)
share = np.cumsum(h12) / h12.sum()  # the rank r(x): the hessian share at or below x
pd.DataFrame({"age": ages, "p": p12, "h = p(1-p)": h12, "cumulative share": share}).round(4)

# %% [markdown]
# With 4 bins, each should hold about a quarter of the total hessian. A cut goes at the
# first value whose cumulative share *before* it reaches k/4: the rows below the cut then
# carry at least k quarters. Rows with small hessians (the ends) get wide bins; the unsure
# middle gets narrow ones. (These are the exact weighted quantiles of 12 rows; XGBoost's
# *sketch* is the data structure that approximates them on data too big to sort at once.)

# %%
before = np.concatenate([[0.0], share[:-1]])  # hessian share of the rows below each value
weighted_cuts = [ages[np.argmax(before >= k / 4)] for k in (1, 2, 3)]
print("plain quantile cuts:   ", ", ".join(f"{c:g}" for c in ages[positions]))
print("weighted quantile cuts:", ", ".join(f"{c:g}" for c in weighted_cuts))
assert weighted_cuts == [38.0, 41.0, 52.0]

fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
ax.step(ages, share, where="post", label="cumulative hessian share")
ax.plot(ages, np.arange(1, 13) / 12, "o--", ms=3, label="cumulative row share")
for c in weighted_cuts:
    ax.axvline(c, color="tab:orange", lw=1)
for c in ages[positions]:
    ax.axvline(c, color="gray", lw=1, ls=":")
ax.set(xlabel="age", ylabel="share", title="weighted cuts (orange) vs plain quantiles (dotted)")
ax.legend(loc="upper left", fontsize="small")
plt.show()

# %% [markdown]
# XGBoost uses these weighted sketches to propose candidates in its `approx` method and when
# it merges summaries across machines; teachgbt's `hist`, like XGBoost's for features with at
# most `max_bin` distinct values, takes plain quantiles (every distinct value, when there
# are few). With many distinct values the two choose slightly different cuts, so their trees
# are close but not identical — see the table in section 4.
#
# ## 2. Missing values and the learned default direction
#
# 300 customers of a shop: `income` (in thousands; one in five did not say), `age` and
# `visits` last month; did they buy? Those who kept their income to themselves bought more
# often than the others — that a value is missing carries information.

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
shop = pd.DataFrame({"income": income, "age": age, "visits": visits})
print(f"income missing for {shop['income'].isna().mean():.0%} of customers")
print(f"bought: {bought[hidden].mean():.0%} without income, {bought[~hidden].mean():.0%} with")

# %% [markdown]
# Each split learns a **default direction**: the scan runs over the rows that *have* a
# value; the rows without are added as one block, once on the left and once on the right,
# and the better side is kept. The node table records it in `default_left`:

# %%
params = dict(n_estimators=20, max_depth=3, learning_rate=0.3, base_score=0.5)
clf = tg.BoostingClassifier(tree_method="hist", **params).fit(shop, bought)
nodes = clf.trace_.nodes(1)
root = nodes.iloc[0]
assert root["feature"] == "income" and not root["default_left"]
nodes[["node", "feature", "threshold", "default_left", "n", "G", "H", "loss_chg"]].round(3)

# %% [markdown]
# The root splits on income and sends missing incomes **right**, with the high earners — the
# customers most likely to buy. The candidates at the root hold each income threshold twice
# (missing left, missing right); they differ exactly by the missing block's $G$:

# %%
cands = clf.trace_.splits(1, 0)
twins = cands[(cands["feature"] == "income") & (cands["threshold"] == root["threshold"])]
g_missing = clf.trace_.instances(1).loc[shop["income"].isna().to_numpy(), "g"].sum()
gap = (
    twins.loc[twins["default_left"], "G_L"].iloc[0]
    - twins.loc[~twins["default_left"], "G_L"].iloc[0]
)
print(f"G of the missing block {g_missing:.4f}; G_L(missing left) − G_L(missing right) {gap:.4f}")
assert np.isclose(gap, g_missing)
twins.round(4)

# %% [markdown]
# Both scans along income: the faint curve sends missing incomes right (it holds the chosen
# split, starred), the solid one left.

# %%
ax = tg.plot.split_scan(clf, 1, 0, "income")
plt.show()

# %% [markdown]
# ## 3. Many machines: summing histograms
#
# When the data do not fit on one machine, XGBoost and LightGBM (on Dask or Spark) give
# each worker a shard of the rows. All workers agree on the cut points first (XGBoost merges
# their weighted quantile sketches); then, at every node, each worker adds up $g$ and $h$
# per bin **on its own rows only**, and an *all-reduce* sums these G/H histograms across
# workers. A sum is a sum in any order: every worker now holds the histogram of the whole
# data and finds the same split, without any row leaving its machine.
#
# Check it on the shop data: split the 300 rows into 4 shards, build each shard's
# histograms with the trainer's own cut points, sum them, scan.

# %%
inst = clf.trace_.instances(1)
g, h = inst["g"].to_numpy(), inst["h"].to_numpy()
# the trainer's cut points: the thresholds it considered at the root, per feature
cuts = {f: np.unique(cands.loc[cands["feature"] == f, "threshold"]) for f in shop.columns}


def histogram(x, g, h, cut):
    """G and H per bin (bin c: cut[c-1] <= x < cut[c]); the missing rows in a last bin."""
    code = np.searchsorted(cut.astype(np.float32), x.astype(np.float32), side="right")
    code[np.isnan(x)] = len(cut) + 1
    return (np.bincount(code, weights=g, minlength=len(cut) + 2),
            np.bincount(code, weights=h, minlength=len(cut) + 2))  # fmt: skip


shards = np.array_split(np.arange(n), 4)
summed = {}
for f in shop.columns:
    x = shop[f].to_numpy()
    per_shard = [histogram(x[s], g[s], h[s], cuts[f]) for s in shards]
    summed[f] = (sum(G for G, _ in per_shard), sum(H for _, H in per_shard))
    G_all, H_all = histogram(x, g, h, cuts[f])
    assert np.allclose(summed[f][0], G_all) and np.allclose(summed[f][1], H_all)
print("the summed shard histograms equal the histograms of all 300 rows, for every feature")

# %% [markdown]
# Now scan the summed histograms: for each cut, G_L and H_L are running sums of the bins
# below it, the missing block goes to whichever side gains more, and the split with the
# largest gain wins. (λ = 1, the estimator's default.)

# %%
best = None
for f, (G_bins, H_bins) in summed.items():
    G_miss, H_miss = G_bins[-1], H_bins[-1]
    G_tot, H_tot = G_bins.sum(), H_bins.sum()
    for c, cut in enumerate(cuts[f]):
        G_L, H_L = G_bins[: c + 1].sum(), H_bins[: c + 1].sum()
        for left in (True, False) if G_miss or H_miss else (False,):
            GL, HL = (G_L + G_miss, H_L + H_miss) if left else (G_L, H_L)
            gain = tg.formulas.split_gain(GL, HL, G_tot - GL, H_tot - HL, reg_lambda=1.0)
            if best is None or gain > best[0] + 1e-12:
                best = (gain, f, cut, left)
print(f"summed histograms: best split {best[1]} < {best[2]:g}, missing "
      f"{'left' if best[3] else 'right'}, gain {best[0]:.6f}")  # fmt: skip
print(f"the trainer:       {root['feature']} < {root['threshold']:g}, missing "
      f"{'left' if root['default_left'] else 'right'}, gain {root['gain']:.6f}")  # fmt: skip
assert (best[1], best[3]) == (root["feature"], bool(root["default_left"]))
assert np.isclose(best[2], root["threshold"]) and np.isclose(best[0], root["gain"], rtol=1e-5)

# %% [markdown]
# The same sums also make the trainer fast on one machine: a child's histogram plus its
# sibling's is the parent's, so only the smaller child is counted and the other is a
# subtraction. And the per-feature scans are independent, so they run in parallel; the bin
# codes are stored feature by feature (seed 003's *blocked data*).
#
# ## 4. A million rows
#
# A generated binary problem with eight features (interactions, thresholds, a skewed and a
# few-valued feature), a million training rows and 200 000 test rows. `verbose=True` shows
# a progress bar (in a terminal it shows by itself for long fits).


# %%
def make_data(rows, seed):
    r = np.random.default_rng(seed)
    Z = r.normal(size=(rows, 8)).astype(np.float32)
    Z[:, 5] = np.exp(Z[:, 5])  # skewed
    Z[:, 6] = r.integers(0, 5, rows)  # few distinct values
    logit = Z[:, 0] + Z[:, 1] * Z[:, 2] - 1.5 * (Z[:, 3] > 0.5) + 0.3 * Z[:, 5] - 0.4 * Z[:, 6]
    return Z, (r.random(rows) < 1 / (1 + np.exp(-logit))).astype(int)


X_big, y_big = make_data(ROWS, 0)
X_test, y_test = make_data(max(ROWS // 5, 1000), 1)
big = dict(n_estimators=50, max_depth=6, learning_rate=0.3, max_bin=256)
print(f"{ROWS:,} training rows × {X_big.shape[1]} features")

# %%
start = time.perf_counter()
model = tg.BoostingClassifier(tree_method="hist", verbose=True, **big).fit(X_big, y_big)
fit_seconds = time.perf_counter() - start
print(f"teachgbt hist: {fit_seconds:.1f} s")

# %% [markdown]
# The same fit with XGBoost `hist` and LightGBM, when installed (each cell says so if not):
# fit time and test log loss. The cut points differ (XGBoost's sketch against teachgbt's
# plain quantiles; LightGBM bins its own way and grows leaf-wise), so the numbers are close,
# not equal.


# %%
def log_loss(p):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-np.mean(y_test * np.log(p) + (1 - y_test) * np.log(1 - p)))


table = {"teachgbt hist": (fit_seconds, log_loss(model.predict_proba(X_test)[:, 1]))}
try:
    import xgboost as xgb
except ImportError:
    print("XGBoost is not installed: pip install xgboost to compare")
else:
    start = time.perf_counter()
    xm = xgb.XGBClassifier(tree_method="hist", base_score=y_big.mean(), **big).fit(X_big, y_big)
    table["XGBoost hist"] = (time.perf_counter() - start, log_loss(xm.predict_proba(X_test)[:, 1]))
try:
    import lightgbm as lgb
except ImportError:
    print("LightGBM is not installed: pip install lightgbm to compare")
else:
    start = time.perf_counter()
    lm = lgb.LGBMClassifier(n_estimators=50, max_depth=6, num_leaves=64, learning_rate=0.3,
                            max_bin=255, verbose=-1).fit(X_big, y_big)  # fmt: skip
    table["LightGBM"] = (time.perf_counter() - start, log_loss(lm.predict_proba(X_test)[:, 1]))
results = pd.DataFrame(table, index=["fit (s)", "test log loss"]).T
losses = results["test log loss"]
if ROWS >= 100_000:  # on a small CI sample 50 deep trees overfit, each library its own way
    assert (losses - losses.min()).max() < 0.02  # close, not equal
results.round(4)

# %%
fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
ax.barh(results.index, results["fit (s)"])
ax.set(xlabel="fit time (s)", title=f"{ROWS:,} rows, 50 trees of depth 6")
plt.show()

# %% [markdown]
# ## What you have seen
#
# * `hist` bins each feature once at quantile cut points and scans bins, not rows.
# * XGBoost's weighted quantile sketch weighs each row by its hessian, giving the uncertain
#   rows finer bins.
# * Each split learns where missing values go by trying the missing block on both sides.
# * Summing per-shard G/H histograms gives the whole data's histograms, so every machine
#   finds the same split: that is how XGBoost and LightGBM train on Dask or Spark.
# * The histogram trainer fits a million rows in seconds, close to XGBoost and LightGBM.

# %%
plt.close("all")

# %% [markdown]
# ## 5. Many machines for real: a Dask cluster
#
# Section 3 summed shard histograms in one process. `teachgbt.dask` does it across worker
# processes: each worker keeps its partitions' rows, computes their g, h and the G, H
# histograms of each tree's nodes, and only those histograms travel; the client adds them up
# and chooses every split with the same split finder as a local fit. Here a `LocalCluster`
# of two worker processes stands for two machines. (This section needs `dask[distributed]`:
# `pip install "teachgbt[dask]"`; without it the cells say so and do nothing.)

# %%
import __main__

try:
    import dask
    import dask.array as da
    from dask.distributed import LocalCluster

    from teachgbt.dask import DaskBoostingClassifier
except ImportError:
    dask = None
    print('dask.distributed is not installed: pip install "teachgbt[dask]" to run this section')
if dask is not None and hasattr(__main__, "__file__"):
    # worker processes start by re-running the main script: in a script, a cluster is
    # started under `if __name__ == "__main__":`, which a lesson's top level is not
    dask = None
    print("run as a script: this section runs in the notebook (Jupyter) only")
if dask is not None:
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)  # fmt: skip
    client = cluster.get_client()
    # few enough rows that every partition's quantile summary is exact: then the cluster
    # cuts the features exactly where one machine does
    n_dask = min(ROWS, 10_000)
    X_d = da.from_array(X_big[:n_dask], chunks=(n_dask // 4, X_big.shape[1]))  # 4 partitions
    y_d = da.from_array(y_big[:n_dask], chunks=n_dask // 4)
    print(f"{n_dask:,} rows in {X_d.npartitions} partitions on {len(client.nthreads())} workers")

# %% [markdown]
# First the histograms by hand. Before the first tree every row has the same margin, the
# base score's log-odds, so g = p − y and h = p(1 − p). Each partition's histogram of
# feature 0 is computed *on the worker that holds it*; only the bin sums come back.

# %%
if dask is not None:
    small = dict(n_estimators=3, max_depth=3, learning_rate=0.3)
    dmodel = DaskBoostingClassifier(**small).fit(X_d, y_d)
    p0 = dmodel.base_score_
    cut0 = dmodel.cuts_[0][0]  # feature 0's cut points, found over all partitions

    def partition_histogram(x, y):
        g, h = p0 - y, np.full(len(y), p0 * (1 - p0))
        code = np.searchsorted(cut0, x[:, 0], side="right")
        return np.bincount(code, weights=g, minlength=len(cut0)), np.bincount(
            code, weights=h, minlength=len(cut0)
        )

    parts = [dask.delayed(partition_histogram)(x, y)
             for x, y in zip(X_d.to_delayed().ravel(), y_d.to_delayed())]  # fmt: skip
    per_partition = dask.compute(*parts)
    G_sum = sum(G for G, _ in per_partition)
    G_one, _ = partition_histogram(X_big[:n_dask], y_big[:n_dask])
    assert np.allclose(G_sum, G_one)
    print("the partitions' G histograms add up to the one-machine histogram of feature 0;")
    print(f"the root's G is {G_sum.sum():.4f} = Σg over all {n_dask:,} rows")

# %% [markdown]
# Now the trees: the cluster's against one machine's `tree_method="hist"` on the same rows,
# node for node (only the order in which floats are added differs).

# %%
if dask is not None:
    local = tg.BoostingClassifier(tree_method="hist", **small).fit(X_big[:n_dask], y_big[:n_dask])
    for a, b in zip(dmodel.trees_, local.trees_):
        fa, fb = a.to_frame(), b.to_frame()
        assert fa["feature"].equals(fb["feature"]) and fa["n"].equals(fb["n"])
        assert np.allclose(fa["threshold"], fb["threshold"], equal_nan=True)
        assert np.allclose(fa["G"], fb["G"]) and np.allclose(fa["H"], fb["H"])
    print(f"all {len(local.trees_)} trees agree node for node")
    margins = dmodel.decision_function(X_d)  # a dask array, computed where the rows live
    print(type(margins).__name__, "— largest margin difference:",
          float(abs(margins.compute() - local.decision_function(X_big[:n_dask])).max()))  # fmt: skip

# %% [markdown]
# The trace's node table of the first tree, as for a local fit (`trace_.splits(t, node)`
# recomputes a node's histogram on the workers; `trace_.instances(t)` is a dask DataFrame):

# %%
columns = ["node", "feature", "threshold", "n", "G", "H", "gain"]
dmodel.trace_.nodes(1)[columns].head(7) if dask is not None else None

# %% [markdown]
# `dmodel.to_local()` is an ordinary `BoostingClassifier` with these trees, so every view of
# the earlier lessons (draw, explain, contributions, save) works on a model trained on a
# cluster. When the data does not fit one machine, point `Client(...)` at a real cluster and
# pass dask arrays or dask DataFrames read there: the rows never come to you.

# %%
if dask is not None:
    print(tg.explain.split(dmodel.to_local(), 1, 0))
    client.close()
    cluster.close()
