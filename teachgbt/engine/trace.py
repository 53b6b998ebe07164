"""Trace: every intermediate of a fitted model, as pandas DataFrames.

What is cheap is kept from training (the trees with their per-node G, H, w*,
gains; each round's row and feature sample); everything per instance — the
margins, g, h, leaf assignments, candidate splits — is recomputed from the
trees when asked, so a trace of a million-row fit stays small. The
recomputation uses the same functions, in the same precision, as training,
so the numbers are the ones the trainer saw.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

__all__ = ["Trace", "INSTANCE_COLUMNS"]

INSTANCE_COLUMNS = ["y", "margin", "prob", "g", "h", "leaf"]

# keep every round's margins in memory while they fit in this many bytes
_CACHE_BYTES = 256 << 20


class Trace:
    """Per-round tables of a fitted ``BoostingClassifier`` / ``BoostingRegressor``."""

    def __init__(self, model, X32, y, sample_weight, booster, algorithm):
        """``booster``: what ``engine.boosting.train`` returned (its tree method, prepared
        data and each round's sample); ``algorithm``: the one it trained with."""
        self._model = model
        self._X32 = X32
        # fit does not copy a float32 X it can use as it is; the trace recomputes from
        # it, so it notices when the caller changes that array afterwards
        self._X_digest = _digest(X32)
        self._y = y
        self._sample_weight = sample_weight
        self._rounds = booster.samples  # per round: its row and feature sample
        self._tree_method = booster.tree_method
        self._data = booster.data
        self._algo = algorithm
        self._margins = {0: algorithm.initial_margin(model.base_margin_, len(y))}
        self._leaves = {}

    # ----------------------------------------------------------- helpers
    def _check_X(self):
        if _digest(self._X32) != self._X_digest:
            raise ValueError(
                "the training data X was changed after fit, and the trace recomputes its "
                "tables from X; fit again, or pass fit a copy (X.copy()) to keep changing yours"
            )

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
        return len(self._model.trees_)

    @property
    def is_classifier(self):
        return bool(self._model.loss_.is_classification)

    def _check_round(self, t):
        if not isinstance(t, (int, np.integer)) or not 1 <= t <= self.n_rounds:
            raise ValueError(f"round t must be a whole number from 1 to {self.n_rounds}; got {t!r}")
        return int(t)

    def leaf(self, t):
        """Leaf id of every training instance in tree t."""
        self._check_X()
        return self._leaf(self._check_round(t))

    def _leaf(self, t):
        if t not in self._leaves:
            leaves = self._model.trees_[t - 1].apply(self._X32)
            if self._cache_ok():
                self._leaves[t] = leaves
            return leaves
        return self._leaves[t]

    def _cache_ok(self):
        per_round = len(self._y) * 8
        return per_round * self.n_rounds * 2 <= _CACHE_BYTES

    def margin(self, k):
        """Margins after k rounds (k = 0: the base margin), in training precision."""
        if not 0 <= k <= self.n_rounds:
            raise ValueError(f"k must be from 0 to {self.n_rounds}; got {k!r}")
        self._check_X()
        return self._margin(k)

    def _margin(self, k):
        start = max(j for j in self._margins if j <= k)
        m = self._margins[start]
        for j in range(start + 1, k + 1):
            tree = self._model.trees_[j - 1]
            m = self._algo.add(m, tree.value[self._leaf(j)])
            if self._cache_ok():
                self._margins[j] = m
        return m

    def _prob(self, margin):
        return self._model.loss_.transform(margin)

    # ----------------------------------------------------------- tables
    def epochs(self):
        """Seed 004's table: one row per instance, columns ep_0_pre, ep_0_prob, then per round k
        ep_k_residual, ep_k_leaf_index, ep_k_leaf_output, ep_k_pre, ep_k_prob."""
        self._check_X()
        clf = self.is_classifier
        cols = {}
        prev = self._margin(0).astype(np.float64)
        cols["ep_0_pre"] = prev
        if clf:
            cols["ep_0_prob"] = self._prob(prev)
        for k in range(1, self.n_rounds + 1):
            tree = self._model.trees_[k - 1]
            leaves = self._leaf(k)
            before = self._prob(prev) if clf else prev
            cols[f"ep_{k}_residual"] = self._y - before
            cols[f"ep_{k}_leaf_index"] = leaves
            cols[f"ep_{k}_leaf_output"] = tree.weight[leaves]
            prev = self._margin(k).astype(np.float64)
            cols[f"ep_{k}_pre"] = prev
            if clf:
                cols[f"ep_{k}_prob"] = self._prob(prev)
        return pd.DataFrame(cols)

    def _round_stats(self, t):
        return self._algo.round_stats(self._y, self._margin(t - 1), self._sample_weight)

    def instances(self, t):
        """Round t: per instance y, margin before round t, prob, g, h and the leaf it reached."""
        self._check_X()
        t = self._check_round(t)
        m = self._margin(t - 1)
        stats = self._round_stats(t)
        df = pd.DataFrame(
            {
                "y": self._y,
                "margin": m.astype(np.float64),
                "prob": self._prob(m.astype(np.float64)) if self.is_classifier else np.nan,
                "g": np.asarray(stats["g"], dtype=np.float64),
                "h": np.asarray(
                    stats["h_leaf"] if stats.get("h_leaf") is not None else stats["h"],
                    dtype=np.float64,
                ),
                "leaf": self._leaf(t),
            }
        )
        if not self.is_classifier:
            df = df.drop(columns="prob")
        return df

    def nodes(self, t):
        """Tree t, one row per node (see ``Tree.to_frame``).

        ``gain`` is seed 000's gain for the model's gamma, ½(loss_chg − gamma): a split
        with gain < 0 survives post-pruning only above a child that is itself a split.
        """
        t = self._check_round(t)
        return self._model.trees_[t - 1].to_frame()

    def splits(self, t, node):
        """Every candidate split evaluated at ``node`` of tree t, the chosen one marked;
        ``gain`` is ½(loss_chg − gamma), as in ``nodes``."""
        self._check_X()
        t = self._check_round(t)
        tree = self._model.trees_[t - 1]
        if not isinstance(node, (int, np.integer)) or not 0 <= node < tree.n_nodes:
            raise ValueError(f"tree {t} has nodes 0 to {tree.n_nodes - 1}; got node={node!r}")
        sample = self._rounds[t - 1]
        stats = self._round_stats(t)
        splitter = self._tree_method.splitter(
            self._data, stats, self._algo.scan_params(), sample["rows"], sample["features"]
        )
        mask = tree.node_mask(self._X32, node, self._leaf(t))
        nd = splitter.root(keep=mask)
        _, G, H = splitter.node_sums(nd)
        chosen = None
        if tree.feature[node] >= 0:
            chosen = (
                int(tree.feature[node]),
                float(tree.threshold[node]),
                bool(tree.default_left[node]),
            )
        return splitter.candidates(nd, G, H, tree.feature_names, chosen)

    def __repr__(self):
        kind = "classifier" if self.is_classifier else "regressor"
        return (
            f"<teachgbt.Trace of a {kind}: {self.n_rounds} rounds, {len(self._y)} instances; "
            "epochs(), instances(t), nodes(t), splits(t, node)>"
        )


def _digest(X):
    return hashlib.blake2b(np.ascontiguousarray(X).data, digest_size=16).digest()
