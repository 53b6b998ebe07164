"""Additive training, one tree per round (seed 000, "Additive Training").

    ŷ_i^(0) = base margin
    ŷ_i^(t) = ŷ_i^(t−1) + η·f_t(x_i)

An *algorithm* decides what statistics each round's tree is grown from and
how its leaves are valued:

* ``XGBoostAlgorithm`` (seeds 000–003): g_i, h_i of the loss; splits ranked by
  the regularized gain; leaves w* = −G/(H+λ).
* ``gbdt.GBDTAlgorithm`` (seed 004): Friedman's GBDT; splits ranked by the
  squared error of the residuals; Newton leaves Σresidual / Σp(1−p).

A *tree method* decides how splits are found: ``exact`` (sorted scan) or
``hist`` (histograms of binned features).
"""

from __future__ import annotations

import numpy as np

from ..losses import check_hessian
from .grow import GrowParams

F32 = np.float32


class Algorithm:
    """Interface shared by the boosting algorithms."""

    name = ""
    dtype = np.float64  # precision of margins, g and h during training

    def __init__(self, loss, params):
        self.loss = loss
        self.params = params  # GrowParams: tree policy and leaf weights

    def initial_margin(self, base_margin, n):
        return np.full(n, base_margin, dtype=self.dtype)

    def add(self, margin, tree_values):
        """ŷ^(t) = ŷ^(t−1) + η·f_t(x): leaves already hold η·w*."""
        return (margin + np.asarray(tree_values).astype(self.dtype)).astype(self.dtype)

    def round_stats(self, y, margin, sample_weight):
        """Per-row statistics a round's tree is grown from: dict(g, h, h_cover, h_leaf)."""
        raise NotImplementedError

    def scan_params(self):
        """The parameters the split finder ranks candidates with."""
        return self.params

    def leaf_stats(self, splitter, stats):
        """``(node) -> (G, H, extra, may_split)`` for leaf weights, or None to use the
        split sums (see ``grow.grow_tree``)."""
        return None


class XGBoostAlgorithm(Algorithm):
    """Second-order, regularized boosting as XGBoost does it, float32 as XGBoost is."""

    name = "xgboost"
    dtype = F32

    def round_stats(self, y, margin, sample_weight):
        # g_i, h_i: first and second derivative of the loss at ŷ^(t−1) (seed 000)
        g, h = self.loss.grad_hess(y, margin, dtype=F32)
        check_hessian(self.loss, h)
        if sample_weight is not None:
            w = sample_weight.astype(F32)
            g, h = g * w, h * w
        return {"g": g, "h": h, "h_cover": None, "h_leaf": None}


def resolve_grow_params(est, algorithm):
    """GrowParams from an estimator's (possibly None) parameters."""
    gbdt = algorithm == "gbdt"
    return GrowParams(
        max_depth=0 if est.max_depth is None else int(est.max_depth),
        max_leaves=int(est.max_leaves or 0),
        reg_lambda=float(est.reg_lambda if est.reg_lambda is not None else (0.0 if gbdt else 1.0)),
        reg_alpha=float(est.reg_alpha or 0.0),
        gamma=float(est.gamma or 0.0),
        min_child_weight=float(
            est.min_child_weight if est.min_child_weight is not None else (0.0 if gbdt else 1.0)
        ),
        max_delta_step=float(est.max_delta_step or 0.0),
        learning_rate=float(
            est.learning_rate if est.learning_rate is not None else (0.1 if gbdt else 0.3)
        ),
        pruning=est.pruning or ("pre" if est.tree_method == "hist" else "post"),
        float32=not gbdt,
    )
