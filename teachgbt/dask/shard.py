"""What runs on a worker: one partition's rows, binned once, and its part of every tree.

A ``Shard`` holds a partition's bin codes (cut with the cut points of the whole
data), its labels, weights and margins. During a tree it also holds a
single-machine ``HistSplitter`` over its own rows: the same partition of row
ids, the same subtraction trick, the same compiled kernels as a local fit. The
driver tells it which splits were chosen; it moves its rows and answers with
the histograms of its rows in the new nodes, which the driver adds up over all
shards (seed 003: each machine histograms its own rows; the sums are reduced).

Each task function takes the shard, updates it in place and returns it, so that
the next task of the chain depends on this one (``after``: a reply of the step before,
still to be read, that the step waits for). Dask keeps the chain of task
specs, and when a worker is lost it replays the chain of each lost shard from
its partition (every step is deterministic), which brings the shard back to the
same state.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core import shorten
from ..core.model import add_rounds
from ..core.tree import as_float32_matrix
from ..engine.binning import HistData
from ..engine.hist import HistSplitter
from ..utils import check_X
from . import cuts as C

__all__ = [
    "Survey",
    "load_part",
    "survey",
    "combine_surveys",
    "Shard",
    "EvalShard",
    "as_arrays",
    "make_shard",
    "begin_tree",
    "grow",
    "end_tree",
    "reply",
    "sum_replies",
]


def as_arrays(X, y=None, weight=None, index=None, names=None):
    """A partition as (X32, y, weight) numpy arrays (X: ndarray or DataFrame), checked as a
    local fit checks X: no inf, nothing beyond float32, numbers only. ``index``: the
    partition's number, for the messages; ``names``: the columns every partition of a
    DataFrame must have, in this order (another order would train on the wrong columns)."""
    what = "X" if index is None else f"partition {index} of X"
    if names is not None and isinstance(X, pd.DataFrame):
        got = [str(c) for c in X.columns]
        if got != list(names):
            how = (
                "its columns in another order" if sorted(got) == sorted(names) else "other columns"
            )
            raise ValueError(
                f"{what} has {how} ({shorten(got)}) than the data ({shorten(list(names))}): "
                "every partition must have the same columns in the same order"
            )
    X32 = as_float32_matrix(check_X(X, what)[0] if len(X) else X)  # an empty one is allowed
    y = None if y is None else np.asarray(y).reshape(-1)
    weight = None if weight is None else np.asarray(weight, dtype=np.float64).reshape(-1)
    for name, v in (("y", y), ("sample_weight", weight)):
        if v is not None and len(v) != len(X32):
            raise ValueError(
                f"a partition of X has {len(X32)} rows but its partition of {name} has {len(v)}: "
                f"X and {name} must be split into partitions of the same lengths"
            )
    return X32, y, weight


class Survey:
    """The first pass over a partition: a cut-point summary (``cuts.Summary``) and what
    the base score needs: Σw and Σw·y, or for a classifier Σw of each label."""

    def __init__(self, summary, sum_w, sum_wy, label_weights):
        self.summary, self.sum_w, self.sum_wy = summary, sum_w, sum_wy
        self.label_weights = label_weights  # {label: Σw}, or None for a regressor

    @property
    def n_rows(self):
        return self.summary.n_rows


def load_part(X, y, weight, index=None, names=None):
    """A partition, loaded where it lives, as numpy arrays (X as float32); see
    ``as_arrays``."""
    return as_arrays(X, y, weight, index, names)


def survey(part, max_bin, is_classifier):
    X32, y, weight = part
    w = np.ones(len(X32)) if weight is None else weight
    if weight is not None and not np.all(np.isfinite(w) & (w >= 0)):
        raise ValueError("sample_weight must be finite and >= 0 in every partition")
    labels = None
    if is_classifier:
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("y has missing labels (NaN); every row needs a class")
        values, codes = np.unique(y, return_inverse=True)
        sums = np.bincount(codes.reshape(-1), weights=w, minlength=len(values))
        labels = dict(zip(values.tolist(), sums.tolist()))
        sum_wy = 0.0
    else:
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("y has NaN or infinite values; a regressor needs finite targets")
        sum_wy = float(np.dot(w, y))
    return Survey(C.summarize(X32, max_bin), float(w.sum()), sum_wy, labels)


def combine_surveys(max_bin, *surveys):
    """One Survey of the rows of several (a step of a tree reduction)."""
    out = surveys[0]
    for s in surveys[1:]:
        labels = None
        if out.label_weights is not None:
            labels = dict(out.label_weights)
            for label, w in s.label_weights.items():
                labels[label] = labels.get(label, 0.0) + w
        out = Survey(
            C.merge(out.summary, s.summary, max_bin),
            out.sum_w + s.sum_w,
            out.sum_wy + s.sum_wy,
            labels,
        )
    return out


def n_rows(part):
    return part.n_rows


class Shard:
    """One partition on its worker. ``margin``: (n,) or (n, K) in training precision."""

    def __init__(self, data, y, weight, margin):
        self.data, self.y, self.weight, self.margin = data, y, weight, margin
        self.stats = self.step = self.splitter = None
        self.nodes = {}  # node key -> HistNode of this shard's rows, the tree's frontier
        self.segments = []  # per partition held: (its first row in the whole data, rows)
        self.reply = None


def make_shard(parts, offsets, cuts, model):
    """The partitions held by one worker as one shard: ``parts`` is a list of (X, y, weight),
    binned with the whole data's cuts, labels as indices of ``model.classes`` (classifier),
    margins at the model's start; ``offsets``: each one's first row in the whole data."""
    arrays = [as_arrays(*part) for part in parts]
    X32 = np.concatenate([a[0] for a in arrays]) if len(arrays) > 1 else arrays[0][0]
    y = np.concatenate([a[1] for a in arrays])
    weight = None if arrays[0][2] is None else np.concatenate([a[2] for a in arrays])
    if model.classes is not None:
        y = np.searchsorted(model.classes, y)
    data = HistData.from_cuts(X32, *cuts)
    shard = Shard(data, y.astype(np.float64), weight, model.start_margins(len(X32)))
    shard.segments = [(offset, len(a[0])) for offset, a in zip(offsets, arrays)]
    return shard


def sample(segments, draw):
    """The rows of a subsample (``draw``: the generator's state before the tree's draws and
    ``subsample``) among ``segments`` (first row in the whole data, rows): row i is kept
    when the i-th uniform number of the stream is below subsample, as ``RoundSampler``."""
    state, subsample = draw
    keep = []
    for offset, n in segments:
        bits = np.random.PCG64()
        bits.state = state
        bits.advance(offset)
        keep.append(np.random.Generator(bits).random(n) < subsample)
    return np.flatnonzero(np.concatenate(keep)) if keep else np.array([], dtype=np.intp)


def route(tree, data):
    """Each row's leaf, routed by its bin codes (``x < threshold`` is ``cut[code] <=
    threshold`` for a threshold that is a cut point, the partition's rule)."""
    node = np.zeros(data.n_rows, dtype=np.int32)
    threshold = tree.threshold.astype(np.float32)
    for _ in range(tree.max_depth):
        at = np.flatnonzero(tree.feature[node] >= 0)
        if not len(at):
            break
        nd = node[at]
        f = tree.feature[nd]
        code = data.bins[f, at]
        cut = data.cuts[f, np.minimum(code, data.missing_code - 1)]
        missing = code == data.missing_code
        left = np.where(missing, tree.default_left[nd], cut <= threshold[nd])
        node[at] = np.where(left, tree.left[nd], tree.right[nd])
    return node


def begin_tree(shard, algorithm, k, features, draw=None, after=None):
    """Class k's tree starts: the root's histogram of this shard's rows. The round's first
    tree computes g, h of every row at the margins before the round (seed 000)."""
    if k == 0:
        shard.stats = algorithm.round_stats(shard.y, shard.margin, shard.weight)
        shard.step = np.zeros(np.shape(shard.margin), dtype=algorithm.dtype)
    stats = algorithm.class_stats(shard.stats, k)
    shard.splitter = HistSplitter(
        shard.data,
        stats["g"],
        stats["h"],
        algorithm.scan_params(),
        rows=None if draw is None else sample(shard.segments, draw),
        features=features,
        h_cover=stats.get("h_cover"),
    )
    root = shard.splitter.root()
    shard.nodes = {0: root}
    shard.reply = {0: (root.hist, root.n_missing, root.n, root.sums)}
    return shard


def _apply(shard, splits):
    """Move the rows of each split node to its children: ``splits`` is a list of
    (node key, Candidate, left key, right key) chosen by the driver."""
    for key, cand, left_key, right_key in splits:
        left, right = shard.splitter.partition(shard.nodes.pop(key), cand)
        shard.nodes[left_key], shard.nodes[right_key] = left, right


def grow(shard, splits, after=None):
    """Apply a level's splits; the reply: each left child's histogram and both counts."""
    _apply(shard, splits)
    shard.reply = {}
    for _, _, left_key, right_key in splits:
        left, right = shard.nodes[left_key], shard.nodes[right_key]
        hist, n_missing = shard.splitter.histogram(left)
        shard.reply[left_key] = (hist, n_missing, left.n, right.n)
    return shard


def end_tree(shard, algorithm, k, splits, values, tree=None, after=None):
    """Apply the last splits; every row's leaf value goes into the round's step (class k's
    column); the reply: the rows in each leaf. ``values``: node key -> leaf value. After
    the round's last tree, ŷ^(t) = ŷ^(t−1) + η·f_t(x), as the single-machine loop adds it."""
    _apply(shard, splits)
    column = shard.step.reshape(len(shard.step), -1)[:, k]
    counts = {}
    for key, nd in shard.nodes.items():
        column[nd.rows] = values[key]
        counts[key] = nd.n
    if tree is not None:  # a subsample: every row, in the sample or not, gets its leaf's value
        column[:] = tree.value[route(tree, shard.data)]
    shard.reply = counts
    shard.splitter, shard.nodes = None, {}
    if k == algorithm.n_outputs - 1:
        shard.margin = algorithm.add(shard.margin, shard.step)
        shard.stats = shard.step = None
    return shard


def reply(shard):
    """What the shard's last step answers (small: histograms and counts, no rows)."""
    return shard.reply


def sum_replies(*replies):
    """Element-wise sums of replies of the same shape (a step of a tree reduction)."""
    total = {}
    for key in replies[0]:
        parts = [r[key] for r in replies]
        if isinstance(parts[0], tuple):
            total[key] = tuple(_add(p[i] for p in parts) for i in range(len(parts[0])))
        else:
            total[key] = _add(parts)
    return total


def _add(values):
    values = list(values)
    if isinstance(values[0], tuple):  # a node's sums (G, H[, cover])
        return tuple(sum(v[i] for v in values) for i in range(len(values[0])))
    out = values[0]
    for v in values[1:]:
        out = out + v
    return out


# ----------------------------------------------------------------- eval sets
class EvalShard:
    """A partition of an eval set: features, labels and margins, updated every round."""

    def __init__(self, X32, y, margin):
        self.X32, self.y, self.margin = X32, y, margin
        self.reply = None


def make_eval_shard(X, y, model):
    X32, y, _ = as_arrays(X, y)
    if model.classes is not None:
        y = np.searchsorted(model.classes, y).astype(np.float64)
    return EvalShard(X32, y.astype(np.float64), model.start_margins(len(X32)))


def eval_round(shard, trees, loss):
    """A round's trees added to the eval margins (in the model's precision, as
    ``Model.next_margins`` adds them); the reply: (rows, the loss's metric)."""
    shard.margin = add_rounds(trees, shard.X32, shard.margin)
    metric = loss.metric(shard.y, shard.margin) if len(shard.y) else 0.0
    shard.reply = (len(shard.y), metric)
    return shard
