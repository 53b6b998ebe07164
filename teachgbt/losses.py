"""Losses: what a boosting round needs from the objective.

Each loss gives the per-instance gradient g_i and hessian h_i at the current
margin (seed 000: "g_i = ∂ l(y_i, ŷ), h_i = ∂² l(y_i, ŷ)"), the starting
margin, the link from margin to prediction, and the loss value itself.

Precision: XGBoost keeps margins, g and h in float32 (sums in float64). With
``dtype=np.float32`` these functions reproduce that arithmetic, which the
XGBoost-style trainers use so that their trees match XGBoost's split for
split; the Friedman GBDT trainer uses float64 throughout, as scikit-learn does.
"""

from __future__ import annotations

import numpy as np

# XGBoost floors the logistic hessian here, so that a sure prediction still has h > 0
HESSIAN_FLOOR = 1e-16

__all__ = ["Loss", "SquaredError", "Logistic", "CustomObjective", "get_loss", "sigmoid", "logit"]


def sigmoid(margin):
    """p = 1 / (1 + exp(−margin)): log-odds to probability."""
    margin = np.asarray(margin)
    one = margin.dtype.type(1) if margin.dtype.kind == "f" else 1.0
    with np.errstate(over="ignore"):
        return one / (one + np.exp(-margin))


def logit(prob):
    """log(p / (1 − p)): probability to log-odds."""
    prob = np.asarray(prob, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.log(prob) - np.log1p(-prob)


class Loss:
    """Base class. Subclasses define ``name``, ``grad_hess`` and friends."""

    name = "loss"
    is_classification = False

    def grad_hess(self, y, margin, dtype=np.float64):
        raise NotImplementedError

    def default_base_score(self, y, sample_weight=None):
        """XGBoost's estimate when ``base_score`` is not given: the weighted mean of y."""
        return float(np.average(y, weights=sample_weight))

    def base_margin(self, base_score):
        """The margin every instance starts from, given ``base_score``."""
        return float(base_score)

    def transform(self, margin):
        """Margin to prediction (identity for regression)."""
        return np.asarray(margin, dtype=np.float64)

    def loss(self, y, margin, sample_weight=None):
        """Mean loss, weighted by ``sample_weight``."""
        raise NotImplementedError

    def check_base_score(self, base_score):
        return float(base_score)

    #: the evaluation metric XGBoost reports for this objective (``evals_result_``)
    metric_name = "rmse"

    def metric(self, y, margin, sample_weight=None):
        r = np.asarray(y, dtype=np.float64) - self.transform(margin)
        return float(np.sqrt(np.average(r * r, weights=sample_weight)))

    def __repr__(self):
        return f"{type(self).__name__}()"


class SquaredError(Loss):
    """l(y, ŷ) = ½(y − ŷ)²:  g = ŷ − y,  h = 1  (XGBoost's ``reg:squarederror``).

    Seed 002 writes the square loss without the ½, so its g = 2(ŷ − y) and
    h = 2. Both give the same leaf weight once λ is halved to match:
    −Σ2(ŷ−y)/(2n + λ) = −Σ(ŷ−y)/(n + λ/2).
    """

    name = "reg:squarederror"

    def grad_hess(self, y, margin, dtype=np.float64):
        margin = np.asarray(margin, dtype=dtype)
        g = margin - np.asarray(y, dtype=dtype)
        h = np.ones_like(g)
        return g, h

    def loss(self, y, margin, sample_weight=None):
        r = np.asarray(y, dtype=np.float64) - np.asarray(margin, dtype=np.float64)
        return float(np.average(0.5 * r * r, weights=sample_weight))


class Logistic(Loss):
    """Cross entropy on log-odds (XGBoost's ``binary:logistic``, seed 004):

        l(y, F) = −[y log p + (1 − y) log(1 − p)],   p = σ(F)
        g = p − y,   h = p (1 − p)

    so the residual y − p of seed 004 is −g. XGBoost floors h at 1e-16.
    """

    name = "binary:logistic"
    is_classification = True

    def grad_hess(self, y, margin, dtype=np.float64):
        margin = np.asarray(margin, dtype=dtype)
        prob = sigmoid(margin)
        g = prob - np.asarray(y, dtype=dtype)
        h = np.maximum(prob * (dtype(1) - prob), dtype(HESSIAN_FLOOR))
        return g, h

    def check_base_score(self, base_score):
        base_score = float(base_score)
        if not 0.0 < base_score < 1.0:
            raise ValueError(
                f"base_score={base_score!r} is a probability for binary:logistic; "
                "it must lie strictly between 0 and 1"
            )
        return base_score

    def base_margin(self, base_score):
        return float(logit(base_score))

    def transform(self, margin):
        return sigmoid(np.asarray(margin, dtype=np.float64))

    metric_name = "logloss"

    def metric(self, y, margin, sample_weight=None):
        return self.loss(y, margin, sample_weight)

    def loss(self, y, margin, sample_weight=None):
        y = np.asarray(y, dtype=np.float64)
        m = np.asarray(margin, dtype=np.float64)
        # −[y log p + (1−y) log(1−p)] written in log-odds, stable for large |m|
        per_row = np.logaddexp(0.0, m) - y * m
        return float(np.average(per_row, weights=sample_weight))


class CustomObjective(Loss):
    """A user objective ``fn(y, margin) -> (g, h)``, as in XGBoost's ``obj=``.

    The margin starts at ``base_score`` (default 0 here: teachgbt cannot
    know the link of an arbitrary loss) and predictions are the raw margin.
    """

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(
                f"objective must be a string or a callable (y, margin) -> (g, h); got {fn!r}"
            )
        self.fn = fn
        self.name = getattr(fn, "__name__", "custom objective")

    def default_base_score(self, y, sample_weight=None):
        return 0.0

    def grad_hess(self, y, margin, dtype=np.float64):
        out = self.fn(np.asarray(y, dtype=np.float64), np.asarray(margin, dtype=np.float64))
        try:
            g, h = out
        except (TypeError, ValueError):
            raise TypeError(
                f"objective {self.name!r} must return a pair (g, h); got {type(out).__name__}"
            ) from None
        n = len(np.asarray(y))
        g = np.asarray(g, dtype=np.float64).reshape(-1)
        h = np.asarray(h, dtype=np.float64).reshape(-1)
        if g.shape != (n,) or h.shape != (n,):
            raise ValueError(
                f"objective {self.name!r} returned g of shape {g.shape} and h of shape {h.shape}; "
                f"expected one value per instance, shape ({n},)"
            )
        bad = ~np.isfinite(g) | ~np.isfinite(h)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                f"objective {self.name!r} returned a non-finite gradient or hessian at row {i} "
                f"(g={g[i]!r}, h={h[i]!r})"
            )
        return g.astype(dtype), h.astype(dtype)

    def loss(self, y, margin, sample_weight=None):
        return float("nan")

    def __repr__(self):
        return f"CustomObjective({self.name})"


def check_hessian(loss, h):
    """Second-order boosting divides by H: a hessian that is not positive is a loss error."""
    bad = ~(h > 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"the loss {loss.name!r} gave a hessian that is not positive: h[{i}] = {h[i]!r} "
            f"({int(bad.sum())} of {len(h)} rows). Second-order boosting needs h > 0 "
            "(a convex loss); check the objective's second derivative."
        )


_BY_NAME = {
    "reg:squarederror": SquaredError,
    "binary:logistic": Logistic,
}


def get_loss(objective, is_classifier):
    """Resolve ``objective`` (None, a name or a callable) to a Loss."""
    if objective is None:
        return Logistic() if is_classifier else SquaredError()
    if isinstance(objective, Loss):
        return objective
    if isinstance(objective, str):
        if objective not in _BY_NAME:
            raise ValueError(
                f"objective={objective!r} is not known; use one of {sorted(_BY_NAME)} "
                "or a callable (y, margin) -> (g, h)"
            )
        return _BY_NAME[objective]()
    return CustomObjective(objective)
