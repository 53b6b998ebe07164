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
# # Lesson 5 — Learning the tree structure: the gain, the scan, pruning, shrinkage
#
# **Goals.** By the end you can compute the gain of a split, find the best threshold with a
# sorted left-to-right scan, say what the exact greedy search costs, tell pre-stopping from
# post-pruning, use shrinkage and one-hot encoding, and translate γ between the tutorials
# and XGBoost (the loss convention decides it: `lessons/00_conventions.md`). You also meet `teachgbt/reference.py`, the whole algorithm in one file.
#
# | tutorial section | what you do here |
# |---|---|
# | "Learn the tree structure": Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)] − γ (000; 001; 002 "Greedy learning"; 003 "Split condition") | read every candidate split the trainer weighed, and one gain written out |
# | "a left to right scan is sufficient" (000; 002 "Efficient finding of the best split") | scan `age` by hand with running sums; draw the scan |
# | cost O(n·d·K·log n) (002; 001's O(d·n·log n) per level) | count what the scan evaluates |
# | "Pruning and regularization": pre-stopping vs post-pruning (002) | grow an XOR pattern both ways |
# | γ and λ under two loss conventions, and XGBoost's `gamma` | one table that reconciles them on a live split |
# | shrinkage ε ≈ 0.1 (002 "Recap") | compare learning rates on held-out data |
# | categorical variables by one-hot encoding (002) | encode a text column and score its splits |
# | the whole algorithm | `teachgbt/reference.py` grows the same trees as the trainer |
# | in practice (XGBoost's settings) | early stopping on an eval set, `subsample`/`colsample_bytree`, `min_child_weight`, feature importance, the explorer |
# | pruning by hand | the five instances pruned bottom up with λ and γ, step by step, beside the trainer |
# | Exercises | a gain, the same gain with the model's `gamma`, a margin after shrinkage, a small tree pruned by hand, a why-question |

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import teachgbt as tg

# Your own numbers for the exercises: put your student id here (any name or number), or
# leave None for the numbers the lesson ships with.
STUDENT = None

# %% [markdown]
# ## 1. The gain of a split
#
# There are too many tree shapes to score each with the structure score (lesson 4), so the
# tree grows greedily: split one leaf into two and keep the split whose objective drops most,
#
# $$\text{Gain} = \frac12\left[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda}
#   - \frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\right] - \gamma :$$
#
# the new left leaf's score, plus the new right leaf's, minus the leaf we had, less γ for
# the extra leaf. Lesson 3's family of ten, with the two-tree scores as the target, one round
# at learning rate 0.5 and λ = 1 (γ = 0 for now):

# %%
family = tg.datasets.family()  # lesson 3's ten
tree_1 = tg.Tree.from_rules(("age < 15", ("is_male < 0.5", 0.1, 2.0), -1.0), list(family))
tree_2 = tg.Tree.from_rules(("uses_computer_daily < 0.5", -0.9, 0.9), list(family))
likes_games = tree_1.predict(family) + tree_2.predict(family)
params = dict(n_estimators=2, max_depth=2, learning_rate=0.5, min_child_weight=0, base_score=0)
model = tg.BoostingRegressor(reg_lambda=1, **params).fit(family, likes_games)
cands = model.trace_.splits(1, 0)
cands.round(4)

# %% [markdown]
# Every candidate the trainer weighed at the root of tree 1, the kept one marked `chosen`
# (the best `gain`). `tg.explain.split` writes the chosen one out:

# %%
tg.explain.split(model, 1, 0)

# %%
best = cands.loc[cands["gain"].idxmax()]
assert bool(best["chosen"]) and best["feature"] == "age"
assert np.isclose(
    best["gain"], tg.formulas.split_gain(best["G_L"], best["H_L"], best["G_R"], best["H_R"])
)

# %% [markdown]
# ## 2. The sorted left-to-right scan
#
# For a numeric feature, sort the instances by its value and walk from left to right: after
# each step $G_L$, $H_L$ are running sums and the right side is the rest, so one pass gives
# the gain of every threshold. The scan over `age`, written out:

# %%
inst = model.trace_.instances(1).set_index(family.index)
order = inst.assign(age=family["age"]).sort_values("age")
G, H = order["g"].sum(), order["h"].sum()
ages = order["age"].to_numpy()
scan = pd.DataFrame(
    {
        "threshold": (ages[:-1] + ages[1:]) / 2,
        "G_L": order["g"].cumsum().to_numpy()[:-1],
        "H_L": order["h"].cumsum().to_numpy()[:-1],
    }
)
scan["gain"] = tg.formulas.split_gain(scan["G_L"], scan["H_L"], G - scan["G_L"], H - scan["H_L"])
by_trainer = cands[cands["feature"] == "age"].sort_values("threshold")
assert np.allclose(scan["gain"], by_trainer["gain"])
scan.round(4)

# %% [markdown]
# The same gains as the trainer's. The picture of the scan: the gain at each threshold, the
# running sums, and the best threshold starred.

# %%
ax = tg.plot.split_scan(model, 1, 0, "age")

# %% [markdown]
# **What it costs.** A node's scan evaluates one threshold between each pair of adjacent
# distinct values (10 distinct ages: 9 thresholds), after sorting: O(n log n) per feature.
# With d features and K levels of depth, a tree costs O(n·d·K·log n) (seed 002; seed 001
# says O(d·n·log n) per level). XGBoost sorts each feature once and reuses the order;
# approximate methods (lesson 10) scan a few candidate cuts instead of all of them.

# %%
per_feature = cands.groupby("feature").size()
distinct = family.nunique()
print(pd.DataFrame({"distinct values": distinct, "thresholds scanned": per_feature}))
assert (per_feature == distinct[per_feature.index] - 1).all() and per_feature["age"] == 9

# %% [markdown]
# The gains of a tree's splits add up to the drop from the one-leaf structure score to the
# tree's (γ = 0):

# %%
nodes = model.trace_.nodes(1)
leaves = nodes[nodes["is_leaf"]]
obj_tree = tg.formulas.structure_score(leaves["G"], leaves["H"], reg_lambda=1)
obj_root = tg.formulas.structure_score(nodes["G"][:1], nodes["H"][:1], reg_lambda=1)
print(
    f"sum of gains {nodes['gain'].sum():.4f} = Obj*(one leaf) − Obj*(tree) {obj_root - obj_tree:.4f}"
)
assert np.isclose(nodes["gain"].sum(), obj_root - obj_tree)

# %% [markdown]
# ## 3. Pruning: pre-stopping vs post-pruning
#
# A gain can be negative: when "the training loss reduction is smaller than the
# regularization" (seed 002). The regularization is both penalties: γ is the price of the
# extra leaf, and λ shrinks what each new leaf can save, G²/(H + λ) — a small leaf loses more
# of it than a large one. In section 1's table, with γ = 0, the root's candidate `age < 9`
# (one person against nine) has a negative gain: λ alone makes it so.

# %%
age9 = cands.query("feature == 'age' and threshold == 9").iloc[0]
print(f"age < 9 at γ = 0: gain {age9['gain']:.4f}")
assert round(age9["gain"], 4) == -0.0371

# %% [markdown]
# Two ways to act on a negative gain (seed 002):
#
# * **pre-stopping**: do not make a split with negative gain — but a poor split can open the
#   way to excellent ones below it;
# * **post-pruning**: grow to full depth, then remove, bottom up, every split whose two
#   children are leaves and whose gain is negative.
#
# The classic case is an XOR pattern: the target is high when exactly one of `x1`, `x2` is
# above ½. A split on either feature alone helps almost nothing; both together help a lot.

# %%
grid = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
x1, x2 = (a.ravel() for a in np.meshgrid(grid, grid))
xor = pd.DataFrame({"x1": x1, "x2": x2})
high1, high2 = x1 > 0.5, x2 > 0.5
target = np.where(high1 ^ high2, 2.0, np.where(high1 & high2, 0.5, 0.0))
full = tg.BoostingRegressor(n_estimators=1, max_depth=2, learning_rate=1.0).fit(xor, target)
xor_nodes = full.trace_.nodes(1)
xor_nodes[["node", "feature", "threshold", "n", "gain", "loss_chg"]].round(3)

# %%
assert np.allclose(xor_nodes["loss_chg"].dropna().round(1), [1.0, 30.1, 16.9])

# %% [markdown]
# The root split is worth only 0.97 (`loss_chg`), its children 30.1 and 16.9. With
# `gamma=5` the root does not pay for itself: `pruning="pre"` stops there; `pruning="post"`
# grows the children first, and keeps everything, because no split with two leaf children
# is below `gamma`:

# %%
kept = {}
for how in ("pre", "post"):
    m = tg.BoostingRegressor(
        n_estimators=1, max_depth=2, learning_rate=1.0, gamma=5.0, pruning=how
    ).fit(xor, target)
    kept[how] = m
    mse = np.mean((target - m.predict(xor)) ** 2)
    print(f'pruning="{how}": {m.trees_[0].n_leaves} leaves, training MSE {mse:.3f}')
assert kept["pre"].trees_[0].n_leaves == 1 and kept["post"].trees_[0].n_leaves == 4
root_gain = kept["post"].trees_[0].gain[0]
assert abs(root_gain - (-2.02)) < 0.01
kept["post"].trees_[0].plot(fields=["n", "gain", "loss_chg", "weight"])
plt.show()

# %% [markdown]
# The root's `gain` in the post-pruned tree is ½(0.97 − 5) ≈ −2.02: negative, yet kept,
# because of what it made possible. (XGBoost's `exact` method post-prunes, its `hist`
# method pre-stops.)
#
# ## 4. γ and λ: decided by the loss, not by the seed
#
# teachgbt's `gamma` is XGBoost's (`min_split_loss`): a split stays when XGBoost's
# `loss_chg` — the bracket *without* the ½ — is at least `gamma`. Seeds 000 and 002 both write
# Gain = ½[…] − γ, and both write the square loss as (y − ŷ)². What maps their γ and λ to
# the estimator's is the loss convention:
#
# * with XGBoost's ½(y − ŷ)² (g = ŷ − y, h = 1), or the logistic loss, the tutorials' λ is
#   `reg_lambda` and their γ is `gamma / 2`; the `gain` column of every table is this Gain,
#   ½(`loss_chg` − `gamma`), and `tg.formulas` takes this γ;
# * with the tutorials' own (y − ŷ)², g, h and λ are doubled, their ½[…] equals `loss_chg`,
#   and the same trees need λ_tutorial = 2·`reg_lambda` and γ_tutorial = `gamma`.
#
# The same split under both, and XGBoost's rule, live, for the family with `gamma = 1`:

# %%
gamma = 1.0
m_gamma = tg.BoostingRegressor(reg_lambda=1, gamma=gamma, **params).fit(family, likes_games)
root = m_gamma.trace_.nodes(1).iloc[0]
sp = m_gamma.trace_.splits(1, 0).query("chosen").iloc[0]
G_L, H_L, G_R, H_R, lam = sp["G_L"], sp["H_L"], sp["G_R"], sp["H_R"], 1.0
bracket_000 = tg.formulas.loss_chg(G_L, H_L, G_R, H_R, lam)
bracket_002 = tg.formulas.loss_chg(2 * G_L, 2 * H_L, 2 * G_R, 2 * H_R, 2 * lam)  # g, h, λ × 2
conventions = pd.DataFrame(
    [
        ["tutorials' Gain, loss ½(y − ŷ)² (tg.formulas, `gain`)", "ŷ − y, 1", lam,
         "Gain = ½[…] − γ", 0.5 * bracket_000, gamma / 2, 0.5 * bracket_000 - gamma / 2],
        ["tutorials' Gain, their loss (y − ŷ)²", "2(ŷ − y), 2", 2 * lam,
         "Gain = ½[…] − γ", 0.5 * bracket_002, gamma, 0.5 * bracket_002 - gamma],
        ["XGBoost (`gamma`, `loss_chg`)", "ŷ − y, 1", lam,
         "loss_chg − gamma", bracket_000, gamma, bracket_000 - gamma],
    ],
    columns=["convention", "g, h", "λ", "the split stays when ≥ 0", "score before γ", "γ", "value"],
)  # fmt: skip
conventions.round(4)

# %%
assert np.isclose(0.5 * bracket_002, bracket_000)  # with (y − ŷ)², ½[…] is XGBoost's loss_chg
assert np.isclose(bracket_000, root["loss_chg"])
assert np.isclose(0.5 * bracket_000 - gamma / 2, root["gain"])  # the `gain` column
assert np.isclose(tg.formulas.split_gain(G_L, H_L, G_R, H_R, lam, gamma / 2), root["gain"])
assert np.isclose(conventions["value"][0] * 2, conventions["value"][2])
assert len(set(np.sign(conventions["value"]))) == 1

# %% [markdown]
# The first row's value is half the other two, so all three agree on every decision: a split
# stays when its value is ≥ 0. With teachgbt, pass `gamma` as XGBoost does, and pass
# `gamma / 2` to `tg.formulas.split_gain` when you work the tutorials' Gain by hand with
# XGBoost's g and h.
#
# ## 5. Shrinkage
#
# The slides' recap: each round adds only a fraction of its tree,
# $\hat y^{(t)} = \hat y^{(t-1)} + \epsilon f_t(x)$ with ε ≈ 0.1, so no single tree commits the
# model too far. In teachgbt and XGBoost ε is `learning_rate` (η), and trees store η·w* as
# the `value` column:

# %%
leaf_rows = model.trace_.nodes(1).query("is_leaf")
assert np.allclose(leaf_rows["value"], 0.5 * leaf_rows["weight"])
leaf_rows[["node", "weight", "value"]].round(3)

# %% [markdown]
# On generated data with a held-out half, three step sizes over 200 rounds:

# %%
rng = np.random.default_rng(7)


def make_data(n):
    Z = rng.uniform(-2, 2, size=(n, 4))
    y = np.sin(2 * Z[:, 0]) + Z[:, 1] ** 2 + 0.5 * Z[:, 2] * Z[:, 3] + rng.normal(0, 0.4, n)
    return pd.DataFrame(Z, columns=["x1", "x2", "x3", "x4"]), y


X_train, y_train = make_data(300)
X_valid, y_valid = make_data(300)
best_rmse = {}
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharey=True, layout="constrained")
for eta, ax in zip((1.0, 0.3, 0.1), axes):
    m = tg.BoostingRegressor(n_estimators=200, max_depth=3, learning_rate=eta)
    m.fit(X_train, y_train, eval_set=[(X_valid, y_valid)])
    tg.plot.loss_curve(m, ax=ax)
    ax.set_title(f"learning_rate = {eta}")
    best_rmse[eta] = min(m.evals_result_["validation_0"]["rmse"])
print({eta: round(r, 3) for eta, r in best_rmse.items()})
assert best_rmse[0.3] < best_rmse[1.0] and best_rmse[0.1] < best_rmse[1.0]

# %% [markdown]
# With η = 1 the training error collapses within a few rounds while the held-out error stalls
# higher; the smaller steps take more rounds, and both end lower than η = 1 on held-out data.
# Which of 0.3 and 0.1 wins depends on the data and on the number of rounds: compare the
# printed best errors.
#
# ## 6. Categorical variables: one-hot encoding
#
# Trees split on numbers. A text column such as the ice-cream data's `weather` becomes one
# 0/1 column per category (seed 002); "weather_sunny < 0.5" then asks "is it not sunny?",
# and its gain comes from the same formula as any other split:

# %%
days = tg.datasets.ice_cream()
encoded = tg.datasets.one_hot(days.drop(columns="ice_creams_sold"))
X_ice, sold = tg.datasets.ice_cream_xy()
ice = tg.BoostingRegressor(n_estimators=1, max_depth=2, min_child_weight=0, base_score=40)
ice.fit(X_ice, sold)
root_ice = ice.trace_.splits(1, 0)
weather = root_ice[root_ice["feature"].str.startswith("weather")]
assert set(weather["feature"]) <= set(encoded.columns) and len(weather) > 0
weather.round(3)

# %% [markdown]
# With many categories the one-hot columns are mostly zeros — sparse data, which XGBoost
# handles specially (lesson 10).
#
# ## 7. The whole algorithm in one file
#
# `teachgbt/reference.py` is seed 000 in plain loops, to read top to bottom: `grad_hess`
# (g, h), `leaf_weight` (w*), `best_split` (this lesson's scan, for every feature), `grow_tree`
# (level by level, then post-pruning with γ) and `fit` (the additive loop), each step citing
# the tutorial section it implements. It grows the same trees as the trainer we used:

# %%
ref = tg.reference.fit(
    family, likes_games, objective="reg:squarederror", n_estimators=2, max_depth=2,
    learning_rate=0.5, reg_lambda=1, gamma=gamma, min_child_weight=0, base_score=0,
)  # fmt: skip
same = all(
    np.array_equal(a.feature, b.feature) and np.allclose(a.value, b.value)
    for a, b in zip(ref.trees, m_gamma.trees_)
)
assert same and np.allclose(ref.decision_function(family), m_gamma.predict(family))
print(ref.trees[0])

# %% [markdown]
# ## 8. In practice: early stopping, subsampling, `min_child_weight`, importance
#
# **Early stopping.** Section 5 chose the number of rounds by looking at the held-out curve.
# `early_stopping_rounds=k` does it while training: it watches the last `eval_set` and stops
# when its error has not improved for k rounds; `best_iteration_` (0-based) is the best
# round, and `predict` stops there, as XGBoost's estimator does.

# %%
stopped = tg.BoostingRegressor(n_estimators=500, max_depth=3, learning_rate=0.3,
                               early_stopping_rounds=20)  # fmt: skip
stopped.fit(X_train, y_train, eval_set=[(X_valid, y_valid)])
curve = stopped.evals_result_["validation_0"]["rmse"]
print(f"stopped after {len(stopped.trees_)} of 500 rounds; best round {stopped.best_iteration_ + 1}"
      f" with held-out RMSE {min(curve):.3f}")  # fmt: skip
assert len(stopped.trees_) < 500 and len(curve) - (stopped.best_iteration_ + 1) == 20

# %% [markdown]
# **Subsampling.** `subsample=0.7` grows each tree on a random 70 % of the rows,
# `colsample_bytree=0.5` on a random half of the features (seed 002's "make different
# errors", inside one boosted model). Each tree sees less, so the trees differ more; the
# held-out error often drops a little, and each round is cheaper:

# %%
sampled = {}
for label, extra in [("all rows and features", {}),
                     ("subsample=0.7, colsample_bytree=0.5",
                      dict(subsample=0.7, colsample_bytree=0.5, random_state=0))]:  # fmt: skip
    m = tg.BoostingRegressor(n_estimators=100, max_depth=3, learning_rate=0.1, **extra)
    m.fit(X_train, y_train, eval_set=[(X_valid, y_valid)])
    sampled[label] = min(m.evals_result_["validation_0"]["rmse"])
print({k: round(v, 3) for k, v in sampled.items()})

# %% [markdown]
# **`min_child_weight`** is the least cover a child may have: H, the sum of its rows' h. A
# split whose smaller side has H below it is not made. For the squared error h = 1, so it is
# a minimum number of rows; for the logistic loss h = p(1 − p) ≤ ¼, so a child of 8 rows the
# model is sure about may weigh less than 1. (The lessons set it to 0 on tiny data so that
# one-row leaves are allowed, as the tutorials' pictures have them.)

# %%
for mcw in (0, 3):
    m = tg.BoostingRegressor(n_estimators=1, max_depth=2, min_child_weight=mcw, base_score=0)
    nodes_mcw = m.fit(family, likes_games).trace_.nodes(1)
    smallest = nodes_mcw.loc[nodes_mcw["is_leaf"], "H"].min()
    print(f"min_child_weight={mcw}: {int(nodes_mcw['is_leaf'].sum())} leaves, smallest cover "
          f"H = {smallest:g}")  # fmt: skip
    assert smallest >= mcw

# %% [markdown]
# **Feature importance.** XGBoost's three: `weight` counts the splits on a feature, `gain`
# is the mean `loss_chg` of those splits, `cover` their mean H. They answer different
# questions and disagree: a feature split often, near the leaves, on few rows has a high
# weight but a low cover; one split once, at the root, on every row, has a high gain and
# cover but weight 1. On the generated data, `x1` (a sine) needs many small steps, `x2` (a
# square) a few big ones:

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 2.8), layout="constrained")
for kind, ax in zip(("weight", "gain", "cover"), axes):
    tg.plot.importance(stopped, kind=kind, ax=ax)
    ax.set_title(kind)
plt.show()

# %% [markdown]
# **The explorer.** `tg.explore(model)` steps through a model's trees, each node's sums and
# candidate splits, and any row's path, in one page (`.save("x.html")` keeps it):

# %%
tg.explore(model)

# %% [markdown]
# ## 9. Your turn
#
# Seed 002's five instances from lesson 4: the boy and the girl (g = −2 and −0.1, h = 1 each)
# against the three adults (G = 3, H = 3), that is the split "age < 15" at the root, with
# λ = 1.
#
# Each exercise prints its numbers (yours, if you set `STUDENT` at the top). Answer to 3
# significant digits: within 1 % of the value is right. A wrong answer gets the likely slip
# or a hint; `reveal=True` in the `check` call shows the solution.
#
# **Exercise 5.1.** The gain of a split, γ = 0 (the shipped numbers are "age < 15" on the
# five: the boy and the girl against the three adults).

# %%
sheet = tg.exercises.sheet(5, student=STUDENT)
print(sheet["5.1"].prompt)
my_gain = None  # ← your answer
sheet["5.1"].check(my_gain)

# %% [markdown]
# **Exercise 5.2.** The gain the trainer would record for the same split in a model trained
# with XGBoost's `gamma` (section 4 says how the tutorials' γ reads it; the sign matters: a
# negative gain is a split that pruning removes).

# %%
print(sheet["5.2"].prompt)
my_gain_with_gamma = None  # ← your answer
sheet["5.2"].check(my_gain_with_gamma)

# %% [markdown]
# **Exercise 5.3.** A leaf's w* from its G and H, then what the round does to a row's margin,
# with shrinkage.

# %%
print(sheet["5.3"].prompt)
my_child_margin = None  # ← your answer
sheet["5.3"].check(my_child_margin)

# %% [markdown]
# ### Pruning by hand, step by step
#
# Section 3 let the trainer prune. Here is the same bottom-up pass by hand, on the five
# instances with λ = 1 and XGBoost's `gamma` = 1. The loss is XGBoost's ½(y − ŷ)²
# (g = ŷ − y, h = 1), so the tutorial's γ is gamma / 2 = 0.5 (section 4). Grown to depth 2
# without pruning, the tree is lesson 4's, numbered as there: the root splits the children
# from the adults (leaf 2: G = 3, H = 3), and node 1 splits the girl (leaf 3: G = −0.1,
# H = 1) from the boy (leaf 4: G = −2, H = 1).
#
# 1. **The lowest split first.** Node 1's children are both leaves:
#    Gain = ½[0.01/2 + 4/2 − 4.41/3] − 0.5 = ½ × 0.535 − 0.5 = −0.2325 < 0, so it goes. The
#    girl and the boy now share node 1 as one leaf: G = −2.1, H = 2.
# 2. **Then the root**, whose children are now both leaves:
#    Gain = ½[4.41/3 + 9/4 − 0.81/6] − 0.5 = 1.7925 − 0.5 = 1.2925 ≥ 0, so it stays.
# 3. **The tree that is left** has T = 2 leaves:
#    Obj* = −½[4.41/3 + 9/4] + 0.5 × 2 = −0.86. The unpruned tree scores
#    −½[0.01/2 + 4/2 + 9/4] + 0.5 × 3 = −0.6275: pruning lowered the objective by 0.2325,
#    exactly what the split's gain was below 0.
# 4. **Who pruned it?** With γ = 0 node 1 gains ½ × 0.535 = 0.2675 and stays; with λ = 0
#    (and γ = 0.5) it gains ½[0.01 + 4 − 4.41/2] − 0.5 = 0.4025 and stays too. It takes both:
#    λ shrinks what the one-row leaves save, γ prices the extra leaf.
#
# The trainer's post-pruning agrees, step for step:

# %%
five_X = tg.datasets.family().iloc[:5]
five_y = tree_1.predict(five_X)  # the targets of lesson 4: g = 0 − y, h = 1
lam, gamma_model = 1.0, 1.0
node1 = tg.formulas.split_gain(-0.1, 1, -2.0, 1, lam, gamma_model / 2)
root_gain = tg.formulas.split_gain(-2.1, 2, 3.0, 3, lam, gamma_model / 2)
kept_obj = tg.formulas.structure_score([-2.1, 3.0], [2, 3], lam, gamma_model / 2)
full_obj = tg.formulas.structure_score([3.0, -0.1, -2.0], [3, 1, 1], lam, gamma_model / 2)
print(f"node 1: gain {node1:.4f};  root: gain {root_gain:.4f}")
print(f"Obj* pruned {kept_obj:.4f}, unpruned {full_obj:.4f}")
assert np.isclose(node1, -0.2325) and np.isclose(root_gain, 1.2925)
assert np.isclose(kept_obj, -0.86) and np.isclose(full_obj - kept_obj, 0.2325)

pruning_runs = {}
for label, lam_, gamma_ in [("λ = 1, gamma = 0", 1.0, 0.0), ("λ = 0, gamma = 1", 0.0, 1.0),
                            ("λ = 1, gamma = 1", 1.0, 1.0)]:  # fmt: skip
    fit = tg.BoostingRegressor(
        n_estimators=1,
        max_depth=2,
        learning_rate=1,
        reg_lambda=lam_,
        gamma=gamma_,
        min_child_weight=0,
        base_score=0,
        pruning="post",
    )
    pruning_runs[label] = fit.fit(five_X, five_y).trees_[0]
assert [t.n_leaves for t in pruning_runs.values()] == [3, 3, 2]
both = pruning_runs["λ = 1, gamma = 1"].to_frame()
assert np.isclose(both.at[0, "gain"], root_gain) and both["is_leaf"].tolist() == [False, True, True]
fig, axes = plt.subplots(1, 3, figsize=(14, 3.6), layout="constrained")
for ax, (label, t) in zip(axes, pruning_runs.items()):
    t.plot(ax=ax, fields=["G", "H", "gain"], legend=False)
    ax.set_title(label)
plt.show()

# %% [markdown]
# **Exercise 5.4.** A small tree of your own, pruned by hand bottom up, then its structure
# score (the shipped numbers: a different tree from the one above).

# %%
print(sheet["5.4"].prompt)
my_pruned_score = None  # ← your answer
sheet["5.4"].check(my_pruned_score)

# %% [markdown]
# **Why?** Answer with a letter.

# %%
print(sheet["5.5"].prompt)
my_why = None  # ← your answer
sheet["5.5"].check(my_why)

# %% [markdown]
# ## What you have seen
#
# * The gain compares two new leaves with the old one, less γ; a sorted scan finds the best
#   threshold of a feature in one pass, and a tree costs O(n·d·K·log n).
# * A gain is negative when the loss a split saves is smaller than the regularization, λ's
#   shrinking and γ's price together; post-pruning removes such a split bottom up, only
#   once its children are leaves. Pre-stopping can miss what post-pruning keeps.
# * γ: with XGBoost's ½(y − ŷ)² or the logistic loss the tutorials' γ is `gamma / 2`; with
#   their own (y − ŷ)² it is `gamma` (and λ doubles); all decide alike.
# * Shrinkage trades rounds for accuracy; categories become one-hot columns.
# * `teachgbt/reference.py` is the whole algorithm in one file.
#
# Next: lesson 6, GBDT regression step by step.

# %%
plt.close("all")
