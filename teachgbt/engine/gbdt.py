"""Friedman's gradient boosting (GBDT), as seed 004 walks through it.

    F0      = log(odds) of the positive rate (classifier), or the mean of y (regressor)
    residual = y − p   (classifier, p = σ(F)),  or  y − F   (regressor)
    f_m     = a squared-error regression tree fitted to the residuals
    leaf output γ_j = Σ residual / Σ p(1−p)   (classifier; a Newton step)
                    = mean residual           (regressor)
    F_m     = F_{m−1} + ν·f_m

With K ≥ 3 classes (scikit-learn's multinomial deviance) each class k has its
own margin F_k, p = softmax(F), and each round fits K trees, tree k to the
residuals [y = k] − p_k; its leaves are (K−1)/K · Σ residual / Σ p_k(1−p_k)
(Friedman's factor, which scikit-learn keeps). F0 is the centred log of the
class priors, log π_k − mean_j log π_j.

How this maps onto the shared tree grower (``grow.grow_tree``):

* The split scan sees g = −residual and h = 1 per row (times the sample
  weight). With λ = 0 its loss reduction G_L²/H_L + G_R²/H_R − G²/H is then
  exactly the drop in the sum of squared residuals: the squared-error criterion
  of a regression tree, which ranks splits as scikit-learn's does.
* The leaves are valued from other sums: G = −Σ residual and H = Σ p(1−p),
  so the usual w* = −G/(H+λ) is seed 004's leaf output.
* ``reg_lambda`` (added to the leaf denominator), ``min_child_weight`` (on
  Σp(1−p)) and ``gamma`` (on the squared-error improvement) keep their
  meaning; at their GBDT defaults (0) the trees are scikit-learn's
  ``GradientBoostingClassifier`` / ``GradientBoostingRegressor``.

When teachgbt and scikit-learn can differ — ties
------------------------------------------------
scikit-learn visits the features of a node in a random order (even with
``max_features=None``) and keeps the first strictly better candidate, so
between two candidates with exactly equal improvement it picks whichever its
random order reaches first. teachgbt's rule is fixed:

* across features, the lower column index wins;
* within one feature, the larger threshold wins (the exact scan runs from the
  largest value down, as XGBoost's does; scikit-learn runs upwards);
* in best-first growth (``max_leaves``), between two nodes with equal
  improvement the one created first is split first.

Ties are common in round 1 of a classifier: every residual is 1 − p0 or −p0,
so two splits that put the same numbers of positives and negatives on each
side are exactly tied. Candidates that are not tied give the same tree in both
libraries. scikit-learn also treats feature values closer than 1e-7 as equal;
teachgbt splits between any two distinct float32 values.

When a node stops
-----------------
As scikit-learn: a node splits while the (weighted) variance of its residuals
exceeds ``PURE_VARIANCE`` (2.2e-16, one float64 epsilon) and some split lowers
their sum of squares at all; a node whose residuals are all equal stays a leaf
although rounding leaves a trace of "improvement" there. (scikit-learn computes
that variance as Σr²/n − mean², which on a pure node can round above 2.2e-16;
it then splits a node whose residuals are all equal. That changes no
prediction, only the number of leaves of a tree grown without a depth limit.)
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..core.losses import (
    Logistic,
    Softmax,
    SquaredError,
    sigmoid,
    softmax,
)
from .boosting import Algorithm

__all__ = ["GBDTAlgorithm", "initial_prediction", "PURE_VARIANCE", "ZERO_DENOMINATOR"]

# a node whose residuals vary less than this is pure: scikit-learn's EPSILON
PURE_VARIANCE = float(np.finfo(np.float64).eps)
# scikit-learn's guard: a leaf whose Σp(1−p) is below this outputs 0
ZERO_DENOMINATOR = 1e-150


def initial_prediction(y, sample_weight=None, classifier=True):
    """F0, the best constant: log(odds) of the positive rate, or the mean of y (seed 004, Step 1).

    The estimators start from it as their ``base_margin_`` (``base_score`` = the
    weighted mean of y, its logit for a classifier).
    """
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if not classifier:
        return float(np.sum(w * y) / np.sum(w))  # F0 = mean of y
    positives, negatives = np.sum(w * y), np.sum(w * (1.0 - y))
    return float(np.log(positives / negatives))  # F0 = log(odds) = log(count(1) / count(0))


class GBDTAlgorithm(Algorithm):
    """Friedman GBDT: squared-error trees on the residuals, Newton leaf outputs (seed 004)."""

    name = "gbdt"
    dtype = np.float64  # scikit-learn keeps margins and residuals in float64

    def __init__(self, loss, params, is_classifier=False):
        params = dataclasses.replace(params, float32=False, min_split_loss_eps=0.0)
        super().__init__(loss, params)
        self.is_classifier = bool(is_classifier)
        # Friedman's (K−1)/K on multiclass leaves, kept by scikit-learn; 1 otherwise
        K = self.n_outputs
        self.leaf_factor = (K - 1) / K if K > 1 else 1.0

    def default_base_score(self, y, sample_weight=None):
        """scikit-learn's F0. Softmax: log π_k − mean_j log π_j, π clipped to [ε, 1 − ε]
        (its ``DummyClassifier(strategy="prior")`` through the symmetric multinomial logit)."""
        if not isinstance(self.loss, Softmax):
            return super().default_base_score(y, sample_weight)
        eps = np.finfo(np.float64).eps
        log_prior = np.log(np.clip(self.loss.class_priors(y, sample_weight), eps, 1 - eps))
        return log_prior - log_prior.mean()

    def residual_and_hessian(self, y, margin):
        """Per row: the residual (negative gradient) and the leaf formula's denominator term."""
        y = np.asarray(y, dtype=np.float64)
        F = np.asarray(margin, dtype=np.float64)
        if isinstance(self.loss, Softmax):  # (n, K): class k's residual [y = k] − p_k
            p = softmax(F)
            return self.loss.one_hot(y) - p, p * (1.0 - p)
        if isinstance(self.loss, Logistic):
            p = sigmoid(F)  # probability from log(odds) (seed 004, p = σ(F(x)))
            residual = y - p  # residual = observed − predicted probability (seed 004, step 2A)
            return residual, p * (1.0 - p)  # Σ p(1−p): leaf output's denominator (seed 004, 2C)
        if isinstance(self.loss, SquaredError):
            return y - F, np.ones_like(F)  # regression: residual = y − F(x), leaf = its mean
        g, h = self.loss.grad_hess(y, F)  # any other loss: residual = −gradient (seed 004)
        return -np.asarray(g, dtype=np.float64), np.asarray(h, dtype=np.float64)

    def round_stats(self, y, margin, sample_weight):
        residual, hess = self.residual_and_hessian(y, margin)
        w = np.ones(len(residual)) if sample_weight is None else np.asarray(sample_weight, float)
        if residual.ndim == 2:  # (n, K): one weight per row, every class
            w = np.broadcast_to(w[:, None], residual.shape)
        return {
            "residual": residual,
            # the scan fits a squared-error tree to the residuals: g = −residual, unit h
            "g": -residual * w,
            "h": w,
            # min_child_weight applies to Σ p(1−p), as XGBoost's does to Σh
            "h_cover": hess * w,
            # the leaf output's denominator, Σ p(1−p) (seed 004)
            "h_leaf": hess * w,
        }

    def scan_params(self):
        """Rank splits by the plain squared error: no λ, α or step clipping in the scan."""
        return dataclasses.replace(
            self.params, reg_lambda=0.0, reg_alpha=0.0, max_delta_step=0.0, float32=False
        )

    def leaf_stats(self, splitter, stats):
        """Per node: G = −Σ residual, H = Σ p(1−p), so w* = Σ residual / (Σ p(1−p) + λ)."""
        g = np.asarray(stats["g"], dtype=np.float64)
        residual = np.asarray(stats["residual"], dtype=np.float64)
        h_leaf = np.asarray(stats["h_leaf"], dtype=np.float64)
        h_scan = np.asarray(stats["h"], dtype=np.float64)
        reg_lambda = self.params.reg_lambda
        classifier = self.is_classifier
        factor = self.leaf_factor

        def node_stats(nd):
            rows = splitter.node_rows(nd)
            residual_sum = -float(g[rows].sum())  # Σ residual (seed 004's numerator)
            H = float(h_leaf[rows].sum())  # Σ p(1−p) (seed 004's denominator)
            weight_sum = float(h_scan[rows].sum())
            mean = residual_sum / weight_sum if weight_sum > 0 else 0.0
            # scikit-learn's tree_.impurity: weighted mean squared deviation of the residuals
            impurity = 0.0
            if weight_sum > 0:
                impurity = float(np.sum(h_scan[rows] * (residual[rows] - mean) ** 2) / weight_sum)
            extra = {"residual_sum": residual_sum}
            if classifier:
                extra["p(1-p)_sum"] = H
            extra["impurity"] = impurity
            G = -residual_sum * factor  # multiclass: (K−1)/K · Σ residual (scikit-learn)
            if abs(H + reg_lambda) < ZERO_DENOMINATOR:
                G = 0.0  # no curvature: the leaf outputs 0, as scikit-learn's _safe_divide
            return G, H, extra, impurity > PURE_VARIANCE

        return node_stats
