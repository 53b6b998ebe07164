"""Seed 000's whole algorithm in one file, to read top to bottom before anything else.

    import teachgbt as tg
    m = tg.reference.fit(X, y, objective="binary:logistic", n_estimators=3, max_depth=3)
    print(m.trees[0])          # each node: its rule or leaf, n, G, H, w*, Gain
    m.decision_function(X)     # margins (log-odds)
    tg.Tree.from_dict(m.trees[0].to_dict()).draw()   # as a teachgbt Tree: draw, to_frame

Plain loops in the tutorial's names (g, h, G, H, w, reg_lambda, gamma, eta), numpy and no
other part of teachgbt. tests/test_reference.py proves the fast trainers grow these trees.

Each round adds a tree f_t, grown greedily to lower Σ_i l(y_i, ŷ_i + f_t(x_i)) + Ω(f_t),
with Ω(f) = γT + ½λΣ_j w_j² (seed 000, "Model Complexity"), in five steps:

    grad_hess     g_i, h_i: the loss to second order around the current margin ŷ_i
    leaf_weight   w* = −G/(H+λ), the best score of a leaf holding sums G, H
    best_split    the Gain of every cut of every feature, by a sorted scan
    grow_tree     split level by level (or best first), then prune what does not pay γ
    fit           ŷ_i += η·f_t(x_i), and again

``gamma`` is XGBoost's: a split stays when loss_chg = G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)
is at least gamma, seed 000's Gain = ½[...] − γ with γ = gamma/2. Features are float32, as
in XGBoost: x < threshold in float32 sends a row left while growing and when predicting.
Covered: binary:logistic, reg:squarederror, multi:softprob, max_depth or max_leaves growth,
missing values, min_child_weight, pruning; not: sample weights, reg_alpha, max_delta_step.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

OBJECTIVES = ("binary:logistic", "reg:squarederror", "multi:softprob")
KRT_EPS = 1e-6  # XGBoost's kRtEps: a split must lower the loss by more than this
MIN_HESSIAN = 1e-16  # XGBoost's floor on h, so that H + λ > 0 even with λ = 0
F32 = np.float32

# what grows one tree: fit's parameters (eta is the learning rate)
Params = namedtuple("Params", "max_depth max_leaves reg_lambda gamma min_child_weight eta")
# the rule x[feature] < threshold (missing → left if default_left), its loss_chg and
# seed 000's Gain, ½(loss_chg − gamma); a leaf has LEAF's
Split = namedtuple("Split", "feature threshold default_left loss_chg gain")
LEAF = Split(-1, None, True, None, None)


def grad_hess(objective, y, margin):
    """g_i and h_i, (n, K): the first and second derivative of the loss at the margins."""
    # seed 000, "Additive Training": g_i = ∂l(y_i, ŷ^(t−1)), h_i = ∂²l(y_i, ŷ^(t−1))
    if objective == "reg:squarederror":
        # XGBoost's l = ½(y − ŷ)²; seed 000's (y − ŷ)² would double both
        g, h = margin - y[:, None], np.ones_like(margin)
    elif objective == "binary:logistic":
        # l = −[y log p + (1 − y) log(1 − p)] with p = σ(ŷ), differentiated in ŷ
        p = 1 / (1 + np.exp(-margin))
        g, h = p - y[:, None], np.maximum(p * (1 - p), MIN_HESSIAN)
    else:
        # l = −log p_y with p_k = exp(ŷ_k) / Σ_j exp(ŷ_j); XGBoost's h is 2·p_k(1 − p_k)
        e = np.exp(margin - margin.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        g, h = p - (y[:, None] == np.arange(p.shape[1])), np.maximum(2 * p * (1 - p), MIN_HESSIAN)
    # XGBoost holds g and h in float32. Float64 sums of float32 numbers of similar size are
    # exact in any order, so cuts that put the same g's on the left tie exactly, as there.
    return g.astype(F32).astype(np.float64), h.astype(F32).astype(np.float64)


def leaf_weight(G, H, p):
    """The weight w that minimises a leaf's share of the objective, G·w + ½(H+λ)·w²."""
    # seed 000, "The Structure Score": w* = −G/(H+λ); XGBoost's is 0 if H < min_child_weight
    return 0.0 if H < p.min_child_weight else -G / (H + p.reg_lambda)


def loss_chg(G_L, H_L, G_R, H_R, lam):
    """The bracket of seed 000's Gain (XGBoost's loss_chg): left + right − parent score."""
    # seed 000, "Learn the tree structure": G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)
    return G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam) - (G_L + G_R) ** 2 / (H_L + H_R + lam)


def goes_left(x, split):
    """The one rule, growing and predicting: float32 x < threshold; NaN goes the default way."""
    return np.where(np.isnan(x), split.default_left, x < split.threshold)


def midpoint(lo, hi):
    """XGBoost's threshold between adjacent present values lo < hi (float32): the midpoint
    in float32, or hi when that rounds onto lo (as for 1 and the next float32 above it). Not
    copied: XGBoost's scan sending missing values right takes lo there, against its sums."""
    mid = (lo + hi) * F32(0.5)
    return mid if mid > lo else hi


def cuts(v, g_v, h_v, G_miss, H_miss, missing, default_left):
    """Every cut of the sorted present values ``v`` as (threshold, G_L, H_L), in the order
    XGBoost's scan meets them; the ``missing`` rows (sums G_miss, H_miss) go left or not."""
    # seed 000, "Learn the tree structure": a left-to-right scan accumulates G_L, H_L
    G_L, H_L = (G_miss, H_miss) if default_left else (0.0, 0.0)
    gap = abs(v) + F32(KRT_EPS)  # the cut "every present value | the missing ones" is v ± gap
    found = [(v[0] - gap[0], G_L, H_L)] if missing and default_left else []
    for k in range(len(v) - 1):
        G_L, H_L = G_L + g_v[k], H_L + h_v[k]
        if v[k] < v[k + 1]:  # no cut between equal values
            found.append((midpoint(v[k], v[k + 1]), G_L, H_L))
    if missing and not default_left:
        found.append((v[-1] + gap[-1], G_L + g_v[-1], H_L + h_v[-1]))
    # the scan sending missing values left runs from the largest value down
    return found[::-1] if default_left else found


def best_split(X, g, h, rows, scans, p):
    """The split of a node's ``rows`` that lowers the loss most, or None if none helps.
    Missing values (seed 003's "sparse data", as XGBoost exact runs it) stay out of the sort
    and go, as one block, the way ``scans[feature]`` tries that gains more (see ``fit``)."""
    G, H = g[rows].sum(), h[rows].sum()
    best = None
    for feature in range(X.shape[1]):  # in index order: a tie goes to the lower feature
        x = X[rows, feature]
        present = ~np.isnan(x)
        if not present.any():
            continue  # nothing to sort
        order = np.argsort(x[present], kind="stable")
        v = x[present][order]  # the present values, sorted
        g_v, h_v = g[rows][present][order], h[rows][present][order]
        G_miss, H_miss = g[rows][~present].sum(), h[rows][~present].sum()
        for default_left in scans[feature]:
            for t, G_L, H_L in cuts(v, g_v, h_v, G_miss, H_miss, not present.all(), default_left):
                G_R, H_R = G - G_L, H - H_L
                if H_L < p.min_child_weight or H_R < p.min_child_weight:
                    continue  # a child with too little hessian (XGBoost's min_child_weight)
                chg = loss_chg(G_L, H_L, G_R, H_R, p.reg_lambda)
                if chg > (best.loss_chg if best else KRT_EPS):  # strictly better only
                    # seed 000, "Learn the tree structure": Gain = ½[...] − γ, γ = gamma/2
                    best = Split(feature, t, default_left, chg, (chg - p.gamma) / 2)
    return best


@dataclass
class Node:
    """A node and the sums of its rows; a split node also has ``split`` and two children."""

    depth: int
    n: int  # its rows
    G: float  # Σ g_i over them (seed 000's G_j)
    H: float  # Σ h_i
    weight: float  # w* = −G/(H+λ)
    value: float  # η·w*: what the node adds to the margin as a leaf (XGBoost stores it so)
    split: Split | None = None
    left: Node | None = None
    right: Node | None = None
    id: int = 0  # its number in the tree, level by level


def grow_tree(X, g, h, scans, p):
    """One tree's root: split depth-wise to max_depth (XGBoost exact), or with max_leaves
    the leaf whose split lowers the loss most first (best-first); then prune."""
    waiting = []  # (node, its rows, its best split): leaves that could split, oldest first

    def new_node(rows, depth):
        G, H = g[rows].sum(), h[rows].sum()
        w = leaf_weight(G, H, p)
        # seed 002, "Recap": ŷ^(t) = ŷ^(t−1) + ε·f_t(x); like XGBoost, a leaf stores η·w*
        node = Node(depth, len(rows), G, H, w, p.eta * w)
        if depth < p.max_depth or not p.max_depth:  # max_depth 0: no limit
            split = best_split(X, g, h, rows, scans, p)
            waiting.extend([(node, rows, split)] if split else [])
        return node

    root, n_leaves = new_node(np.arange(len(g)), 0), 1
    while waiting and not (p.max_leaves and n_leaves >= p.max_leaves):
        # depth-wise: the oldest leaf, so level by level; best-first: the largest loss_chg
        # (max returns the first of equals, so the oldest, as XGBoost's lossguide takes it)
        i = max(range(len(waiting)), key=lambda i: waiting[i][2].loss_chg) if p.max_leaves else 0
        node, rows, split = waiting.pop(i)
        go_left = goes_left(X[rows, split.feature], split)
        node.split, n_leaves = split, n_leaves + 1
        node.left = new_node(rows[go_left], node.depth + 1)
        node.right = new_node(rows[~go_left], node.depth + 1)
    prune(root)
    return root


def prune(node):
    """Post-pruning, bottom up: undo a split whose two children are leaves and whose Gain
    < 0 (seed 002, "Pruning and Regularization"), so that its parent may go next."""
    if node.split is not None:
        prune(node.left)
        prune(node.right)
        if node.left.split is None and node.right.split is None and node.split.gain < 0:
            node.split = node.left = node.right = None


class Tree:
    """A grown tree: ``nodes`` level by level from the root, as teachgbt numbers them, and
    ``to_dict()``, whose node lists are also arrays here (``tree.feature``, ``tree.G``...)."""

    STATS = ("depth", "n", "G", "H", "weight", "value")

    def __init__(self, root, n_features, feature_names, eta, round_, class_):
        self.nodes = [root]
        for i, node in enumerate(self.nodes):  # the list grows as the walk goes: breadth first
            node.id = i
            self.nodes += [node.left, node.right] if node.split else []
        self.n_features, self.feature_names, self.eta = n_features, feature_names, eta
        self.round, self.class_ = round_, class_  # round 1, 2, ...; the class (K ≥ 3) or None

    def predict(self, X):
        """What the tree adds to each row's margin: the value of the leaf the row reaches."""
        out = []
        for x in np.asarray(X, dtype=F32):
            node = self.nodes[0]
            while node.split:  # the rule the rows were partitioned with while growing
                node = node.left if goes_left(x[node.split.feature], node.split) else node.right
            out.append(node.value)
        return np.array(out)

    def to_dict(self):
        """The tree in teachgbt's format: ``tg.Tree.from_dict(tree.to_dict()).draw()``."""
        nodes, splits = self.nodes, [n.split or LEAF for n in self.nodes]
        parent = {kid.id: n.id for n in nodes if n.split for kid in (n.left, n.right)}
        d = {k: [getattr(s, k) for s in splits] for k in Split._fields}
        d["threshold"] = [None if t is None else float(t) for t in d["threshold"]]
        return d | {k: [getattr(n, k) for n in nodes] for k in self.STATS} | {
            "left": [n.left.id if n.split else -1 for n in nodes],
            "right": [n.right.id if n.split else -1 for n in nodes],
            "parent": [parent.get(n.id, -1) for n in nodes],
            "n_features": self.n_features, "feature_names": self.feature_names,
            "learning_rate": self.eta, "extra": {}, "round": self.round, "class": self.class_,
            "rule": "xgboost", "cover": [n.H for n in nodes], "missing": None, "zero_missing": [],
        }  # fmt: skip

    def __getattr__(self, name):  # tree.feature, tree.G, ...: to_dict()'s node lists
        if name not in Split._fields + self.STATS + ("left", "right", "parent"):
            raise AttributeError(name)
        return np.array([np.nan if v is None else v for v in self.to_dict()[name]])

    def __str__(self):  # a node a line: its rule or leaf value, and its sums
        names, lines = self.feature_names or [f"f{j}" for j in range(self.n_features)], []
        for n, s in ((n, n.split) for n in self.nodes):
            nan = "left" if s and s.default_left else "right"
            rule = s and f"{names[s.feature]} < {s.threshold:.9g} (NaN {nan}), Gain {s.gain:.6g}"
            stats = f"n={n.n} G={n.G:.6g} H={n.H:.6g} w*={n.weight:.6g} value={n.value:.6g}"
            lines.append(f"{'  ' * n.depth}{n.id}: {rule or 'leaf'}; {stats}")
        return "\n".join(lines)


@dataclass
class Model:
    """What ``fit`` returns: the starting margins (one per class) and the trees."""

    objective: str
    base_margin: np.ndarray  # (K,): K = 1 but for multi:softprob
    trees: list[Tree]

    def decision_function(self, X):
        """Margins (n,), or (n, K): the start plus each tree's leaf (seed 000: ŷ = Σ_k f_k(x))."""
        X = np.asarray(X, dtype=F32)
        margin = np.tile(self.base_margin, (len(X), 1))
        for tree in self.trees:
            margin[:, tree.class_ or 0] += tree.predict(X)
        return margin if len(self.base_margin) > 1 else margin[:, 0]


def start_margin(objective, y, base_score):
    """ŷ^(0) of each class, (K,): from ``base_score``, else XGBoost 3.2's estimate."""
    if objective != "multi:softprob":  # XGBoost ≥ 2 starts from the mean of y; for logistic
        b = y.mean() if base_score is None else base_score  # a probability: its log-odds
        return np.array([np.log(b / (1 - b)) if objective == "binary:logistic" else b], float)
    if base_score is not None:  # XGBoost 3.2 reads a multiclass base_score as a margin
        return np.full(int(y.max()) + 1, float(base_score))
    # the class shares π_k as centred log priors, log(π_k + kRtEps) − mean_j, in float32
    log_prior = np.log((np.bincount(y.astype(int)) / len(y)).astype(F32) + F32(KRT_EPS))
    return (log_prior - log_prior.mean()).astype(np.float64)


def fit(X, y, objective="binary:logistic", n_estimators=3, learning_rate=0.3, max_depth=3,
        reg_lambda=1.0, gamma=0.0, min_child_weight=1.0, base_score=None,
        max_leaves=0):  # fmt: skip
    """Boost ``n_estimators`` rounds on X (array or DataFrame, NaN = missing) and y (0/1 for
    binary:logistic, classes 0 … K−1 for multi:softprob); ``max_leaves`` 0: depth-wise."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r}; use one of {OBJECTIVES}")
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
    X, y = np.asarray(X, dtype=F32), np.asarray(y, dtype=np.float64)  # features: float32
    p = Params(max_depth, max_leaves, reg_lambda, gamma, min_child_weight, learning_rate)
    # XGBoost's scans: missing values left (from the largest value down), and first, for a
    # feature missing somewhere in the data with two distinct present values, right
    scans = [(False, True) if np.isnan(x).any() and np.unique(x[~np.isnan(x)]).size > 1
             else (True,) for x in X.T]  # fmt: skip
    base_margin = start_margin(objective, y, base_score)
    margin, trees = np.tile(base_margin, (len(y), 1)), []  # (n, K)
    for t in range(1, n_estimators + 1):
        g, h = grad_hess(objective, y, margin)  # every class's tree from the same margins
        for k in range(len(base_margin)):
            root = grow_tree(X, g[:, k], h[:, k], scans, p)
            class_ = k if len(base_margin) > 1 else None
            trees.append(Tree(root, X.shape[1], names, learning_rate, t, class_))
            # seed 000, "Additive Training": ŷ^(t) = ŷ^(t−1) + f_t(x_i), leaves holding η·w*
            margin[:, k] += trees[-1].predict(X)
    return Model(objective, base_margin, trees)
