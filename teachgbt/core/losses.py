"""Losses: what a boosting round needs from the objective, one class per objective.

Each loss gives the per-instance gradient g_i and hessian h_i at the current margin
(seed 000: "g_i = ∂ l(y_i, ŷ), h_i = ∂² l(y_i, ŷ)" — any twice-differentiable l will
do, and g, h are all the trainer needs), the link from margin to prediction, the
base score XGBoost estimates when none is given and the space it stores it in
(``default_base_score``, ``base_margin``), and for the losses whose Newton step is no
good — absolute error and quantiles, whose h is a constant — the leaf refresh XGBoost
runs after a tree is grown (``refresh_leaves``). Seed 003 starts from the same place:
the model that minimises the expected loss, F* = argmin_F E[Ψ(y, F(x))]; each class
below is one Ψ.

The trainable objectives carry XGBoost's names. Models imported from other libraries
may use losses teachgbt does not train (LightGBM's fair, scikit-learn's exponential,
ranking, survival:cox, averaged forests): those classes say how their margin becomes a
prediction (``transform``, ``link``) and ``trainable`` is False.

Precision: XGBoost keeps margins, g and h in float32 (sums in float64). With
``dtype=np.float32`` these functions reproduce that arithmetic operation by operation,
which the XGBoost-style trainers use so that their trees match XGBoost's split for
split; the Friedman GBDT trainer uses float64 throughout, as scikit-learn does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

F32 = np.float32
# XGBoost floors the logistic hessian here, so that a sure prediction still has h > 0
HESSIAN_FLOOR = 1e-16
# XGBoost's kRtEps: it estimates softmax start margins as log(prior + this), floors the
# Newton start's H at it, and squared log error's prediction at −1 + this
PRIOR_LOG_EPS = 1e-6
# the hinge loss's hessian where the margin is already past 1: FLT_MIN, not 0
HINGE_FLAT_HESSIAN = float(np.finfo(np.float32).tiny)
# count:poisson's default max_delta_step (XGBoost sets it for the hessian and the leaves)
POISSON_MAX_DELTA_STEP = 0.7

__all__ = [
    "Link",
    "LINKS",
    "Loss",
    "SquaredError",
    "SquaredLogError",
    "PseudoHuber",
    "AbsoluteError",
    "Quantile",
    "Poisson",
    "Gamma",
    "Tweedie",
    "Logistic",
    "LogitRaw",
    "Hinge",
    "Softmax",
    "CustomObjective",
    "Cox",
    "Ranking",
    "LibraryLoss",
    "OneVsAll",
    "Forest",
    "OBJECTIVES",
    "TRAINABLE",
    "get_loss",
    "sigmoid",
    "logit",
    "softmax",
    "xgboost_quantile",
]


def sigmoid(margin):
    """p = 1 / (1 + exp(−margin)): log-odds to probability."""
    margin = np.asarray(margin)
    if margin.dtype.kind != "f":
        margin = margin.astype(np.float64)
    one = margin.dtype.type(1)
    # (each step in the array the first one made: one n-row temporary, not three)
    p = np.negative(margin, out=np.empty_like(margin))
    with np.errstate(over="ignore"):
        np.exp(p, out=p)
    p += one
    np.divide(one, p, out=p)
    return p if p.ndim else p[()]  # (a number for a number, as numpy's operators give)


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


def xgboost_quantile(values, alpha, weights=None):
    """XGBoost's quantile of float32 ``values`` (``common::Quantile``/``WeightedQuantile``).

    Unweighted: linear interpolation at rank α(n+1) (NIST's method), clamped to the
    smallest and largest value. Weighted: no interpolation, the first sorted value whose
    cumulative weight (summed in float32) reaches α·Σw. NaN when there are no values.
    """
    v = np.asarray(values, dtype=F32)
    n = len(v)
    if n == 0:
        return float("nan")
    order = np.argsort(v, kind="stable")
    s = v[order]
    alpha = float(alpha)
    if weights is not None:
        cdf = np.cumsum(np.asarray(weights, dtype=F32)[order], dtype=F32)
        thresh = F32(float(cdf[-1]) * alpha)
        return float(s[min(int(np.searchsorted(cdf, thresh, side="left")), n - 1)])
    if alpha <= 1.0 / (n + 1):
        return float(s[0])
    if alpha >= n / (n + 1):
        return float(s[-1])
    x = alpha * (n + 1)
    k = int(np.floor(x)) - 1
    d = (x - 1) - k
    step = F32(s[k + 1] - s[k])  # v1 − v0 in float, then scaled in double
    return float(F32(float(s[k]) + d * float(step)))


# ------------------------------------------------------------------ links
@dataclass(frozen=True)
class Link:
    """How a margin becomes a prediction, in words for the views: ``formula`` shows the
    prediction from ``margin``; ``leaf`` says what a leaf's value adds to; ``probability``
    shows a classifier's probability from its margin (None: the margin means none)."""

    name: str
    formula: str
    leaf: str
    probability: str | None = None

    def prediction_of(self, margin="margin"):
        """The prediction's formula with the margin named ``margin``: e^ep_1_pre."""
        return _right_side(self.formula, margin)

    def probability_of(self, margin="margin"):
        """The probability's formula with the margin named ``margin``: σ(ep_1_pre)."""
        return _right_side(self.probability, margin)


def _right_side(formula, margin):
    """``p = σ(margin) = … (words)`` -> ``σ(<margin>)``: the first right-hand side."""
    side = re.split(r" = | \(|, ", formula.split(" = ", 1)[1], maxsplit=1)[0]
    return side.replace("margin", margin)


LINKS = {
    link.name: link
    for link in (
        Link("identity", "prediction = margin", "the prediction itself"),
        Link(
            "logit",
            "p = σ(margin) = 1 / (1 + e^−margin)",
            "the log-odds: a row's probability is σ of its whole margin",
            "p = σ(margin)",
        ),
        Link(
            "log",
            "prediction = e^margin",
            "the log of the mean: e^value multiplies the prediction",
        ),
        Link(
            "softmax",
            "p_k = e^margin_k / Σ_j e^margin_j",
            "the margin of its class; the probabilities are the softmax of every class's",
            "p_k = softmax(margin)_k",
        ),
        Link(
            "logitraw",
            "prediction = margin (log-odds; σ(margin) is the probability, not applied)",
            "the log-odds, which the model predicts without σ",
            "p = σ(margin) (the model predicts the margin itself)",
        ),
        Link(
            "hinge",
            "prediction = 1 if margin > 0 else 0",
            "a score whose sign is the class (the hinge loss wants margin·(2y−1) ≥ 1)",
        ),
        Link(
            "sigmoid per class",
            "p_k = σ(margin_k), one sigmoid per class (the p_k need not sum to 1)",
            "the log-odds of its class against all the others",
            "p_k = σ(margin_k)",
        ),
        Link(
            "softplus",
            "prediction = log(1 + e^margin)",
            "a margin whose softplus log(1 + e^margin) is the prediction",
        ),
        Link(
            "half logit",
            "p = σ(2·margin)",
            "half the log-odds (AdaBoost's exponential loss)",
            "p = σ(2·margin)",
        ),
        Link("score", "score = margin", "the ranking score (only its order within a query counts)"),
        Link(
            "mean of trees",
            "prediction = the mean of the trees' leaf values",
            "the average: each tree adds its leaf value / the number of trees",
            "p = margin (the mean of the trees' class fractions)",
        ),
    )
}


# ------------------------------------------------------------------ the interface
class Loss:
    """Base class. Subclasses define ``name``, ``grad_hess`` and friends.

    ``link`` names the map from margin to prediction (``LINKS``); ``transform`` applies
    it; ``base_margin`` maps a base score to the margin every row starts from (XGBoost's
    ``ProbToMargin``: the base score is stored in prediction space for most objectives);
    ``default_base_score`` is XGBoost's estimate from y when none is given.
    ``refreshes_leaves``: after a tree is grown its leaves are recomputed from the rows
    they hold (``refresh_leaves``), not −G/(H+λ). ``default_max_delta_step``: the
    ``max_delta_step`` the loss implies when none is given. ``trainable``: teachgbt can
    grow trees on it (else it only reads models that use it).
    """

    name = "loss"
    is_classification = False
    n_outputs = 1  # margins per instance, and trees per round
    link = "identity"
    trainable = True
    refreshes_leaves = False
    default_max_delta_step = 0.0
    #: row i's g and h depend on y[i] and margin[i] alone (a trainer may then compute
    #: them a block of rows at a time)
    elementwise = False
    #: the evaluation metric XGBoost reports for this objective (``evals_result_``)
    metric_name = "rmse"

    def grad_hess(self, y, margin, dtype=np.float64):
        raise NotImplementedError(
            f"the {self.name} loss is not one teachgbt trains with: it reads models that use "
            f"it. Train with one of {', '.join(TRAINABLE)}"
        )

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
        return float("nan")

    def check_base_score(self, base_score):
        return float(base_score)

    def metric(self, y, margin, sample_weight=None):
        r = np.asarray(y, dtype=np.float64) - self.transform(margin)
        return float(np.sqrt(np.average(r * r, weights=sample_weight)))

    def refresh_leaves(self, tree, rows, leaf, y, margin, sample_weight=None):
        """Recompute the leaves of a freshly grown ``tree`` from its rows; a no-op unless
        ``refreshes_leaves``. ``rows``/``leaf``: each training row the tree was grown from
        and the leaf it reached; ``margin``: the margins before this tree, (n,)."""

    @property
    def has_probability(self):
        """Whether a margin means a probability: a classifier whose link gives one
        (binary:hinge's margin is a score whose sign is the class, with none behind it)."""
        return bool(self.is_classification) and LINKS[self.link].probability is not None

    def probability(self, margin):
        """The probability a margin means, as every view shows it (``LINKS[link].probability``):
        the prediction, except for binary:logitraw, whose prediction is the log-odds
        themselves and whose probability is σ of them. (n,) or (n, K); ValueError when the
        margin means no probability."""
        if not self.has_probability:
            raise ValueError(
                f"the margins of {self.title} are no probabilities: {LINKS[self.link].formula}"
            )
        if self.link == "logitraw":
            return sigmoid(np.asarray(margin, dtype=np.float64))
        return self.transform(margin)

    @property
    def title(self):
        """The objective's name with the parameters that change its arithmetic."""
        return self.name

    def describe(self):
        """One line naming the objective and what its margin means."""
        link = LINKS[self.link]
        return f"objective {self.name}: {link.formula}; a leaf adds to {link.leaf}"

    def __repr__(self):
        return f"{type(self).__name__}()"


def _newton_from_zero(loss, y, sample_weight):
    """XGBoost's ``FitIntercept``: one Newton step from margin 0 over the whole data,
    −Σg / max(Σh, 1e-6) (g, h weighted, summed in float64), stored as a float32; the
    objective's transform then takes it to prediction space."""
    g, h = loss.grad_hess(y, np.zeros(len(y), dtype=F32), dtype=F32)
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=F32)
        g, h = g * w, h * w
    G, H = float(g.astype(np.float64).sum()), float(h.astype(np.float64).sum())
    return float(F32(-G / max(H, PRIOR_LOG_EPS)))


def _weighted(values, sample_weight):
    """The mean of per-row values, weighted by ``sample_weight``."""
    return float(np.average(np.asarray(values, dtype=np.float64), weights=sample_weight))


# ------------------------------------------------------------------ regression
class SquaredError(Loss):
    """l(y, ŷ) = ½(y − ŷ)²:  g = ŷ − y,  h = 1  (XGBoost's ``reg:squarederror``).

    Seed 002 writes the square loss without the ½, so its g = 2(ŷ − y) and
    h = 2. Both give the same leaf weight once λ is halved to match:
    −Σ2(ŷ−y)/(2n + λ) = −Σ(ŷ−y)/(n + λ/2).
    """

    elementwise = True

    name = "reg:squarederror"

    def grad_hess(self, y, margin, dtype=np.float64):
        margin = np.asarray(margin, dtype=dtype)
        g = margin - np.asarray(y, dtype=dtype)
        h = np.ones_like(g)
        return g, h

    def loss(self, y, margin, sample_weight=None):
        r = np.asarray(y, dtype=np.float64) - np.asarray(margin, dtype=np.float64)
        return _weighted(0.5 * r * r, sample_weight)


class SquaredLogError(Loss):
    """l = ½[log(1 + ŷ) − log(1 + y)]²  (``reg:squaredlogerror``; y > −1):

        g = (log1p ŷ − log1p y) / (ŷ + 1)
        h = max((1 − log1p ŷ + log1p y) / (ŷ + 1)², 1e-6)

    ŷ is floored at −1 + 1e-6 so that log1p is defined; h is floored where the loss
    bends the wrong way (it is not convex far above y). The base score is one Newton
    step from margin 0 (XGBoost's ``FitIntercept``).
    """

    elementwise = True

    name = "reg:squaredlogerror"
    metric_name = "rmsle"

    def _floored(self, margin, dtype):
        return np.maximum(np.asarray(margin, dtype=dtype), dtype(-1 + PRIOR_LOG_EPS))

    def grad_hess(self, y, margin, dtype=np.float64):
        p = self._floored(margin, dtype)
        ly = np.log1p(np.asarray(y, dtype=dtype))
        lp = np.log1p(p)
        g = (lp - ly) / (p + dtype(1))
        # XGBoost divides by std::pow(ŷ + 1, 2), a double, before storing h as a float
        h = ((-lp + ly + dtype(1)).astype(np.float64) / (p.astype(np.float64) + 1.0) ** 2).astype(
            dtype
        )
        return g, np.maximum(h, dtype(PRIOR_LOG_EPS))

    def check_base_score(self, base_score):
        return _above("base_score", base_score, -1.0, self.name)

    def default_base_score(self, y, sample_weight=None):
        return _newton_from_zero(self, y, sample_weight)

    def loss(self, y, margin, sample_weight=None):
        p = self._floored(margin, np.float64)
        d = np.log1p(p) - np.log1p(np.asarray(y, dtype=np.float64))
        return _weighted(0.5 * d * d, sample_weight)

    def metric(self, y, margin, sample_weight=None):
        d = np.log1p(np.asarray(y, dtype=np.float64)) - np.log1p(self.transform(margin))
        return float(np.sqrt(np.average(d * d, weights=sample_weight)))


class PseudoHuber(Loss):
    """l = s²(√(1 + (ŷ − y)²/s²) − 1), s = ``huber_slope`` (``reg:pseudohubererror``):

        g = d / √(1 + d²/s²),   h = s² / ((s² + d²)·√(1 + d²/s²)),   d = ŷ − y

    Squared error near y, absolute error (slope s) far from it: outliers pull the
    leaves at most s per row. The base score is one Newton step from margin 0.
    """

    elementwise = True

    name = "reg:pseudohubererror"
    metric_name = "mphe"

    def __init__(self, huber_slope=1.0):
        slope = float(huber_slope)
        if not np.isfinite(slope) or slope == 0:
            raise ValueError(
                f"huber_slope must be a finite number other than 0; got {huber_slope!r}"
            )
        self.huber_slope = slope

    def grad_hess(self, y, margin, dtype=np.float64):
        s2 = dtype(self.huber_slope) * dtype(self.huber_slope)
        z = np.asarray(margin, dtype=dtype) - np.asarray(y, dtype=dtype)
        scale_sqrt = np.sqrt(dtype(1) + z * z / s2)
        g = z / scale_sqrt
        h = s2 / ((s2 + z * z) * scale_sqrt)
        return g, h

    def default_base_score(self, y, sample_weight=None):
        return _newton_from_zero(self, y, sample_weight)

    def loss(self, y, margin, sample_weight=None):
        s = self.huber_slope
        d = np.asarray(margin, dtype=np.float64) - np.asarray(y, dtype=np.float64)
        return _weighted(s * s * (np.sqrt(1 + (d / s) ** 2) - 1), sample_weight)

    def metric(self, y, margin, sample_weight=None):
        return self.loss(y, margin, sample_weight)

    def __repr__(self):
        return f"PseudoHuber(huber_slope={self.huber_slope:g})"

    @property
    def title(self):
        return f"{self.name} (huber_slope = {self.huber_slope:g})"


class Quantile(Loss):
    """The pinball loss of the α-quantile, α = ``quantile_alpha`` (``reg:quantileerror``):

        l = α(y − ŷ) if y > ŷ, else (1 − α)(ŷ − y)
        g = 1 − α if ŷ ≥ y, else −α;   h = 1

    Its true second derivative is 0, so XGBoost uses h = 1 to pick the splits and then
    *refreshes* each leaf (``refresh_leaves``): the leaf becomes η × the α-quantile of
    the residuals y − ŷ of its rows, which is the leaf that minimises the loss; −G/(H+λ)
    would only count how many rows lie above and below. The base score is the
    α-quantile of y.
    """

    elementwise = True

    name = "reg:quantileerror"
    metric_name = "quantile"
    refreshes_leaves = True

    def __init__(self, quantile_alpha=0.5):
        alpha = np.asarray(quantile_alpha, dtype=np.float64).reshape(-1)
        if alpha.size != 1:
            raise ValueError(
                f"quantile_alpha={quantile_alpha!r}: teachgbt trains one quantile per model; "
                "fit one model per α"
            )
        if not 0.0 < alpha[0] < 1.0:
            raise ValueError(f"quantile_alpha must lie strictly between 0 and 1; got {alpha[0]!r}")
        self.quantile_alpha = float(F32(alpha[0]))  # XGBoost keeps α as a float

    def grad_hess(self, y, margin, dtype=np.float64):
        a = dtype(self.quantile_alpha)
        d = np.asarray(margin, dtype=dtype) - np.asarray(y, dtype=dtype)
        g = np.where(d >= 0, dtype(1) - a, -a).astype(dtype)
        return g, np.ones_like(g)

    def default_base_score(self, y, sample_weight=None):
        return xgboost_quantile(y, self.quantile_alpha, sample_weight)

    def refresh_leaves(self, tree, rows, leaf, y, margin, sample_weight=None):
        """Each leaf's value becomes η·Q_α(y − ŷ) over its rows (XGBoost's ``UpdateTreeLeaf``:
        residuals in float32; unweighted Q interpolates, weighted Q steps); a leaf without
        rows keeps its Newton value. The Newton weight −G/(H+λ) stays in
        ``tree.extra["newton_weight"]``; ``weight`` becomes the quantile itself."""
        residual = (np.asarray(y, dtype=F32) - np.asarray(margin, dtype=F32))[rows]  # (m,)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=F32)[rows]
        newton = tree.weight.copy()
        eta = F32(tree.learning_rate)
        for j in tree.leaves:
            mine = leaf == j
            if not mine.any():
                continue
            q = xgboost_quantile(
                residual[mine], self.quantile_alpha, None if w is None else w[mine]
            )
            tree.weight[j] = q
            tree.value[j] = float(F32(q) * eta)
        tree.extra["newton_weight"] = newton

    def loss(self, y, margin, sample_weight=None):
        a = self.quantile_alpha
        r = np.asarray(y, dtype=np.float64) - np.asarray(margin, dtype=np.float64)
        return _weighted(np.where(r > 0, a * r, (a - 1) * r), sample_weight)

    def metric(self, y, margin, sample_weight=None):
        return self.loss(y, margin, sample_weight)

    def __repr__(self):
        return f"Quantile(quantile_alpha={self.quantile_alpha:g})"

    @property
    def title(self):
        return f"{self.name} (α = {self.quantile_alpha:g})"


class AbsoluteError(Quantile):
    """l = |y − ŷ|  (``reg:absoluteerror``):  g = sign(ŷ − y),  h = 1.

    The median's loss: the quantile loss at α = ½, doubled. Like it, its true h is 0,
    so XGBoost's ``hist`` refreshes each leaf to η × the median of its rows' residuals
    after growing the tree. The base score is the (weighted) median of y.
    """

    name = "reg:absoluteerror"
    metric_name = "mae"

    def __init__(self):
        super().__init__(0.5)

    def grad_hess(self, y, margin, dtype=np.float64):
        d = np.asarray(margin, dtype=dtype) - np.asarray(y, dtype=dtype)
        g = np.sign(d).astype(dtype)
        return g, np.ones_like(g)

    def default_base_score(self, y, sample_weight=None):
        median = xgboost_quantile(y, 0.5, sample_weight)
        # XGBoost scales by Σw and back (a weighted average over workers), in float32
        total = float(len(y)) if sample_weight is None else float(np.sum(sample_weight))
        return float(F32(float(F32(median * total)) / total)) if total > 0 else 0.0

    def loss(self, y, margin, sample_weight=None):
        r = np.asarray(y, dtype=np.float64) - np.asarray(margin, dtype=np.float64)
        return _weighted(np.abs(r), sample_weight)

    def __repr__(self):
        return "AbsoluteError()"

    @property
    def title(self):
        return self.name


class _LogLink(Loss):
    """A loss on log(mean): prediction e^margin, base score the mean of y (XGBoost's
    ``FitInterceptGlmLike``), stored as it is, its log the start margin."""

    elementwise = True

    link = "log"

    def check_base_score(self, base_score):
        return _above("base_score", base_score, 0.0, self.name)

    def base_margin(self, base_score):
        return float(np.log(F32(base_score)))

    def transform(self, margin):
        return np.exp(np.asarray(margin, dtype=np.float64))


class Poisson(_LogLink):
    """Poisson deviance on log(mean) (``count:poisson``; y ≥ 0):

        l = e^ŷ − y·ŷ,   g = e^ŷ − y,   h = e^(ŷ + max_delta_step)

    The hessian is inflated by e^0.7 and every leaf clipped to |w*| ≤ 0.7: without
    them a leaf whose rows are all 0 would have h → 0 as e^ŷ → 0, and w* = −G/(H+λ)
    would run off towards −∞ (log of a mean of 0). XGBoost sets ``max_delta_step`` 0.7
    when it is not given.
    """

    name = "count:poisson"
    metric_name = "poisson-nloglik"
    default_max_delta_step = POISSON_MAX_DELTA_STEP

    def __init__(self, max_delta_step=POISSON_MAX_DELTA_STEP):
        self.max_delta_step = float(max_delta_step)

    def grad_hess(self, y, margin, dtype=np.float64):
        m = np.asarray(margin, dtype=dtype)
        with np.errstate(over="ignore"):
            g = np.exp(m) - np.asarray(y, dtype=dtype)
            h = np.exp(m + dtype(self.max_delta_step))
        return g, h

    def loss(self, y, margin, sample_weight=None):
        m = np.asarray(margin, dtype=np.float64)
        return _weighted(np.exp(m) - np.asarray(y, dtype=np.float64) * m, sample_weight)

    def metric(self, y, margin, sample_weight=None):
        from math import lgamma

        y = np.asarray(y, dtype=np.float64)
        p = np.maximum(self.transform(margin), HESSIAN_FLOOR)
        row = np.array([lgamma(v + 1.0) for v in y]) + p - np.log(p) * y
        return _weighted(row, sample_weight)

    def __repr__(self):
        return f"Poisson(max_delta_step={self.max_delta_step:g})"


class Gamma(_LogLink):
    """Gamma deviance on log(mean) (``reg:gamma``; y > 0):

    l = y·e^−ŷ + ŷ,   g = 1 − y/e^ŷ,   h = y/e^ŷ
    """

    name = "reg:gamma"
    metric_name = "gamma-deviance"

    def grad_hess(self, y, margin, dtype=np.float64):
        with np.errstate(over="ignore"):
            p = np.exp(np.asarray(margin, dtype=dtype))
        ratio = np.asarray(y, dtype=dtype) / p
        return dtype(1) - ratio, ratio

    def loss(self, y, margin, sample_weight=None):
        m = np.asarray(margin, dtype=np.float64)
        return _weighted(np.asarray(y, dtype=np.float64) * np.exp(-m) + m, sample_weight)

    def metric(self, y, margin, sample_weight=None):
        p = self.transform(margin) + PRIOR_LOG_EPS
        y = np.asarray(y, dtype=np.float64) + PRIOR_LOG_EPS
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
        return float(2 * np.sum(w * (np.log(p / y) + y / p - 1)) / max(w.sum(), PRIOR_LOG_EPS))


class Tweedie(_LogLink):
    """Tweedie deviance on log(mean), ρ = ``tweedie_variance_power`` in [1, 2)
    (``reg:tweedie``): between Poisson (ρ = 1) and gamma (ρ = 2), for amounts with many
    exact zeros (insurance claims):

        l = −y·e^((1−ρ)ŷ)/(1−ρ) + e^((2−ρ)ŷ)/(2−ρ)
        g = −y·e^((1−ρ)ŷ) + e^((2−ρ)ŷ)
        h = −y(1−ρ)·e^((1−ρ)ŷ) + (2−ρ)·e^((2−ρ)ŷ)
    """

    name = "reg:tweedie"

    def __init__(self, tweedie_variance_power=1.5):
        rho = float(tweedie_variance_power)
        if not 1.0 <= rho < 2.0:
            raise ValueError(f"tweedie_variance_power must be in [1, 2); got {rho!r}")
        self.tweedie_variance_power = rho

    @property
    def metric_name(self):
        return f"tweedie-nloglik@{self.tweedie_variance_power:g}"

    def grad_hess(self, y, margin, dtype=np.float64):
        rho = dtype(self.tweedie_variance_power)
        m = np.asarray(margin, dtype=dtype)
        y = np.asarray(y, dtype=dtype)
        one, two = dtype(1), dtype(2)
        with np.errstate(over="ignore"):
            a, b = np.exp((one - rho) * m), np.exp((two - rho) * m)
        return -y * a + b, -y * (one - rho) * a + (two - rho) * b

    def loss(self, y, margin, sample_weight=None):
        rho = self.tweedie_variance_power
        m = np.asarray(margin, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        first = y * m if rho == 1.0 else y * np.exp((1 - rho) * m) / (1 - rho)
        return _weighted(-first + np.exp((2 - rho) * m) / (2 - rho), sample_weight)

    def metric(self, y, margin, sample_weight=None):
        rho = self.tweedie_variance_power
        p = self.transform(margin)
        y = np.asarray(y, dtype=np.float64)
        a = y * np.exp((1 - rho) * np.log(p)) / (1 - rho) if rho != 1 else y * np.log(p)
        return _weighted(-a + np.exp((2 - rho) * np.log(p)) / (2 - rho), sample_weight)

    def __repr__(self):
        return f"Tweedie(tweedie_variance_power={self.tweedie_variance_power:g})"

    @property
    def title(self):
        return f"{self.name} (ρ = {self.tweedie_variance_power:g})"


def _above(name, value, bound, objective):
    value = float(value)
    if not value > bound:
        raise ValueError(f"{name}={value!r} must be greater than {bound:g} for {objective}")
    return value


# ------------------------------------------------------------------ two classes
class Logistic(Loss):
    """Cross entropy on log-odds (XGBoost's ``binary:logistic``, seed 004):

        l(y, F) = −[y log p + (1 − y) log(1 − p)],   p = σ(F)
        g = p − y,   h = p (1 − p)

    so the residual y − p of seed 004 is −g. XGBoost floors h at 1e-16.
    """

    elementwise = True

    name = "binary:logistic"
    is_classification = True
    link = "logit"
    metric_name = "logloss"
    _EDGE_PROBABILITY = 1e-6  # an estimated base_score is kept this far from 0 and 1

    def grad_hess(self, y, margin, dtype=np.float64):
        margin = np.asarray(margin, dtype=dtype)
        prob = sigmoid(margin)
        g = prob - np.asarray(y, dtype=dtype)
        h = np.maximum(prob * (dtype(1) - prob), dtype(HESSIAN_FLOOR))
        return g, h

    def default_base_score(self, y, sample_weight=None):
        mean = super().default_base_score(y, sample_weight)
        return min(max(mean, self._EDGE_PROBABILITY), 1 - self._EDGE_PROBABILITY)

    def check_base_score(self, base_score):
        base_score = float(base_score)
        if not 0.0 < base_score < 1.0:
            raise ValueError(
                f"base_score={base_score!r} is a probability for {self.name}; "
                "it must lie strictly between 0 and 1"
            )
        return base_score

    def base_margin(self, base_score):
        return float(logit(base_score))

    def transform(self, margin):
        return sigmoid(np.asarray(margin, dtype=np.float64))

    def metric(self, y, margin, sample_weight=None):
        return self.loss(y, margin, sample_weight)

    def loss(self, y, margin, sample_weight=None):
        y = np.asarray(y, dtype=np.float64)
        m = np.asarray(margin, dtype=np.float64)
        # −[y log p + (1−y) log(1−p)] written in log-odds, stable for large |m|
        per_row = np.logaddexp(0.0, m) - y * m
        return _weighted(per_row, sample_weight)


class LogitRaw(Logistic):
    """``binary:logitraw``: the logistic loss of ``binary:logistic`` (same g, h), but the
    model predicts the margin itself, the log-odds, without σ. Its base score is the
    mean of y used *as a margin* (XGBoost applies no link to it), so training starts
    from log-odds 0.4 when 40% of y are 1. XGBoost's metric (logloss) is computed on
    that raw margin clipped to [1e-16, 1], as its evaluation applies no σ either.
    """

    name = "binary:logitraw"
    link = "logitraw"

    def default_base_score(self, y, sample_weight=None):
        return Loss.default_base_score(self, y, sample_weight)

    def check_base_score(self, base_score):
        return float(base_score)

    def base_margin(self, base_score):
        return float(base_score)

    def transform(self, margin):
        return np.asarray(margin, dtype=np.float64)

    def metric(self, y, margin, sample_weight=None):
        p = F32(np.asarray(margin, dtype=F32))
        y = np.asarray(y, dtype=F32)
        eps = F32(HESSIAN_FLOOR)
        with np.errstate(divide="ignore", invalid="ignore"):
            pos = np.where(y == 0, F32(0), -y * np.log(np.maximum(p, eps)))
            neg = np.where(
                F32(1) - y == 0, F32(0), -(F32(1) - y) * np.log(np.maximum(F32(1) - p, eps))
            )
        return _weighted(pos + neg, sample_weight)


class Hinge(Loss):
    """The hinge loss of a support vector machine (``binary:hinge``), t = 2y − 1 ∈ {−1, 1}:

        l = max(0, 1 − t·ŷ),   g = −t where t·ŷ < 1 else 0
        h = 1 where t·ŷ < 1 else FLT_MIN (≈ 1.2e-38)

    Its true h is 0 everywhere; XGBoost uses 1 on the rows still inside the margin so
    that a leaf moves by −ΣG/(H+λ), about ±1 per round. It predicts the class itself,
    1 if ŷ > 0 else 0. Its base score is one Newton step from margin 0, mapped to 0 or
    1 by that prediction, and then used as the starting margin.
    """

    elementwise = True

    name = "binary:hinge"
    is_classification = True
    link = "hinge"
    metric_name = "error"

    def grad_hess(self, y, margin, dtype=np.float64):
        t = np.asarray(y, dtype=np.float64) * 2.0 - 1.0  # in double, as XGBoost
        inside = np.asarray(margin, dtype=dtype).astype(np.float64) * t < 1.0
        g = np.where(inside, -t, 0.0).astype(dtype)
        h = np.where(inside, 1.0, HINGE_FLAT_HESSIAN).astype(dtype)
        return g, h

    def default_base_score(self, y, sample_weight=None):
        return float(self.transform(_newton_from_zero(self, y, sample_weight)))

    def transform(self, margin):
        return (np.asarray(margin, dtype=np.float64) > 0).astype(np.float64)

    def loss(self, y, margin, sample_weight=None):
        t = np.asarray(y, dtype=np.float64) * 2.0 - 1.0
        return _weighted(
            np.maximum(0.0, 1.0 - t * np.asarray(margin, dtype=np.float64)), sample_weight
        )

    def metric(self, y, margin, sample_weight=None):
        wrong = self.transform(margin) > 0.5
        y = np.asarray(y, dtype=np.float64)
        return _weighted(np.where(wrong, 1.0 - y, y), sample_weight)


# ------------------------------------------------------------------ read, not trained
class Cox(Loss):
    """Cox proportional hazards (``survival:cox``): y > 0 is a time of death, y < 0 a
    censored time. The model predicts the hazard ratio e^margin; its partial likelihood
    ranks each death against every row still at risk, so g and h of a row sum over
    the deaths up to its time (Breslow's method). XGBoost stores base_score 1, whose
    log is the start margin 0. teachgbt reads such models; it does not train them."""

    name = "survival:cox"
    link = "log"
    trainable = False

    def base_margin(self, base_score):
        return float(np.log(F32(base_score)))

    def check_base_score(self, base_score):
        return _above("base_score", base_score, 0.0, self.name)

    def transform(self, margin):
        return np.exp(np.asarray(margin, dtype=np.float64))


class Ranking(Loss):
    """Learning to rank (XGBoost's ``rank:pairwise``/``rank:ndcg``/``rank:map``,
    LightGBM's ``lambdarank``/``rank_xendcg``): the margin is a score whose order within
    a query is the ranking. g and h do not come from one row: they sum over the pairs
    of rows of the same query whose labels differ (LambdaMART: each pair pushes the
    better row up by σ(s_j − s_i) − 1, weighted by how much swapping them would change
    NDCG). teachgbt reads such models as trees of scores; it does not train them."""

    link = "score"
    trainable = False

    def __init__(self, name="rank:pairwise"):
        self.name = str(name)

    def __repr__(self):
        return f"Ranking({self.name!r})"


class LibraryLoss(Loss):
    """A loss another library trains and teachgbt reads: LightGBM's ``huber``, ``fair``,
    ``mape``, ``cross_entropy`` (σ), ``cross_entropy_lambda`` (log(1 + e^margin)),
    scikit-learn's GradientBoosting ``huber`` and ``exponential`` (AdaBoost's loss,
    p = σ(2·margin)). ``name`` says which; only the link matters to prediction."""

    trainable = False
    _LINKS = {
        "lightgbm:huber": "identity",
        "lightgbm:fair": "identity",
        "lightgbm:mape": "identity",
        "lightgbm:cross_entropy": "logit",
        "lightgbm:cross_entropy_lambda": "softplus",
        "sklearn:huber": "identity",
        "sklearn:exponential": "half logit",
    }

    def __init__(self, name, is_classification=False):
        if name not in self._LINKS:
            raise ValueError(f"unknown library loss {name!r}; known: {sorted(self._LINKS)}")
        self.name = name
        self.link = self._LINKS[name]
        self.is_classification = bool(is_classification)

    def base_margin(self, base_score):
        b = float(base_score)
        if self.link == "logit":
            return float(logit(b))
        if self.link == "half logit":
            return float(logit(b)) / 2
        if self.link == "softplus":
            return float(np.log(np.expm1(b)))
        return b

    def check_base_score(self, base_score):
        if self.link in ("logit", "half logit"):
            return Logistic.check_base_score(self, base_score)
        if self.link == "softplus":
            return _above("base_score", base_score, 0.0, self.name)
        return float(base_score)

    def transform(self, margin):
        m = np.asarray(margin, dtype=np.float64)
        if self.link == "logit":
            return sigmoid(m)
        if self.link == "half logit":
            return sigmoid(2.0 * m)
        if self.link == "softplus":
            return np.logaddexp(0.0, m)
        return m

    def __repr__(self):
        return f"LibraryLoss({self.name!r})"


class _Margins(Loss):
    """K margins per row whose base scores are the K start margins themselves."""

    def __init__(self, n_outputs):
        self.n_outputs = int(n_outputs)

    def check_base_score(self, base_score):
        values = np.asarray(base_score, dtype=np.float64).reshape(-1)
        if values.size == 1:
            values = np.repeat(values, self.n_outputs)
        if values.size != self.n_outputs or not np.all(np.isfinite(values)):
            raise ValueError(
                f"base_score of {self.name} is {self.n_outputs} start margins; got {base_score!r}"
            )
        return values if self.n_outputs > 1 else float(values[0])

    def base_margin(self, base_score):
        values = np.asarray(base_score, dtype=np.float64).reshape(-1)
        return values if self.n_outputs > 1 else float(values[0])


class OneVsAll(_Margins):
    """LightGBM's ``multiclassova``: K binary models, one per class against the others,
    boosted side by side (one tree per class a round); class k's probability is
    σ(margin_k), and the K probabilities need not sum to 1. teachgbt reads it."""

    name = "lightgbm:multiclassova"
    link = "sigmoid per class"
    is_classification = True
    trainable = False

    def transform(self, margin):
        return sigmoid(np.asarray(margin, dtype=np.float64))


class Forest(_Margins):
    """A random forest or extra trees (scikit-learn's ``RandomForest*``/``ExtraTrees*``,
    LightGBM's ``boosting='rf'``): no boosting, the trees are grown independently and
    their predictions averaged. Each tree's leaves are stored already divided by the
    number of trees, so the margin is still base + Σ values. A classifier's margins are
    the class probabilities themselves (the mean of the trees' class fractions); one
    margin, the positive class's, for two classes. teachgbt reads forests."""

    name = "forest:mean"
    link = "mean of trees"
    trainable = False

    def __init__(self, n_outputs=1, is_classification=False):
        super().__init__(n_outputs)
        self.is_classification = bool(is_classification)

    def __repr__(self):
        return f"Forest(n_outputs={self.n_outputs}, is_classification={self.is_classification})"


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
    link = "softmax"
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


#: the objectives teachgbt trains, by XGBoost's names
TRAINABLE = (
    "reg:squarederror",
    "reg:squaredlogerror",
    "reg:pseudohubererror",
    "reg:absoluteerror",
    "reg:quantileerror",
    "count:poisson",
    "reg:gamma",
    "reg:tweedie",
    "binary:logistic",
    "binary:logitraw",
    "binary:hinge",
    "multi:softprob",
)
_RANKING = ("rank:pairwise", "rank:ndcg", "rank:map", "lightgbm:lambdarank", "lightgbm:rank_xendcg")
#: every objective name a model may carry: the trainable ones and those teachgbt only reads
OBJECTIVES = (
    TRAINABLE
    + ("survival:cox",)
    + _RANKING
    + tuple(LibraryLoss._LINKS)
    + (
        "lightgbm:multiclassova",
        "forest:mean",
    )
)


def _single(objective, is_classifier, params):
    """The loss of a one-margin objective name, with its parameters."""
    alpha = params.get("quantile_alpha")
    make = {
        "reg:squarederror": SquaredError,
        "reg:squaredlogerror": SquaredLogError,
        "reg:pseudohubererror": lambda: PseudoHuber(params.get("huber_slope", 1.0)),
        "reg:absoluteerror": AbsoluteError,
        "reg:quantileerror": lambda: Quantile(_needed(alpha, "quantile_alpha", objective)),
        "count:poisson": lambda: Poisson(
            _default(params.get("max_delta_step"), POISSON_MAX_DELTA_STEP)
        ),
        "reg:gamma": Gamma,
        "reg:tweedie": lambda: Tweedie(params.get("tweedie_variance_power", 1.5)),
        "binary:logistic": Logistic,
        "binary:logitraw": LogitRaw,
        "binary:hinge": Hinge,
        "survival:cox": Cox,
        "forest:mean": lambda: Forest(1, is_classifier),
    }
    if objective in make:
        return make[objective]()
    if objective in _RANKING:
        return Ranking(objective)
    if objective in LibraryLoss._LINKS:
        return LibraryLoss(objective, is_classifier)
    raise ValueError(
        f"objective={objective!r} is not known; use one of {list(TRAINABLE)} or a callable "
        "(y, margin) -> (g, h)"
    )


def _default(value, default):
    return default if value is None else value


def _needed(value, name, objective):
    if value is None:
        raise ValueError(f"objective={objective!r} needs {name} (XGBoost has no default for it)")
    return value


def get_loss(objective, is_classifier, n_classes=2, **params):
    """Resolve ``objective`` (None, a name or a callable) to a Loss; a classifier of
    ``n_classes`` ≥ 3 classes gets ``Softmax`` (or the K-margin loss it names).
    ``params``: the objective's parameters by XGBoost's names (``huber_slope``,
    ``quantile_alpha``, ``tweedie_variance_power``, ``max_delta_step``), None for unset."""
    if isinstance(objective, Loss):
        return objective
    multi = {"lightgbm:multiclassova": OneVsAll, "forest:mean": Forest}
    if is_classifier and n_classes >= 3 and objective in multi:
        loss = multi[objective](n_classes)
        loss.is_classification = True
        return loss
    if is_classifier and (n_classes >= 3 or (n_classes == 2 and objective == "multi:softprob")):
        if objective not in (None, "multi:softprob"):
            raise ValueError(
                f"{n_classes} classes need objective=None or 'multi:softprob' (softmax); "
                f"got {objective!r}"
            )
        return Softmax(n_classes)
    if objective is None:
        return Logistic() if is_classifier else SquaredError()
    if isinstance(objective, str):
        return _single(objective, is_classifier, params)
    return CustomObjective(objective)
