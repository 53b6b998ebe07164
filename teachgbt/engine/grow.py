"""Growing one tree: the policy shared by every split finder.

A split finder (``exact.ExactSplitter``, ``hist.HistSplitter``, ...) knows how
to find the best split of one node and how to partition its rows. This module
decides which node to split next and when to stop, as XGBoost does:

* depth-wise growth (level by level) to ``max_depth``;
* best-first growth (the node with the largest loss reduction first) to
  ``max_leaves`` leaves, as LightGBM and XGBoost's ``lossguide`` do;
* a split is made only if its ``loss_chg`` exceeds 1e-6 (XGBoost's kRtEps);
* ``gamma`` either stops a split before it is made (``pruning="pre"``, as
  XGBoost ``hist``), or prunes bottom-up after growth (``pruning="post"``, as
  XGBoost ``exact``): a split whose children are both leaves is undone while
  its ``loss_chg`` is below γ (seed 002, "Pre-stopping vs Post-Pruning").
"""

from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass

import numpy as np

from ..core import formulas
from ..core.tree import TreeBuilder

KRT_EPS = 1e-6  # XGBoost splits a node only when loss_chg > kRtEps


@dataclass
class GrowParams:
    max_depth: int = 6  # 0: no depth limit
    max_leaves: int = 0  # 0: no leaf limit
    reg_lambda: float = 1.0
    reg_alpha: float = 0.0
    gamma: float = 0.0
    min_child_weight: float = 1.0
    max_delta_step: float = 0.0
    learning_rate: float = 0.3
    pruning: str = "post"
    # XGBoost keeps leaf weights, gains and scores in float32; matching that
    # rounding is what makes tie-breaking agree split for split.
    float32: bool = True
    # smallest loss_chg worth a split
    min_split_loss_eps: float = KRT_EPS
    # categorical features (engine/categorical.py): one category against the rest below
    # this many categories, else the sorted partition moving at most max_cat_threshold − 1
    max_cat_to_onehot: int = 4
    max_cat_threshold: int = 64

    @functools.cached_property
    def formula_params(self):
        """λ, α, max_delta_step and min_child_weight as keywords for ``formulas``.

        With ``float32`` they are rounded to float32 first: XGBoost stores its
        parameters as float, and λ = 0.1 is then 0.10000000149.
        """
        values = (self.reg_lambda, self.reg_alpha, self.max_delta_step, self.min_child_weight)
        if self.float32:
            values = tuple(float(np.float32(v)) for v in values)
        return dict(zip(("reg_lambda", "reg_alpha", "max_delta_step", "min_child_weight"), values))

    def leaf_weight(self, G, H):
        """w* = −G/(H+λ) (``formulas.leaf_weight``), stored in float32 as XGBoost stores it."""
        w = formulas.leaf_weight(G, H, **self.formula_params)
        if self.float32:
            w = np.float32(w)
        return float(w) if np.ndim(w) == 0 else w

    def side_score(self, G, H):
        """G²/(H+λ) of one side of a split (``formulas.leaf_score``), as split finders rank it.

        With ``float32`` it is the same formula in XGBoost 3.2's float32
        arithmetic (``SplitEvaluator::CalcGainGivenWeight``): G and H are summed
        in float64; the score is float32(G̃²) / float32(H+λ), or with
        ``max_delta_step`` −(2·G·w + (H+λ)·w²) with every operand in float32.
        Float rounding decides between candidates whose true gains tie; doing
        it XGBoost's way makes it fall the same way. ``tests/test_formulas.py``
        checks this twin against ``formulas.leaf_score``.
        """
        kw = self.formula_params
        if not self.float32:
            return np.asarray(formulas.leaf_score(G, H, **kw))
        f32 = np.float32
        G = np.asarray(G, dtype=np.float64)
        H = np.asarray(H, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if kw["max_delta_step"] > 0:
                w = np.asarray(formulas.leaf_weight(G, H, **kw)).astype(f32)
                lam = f32(kw["reg_lambda"])
                s = -(f32(2.0) * G.astype(f32) * w + (H.astype(f32) + lam) * (w * w))
            else:
                Gt = formulas.soft_threshold(G, kw["reg_alpha"])
                s = (Gt * Gt).astype(f32) / (H + kw["reg_lambda"]).astype(f32)
        return np.where(H > 0, s, f32(0.0)).astype(f32)

    def loss_chg(self, G_L, H_L, G_R, H_R):
        """XGBoost's loss_chg of splits, in float64 (``formulas.loss_chg``)."""
        return formulas.loss_chg(G_L, H_L, G_R, H_R, **self.formula_params)

    def gain(self, loss_chg):
        """Seed 000's gain for this model's gamma, ½(loss_chg − gamma): the one place every
        split finder's ``gain`` comes from (``formulas.tree_gain``)."""
        return formulas.tree_gain(loss_chg, self.gamma)

    def child_value(self, G, H):
        """A leaf's value from its sums, η·w*(G, H): what ``grow_tree``'s nodes hold."""
        return self.leaf_value(self.leaf_weight(G, H))

    def leaf_value(self, weight):
        """What a leaf adds to the margin: η·w* (XGBoost stores leaves already scaled)."""
        if self.float32:
            return float(np.float32(weight) * np.float32(self.learning_rate))
        return float(weight * self.learning_rate)


@dataclass
class Candidate:
    """A split of one node: rule ``x[feature] < threshold`` (or ``x ∈ categories``, a set of
    category codes, when ``categories`` is given), missing → left if default_left."""

    feature: int
    threshold: float
    default_left: bool
    G_L: float
    H_L: float
    G_R: float
    H_R: float
    loss_chg: float  # XGBoost's, no ½, no γ: what gamma is compared with
    gain: float  # seed 000's for the model's gamma, ½(loss_chg − gamma) (GrowParams.gain)
    cover_L: float | None = None  # Σ of the cover statistic on the left (hist, when it has one)
    categories: tuple | None = None  # a set split's codes (they go left)


def grow_tree(splitter, params, n_features, feature_names=None, leaf_stats=None, out=None):
    """Grow one tree with ``splitter``; return ``(tree, rows, leaf)``: the Tree, and the
    leaf each of the rows it was grown from ended in (``leaf[i]`` for ``rows[i]``), so
    the trainer can update those rows' margins without routing them again.

    ``out`` (a splitter with ``put_values``): an array to receive those rows' steps
    instead, ``out[row]`` = the value (η·w*) of the leaf the row ended in; then
    ``(tree, None, None)`` is returned. Where the children of a level can only be leaves
    and nothing can change their values afterwards (no ``leaf_stats``, no post-pruning),
    a splitter with ``partition_leaves`` does not move those rows at all: it writes each
    row's leaf value as it decides the row's side, one pass instead of two.

    ``leaf_stats(node_data) -> (G, H, extra, may_split)`` gives the sums a node's
    weight is computed from (by default the splitter's own G and H, XGBoost-style;
    Friedman's GBDT passes Σ residual and Σ p(1−p)), extra node columns, and
    False when the node must stay a leaf whatever its best split (GBDT: its
    residuals are all equal, scikit-learn's stopping rule).
    """
    b = TreeBuilder()
    leaf_only = set()  # nodes leaf_stats said must not split
    settled = {}  # node id -> its row ids, for the nodes left as leaves

    def new_node(nd, parent, depth):
        n, G, H = splitter.node_sums(nd)
        if leaf_stats is None:
            Gw, Hw, extra, may_split = G, H, {}, True
        else:
            Gw, Hw, extra, may_split = leaf_stats(nd)
        weight = params.leaf_weight(Gw, Hw)
        nid = b.add_node(parent, depth, n, Gw, Hw, weight, params.leaf_value(weight), **extra)
        if not may_split:
            leaf_only.add(nid)
        return nid, (G, H)

    def can_grow(depth):
        return params.max_depth == 0 or depth < params.max_depth

    def worth_splitting(cand):
        if cand is None or not cand.loss_chg > params.min_split_loss_eps:
            return False
        return not (params.pruning == "pre" and cand.loss_chg < params.gamma)

    root = splitter.root()
    root_id, (G, H) = new_node(root, -1, 0)
    max_leaves = params.max_leaves or 0

    # the last level's leaves written as their rows' sides are decided (see above)
    post_pruned = params.pruning == "post" and params.gamma > 0
    writes_leaves = out is not None and leaf_stats is None and not post_pruned
    writes_leaves = writes_leaves and hasattr(splitter, "partition_leaves")

    def settle(nid, nd):  # a leaf: its rows (or, to write their values into out, its node)
        settled[nid] = nd if out is not None else splitter.node_rows(nd)

    def evaluate(nid, nd, depth, sums):
        cand = None
        if can_grow(depth) and nid not in leaf_only:
            cand = splitter.find_split(nd, *sums)
        if cand is None or not worth_splitting(cand):
            settle(nid, nd)
            return None
        return cand

    def expand(nid, nd, depth, cand):
        return _expand(b, splitter.partition(nd, cand), new_node, nid, depth, cand)

    def expand_level(chosen):
        """The splits chosen at a level, made together when the splitter can partition
        several nodes at once (``partition_level``); the children are numbered as one by one."""
        partition_level = getattr(splitter, "partition_level", None)
        if chosen and writes_leaves and not can_grow(chosen[0][2] + 1):
            # (each child's value as new_node will compute it from the sums it is given)
            halves = splitter.partition_leaves(
                [(nd, c) for _, nd, _, c in chosen], params.child_value, out
            )
            for (nid, _, d, c), h in zip(chosen, halves):
                _expand(b, h, new_node, nid, d, c)
            return []  # leaves, their rows' values written: nothing left to do for them
        if partition_level is None:
            return [expand(*c) for c in chosen]
        halves = partition_level([(nd, cand) for _, nd, _, cand in chosen])
        return [_expand(b, h, new_node, nid, d, c) for (nid, _, d, c), h in zip(chosen, halves)]

    root_sums = (root_id, root, 0, (G, H))
    if max_leaves:
        _best_first(root_sums, evaluate, expand, settle, max_leaves)
    else:
        _level_by_level(root_sums, evaluate, expand_level)

    if params.pruning == "post" and params.gamma > 0:
        _post_prune(b, 0, params.gamma)
    tree = b.build(n_features, feature_names, params.learning_rate)
    return (tree,) + _leaves_of_rows(b, tree, settled, splitter, out)


def _best_first(root, evaluate, expand, settle, max_leaves):
    """Best-first growth from ``root`` (id, node, depth, sums) to ``max_leaves`` leaves:
    largest loss_chg first; ties go to the older node (XGBoost lossguide)."""
    heap, n_leaves = [], 1
    cand = evaluate(*root)
    if cand is not None:
        heap.append((-cand.loss_chg, *root[:3], cand))
    while heap and n_leaves < max_leaves:
        _, nid, nd, depth, cand = heapq.heappop(heap)
        for child in expand(nid, nd, depth, cand):
            c = evaluate(*child)
            if c is not None:
                heapq.heappush(heap, (-c.loss_chg, *child[:3], c))
        n_leaves += 1
    for _, nid, nd, _, _ in heap:  # candidates left unsplit at max_leaves
        settle(nid, nd)


def _level_by_level(root, evaluate, expand_level):
    """Depth-wise growth from ``root``: every node of a level is evaluated, then its
    splits are made (together: ``expand_level``)."""
    level = [root]
    while level:
        chosen = []
        for nid, nd, depth, sums in level:
            cand = evaluate(nid, nd, depth, sums)
            if cand is not None:
                chosen.append((nid, nd, depth, cand))
        level = [child for children in expand_level(chosen) for child in children]


def _leaves_of_rows(b, tree, settled, splitter, out):
    """``grow_tree``'s (rows, leaf) of its settled nodes {id: rows}; or, with ``out``,
    (None, None) once each settled node's rows have the value of its final leaf in ``out``.
    A leaf pruned away hands its rows to the ancestor that became a leaf."""
    ids = list(settled)
    final = [b.final_id(i) for i in ids]
    if out is not None:
        splitter.put_values([settled[i] for i in ids], tree.value[final].tolist(), out)
        return None, None
    rows = np.concatenate([settled[i] for i in ids]) if ids else np.array([], dtype=np.int64)
    leaf = np.repeat(np.array(final, dtype=np.int32), [len(settled[i]) for i in ids])
    return rows, leaf  # (leaf int32: no int64 copy of n rows)


def _expand(b, halves, new_node, nid, depth, cand):
    """Split node ``nid`` by ``cand`` into the rows ``halves`` (left, right); returns the
    children as (id, rows, depth, sums), in id order."""
    # a set split: XGBoost sends its set right and makes that child second; teachgbt sends
    # the set left, so it makes the right child first and the ids stay XGBoost's
    sides = (1, 0) if cand.categories is not None else (0, 1)
    made = {side: new_node(halves[side], nid, depth + 1) for side in sides}
    (left, lsums), (right, rsums) = made[0], made[1]
    b.split(
        nid,
        cand.feature,
        cand.threshold,
        cand.default_left,
        left,
        right,
        cand.gain,
        cand.loss_chg,
        cand.categories,
    )
    kids = [(left, halves[0], depth + 1, lsums), (right, halves[1], depth + 1, rsums)]
    return kids if left < right else kids[::-1]


def _post_prune(b, node, gamma):
    """Bottom-up: undo a split whose children are leaves while its loss_chg < γ."""
    c = b.cols
    if b.is_leaf(node):
        return
    _post_prune(b, c["left"][node], gamma)
    _post_prune(b, c["right"][node], gamma)
    if b.is_leaf(c["left"][node]) and b.is_leaf(c["right"][node]) and c["loss_chg"][node] < gamma:
        b.make_leaf(node)
