"""How much each feature moved one prediction: SHAP values and the path attribution.

A tree's *expected value* at a node is the cover-weighted mean of the leaves below
it (``tree.cover``, the library's own: H, the hessian sum the node was grown from, for
teachgbt and XGBoost; the row count for LightGBM and scikit-learn): what the tree predicts when
nothing about the instance is known. Both attributions start from that number at
the root (the ``bias``) and hand the rest of the margin to the features:

* ``method="path"`` (Saabas; XGBoost's ``approx_contribs``): walk the instance's
  path; each split moves the expected value from the node's to the child's, and
  the feature split on gets that change.
* ``method="shap"`` (XGBoost's ``pred_contribs``): the Shapley value of each
  feature in the game "value of a feature set S = the tree's expected prediction
  when only the features in S are known" (at a split on an unknown feature, follow
  both children weighted by cover). :func:`shapley_values` computes it the slow,
  readable way by enumerating feature sets; :func:`tree_shap` gets the same numbers
  for many rows at once.

For every row, bias + Σ contributions = the margin (``decision_function``), because
each tree's contributions add up to its leaf value minus its expected value.
"""

from __future__ import annotations

from itertools import combinations
from math import factorial

import numpy as np
import pandas as pd

from ..core import routing
from ..utils import check_is_fitted, kernels

__all__ = [
    "SHAP_MAX_DEPTH",
    "contributions",
    "expected_values",
    "expected_value_given",
    "shapley_values",
    "tree_shap",
    "path_contributions",
    "largest",
    "feature_names",
    "trees_of_class",
    "METHODS",
]

METHODS = ("shap", "path")

# the readable enumeration visits 2^k feature sets for a tree that splits on k features
MAX_ENUMERATED_FEATURES = 16
# tree_shap: at most this many (leaf, pattern) entries make a full table, else only seen ones
FULL_TABLE_BUDGET = 1 << 16
# tree_shap: rows per block, so that a block's (rows × leaves × depth) arrays stay small
BLOCK_ELEMENTS = 1 << 22
# tree_shap: paths on more distinct features than this are not coded as bit patterns
# (a code leaf·2^S must fit in 64 bits); each leaf's values are then computed directly
MAX_PATTERN_BITS = 30
# TreeSHAP's cost grows with the cube of a path's length (a depth-100 tree takes seconds a
# row, depth 256 minutes): deeper trees are refused by name; the path method has no bound
SHAP_MAX_DEPTH = 100


# ------------------------------------------------------------------ expected values
def expected_values(tree):
    """Each node's expected value: a leaf's value, else the mean of its children's
    expected values weighted by their cover (XGBoost's ``node_mean_values``)."""
    mean = np.asarray(tree.value, dtype=np.float64).copy()
    cover = tree.cover
    # children are numbered after their parents: fill bottom-up
    for i in reversed(np.flatnonzero(~tree.is_leaf)):
        L, R = tree.left[i], tree.right[i]
        mean[i] = (mean[L] * cover[L] + mean[R] * cover[R]) / cover[i]
    return mean


def expected_value_given(tree, x, known, node=0):
    """The tree's expected prediction for the row ``x`` when only the features in
    ``known`` are known: at a split on a known feature follow ``x``; on an unknown one,
    take both children, weighted by their share of the node's cover."""
    x = tree.prepare(np.asarray(x, dtype=np.float64).reshape(1, -1))[0]
    return _expected_given(tree, x, known, node, routing.cut_points(tree.rule, tree.threshold))


def _expected_given(tree, x, known, node, T):
    """``expected_value_given`` for a row already prepared; T: the cut points."""
    if tree.feature[node] < 0:
        return float(tree.value[node])
    f, L, R = int(tree.feature[node]), int(tree.left[node]), int(tree.right[node])
    if f in known:
        left = tree.split_left([node], x[[f]], T)[0]
        return _expected_given(tree, x, known, L if left else R, T)
    left = _expected_given(tree, x, known, L, T)
    right = _expected_given(tree, x, known, R, T)
    return (tree.cover[L] * left + tree.cover[R] * right) / tree.cover[node]


def shapley_values(tree, x):
    """SHAP values of one tree for one instance, by enumerating feature sets (readable, slow).

    φ_j = Σ over sets S of the other features of |S|!·(M−|S|−1)!/M! · [v(S ∪ {j}) − v(S)],
    with v(S) = :func:`expected_value_given`. Only the M features the tree splits on
    take part: a feature the tree never asks about changes no v(S), so its value is 0.
    Returns (φ as an array over all features, the bias v(∅)).
    """
    x = tree.prepare(np.asarray(x, dtype=np.float64).reshape(1, -1))[0]
    T = routing.cut_points(tree.rule, tree.threshold)
    used = sorted({int(f) for f in tree.feature[~tree.is_leaf]})
    M = len(used)
    if M > MAX_ENUMERATED_FEATURES:
        raise ValueError(
            f"the tree splits on {M} features: enumerating 2^{M} feature sets is too slow; "
            "use tree_shap"
        )
    v = {}
    for size in range(M + 1):
        for S in combinations(used, size):
            v[S] = _expected_given(tree, x, set(S), 0, T)
    phi = np.zeros(tree.n_features)
    for j in used:
        others = [f for f in used if f != j]
        for size in range(M):
            weight = factorial(size) * factorial(M - size - 1) / factorial(M)
            for S in combinations(others, size):
                with_j = tuple(sorted(S + (j,)))
                phi[j] += weight * (v[with_j] - v[S])
    return phi, v[()]


# ------------------------------------------------------------------ the fast version
def _leaf_paths(tree):
    """For every leaf, its root-to-leaf edges and its *slots* (the distinct features on
    the path, in order of first use).

    Returns node[l, e], went_left[l, e], slot[l, e] for edge e of leaf l (padding
    edges: node 0, slot −1), and per slot: feature[l, s] (−1 on padding) and the
    zero fraction z[l, s] = Π cover_child/cover_node over the leaf's edges on that feature
    (padding: 1), the share of the cover that reaches the leaf when the feature is
    unknown.
    """
    leaves = tree.leaves
    depth = max(1, tree.max_depth)
    n_leaves = len(leaves)
    node = np.zeros((n_leaves, depth), dtype=np.int64)
    went_left = np.zeros((n_leaves, depth), dtype=bool)
    slot = np.full((n_leaves, depth), -1, dtype=np.int64)
    feature = np.full((n_leaves, depth), -1, dtype=np.int64)
    z = np.ones((n_leaves, depth))
    for li, leaf in enumerate(leaves):
        edges, i = [], int(leaf)
        while tree.parent[i] >= 0:
            p = int(tree.parent[i])
            edges.append((p, i == tree.left[p], tree.cover[i] / tree.cover[p]))
            i = p
        order = []
        for e, (p, left, share) in enumerate(reversed(edges)):
            f = int(tree.feature[p])
            if f not in order:
                order.append(f)
            s = order.index(f)
            node[li, e], went_left[li, e], slot[li, e] = p, left, s
            feature[li, s] = f
            z[li, s] *= share
    return node, went_left, slot, feature, z


def _pattern_shap(z, o, value):
    """Shapley values of the one-leaf game v(S) = value · Π_{k∈S} o_k · Π_{k∉S} z_k.

    z, o: (P, S) zero fractions and 0/1 "x follows this feature's edges"; value: (P,).
    φ_j = value·(o_j − z_j)·Σ_s c_s·s!(S−s−1)!/S!, where c_s is the coefficient of t^s
    in Π_{k≠j} (z_k + o_k·t): the weight of the sets of size s. Padding slots (z = o = 1)
    are null players and change nothing.
    """
    P, S = z.shape
    # exact big-integer ratios: any S, however deep the tree
    shapley_weight = np.array(
        [factorial(s) * factorial(S - s - 1) / factorial(S) for s in range(S)]
    )
    phi = np.zeros((P, S))
    for j in range(S):
        c = np.zeros((P, S))  # coefficients of t^0 .. t^(S−1)
        c[:, 0] = 1.0
        for k in range(S):
            if k != j:
                c[:, 1:] = c[:, 1:] * z[:, k, None] + c[:, :-1] * o[:, k, None]
                c[:, 0] *= z[:, k]
        phi[:, j] = value * (o[:, j] - z[:, j]) * (c @ shapley_weight)
    return phi


def tree_shap(tree, X):
    """SHAP values of one tree for every row of X: (n, n_features), and the bias.

    A leaf's share of a row's SHAP values depends only on which of the leaf's path
    features the row *follows* (all its edges on that feature): a 0/1 pattern. So
    the values are computed once per (leaf, pattern) seen — or for every pattern
    when that table is small — and looked up for each row.
    """
    X = tree.prepare(X)
    n, d = X.shape
    mean = expected_values(tree)
    phi = np.zeros((n, d))
    if tree.feature[0] < 0:
        return phi, float(mean[0])
    node, went_left, slot, feature, z = _leaf_paths(tree)
    n_leaves, S = z.shape
    value = tree.value[tree.leaves]
    threshold = routing.cut_points(tree.rule, tree.threshold)
    if S > MAX_PATTERN_BITS:
        _leaf_by_leaf(tree, X, (node, went_left, slot, feature, z), value, phi)
        return phi, float(mean[0])
    # slot s of leaf l adds its φ to column feature[l, s]: one matrix product per block
    to_column = np.zeros((n_leaves * S, d))
    real = feature.reshape(-1) >= 0
    to_column[np.flatnonzero(real), feature.reshape(-1)[real]] = 1.0
    full = n_leaves << S <= FULL_TABLE_BUDGET
    if full:  # every (leaf, pattern): code = leaf·2^S + pattern
        codes = np.arange(n_leaves << S)
        table = _table(codes, S, z, value)
    bit = np.where(slot >= 0, np.left_shift(1, np.maximum(slot, 0)), 0)  # (n_leaves, depth)
    # compiled only for large X: a first compile costs seconds (see teachgbt.utils.kernels);
    # a tree with set splits routes with numpy (Tree.decisions)
    compiled = kernels.load("core._tree_numba", n * d) if full and not tree.has_sets else None
    if compiled is not None:  # the same lookup, compiled
        compiled.add_tree_shap(
            X, tree.feature, threshold, tree.default_left, node, went_left, bit, feature,
            table, S, phi,
        )  # fmt: skip
        return phi, float(mean[0])
    all_ones = (1 << S) - 1
    rows_per_block = max(1, BLOCK_ELEMENTS // (n_leaves * node.shape[1]))
    for lo in range(0, n, rows_per_block):
        xb = X[lo : lo + rows_per_block]
        left = tree.decisions(xb)  # (rows, n_nodes): which way each row goes at each split
        missed = np.zeros((len(xb), n_leaves), dtype=np.int64)  # bits of slots not followed
        for e in range(node.shape[1]):
            missed |= (left[:, node[:, e]] != went_left[:, e]) * bit[:, e]
        code = (np.arange(n_leaves) << S) + (all_ones & ~missed)  # (rows, n_leaves)
        if full:
            vals = np.take(table, code, axis=0)
        else:
            seen, inverse = np.unique(code, return_inverse=True)
            vals = _table(seen, S, z, value)[inverse.reshape(code.shape)]
        phi[lo : lo + len(xb)] = vals.reshape(len(xb), n_leaves * S) @ to_column
    return phi, float(mean[0])


def _leaf_by_leaf(tree, X, paths, value, phi):
    """``tree_shap`` for paths too deep for bit patterns: every leaf's game for every row."""
    node, went_left, slot, feature, z = paths
    n_leaves, S = z.shape
    left = tree.decisions(X)  # (rows, n_nodes)
    for li in range(n_leaves):
        follows = np.ones((len(X), S), dtype=bool)  # the row follows every edge on slot s
        for e in np.flatnonzero(slot[li] >= 0):
            follows[:, slot[li, e]] &= left[:, node[li, e]] == went_left[li, e]
        zl = np.broadcast_to(z[li], follows.shape)
        leaf_phi = _pattern_shap(zl, follows.astype(np.float64), np.full(len(X), value[li]))
        real = feature[li] >= 0  # a leaf's slots are distinct features
        phi[:, feature[li, real]] += leaf_phi[:, real]


def _table(codes, S, z, value):
    """φ (len(codes), S) for each code = leaf·2^S + pattern."""
    leaf, pattern = codes >> S, codes & ((1 << S) - 1)
    o = ((pattern[:, None] >> np.arange(S)) & 1).astype(np.float64)
    return _pattern_shap(z[leaf], o, value[leaf])


def path_contributions(tree, X):
    """The path attribution of one tree (Saabas): (n, n_features), and the bias.

    Each split on the path hands the change of the expected value, from the node to
    the child the row goes to, to the feature split on.
    """
    X = tree.prepare(X)
    n, d = X.shape
    mean = expected_values(tree)
    phi = np.zeros((n, d))
    threshold = routing.cut_points(tree.rule, tree.threshold)
    rows = np.arange(n)
    node = np.zeros(n, dtype=np.int64)
    for _ in range(tree.max_depth):
        inner = tree.feature[node] >= 0
        r, i = rows[inner], node[inner]
        f = tree.feature[i]
        left = tree.split_left(i, X[r, f], threshold)
        child = np.where(left, tree.left[i], tree.right[i])
        phi[r, f] += mean[child] - mean[i]  # one split per row and level: no repeated index
        node[inner] = child
    return phi, float(mean[0])


# ------------------------------------------------------------------ a model
OTHERS = "other features"


def largest(row, max_features):
    """One row of :func:`contributions` as (name, contribution) pairs, largest |contribution|
    first: the ``max_features`` largest, then the rest summed as "other features (k)".
    ``bias`` is left out; features that contribute exactly 0 are not counted."""
    phi = row.drop("bias")
    phi = phi[phi != 0]
    order = phi.abs().sort_values(ascending=False, kind="stable").index
    top = [(str(name), float(phi[name])) for name in order[:max_features]]
    rest = order[max_features:]
    if len(rest):
        top.append((f"{OTHERS} ({len(rest)})", float(phi[rest].sum())))
    return top


def feature_names(model):
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(c) for c in names]
    return [f"f{j}" for j in range(model.n_features_in_)]


def trees_of_class(model, class_):
    """The trees whose sum is the margin of ``class_``, and that margin's start value.

    Binary and regression models have one margin: ``class_`` must be None. A softmax
    model of K classes (K ≥ 3, or LightGBM's two-class softmax) stores its trees round by
    round, one per class (XGBoost's order), so class k owns every K-th tree from the k-th.
    """
    fitted = model.model_
    K = fitted.n_outputs
    if K == 1 and class_ is not None:
        raise ValueError(
            f"class_={class_!r}: this model has a single margin (regression or two "
            "classes), so there is no class to choose; leave class_=None"
        )
    # as decision_function: to the best round
    return fitted.used_trees(class_=class_), fitted.class_base_margin(class_)


def contributions(model, X, method="shap", class_=None):
    """Each feature's contribution to each row's margin, plus ``bias``: a DataFrame.

    One column per feature (the model's names) and ``bias`` (the base margin plus
    every tree's expected value); each row sums to ``decision_function`` (log-odds
    for a classifier). ``method="shap"``: exact path-dependent TreeSHAP with cover
    weights, XGBoost's ``pred_contribs``; ``"path"``: the Saabas path attribution,
    XGBoost's ``approx_contribs``. ``class_`` picks the class for K ≥ 3 classes.
    """
    check_is_fitted(model)
    if method not in METHODS:
        raise ValueError(f"method={method!r}; use one of {list(METHODS)}")
    index = X.index if isinstance(X, pd.DataFrame) else None
    X, _ = model.model_.check_X(X, owner=type(model).__name__)
    trees, base_margin = trees_of_class(model, class_)
    deepest = max((tree.max_depth for tree in trees), default=0)
    if method == "shap" and deepest > SHAP_MAX_DEPTH:
        raise ValueError(
            f"a tree of this model is {deepest} levels deep; TreeSHAP here follows trees up "
            f"to {SHAP_MAX_DEPTH} levels (its cost grows with the cube of the depth). "
            "method='path' works at any depth"
        )
    per_tree = tree_shap if method == "shap" else path_contributions
    phi = np.zeros(X.shape)
    bias = base_margin
    for tree in trees:
        tree_phi, tree_bias = per_tree(tree, X)
        phi += tree_phi
        bias += tree_bias
    out = pd.DataFrame(phi, columns=feature_names(model), index=index)
    out["bias"] = bias
    return out
