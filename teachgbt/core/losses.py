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
# XGBoost's kRtEps: it estimates softmax start margins as log(prior + this)
PRIOR_LOG_EPS = 1e-6

__all__ = [
    "Loss",
    "SquaredError",
    "Logistic",
    "Softmax",
    "CustomObjective",
    "get_loss",
    "sigmoid",
    "logit",
    "softmax",
]


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


def softmax(margin):
    """p_k = exp(F_k) / Σ_j exp(F_j), row by row: (n, K) margins to (n, K) probabilities."""
    margin = np.asarray(margin, dtype=np.float64)
    e = np.exp(margin - margin.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Loss:
    """Base class. Subclasses define ``name``, ``grad_hess`` and friends."""

    name = "loss"
    is_classification = False
    n_outputs = 1  # margins per instance, and trees per round

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


class Softmax(Loss):
    """Cross entropy over K ≥ 3 classes on K margins (XGBoost's ``multi:softprob``):

        p_k = exp(F_k) / Σ_j exp(F_j)
        l(y, F) = −log p_y
        g_k = p_k − [y = k],   h_k = max(2 p_k (1 − p_k), 1e-16)

    One tree per class per round grows on that class' column of g and h. The
    hessian is XGBoost's: twice the diagonal of the true one, p_k(1 − p_k), an upper
    bound that keeps Newton steps safe; leaves are therefore half as large as
    with the diagonal itself. ``y`` holds class indices 0 … K−1.

    ``base_score`` is in margin space here, as XGBoost 3.2 reads it for
    multiclass: one number for every class, or K numbers. Not given, it is
    XGBoost's estimate, the centred log class priors log(π_k + 1e-6) − mean_j
    log(π_j + 1e-6) with π_k the (weighted) share of class k.
    """

    name = "multi:softprob"
    is_classification = True
    metric_name = "mlogloss"

    def __init__(self, n_classes):
        # two classes: a softmax over two margins (LightGBM's multiclass with num_class=2)
        if int(n_classes) < 2:
            raise ValueError(f"Softmax is for 2 or more classes; got n_classes={n_classes!r}")
        self.n_classes = self.n_outputs = int(n_classes)

    def one_hot(self, y):
        """[y = k]: (n,) class indices to (n, K) 0/1 columns."""
        return (np.asarray(y).astype(np.int64)[:, None] == np.arange(self.n_classes)).astype(
            np.float64
        )

    def grad_hess(self, y, margin, dtype=np.float64):
        margin = np.asarray(margin, dtype=dtype)  # (n, K)
        if dtype == np.float32:
            # XGBoost's arithmetic: exp(F_k − max) in float32, their sum in float64, then
            # cast to float32 before dividing (its max starts from the smallest positive float)
            top = np.maximum(margin.max(axis=1, keepdims=True), np.finfo(np.float32).tiny)
            e = np.exp(margin - top)
            total = e.astype(np.float64).sum(axis=1, keepdims=True).astype(np.float32)
            prob = e / total
        else:
            prob = softmax(margin)
        g = prob - self.one_hot(y).astype(dtype)  # (n, K)
        h = np.maximum(dtype(2) * prob * (dtype(1) - prob), dtype(HESSIAN_FLOOR))
        return g.astype(dtype), h.astype(dtype)

    def class_priors(self, y, sample_weight=None):
        """π_k: the (weighted) share of each class, (K,)."""
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        counts = np.bincount(np.asarray(y).astype(np.int64), weights=w, minlength=self.n_classes)
        return counts / counts.sum()

    def default_base_score(self, y, sample_weight=None):
        """XGBoost's start: log(π_k + 1e-6) − mean_j log(π_j + 1e-6), in float32."""
        log_prior = np.log(self.class_priors(y, sample_weight).astype(np.float32) + PRIOR_LOG_EPS)
        return (log_prior - log_prior.mean()).astype(np.float32).astype(np.float64)

    def check_base_score(self, base_score):
        values = np.asarray(base_score, dtype=np.float64).reshape(-1)
        if values.size == 1:
            values = np.repeat(values, self.n_classes)
        if values.size != self.n_classes or not np.all(np.isfinite(values)):
            raise ValueError(
                f"base_score for {self.n_classes} classes is the starting margin (as XGBoost's "
                f"multi:softprob reads it): one finite number or {self.n_classes}; "
                f"got {base_score!r}"
            )
        return values

    def base_margin(self, base_score):
        return np.asarray(base_score, dtype=np.float64).reshape(-1)  # already margins: (K,)

    def transform(self, margin):
        return softmax(margin)

    def metric(self, y, margin, sample_weight=None):
        return self.loss(y, margin, sample_weight)

    def loss(self, y, margin, sample_weight=None):
        """Mean −log p_y (XGBoost's ``mlogloss``), stable for large margins."""
        m = np.asarray(margin, dtype=np.float64)
        top = m.max(axis=1)
        log_total = top + np.log(np.exp(m - top[:, None]).sum(axis=1))
        per_row = log_total - m[np.arange(len(m)), np.asarray(y).astype(np.int64)]
        return float(np.average(per_row, weights=sample_weight))

    def __repr__(self):
        return f"Softmax(n_classes={self.n_classes})"


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


def get_loss(objective, is_classifier, n_classes=2):
    """Resolve ``objective`` (None, a name or a callable) to a Loss; a classifier of
    ``n_classes`` ≥ 3 classes gets ``Softmax``."""
    if is_classifier and (n_classes >= 3 or (n_classes == 2 and objective == "multi:softprob")):
        if objective not in (None, "multi:softprob"):
            raise ValueError(
                f"{n_classes} classes need objective=None or 'multi:softprob' (softmax); "
                f"got {objective!r}"
            )
        return Softmax(n_classes)
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
