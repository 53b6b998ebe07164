"""Seed 000's whole algorithm in one file, to read top to bottom before anything else.

    from teachgbt import reference
    m = reference.fit(X, y, objective="binary:logistic", n_estimators=3, max_depth=3)
    m.trees[0].to_frame()      # n, G, H, w*, Gain of every node of the first tree
    m.decision_function(X)     # margins (log-odds); m.predict(X): probabilities

Plain loops over features and over sorted rows, in the tutorial's names (``g``, ``h``,
``G_L``, ``H_L``, ``G_R``, ``H_R``, ``w``, ``reg_lambda``, ``gamma``, ``eta``). teachgbt's
fast trainers vectorize this and copy XGBoost's float32 arithmetic; the tests check that
this file grows the same trees as they do and as XGBoost ``tree_method="exact"``. It calls
``teachgbt.core.formulas`` once per candidate split, so keep it to a few thousand rows.

Each round adds a tree f_t, grown greedily to lower Σ_i l(y_i, ŷ_i + f_t(x_i)) + Ω(f_t), with
Ω(f) = γT + ½λΣ_j w_j² (seed 000, "Model Complexity"), in five steps:

    grad_hess     g_i, h_i: the loss to second order around the current margin ŷ_i
    leaf_weight   w* = −G/(H+λ), the best score of a leaf holding sums G, H
    best_split    the Gain of every cut of every feature, by a sorted scan
    grow_tree     split level by level, then prune splits that do not pay for γ
    fit           ŷ_i += η·f_t(x_i), and again

One convention to know. ``gamma`` is XGBoost's: a split stays when
loss_chg = G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ) is at least ``gamma``. Seed 000's
Gain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] − γ says the same with γ = gamma / 2, so
the Gain stored on every split is ½(loss_chg − gamma), and post-pruning removes a split
whose Gain is negative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .core import formulas, routing
from .core.losses import logit, sigmoid
from .core.tree import Tree, TreeBuilder, as_float32_matrix

__all__ = ["fit", "Model"]

OBJECTIVES = ("binary:logistic", "reg:squarederror")
KRT_EPS = 1e-6  # XGBoost's kRtEps: a split must lower the loss by more than this
MIN_HESSIAN = 1e-16  # XGBoost's floor on h, so that H + λ > 0 even with λ = 0


def grad_hess(objective, y, margin):
    """g_i and h_i, the first and second derivative of the loss at the current margin."""
    # seed 000, "Additive Training": g_i = ∂l(y_i, ŷ^(t−1)), h_i = ∂²l(y_i, ŷ^(t−1))
    if objective == "reg:squarederror":
        # XGBoost's l = ½(y − ŷ)²; seed 000's (y − ŷ)² would double both
        g, h = margin - y, np.ones_like(margin)
    else:
        # l = −[y log p + (1 − y) log(1 − p)] with p = σ(ŷ), differentiated in ŷ
        p = sigmoid(margin)
        g, h = p - y, np.maximum(p * (1.0 - p), MIN_HESSIAN)
    # XGBoost holds g and h in float32. Float64 sums of float32 numbers of similar size are
    # exact in any order, so two cuts that put the same g's on the left tie exactly and the
    # first wins, as in XGBoost; with float64 g and h, rounding noise would choose instead.
    return g.astype(np.float32).astype(np.float64), h.astype(np.float32).astype(np.float64)


def leaf_weight(G, H, reg_lambda, min_child_weight):
    """The weight w that minimises a leaf's share of the objective, G·w + ½(H+λ)·w²."""
    # seed 000, "The Structure Score": w* = −G/(H+λ); XGBoost gives a leaf lighter than
    # min_child_weight (only a root can be) the weight 0
    return formulas.leaf_weight(G, H, reg_lambda, min_child_weight=min_child_weight)


@dataclass
class Split:
    """A rule ``x[feature] < threshold`` (missing → left if ``default_left``) and its sums."""

    feature: int
    threshold: float
    default_left: bool
    G_L: float
    H_L: float
    G_R: float
    H_R: float
    loss_chg: float


def best_split(X, g, h, rows, forward_scan, reg_lambda, min_child_weight):
    """The split of a node's ``rows`` that lowers the loss most, or None if none helps.

    Missing values, seed 003's "sparse data" (the XGBoost paper's sparsity-aware split
    finding, as its exact updater runs it): the rows missing a feature stay out of the sort
    and go, as one block, to whichever side gains more. One scan sends them left; a second
    sends them right, but only for features with ``forward_scan`` (see ``fit``). Each scan
    also offers the cut between every present value and the missing ones.
    """
    G, H = g[rows].sum(), h[rows].sum()
    best, best_chg = None, KRT_EPS
    for feature in range(X.shape[1]):  # in index order: a tie goes to the lower feature
        x = X[rows, feature]
        missing = np.isnan(x)
        if missing.all():
            continue  # nothing to sort
        order = np.argsort(x[~missing])
        v = x[~missing][order]  # the present values, sorted
        g_sorted, h_sorted = g[rows][~missing][order], h[rows][~missing][order]
        G_miss, H_miss = g[rows][missing].sum(), h[rows][missing].sum()
        scans = (False, True) if forward_scan[feature] else (True,)
        for default_left in scans:
            # seed 000, "Learn the tree structure": a left-to-right scan accumulates G_L, H_L
            G_L, H_L = (G_miss, H_miss) if default_left else (0.0, 0.0)
            cuts = []  # (threshold, G_L, H_L): x < threshold goes left
            # the missing rows alone on one side: any threshold beyond the present values
            # would do; XGBoost's is v ± (|v| + kRtEps)
            if missing.any() and default_left:
                cuts.append((v[0] - (abs(v[0]) + KRT_EPS), G_L, H_L))
            for k in range(len(v)):
                G_L, H_L = G_L + g_sorted[k], H_L + h_sorted[k]
                if k + 1 < len(v) and v[k] < v[k + 1]:  # no cut between equal values
                    cuts.append(((v[k] + v[k + 1]) / 2, G_L, H_L))
            if missing.any() and not default_left:
                cuts.append((v[-1] + (abs(v[-1]) + KRT_EPS), G_L, H_L))
            # XGBoost meets the missing-left cuts from the right: the first of equal ones wins
            for threshold, G_L, H_L in reversed(cuts) if default_left else cuts:
                G_R, H_R = G - G_L, H - H_L
                if H_L < min_child_weight or H_R < min_child_weight:
                    continue  # a child with too little hessian (XGBoost's min_child_weight)
                # seed 000, "Learn the tree structure": the Gain's bracket (XGBoost's loss_chg),
                # left score + right score − parent's: G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)
                chg = formulas.loss_chg(G_L, H_L, G_R, H_R, reg_lambda)
                if chg > best_chg:  # strictly: the first of equal candidates wins
                    best_chg = chg
                    best = Split(feature, threshold, default_left, G_L, H_L, G_R, H_R, chg)
    return best


def grow_tree(X, g, h, forward_scan, names, max_depth, reg_lambda, gamma, min_child_weight, eta):
    """One tree: split level by level to ``max_depth`` (depth-wise, as XGBoost), then prune."""
    b = TreeBuilder()

    def add_node(rows, parent, depth):
        G, H = g[rows].sum(), h[rows].sum()
        w = leaf_weight(G, H, reg_lambda, min_child_weight)
        # seed 002, "Recap": ŷ^(t) = ŷ^(t−1) + ε·f_t(x); like XGBoost, a leaf stores η·w*
        return b.add_node(parent, depth, len(rows), G, H, w, eta * w)

    all_rows = np.arange(len(g))
    splits = {}  # node -> (left, right, gain): what pruning reads
    level = [(add_node(all_rows, -1, 0), all_rows)]
    for depth in range(max_depth):
        next_level = []
        for node, rows in level:
            s = best_split(X, g, h, rows, forward_scan, reg_lambda, min_child_weight)
            if s is None:
                continue
            x = X[rows, s.feature]  # routed as Tree.predict routes them later
            go_left = routing.goes_left(x, s.threshold, s.default_left)
            left = add_node(rows[go_left], node, depth + 1)
            right = add_node(rows[~go_left], node, depth + 1)
            # seed 000, "Learn the tree structure": Gain = ½[...] − γ, with γ = gamma / 2
            gain = formulas.split_gain(s.G_L, s.H_L, s.G_R, s.H_R, reg_lambda, gamma / 2)
            b.split(node, s.feature, s.threshold, s.default_left, left, right, gain, s.loss_chg)
            splits[node] = (left, right, gain)
            next_level += [(left, rows[go_left]), (right, rows[~go_left])]
        level = next_level
    prune(b, splits, 0)
    return b.build(X.shape[1], names, eta)


def prune(b, splits, node):
    """Post-pruning, bottom up: remove a split whose two children are leaves and whose
    Gain < 0 (seed 002, "Pruning and Regularization"), so its parent may go next.
    ``splits``: node -> (left, right, gain) of every split made."""
    if b.is_leaf(node):
        return
    left, right, gain = splits[node]
    prune(b, splits, left)
    prune(b, splits, right)
    if b.is_leaf(left) and b.is_leaf(right) and gain < 0:
        b.make_leaf(node)


@dataclass
class Model:
    """What ``fit`` returns: the starting margin and the trees that add to it."""

    objective: str
    base_margin: float
    trees: list[Tree]

    def decision_function(self, X):
        """Margins: the starting margin plus every tree's leaf (seed 000: ŷ_i = Σ_k f_k(x_i))."""
        margin = np.full(len(X), self.base_margin)
        for tree in self.trees:
            margin += tree.predict(X)
        return margin

    def predict(self, X):
        """Probabilities σ(margin) for ``binary:logistic``; the margins for squared error."""
        margin = self.decision_function(X)
        return sigmoid(margin) if self.objective == "binary:logistic" else margin


def fit(
    X,
    y,
    objective="binary:logistic",
    n_estimators=3,
    learning_rate=0.3,
    max_depth=3,
    reg_lambda=1.0,
    gamma=0.0,
    min_child_weight=1.0,
    base_score=None,
):
    """Boost ``n_estimators`` trees on X (array or DataFrame, NaN = missing) and y."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}; use one of {OBJECTIVES}")
    names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
    # the trees compare features in float32, as XGBoost does, so the scan sees them so too
    X = as_float32_matrix(X).astype(np.float64)
    y = np.asarray(y, dtype=np.float64)
    # XGBoost runs the scan sending missing values right only for a feature that misses
    # somewhere in the training data and has two distinct present values
    forward_scan = [np.isnan(x).any() and np.unique(x[~np.isnan(x)]).size > 1 for x in X.T]
    # XGBoost ≥ 2 starts from the mean of y; for logistic that is a probability
    if base_score is None:
        base_score = y.mean()
    base_margin = float(logit(base_score) if objective == "binary:logistic" else base_score)
    margin = np.full(len(y), base_margin)
    trees = []
    for _ in range(n_estimators):
        g, h = grad_hess(objective, y, margin)
        tree = grow_tree(
            X, g, h, forward_scan, names, max_depth, reg_lambda, gamma, min_child_weight,
            learning_rate,
        )  # fmt: skip
        trees.append(tree)
        # seed 000, "Additive Training": ŷ^(t) = ŷ^(t−1) + f_t(x_i), the leaves holding η·w*
        margin = margin + tree.predict(X)
    return Model(objective, base_margin, trees)
