"""Trace: every intermediate of a fitted model, as pandas DataFrames.

What is cheap is kept from training (the trees with their per-node G, H, w*,
gains; each round's row and feature sample); everything per instance — the
margins, g, h, leaf assignments, candidate splits — is recomputed from the
trees when asked, so a trace of a million-row fit stays small. The
margins come from the model (``Model.next_margins``: the one place margins
are added, in the trainer's precision and order), g and h from the training
algorithm, so the numbers are the ones the trainer saw.

With K ≥ 3 classes a round has one tree per class, and every table takes
``class_=k`` (an index into ``classes_``): class k's tree, margin, probability,
g and h. Margins are then (n, K).
"""

from __future__ import annotations

import hashlib
import threading

import numpy as np
import pandas as pd

__all__ = ["Trace", "INSTANCE_COLUMNS"]

INSTANCE_COLUMNS = ["y", "margin", "prob", "g", "h", "leaf"]

# keep every round's margins in memory while they fit in this many bytes
_CACHE_BYTES = 256 << 20


class Trace:
    """Per-round tables of a fitted model (``BoostingClassifier.trace_``): round t is
    1-based; with K ≥ 3 classes ``class_=k`` picks class k's tree of the round."""

    def __init__(
        self, model, X32, y, sample_weight, algorithm, tree_method, data, samples, digest=None
    ):
        """``model``: the fitted ``teachgbt.core.model.Model`` (the trace reads its trees, loss and
        classes); ``algorithm``, ``tree_method`` and ``data`` (what ``tree_method.prepare``
        made of X32): what it trained with; ``samples``: each tree's rows and features;
        ``digest``: X32's fingerprint when the fit had it made (``digest_later``)."""
        self._model = model
        self._X32 = X32
        # fit does not copy a float32 X it can use as it is; the trace recomputes from
        # it, so it notices when the caller changes that array afterwards
        self._X_digest = _digest(X32) if digest is None else digest()
        self._y = y
        self._sample_weight = sample_weight
        self._samples = samples  # per tree, by tree number − 1: its rows and features
        self._K = model.n_outputs  # trees per round
        self._tree_method = tree_method
        self._data = data
        self._algo = algorithm
        self._margins = {0: model.start_margins(len(y))}  # round t -> margins after it
        self._leaves = {}  # tree number -> each row's leaf

    # ----------------------------------------------------------- helpers
    def _check_X(self):
        if _digest(self._X32) != self._X_digest:
            raise ValueError(
                "the training data X was changed after fit, and the trace recomputes its "
                "tables from X; fit again, or pass fit a copy (X.copy()) to keep changing yours"
            )

    @property
    def X(self):
        """The training features as trained on: a float32 (n, features) array."""
        return self._X32

    @property
    def y(self):
        """The training target as trained on (0/1 for a classifier)."""
        return self._y

    @property
    def sample_weight(self):
        """The training sample weights, or None."""
        return self._sample_weight

    @property
    def n_rounds(self):
        return self._model.n_rounds

    @property
    def n_classes(self):
        """K for a softmax classifier; None when a round has a single tree."""
        return self._K if self._K > 1 else None

    def _check_class(self, class_):
        """The class index a table is about: required with K ≥ 3 classes, else 0."""
        return self._model.check_class(class_)

    def _column(self, a, k):
        """Class k's column of an (n, K) array; the array itself when K = 1."""
        a = np.asarray(a)
        return a[:, k] if a.ndim == 2 else a

    @property
    def is_classifier(self):
        return self._model.is_classifier

    def _check_round(self, t):
        return self._model.check_round(t)

    def _tree(self, t, k):
        """Round t's tree of class k (0 when K = 1), and its tree number."""
        i = self._model.tree_number(t, k if self._K > 1 else None)
        return self._model.trees[i - 1], i

    def leaf(self, t, class_=None):
        """Leaf id of every training instance in round t's tree (class ``class_``'s with
        K ≥ 3)."""
        self._check_X()
        k = self._check_class(class_)
        return self._leaf(self._check_round(t), k)

    def _leaf(self, t, k=0):
        tree, i = self._tree(t, k)
        if i not in self._leaves:
            leaves = tree.apply(self._X32)
            if self._cache_ok():
                self._leaves[i] = leaves
            return leaves
        return self._leaves[i]

    def _cache_ok(self):
        per_round = len(self._y) * 8 * self._K
        return per_round * self.n_rounds * 2 <= _CACHE_BYTES

    def margin(self, t):
        """Margins after round t (t = 0: the base margin), in training precision: (n,), or
        (n, K) with K ≥ 3 classes; the model's own (``Model.next_margins``)."""
        ok = isinstance(t, (int, np.integer)) and not isinstance(t, bool)
        if not ok or not 0 <= t <= self.n_rounds:
            raise ValueError(f"t must be a round from 0 to {self.n_rounds}; got {t!r}")
        self._check_X()
        return self._margin(int(t))

    def _margin(self, t):
        start = max(j for j in self._margins if j <= t)
        m = self._margins[start]
        for j in range(start + 1, t + 1):
            m = self._model.next_margins(self._X32, j, m)
            if self._cache_ok():
                self._margins[j] = m
        return m

    @property
    def _has_prob(self):
        """Whether the margins mean probabilities (``Loss.has_probability``): binary:hinge's
        margin is a score whose sign is the class, with no probability behind it."""
        return self._model.loss.has_probability

    def _prob(self, margin):
        return self._model.loss.probability(margin)

    def _predicted(self, margin):
        """What a residual subtracts from y: the probability, else the prediction (e^margin
        for a log link, the class for binary:hinge, the margin itself for most)."""
        return self._prob(margin) if self._has_prob else self._model.link(margin)

    # ----------------------------------------------------------- tables
    def _target(self, k):
        """y as the table shows it: 0/1 (binary), [y = k] (class k of K), or the target."""
        if self._K == 1:
            return self._y
        return (self._y == k).astype(np.float64)

    def epochs(self, class_=None):
        """Seed 004's table: one row per instance, columns ep_0_pre, ep_0_prob, then per round t
        ep_t_residual, ep_t_leaf_index, ep_t_leaf_output, ep_t_pre, ep_t_prob. With K ≥ 3
        classes, for class ``class_``: its margin, its softmax probability, [y = class_] − p.
        The residual is y − the prediction before the tree: the probability (by the
        objective's link), else the prediction (e^margin for a log link, the class for
        binary:hinge); the prob columns only where a margin means a probability."""
        self._check_X()
        c = self._check_class(class_)
        clf = self._has_prob
        y = self._target(c)
        cols = {}
        prev = self._margin(0).astype(np.float64)
        cols["ep_0_pre"] = self._column(prev, c)
        if clf:
            cols["ep_0_prob"] = self._column(self._prob(prev), c)
        for t in range(1, self.n_rounds + 1):
            tree, _ = self._tree(t, c)
            leaves = self._leaf(t, c)
            cols[f"ep_{t}_residual"] = y - self._column(self._predicted(prev), c)
            cols[f"ep_{t}_leaf_index"] = leaves
            cols[f"ep_{t}_leaf_output"] = tree.weight[leaves]
            prev = self._margin(t).astype(np.float64)
            cols[f"ep_{t}_pre"] = self._column(prev, c)
            if clf:
                cols[f"ep_{t}_prob"] = self._column(self._prob(prev), c)
        return pd.DataFrame(cols)

    def _round_stats(self, t, k=0):
        stats = self._algo.round_stats(self._y, self._margin(t - 1), self._sample_weight)
        return self._algo.class_stats(stats, k)

    def instances(self, t, class_=None):
        """Round t: per instance y, margin before round t, prob, g, h and the leaf it reached.
        With K ≥ 3 classes, those of class ``class_``'s tree: y is [y = class_]."""
        self._check_X()
        t = self._check_round(t)
        k = self._check_class(class_)
        m = self._margin(t - 1).astype(np.float64)
        stats = self._round_stats(t, k)
        df = pd.DataFrame(
            {
                "y": self._target(k),
                "margin": self._column(m, k),
                "prob": self._column(self._prob(m), k) if self._has_prob else np.nan,
                "g": np.asarray(stats["g"], dtype=np.float64),
                "h": np.asarray(
                    stats["h_leaf"] if stats.get("h_leaf") is not None else stats["h"],
                    dtype=np.float64,
                ),
                "leaf": self._leaf(t, k),
            }
        )
        if not self._has_prob:
            df = df.drop(columns="prob")
        return df

    def nodes(self, t, class_=None):
        """Round t's tree (class ``class_``'s with K ≥ 3), one row per node (see
        ``Tree.to_frame``).

        ``gain`` is seed 000's gain for the model's gamma, ½(loss_chg − gamma): a split
        with gain < 0 survives post-pruning only above a child that is itself a split.
        """
        t = self._check_round(t)
        k = self._check_class(class_)
        return self._tree(t, k)[0].to_frame()

    def splits(self, t, node, class_=None):
        """Every candidate split evaluated at ``node`` of round t's tree (class ``class_``'s with
        K ≥ 3), the chosen one marked; ``gain`` is ½(loss_chg − gamma), as in ``nodes``."""
        self._check_X()
        t = self._check_round(t)
        k = self._check_class(class_)
        tree, i = self._tree(t, k)
        if not isinstance(node, (int, np.integer)) or not 0 <= node < tree.n_nodes:
            raise ValueError(
                f"the tree of round {t} has nodes 0 to {tree.n_nodes - 1}; got node={node!r}"
            )
        sample = self._samples[i - 1]
        stats = self._round_stats(t, k)
        splitter = self._tree_method.splitter(
            self._data, stats, self._algo.scan_params(), sample["rows"], sample["features"]
        )
        mask = tree.node_mask(self._X32, node, self._leaf(t, k))
        nd = splitter.root(keep=mask)
        _, G, H = splitter.node_sums(nd)
        chosen = None
        if tree.feature[node] >= 0:
            chosen = (
                int(tree.feature[node]),
                float(tree.threshold[node]),
                bool(tree.default_left[node]),
            )
            if node in tree.sets:  # a set split is told apart by its set
                chosen += (tuple(tree.sets[node]),)
        table = splitter.candidates(nd, G, H, tree.feature_names, chosen)
        if "categories" in table:  # the sets by their categories' names
            table["categories"] = [_named_set(tree, f, c) for f, c in
                                   zip(table["feature"], table["categories"])]  # fmt: skip
        return table

    def category_stats(self, t, node, class_=None, feature=None):
        """The categories of a categorical ``feature`` (default: the one ``node`` splits into
        sets) at ``node`` of round t's tree, in the order XGBoost's scan tries them: one row
        per category with its G, H, G/(H+λ), w* = −G/(H+λ), the sums up to it and the
        loss_chg of each cut (``engine.categorical.category_table``); ``code`` and, where
        known, ``category``. None when there is no such feature."""
        self._check_X()
        t = self._check_round(t)
        k = self._check_class(class_)
        tree, i = self._tree(t, k)
        if feature is None and node not in tree.sets:
            return None
        feature = int(tree.feature[node]) if feature is None else int(feature)
        categorical = getattr(self._data, "is_categorical", None)  # hist data only
        if categorical is None or not 0 <= feature < len(categorical):
            return None
        if not categorical[feature]:
            return None
        sample = self._samples[i - 1]
        stats = self._round_stats(t, k)
        splitter = self._tree_method.splitter(
            self._data, stats, self._algo.scan_params(), sample["rows"], sample["features"]
        )
        nd = splitter.root(keep=tree.node_mask(self._X32, node, self._leaf(t, k)))
        table = splitter.category_table(nd, feature)
        names = tree.category_names.get(feature)
        if names is not None:
            table.insert(1, "category", [names[c] if c < len(names) else c for c in table["code"]])
        return table

    def __repr__(self):
        kind = "classifier" if self.is_classifier else "regressor"
        if self._K > 1:
            return (
                f"<teachgbt.Trace of a classifier of {self._K} classes: {self.n_rounds} rounds "
                f"of {self._K} trees, {len(self._y)} instances; epochs(class_=k), "
                "instances(t, class_=k), nodes(t, class_=k), splits(t, node, class_=k)>"
            )
        return (
            f"<teachgbt.Trace of a {kind}: {self.n_rounds} rounds, {len(self._y)} instances; "
            "epochs(), instances(t), nodes(t), splits(t, node)>"
        )


def _named_set(tree, feature_name, codes):
    """A candidate's set (codes) by its categories' names, where the tree knows them."""
    if codes is None:
        return None
    j = tree.feature_names.index(feature_name) if tree.feature_names else int(feature_name[1:])
    names = tree.category_names.get(j)
    if names is None:
        return tuple(codes)
    return tuple(names[c] if c < len(names) else c for c in codes)


def digest_later(X):
    """X's fingerprint made on a thread of its own (hashlib lets go of the interpreter while
    it hashes): a function that waits for it. A fit asks for it before binning, whose cut
    finding leaves a core free for it."""
    made = []
    thread = threading.Thread(target=lambda: made.append(_digest(X)), daemon=True)
    thread.start()

    def wait():
        thread.join()
        return made[0] if made else _digest(X)  # (the thread failed: made here, or raises)

    return wait


def _digest(X):
    """A fingerprint of X's bytes (SHA-256: the processor computes it in hardware, twice
    as fast as BLAKE2 here; fit pays for it once)."""
    return hashlib.sha256(np.ascontiguousarray(X).data).digest()
