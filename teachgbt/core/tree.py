"""A fitted regression tree as flat node arrays (as scikit-learn and XGBoost store them).

Node 0 is the root, and nodes are numbered level by level (the root's children 1 and 2,
then the next level from left to right). For node ``i``: ``feature[i]`` and ``threshold[i]`` give
the rule ``x[feature] < threshold`` (true goes to ``left[i]``; ``≤`` for trees imported
from a library that compares so, see ``teachgbt.core.routing``), a missing value
goes left when ``default_left[i]``; leaves have ``feature == -1``. Every node
keeps the statistics it was grown from: ``n``, ``G``, ``H``, the optimal weight
``weight`` (w*), ``value`` (η·w*, what a leaf adds to the margin), and for
split nodes ``gain`` (½(loss_chg − gamma): the tutorials' ½[...] − γ for the model's own
g and h, with γ = gamma/2 under XGBoost's ½-loss or the logistic loss; its sign says what
the model's gamma decided) and ``loss_chg`` (XGBoost's number for the same split).

Features are compared as the tree's library compares them (``tree.rule``, one of
``teachgbt.core.routing.RULES``): teachgbt's own trees and XGBoost's in float32, as XGBoost
does. ``cover`` is the per-node weight TreeSHAP averages with, the library's own: H for
teachgbt and XGBoost, row counts for LightGBM and scikit-learn.

A split may test a set instead: ``sets[i]`` holds the category codes S of node i's rule
``x ∈ S`` (true goes left; its ``threshold`` is NaN). The other codes go right, a missing
value the ``default_left`` way, and a value that is no category of the feature as the
tree's library reads it (``routing.category_codes``). ``category_names[j]`` names the
codes of feature j (code c is ``category_names[j][c]``) for display and for reading
DataFrames. Trees with set splits route with numpy; the compiled kernels walk the others.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..utils import kernels
from . import routing
from ._validate import check_tree

__all__ = ["Tree", "TreeBuilder", "NODE_COLUMNS", "as_float32_matrix", "add_tree_values"]

_RULE = re.compile(r"^\s*(\S.*?)\s*<\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")

NODE_COLUMNS = [
    "node", "depth", "parent", "is_leaf", "feature", "threshold", "default_left",
    "n", "G", "H", "weight", "value", "gain", "loss_chg",
]  # fmt: skip

_ARRAYS = {
    "left": np.int32, "right": np.int32, "parent": np.int32, "feature": np.int32,
    "threshold": np.float64, "default_left": bool, "depth": np.int32, "n": np.int64,
    "G": np.float64, "H": np.float64, "weight": np.float64, "value": np.float64,
    "gain": np.float64, "loss_chg": np.float64,
}  # fmt: skip


def as_float32_matrix(X, n_features=None, what="X", dtype=np.float32):
    """X as a C-ordered 2-D array of ``dtype`` (float32: the precision teachgbt's trees
    compare in; float64 for trees whose library compares float64 values)."""
    if isinstance(X, pd.DataFrame):
        X = X.to_numpy(dtype=dtype, na_value=np.nan)
    X = np.asarray(X, dtype=dtype)
    if X.ndim == 1:
        X = X.reshape(1, -1) if n_features is not None and X.size == n_features else X
    if X.ndim != 2:
        raise ValueError(f"{what} must be 2-dimensional (rows × features); got shape {X.shape}")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{what} has {X.shape[1]} features, but the tree was grown on {n_features}"
        )
    return np.ascontiguousarray(X)


def _nullable_counts(n):
    return pd.array([int(v) if v >= 0 else None for v in n], dtype="Int64")


class Tree:
    """One regression tree: flat node arrays plus the statistics it was grown from."""

    def __init__(
        self,
        arrays,
        n_features,
        feature_names=None,
        learning_rate=1.0,
        extra=None,
        rule=routing.DEFAULT_RULE,
        cover=None,
        missing=np.nan,
        zero_missing=(),
        sets=None,
        category_names=None,
    ):
        for name, dtype in _ARRAYS.items():
            setattr(self, name, np.asarray(arrays[name], dtype=dtype))
        # how a row is routed (teachgbt.core.routing): the library's comparison, the value that
        # stands for missing, the features on which 0 is missing (LightGBM zero_as_missing)
        self.rule = routing.rule_of(rule).name
        self.missing = float(missing)
        self.zero_missing = tuple(int(j) for j in zero_missing)
        # TreeSHAP's per-node weight, the library's own (H when the library's cover is H)
        self.cover = np.asarray(self.H if cover is None else cover, dtype=np.float64).copy()
        self.n_features = int(n_features)
        self.feature_names = list(feature_names) if feature_names is not None else None
        self.learning_rate = float(learning_rate)
        # extra per-node columns a trainer wants to show (e.g. GBDT's residual sums)
        self.extra = {k: np.asarray(v) for k, v in (extra or {}).items()}
        # where the tree sits in its model: the round (1-based) and, with K ≥ 3 classes,
        # the class index (0-based, into ``classes_``) whose margin it adds to
        self.round = None
        self.class_ = None
        # set splits: node -> the sorted category codes that go left
        self.sets = {
            int(i): np.unique(np.asarray(c, dtype=np.int64)) for i, c in (sets or {}).items()
        }
        self.category_names = category_names

    @property
    def category_names(self):
        """Feature -> the names of its category codes (code c is names[c]); {} if none."""
        return self._category_names

    @category_names.setter
    def category_names(self, names):
        self._category_names = {int(j): list(v) for j, v in (names or {}).items()}

    # ----------------------------------------------------------------- shape
    @property
    def n_nodes(self):
        return len(self.feature)

    @property
    def is_leaf(self):
        return self.feature < 0

    @property
    def leaves(self):
        """Ids of the leaves, in node order."""
        return np.flatnonzero(self.is_leaf)

    @property
    def n_leaves(self):
        return int(self.is_leaf.sum())

    @property
    def max_depth(self):
        return int(self.depth.max())

    def feature_name(self, j):
        if j < 0:
            return None
        if self.feature_names is not None:
            return str(self.feature_names[j])
        return f"f{j}"

    # ------------------------------------------------------------- routing
    def _routing(self):
        """feature, cut point T of ``x < T`` (teachgbt.core.routing), left, right with leaves
        pointing to themselves, so every row can take the same step each level."""
        leaf = self.is_leaf
        ids = np.arange(self.n_nodes, dtype=np.int32)
        left = np.where(leaf, ids, self.left).astype(np.int32)
        right = np.where(leaf, ids, self.right).astype(np.int32)
        feature = np.where(leaf, 0, self.feature).astype(np.int32)
        return feature, routing.cut_points(self.rule, self.threshold), left, right

    @property
    def _input_key(self):
        """Trees with the same key read X the same way (one prepared X serves them all)."""
        missing = None if np.isnan(self.missing) else self.missing  # NaN != NaN
        return (self.rule, missing, self.zero_missing)

    def prepare(self, X):
        """X as this tree's library reads it before comparing (``routing.prepare``)."""
        if not isinstance(X, np.ndarray) or X.ndim != 2 or X.shape[1] != self.n_features:
            X = as_float32_matrix(X, self.n_features, dtype=routing.rule_of(self.rule).dtype)
        return routing.prepare(X, self.rule, self.missing, self.zero_missing)

    # ------------------------------------------------------------- set splits
    @property
    def has_sets(self):
        """Whether some split tests a set of categories (``x ∈ S``)."""
        return bool(self.sets)

    @property
    def is_set(self):
        """Per node: whether it is a set split."""
        out = np.zeros(self.n_nodes, dtype=bool)
        out[list(self.sets)] = True
        return out

    def set_labels(self, node):
        """The categories of set split ``node``, by name where the feature's are known."""
        names = self.category_names.get(int(self.feature[node]))
        codes = self.sets[int(node)]
        if names is None:
            return [int(c) for c in codes]
        return [names[c] if 0 <= c < len(names) else int(c) for c in codes]

    def _in_set(self, nodes, codes):
        """Whether each code is in the set of its (set split) node: one sorted key per
        (node, code) pair, looked up with a binary search."""
        keys = getattr(self, "_set_keys", None)
        if keys is None:
            parts = [(np.int64(i) << 32) | c for i, c in sorted(self.sets.items())]
            keys = self._set_keys = np.concatenate(parts) if parts else np.zeros(0, np.int64)
        q = (np.asarray(nodes, dtype=np.int64) << 32) | np.maximum(codes, 0)
        pos = np.minimum(np.searchsorted(keys, q), max(len(keys) - 1, 0))
        return (codes >= 0) & (len(keys) > 0) & (keys[pos] == q)

    def split_left(self, nodes, x, T=None):
        """Whether each value ``x`` (prepared) goes left at the split node of the same index
        in ``nodes``: ``x < T`` or ``x ∈ S``, a missing value the default way. Every router
        (apply, path, contributions) takes its steps here."""
        nodes = np.asarray(nodes)
        T = routing.cut_points(self.rule, self.threshold) if T is None else T
        left = routing.goes_left(x, T[nodes], self.default_left[nodes])
        if self.sets:
            at = self.is_set[nodes]
            if at.any():
                left = np.array(left, dtype=bool, copy=True)
                on = nodes[at]
                n_known = self._n_known()[self.feature[on]]
                codes = routing.category_codes(np.asarray(x)[at], self.rule, n_known)
                missing = codes == routing.MISSING_CATEGORY
                left[at] = np.where(missing, self.default_left[on], self._in_set(on, codes))
        return left

    def _set_segments(self):
        """Each node's codes as a slice codes[start:stop] of one sorted-per-node array."""
        sizes = np.zeros(self.n_nodes, dtype=np.int64)
        for i, c in self.sets.items():
            sizes[i] = len(c)
        stop = np.cumsum(sizes)
        codes = [self.sets[i] for i in range(self.n_nodes) if i in self.sets]
        return stop - sizes, stop, np.concatenate(codes).astype(np.int64)

    def _n_known(self):
        """Per feature: how many categories it has (codes 0 … n−1), inf when unknown."""
        out = np.full(self.n_features, np.inf)
        for j, names in self.category_names.items():
            out[j] = len(names)
        return out

    def decisions(self, X):
        """(rows, nodes): whether each row of prepared X goes left at each node (leaves:
        as node 0's feature would say; ignore them)."""
        T = routing.cut_points(self.rule, self.threshold)
        feature = np.maximum(self.feature, 0)
        left = routing.goes_left(X[:, feature], T, self.default_left)
        for node in self.sets:
            nodes = np.full(len(X), node)
            left[:, node] = self.split_left(nodes, X[:, feature[node]], T)
        return left

    def apply(self, X):
        """The leaf id each row of X lands in (missing values follow ``default_left``)."""
        X = self.prepare(X)
        n = X.shape[0]
        feature, threshold, left, right = self._routing()
        if n >= 20_000 and self.sets:  # set splits: their own compiled walk
            compiled = kernels.load("core._sets_numba")
            if compiled is not None:
                start, stop, codes = self._set_segments()
                return compiled.apply_tree(
                    X, feature, threshold, self.default_left, left, right, self.max_depth,
                    start, stop, codes, compiled.RULE_IDS[self.rule], self._n_known(),
                )  # fmt: skip
        elif n >= 20_000:  # worth the compiled kernel, when numba is installed
            compiled = kernels.load("core._tree_numba")
            if compiled is not None:  # the same steps, compiled
                return compiled.apply_tree(
                    X, feature, threshold, self.default_left, left, right, self.max_depth
                )
        node = np.zeros(n, dtype=np.int32)
        rows = np.arange(n)
        for _ in range(self.max_depth):
            x = X[rows, feature[node]]
            go_left = self.split_left(node, x, threshold)
            node = np.where(go_left, left[node], right[node])
        return node

    def goes_left(self, node, x):
        """Whether the row ``x`` goes left at split ``node`` (missing: ``default_left``)."""
        x = self.prepare(np.asarray(x, dtype=np.float64).reshape(1, -1))[0]
        return bool(self.split_left([int(node)], x[[int(self.feature[node])]])[0])

    def predict(self, X):
        """What this tree adds to the margin: the ``value`` of the leaf each row reaches."""
        return self.value[self.apply(X)]

    def descendants(self, node):
        """``node`` and every node below it."""
        out, stack = [], [int(node)]
        while stack:
            i = stack.pop()
            out.append(i)
            if self.feature[i] >= 0:
                stack.extend((int(self.right[i]), int(self.left[i])))
        return np.array(sorted(out), dtype=np.int32)

    def node_mask(self, X, node, leaf_ids=None):
        """Boolean mask of the rows of X whose path passes through ``node``."""
        if leaf_ids is None:
            leaf_ids = self.apply(X)
        below = self.descendants(node)
        return np.isin(leaf_ids, below[self.is_leaf[below]])

    def path(self, x):
        """Node ids on the path of one instance, root first."""
        x = self.prepare(np.asarray(x, dtype=np.float64).reshape(1, -1))[0]
        T = routing.cut_points(self.rule, self.threshold)
        out, i = [0], 0
        while self.feature[i] >= 0:
            go_left = self.split_left([i], x[[self.feature[i]]], T)[0]
            i = int(self.left[i] if go_left else self.right[i])
            out.append(i)
        return out

    # -------------------------------------------------------------- tables
    def to_frame(self):
        """One row per node, with the columns of ``trace_.nodes(t)``."""
        leaf = self.is_leaf
        df = pd.DataFrame(
            {
                "node": np.arange(self.n_nodes),
                "depth": self.depth,
                "parent": self.parent,
                "is_leaf": leaf,
                "feature": [self.feature_name(j) for j in self.feature],
                "threshold": np.where(leaf, np.nan, self.threshold),
                "default_left": self.default_left,
                # -1: a count the tree's library does not store (XGBoost), shown as <NA>
                "n": self.n if (self.n >= 0).all() else _nullable_counts(self.n),
                "G": self.G,
                "H": self.H,
                "weight": self.weight,
                "value": self.value,
                "gain": np.where(leaf, np.nan, self.gain),
                "loss_chg": np.where(leaf, np.nan, self.loss_chg),
            }
        )
        if self.sets:  # the set of each set split (names where known), None elsewhere
            df.insert(6, "categories", [tuple(self.set_labels(i)) if i in self.sets else None
                                        for i in range(self.n_nodes)])  # fmt: skip
        for k, v in self.extra.items():
            df[k] = v
        return df

    @property
    def hand_made(self):
        """True for a tree written with ``from_rules``: it has scores but no G, H, n."""
        return bool(np.isnan(self.G).all())

    # ------------------------------------------------------------ to/from
    @classmethod
    def from_rules(cls, rules, feature_names=None):
        """A tree written by hand, as the tutorial draws one (seed 000, "Tree Ensemble").

        ``rules`` is a leaf score (a number), or a tuple ``(rule, yes, no)``: ``rule`` is a
        string ``"feature < threshold"``, ``yes`` the subtree of the rows for which it holds
        (and of missing values), ``no`` the others; ``yes`` and ``no`` are rules in turn::

            tree = tg.Tree.from_rules(
                ("age < 15", ("is_male < 0.5", 0.1, 2.0), -1.0),
                feature_names=["age", "is_male", "uses_computer_daily"],
            )
            tree.predict(X)   # X's columns in the order of feature_names
            tree.draw()       # the rules and the leaf scores

        ``feature_names`` fixes the column order of the X the tree reads (default: the
        features in the order the rules first name them). Nodes are numbered as trained
        trees number them, level by level: the root 0, its children 1 (yes) and 2 (no), then
        the next level from left to right. The tree has no training statistics: ``n`` is 0
        and ``G``, ``H``, ``gain``, ``loss_chg`` are NaN; a leaf's ``weight`` and ``value``
        are its score, as with learning rate 1.
        """
        names = list(feature_names) if feature_names is not None else []
        fixed = feature_names is not None

        def parse(node):  # reading order: the features are named as the rules name them
            if isinstance(node, tuple):
                if len(node) != 3 or not isinstance(node[0], str):
                    raise ValueError(
                        f'a split is a tuple ("feature < threshold", yes, no); got {node!r}'
                    )
                m = _RULE.match(node[0])
                if m is None:
                    raise ValueError(f'a rule reads "feature < threshold"; got {node[0]!r}')
                name = m.group(1)
                if name not in names:
                    if fixed:
                        raise ValueError(f"unknown feature {name!r}; feature_names are {names}")
                    names.append(name)
                return (names.index(name), float(m.group(2)), parse(node[1]), parse(node[2]))
            if isinstance(node, bool) or not isinstance(node, (int, float, np.number)):
                raise ValueError(f"a leaf is a number (its score); got {node!r}")
            return float(node)

        b = TreeBuilder()
        level, splits = [(parse(rules), -1, 0)], []
        while level:  # level by level, as the trainers grow and number their trees
            below = []
            for node, parent, depth in level:
                if isinstance(node, tuple):
                    i = b.add_node(parent, depth, 0, np.nan, np.nan, np.nan, np.nan)
                    splits.append((i, node[0], node[1]))
                    below += [(node[2], i, depth + 1), (node[3], i, depth + 1)]
                else:
                    b.add_node(parent, depth, 0, np.nan, np.nan, node, node)
            level = below
        parents = np.asarray(b.cols["parent"])
        for i, feature, threshold in splits:
            yes, no = np.flatnonzero(parents == i)
            b.split(i, feature, threshold, True, int(yes), int(no), np.nan, np.nan)
        return b.build(len(names), names, 1.0)

    def to_dict(self, category_names=True):
        """The tree as a JSON-ready dict (``from_dict`` reads it back); a model file keeps the
        category names once for every tree (``category_names=False``)."""
        d = {k: getattr(self, k).tolist() for k in _ARRAYS}
        d["threshold"] = [None if np.isnan(t) else float(t) for t in self.threshold]
        for k in ("gain", "loss_chg"):
            d[k] = [None if np.isnan(t) else float(t) for t in getattr(self, k)]
        d["n_features"] = self.n_features
        d["feature_names"] = self.feature_names
        d["learning_rate"] = self.learning_rate
        d["extra"] = {k: v.tolist() for k, v in self.extra.items()}
        d["round"] = self.round
        d["class"] = self.class_
        d["rule"] = self.rule
        d["cover"] = [None if np.isnan(c) else float(c) for c in self.cover]
        d["missing"] = None if np.isnan(self.missing) else self.missing
        d["zero_missing"] = list(self.zero_missing)
        if self.sets:  # written only when there are set splits: older readers refuse them
            d["sets"] = {str(i): c.tolist() for i, c in sorted(self.sets.items())}
        if self.category_names and category_names:
            d["category_names"] = {str(j): list(v) for j, v in self.category_names.items()}
        return d

    @classmethod
    def from_dict(cls, d, where="the tree"):
        check_tree(d, d.get("n_features"), where)  # links, features, values, before any use
        arrays = {}
        for k in _ARRAYS:
            v = d[k]
            if k in ("threshold", "gain", "loss_chg"):
                v = [np.nan if t is None else t for t in v]
            arrays[k] = v
        cover = d.get("cover")  # files before the field: cover = H, as XGBoost's
        missing = d.get("missing")
        tree = cls(
            arrays,
            d["n_features"],
            d.get("feature_names"),
            d.get("learning_rate", 1.0),
            d.get("extra"),
            rule=d.get("rule", routing.DEFAULT_RULE),  # files before the field: XGBoost's
            cover=None if cover is None else [np.nan if c is None else c for c in cover],
            missing=np.nan if missing is None else missing,
            zero_missing=d.get("zero_missing", ()),
            sets=d.get("sets"),  # files before set splits have none
            category_names=d.get("category_names"),
        )
        tree.round, tree.class_ = d.get("round"), d.get("class")
        return tree

    def __repr__(self):
        where = "" if self.class_ is None else f"round {self.round}, class {self.class_}: "
        return (
            f"<teachgbt.Tree: {where}{self.n_nodes} nodes, {self.n_leaves} leaves, "
            f"depth {self.max_depth}>"
        )

    # --- drawing (teachgbt.show.draw)
    def to_dot(self, highlight=None, **label_options):
        """DOT text; options choose the fields and precision (see ``teachgbt.show.draw``)."""
        from ..show import draw

        return draw.to_dot(self, highlight, **label_options)

    def draw(self, highlight=None, engine="auto", **label_options):
        """A diagram that shows itself in Jupyter and ``.save()``s to .svg/.png/.pdf/.dot."""
        from ..show import draw

        return draw.draw(self, highlight, engine, **label_options)

    def plot(self, ax=None, highlight=None, **label_options):
        """The tree drawn with matplotlib (no Graphviz needed); returns the Axes."""
        from ..show import draw

        return draw.plot_tree(self, ax, highlight, **label_options)

    def __str__(self):
        from ..show import draw

        return draw.text(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.draw()._repr_mimebundle_(include, exclude)


def add_tree_values(trees, X, margin):
    """``margin`` + each tree's η·f(x), added tree after tree in ``margin``'s precision (as
    ``margin = (margin + tree.predict(X).astype(dtype)).astype(dtype)`` would). The
    compiled kernel routes a block of rows through every tree in turn, so X is read once
    (once per way of reading it: trees of one model all read X the same way)."""
    dtype = margin.dtype
    compiled = kernels.load("core._tree_numba") if len(X) >= 20_000 and trees else None
    if compiled is None:
        for tree in trees:
            margin = (margin + tree.predict(X).astype(dtype)).astype(dtype)
        return margin
    out = margin.copy()
    start = 0
    while start < len(trees):  # runs of trees that read X the same way
        if trees[start].has_sets:  # set splits: the tree's own (numpy) walk
            out = (out + trees[start].predict(X).astype(dtype)).astype(dtype)
            start += 1
            continue
        stop = start + 1
        while (
            stop < len(trees)
            and trees[stop]._input_key == trees[start]._input_key
            and not trees[stop].has_sets
        ):
            stop += 1
        run = trees[start:stop]
        parts = [tree._routing() for tree in run]
        offsets = np.cumsum([0] + [tree.n_nodes for tree in run]).astype(np.int32)
        compiled.add_trees(
            run[0].prepare(X),
            out,
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
            np.concatenate([tree.default_left for tree in run]),
            np.concatenate([p[2] for p in parts]),
            np.concatenate([p[3] for p in parts]),
            np.concatenate([tree.value for tree in run]).astype(dtype),
            offsets,
            np.array([tree.max_depth for tree in run], dtype=np.int32),
        )
        start = stop
    return out


class TreeBuilder:
    """Grows a Tree node by node; trainers call ``add_node`` and ``split``.

    Pruned nodes are dropped and the rest renumbered (keeping their order)
    when ``build`` is called.
    """

    def __init__(self):
        self.cols = {k: [] for k in _ARRAYS}
        self.extra = {}
        self.sets = {}  # node -> category codes of a set split (x ∈ S goes left)

    def add_node(self, parent, depth, n, G, H, weight, value, **extra):
        c = self.cols
        nid = len(c["left"])
        for k, v in (
            ("left", -1), ("right", -1), ("parent", parent), ("feature", -1),
            ("threshold", np.nan), ("default_left", True), ("depth", depth), ("n", n),
            ("G", G), ("H", H), ("weight", weight), ("value", value),
            ("gain", np.nan), ("loss_chg", np.nan),
        ):  # fmt: skip
            c[k].append(v)
        for k, v in extra.items():
            self.extra.setdefault(k, [np.nan] * nid).append(v)
        for k in self.extra:
            if len(self.extra[k]) < nid + 1:
                self.extra[k].append(np.nan)
        return nid

    def split(
        self, node, feature, threshold, default_left, left, right, gain, loss_chg, categories=None
    ):
        """Make ``node`` a split: ``x < threshold``, or with ``categories`` the set split
        ``x ∈ categories`` (its threshold is then NaN)."""
        c = self.cols
        if categories is not None:
            self.sets[node] = np.asarray(categories, dtype=np.int64)
            threshold = np.nan
        c["feature"][node] = feature
        c["threshold"][node] = threshold
        c["default_left"][node] = default_left
        c["left"][node] = left
        c["right"][node] = right
        c["gain"][node] = gain
        c["loss_chg"][node] = loss_chg

    def make_leaf(self, node):
        """Undo a split: ``node`` becomes a leaf (its children are dropped at build)."""
        c = self.cols
        c["feature"][node] = -1
        c["threshold"][node] = np.nan
        c["left"][node] = -1
        c["right"][node] = -1
        c["gain"][node] = np.nan
        c["loss_chg"][node] = np.nan
        c["default_left"][node] = True
        self.sets.pop(node, None)

    def is_leaf(self, node):
        return self.cols["feature"][node] < 0

    def final_id(self, node):
        """After ``build``: the id in the built tree of ``node``, or of the nearest
        ancestor kept in its place when pruning removed it."""
        node = int(node)
        while self._remap[node] < 0:
            node = int(self._parent[node])
        return int(self._remap[node])

    def build(self, n_features, feature_names=None, learning_rate=1.0):
        c = {k: np.asarray(v) for k, v in self.cols.items()}
        # keep the nodes still reachable from the root
        keep = np.zeros(len(c["left"]), dtype=bool)
        stack = [0]
        while stack:
            i = stack.pop()
            keep[i] = True
            if c["feature"][i] >= 0:
                stack.extend((int(c["left"][i]), int(c["right"][i])))
        new_id = np.cumsum(keep) - 1
        remap = np.where(keep, new_id, -1)
        self._remap, self._parent = remap, c["parent"].copy()
        for k in ("left", "right", "parent"):
            v = c[k]
            c[k] = np.where(v >= 0, remap[np.maximum(v, 0)], -1)
        arrays = {k: v[keep] for k, v in c.items()}
        extra = {k: np.asarray(v, dtype=np.float64)[keep] for k, v in self.extra.items()}
        sets = {int(remap[i]): v for i, v in self.sets.items() if keep[i]}
        return Tree(arrays, n_features, feature_names, learning_rate, extra, sets=sets)
