"""``train(params, X, y) -> Model``: the boosting loop with everything around it, as
``xgboost.train(params, dtrain) -> Booster``.

    ŷ_i^(0) = base margin
    ŷ_i^(t) = ŷ_i^(t−1) + η·f_t(x_i)        t = 1 … n_estimators

``TrainParams`` holds the training parameters by XGBoost's names (plain values, no
estimator), declared once: the estimators take them as their own. ``boost`` is the one
loop: it resolves the parameters to a loss and an algorithm, draws each tree's sample,
has a backend grow each round's trees, calls the hooks after every round (eval sets,
early stopping, the caller's callbacks, the progress bar: ``engine.callbacks``) and
returns the fitted ``teachgbt.core.model.Model``, with its trace when asked to keep one.

The backend holds the training rows and finds the splits: ``LocalRows`` on this
machine, with the exact or the histogram split finder (``boosting.TREE_METHODS``);
``teachgbt.dask`` passes one whose rows live on a Dask cluster and whose histograms are
summed there. ``train(params, X, y)`` is ``boost`` over ``LocalRows``. The estimators are
thin adapters over it, as XGBoost's ``XGBModel`` is over ``xgboost.train``.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

import numpy as np

from ..core.losses import TRAINABLE, get_loss
from ..core.model import FITTED_HERE, Model
from ..utils import check_finite_params, check_nonneg, kernels
from .boosting import (
    TREE_METHODS,
    RoundSampler,
    XGBoostAlgorithm,
    boost_round,
)
from .callbacks import EarlyStopping, EvalSets, progress_bar
from .categorical import check_codes
from .gbdt import GBDTAlgorithm
from .grow import GrowParams
from .trace import Trace, digest_later

__all__ = [
    "TrainParams",
    "ALGORITHMS",
    "LocalRows",
    "boost",
    "train",
    "model_from_trees",
    "make_loss",
]

# the algorithms by name; the tree methods are ``boosting.TREE_METHODS``
ALGORITHMS = {"xgboost": XGBoostAlgorithm, "gbdt": GBDTAlgorithm}


@dataclass(frozen=True)
class TrainParams:
    """Training parameters by XGBoost's names; None picks the algorithm's default
    (see ``BoostingClassifier`` for each one's meaning). ``n_estimators`` is XGBoost's
    ``num_boost_round``."""

    algorithm: str = "xgboost"
    tree_method: str = "exact"
    n_estimators: int = 100
    learning_rate: float | None = None
    max_depth: int | None = 6
    max_leaves: int | None = None
    reg_lambda: float | None = None
    reg_alpha: float = 0.0
    gamma: float = 0.0
    min_child_weight: float | None = None
    max_delta_step: float | None = None
    pruning: str | None = None
    base_score: object = None
    objective: object = None
    huber_slope: float = 1.0
    quantile_alpha: float | None = None
    tweedie_variance_power: float = 1.5
    max_bin: int = 256
    subsample: float = 1.0
    colsample_bytree: float = 1.0
    random_state: object = None
    early_stopping_rounds: int | None = None
    n_jobs: int | None = None  # threads of the compiled kernels, scikit-learn's meaning
    # categorical features (pandas category columns) split into sets, as XGBoost's
    enable_categorical: bool = False
    max_cat_to_onehot: int = 4
    max_cat_threshold: int = 64

    @classmethod
    def defaults(cls):
        """``{name: default}`` of every parameter, in order: the one declaration the
        estimators' constructors are made from."""
        return {f.name: f.default for f in dataclasses.fields(cls)}

    @classmethod
    def of(cls, params):
        """``params`` as TrainParams: one already, or a dict of XGBoost names (checked)."""
        if isinstance(params, cls):
            return params.check()
        if not isinstance(params, dict):
            raise TypeError(f"params must be a TrainParams or a dict; got {type(params).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(f"unknown training parameters {unknown}; known: {sorted(known)}")
        return cls(**params).check()

    def check(self):
        """Raise ValueError naming the first parameter out of range; return self."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm={self.algorithm!r}; use one of {tuple(ALGORITHMS)}")
        if self.tree_method not in TREE_METHODS:
            raise ValueError(f"tree_method={self.tree_method!r}; use one of {tuple(TREE_METHODS)}")
        if self.pruning not in (None, "pre", "post"):
            raise ValueError(f"pruning={self.pruning!r}; use 'pre', 'post' or None")
        if not _whole(self.n_estimators) or self.n_estimators < 0:
            raise ValueError(f"n_estimators must be a whole number >= 0; got {self.n_estimators!r}")
        for name in ("reg_lambda", "reg_alpha", "gamma", "min_child_weight", "max_delta_step"):
            value = getattr(self, name)
            if value is not None:
                check_nonneg(name, value)
        lr = self.learning_rate
        if lr is not None and (not isinstance(lr, numbers.Real) or not lr > 0):
            raise ValueError(f"learning_rate must be > 0; got {lr!r}")
        check_finite_params({"learning_rate": lr, "base_score": self.base_score})
        check_finite_params({"huber_slope": self.huber_slope})
        md, ml = self.max_depth, self.max_leaves
        if md is not None and (not _whole(md) or md < 0):
            raise ValueError(
                f"max_depth must be a whole number >= 0 (0: no depth limit); got {md!r}"
            )
        if ml is not None and (not _whole(ml) or ml < 0 or ml == 1):
            raise ValueError(
                f"max_leaves must be a whole number >= 2 (or 0/None: no limit); got {ml!r}"
            )
        if md is None and not ml:
            raise ValueError(
                "neither max_depth nor max_leaves bounds the trees. Set max_depth (e.g. 6), "
                "max_leaves (best-first growth), or ask for unbounded trees explicitly with "
                "max_depth=0"
            )
        for name in ("subsample", "colsample_bytree"):
            value = getattr(self, name)
            if not isinstance(value, numbers.Real) or not 0 < value <= 1:
                raise ValueError(f"{name} must be in (0, 1]; got {value!r}")
        if not _whole(self.max_bin) or not 2 <= self.max_bin <= 65535:
            raise ValueError(f"max_bin must be a whole number in 2..65535; got {self.max_bin!r}")
        esr = self.early_stopping_rounds
        if esr is not None and (not _whole(esr) or esr < 1):
            raise ValueError(f"early_stopping_rounds must be a whole number >= 1; got {esr!r}")
        kernels.check_n_jobs(self.n_jobs)
        for name in ("max_cat_to_onehot", "max_cat_threshold"):
            value = getattr(self, name)
            if not _whole(value) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1; got {value!r}")
        return self

    def check_categorical(self, categories):
        """Refuse, in one line, what cannot split categories into sets: only XGBoost's
        algorithm on the hist trainer does (XGBoost's exact trainer refuses them too)."""
        if not categories:
            return
        if self.tree_method != "hist" or self.algorithm != "xgboost":
            raise ValueError(
                "categorical features are split into sets by tree_method='hist' with "
                f"algorithm='xgboost' only (got tree_method={self.tree_method!r}, "
                f"algorithm={self.algorithm!r}); use those, or one-hot encode the categories"
            )

    def objective_params(self):
        """The objective's own parameters, by XGBoost's names (``get_loss`` takes them)."""
        return dict(
            huber_slope=self.huber_slope,
            quantile_alpha=self.quantile_alpha,
            tweedie_variance_power=self.tweedie_variance_power,
            max_delta_step=self.max_delta_step,
        )

    def grow_params(self, loss=None):
        """The GrowParams trees are grown with: every None resolved to its default (an
        unset ``max_delta_step`` to the one ``loss`` implies: 0.7 for count:poisson)."""
        gbdt = self.algorithm == "gbdt"
        implied = 0.0 if loss is None else loss.default_max_delta_step
        return GrowParams(
            max_depth=0 if self.max_depth is None else int(self.max_depth),
            max_leaves=int(self.max_leaves or 0),
            reg_lambda=float(_default(self.reg_lambda, 0.0 if gbdt else 1.0)),
            reg_alpha=float(self.reg_alpha or 0.0),
            gamma=float(self.gamma or 0.0),
            min_child_weight=float(_default(self.min_child_weight, 0.0 if gbdt else 1.0)),
            max_delta_step=float(_default(self.max_delta_step, implied)),
            learning_rate=float(_default(self.learning_rate, 0.1 if gbdt else 0.3)),
            pruning=self.pruning or ("pre" if self.tree_method == "hist" else "post"),
            float32=not gbdt,
            max_cat_to_onehot=int(self.max_cat_to_onehot),
            max_cat_threshold=int(self.max_cat_threshold),
        )


def _whole(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _default(value, default):
    return default if value is None else value


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check_gain_range(rows, model, algorithm):
    """Refuse a squared-error target whose split gains would overflow float32, the
    precision XGBoost's kind of tree compares gains in (a gain NaN, no split to choose).
    A side's score G²/(H + λ) is at most Σ w·r² over its rows (Cauchy–Schwarz, with h = w),
    r the residual from the base margin, so 2·Σ w·r² bounds every gain of the first tree.
    ``rows``: the local backend (a cluster's rows are not all here to sum)."""
    y = getattr(rows, "y", None)
    if y is None or model.loss.name != "reg:squarederror" or algorithm.name != "xgboost":
        return
    w = 1.0 if rows.sample_weight is None else np.asarray(rows.sample_weight, dtype=np.float64)
    with np.errstate(over="ignore"):
        bound = 2.0 * float(np.sum(w * (np.asarray(y, dtype=np.float64) - model.base_margin) ** 2))
    if not bound <= _FLOAT32_MAX:
        top = float(np.max(np.abs(y)))
        raise ValueError(
            f"y reaches {top:.3g}: the gains of splits on it (up to {bound:.3g}) overflow "
            "float32, the precision XGBoost's trees compare gains in. Rescale the target "
            "(e.g. divide it by a power of ten) and scale the predictions back"
        )


def make_loss(objective, classes, **objective_params):
    """The loss of ``objective`` for a classifier of ``classes`` (None: a regressor), with
    its parameters (``TrainParams.objective_params``)."""
    is_classifier = classes is not None
    n_classes = 0 if classes is None else len(classes)
    loss = get_loss(objective, is_classifier, n_classes, **objective_params)
    if is_classifier and not loss.is_classification and isinstance(objective, str):
        raise ValueError(f"objective={objective!r} is not a classification objective")
    return loss


def _algorithm(params, loss, is_classifier):
    if params.algorithm == "gbdt":
        return GBDTAlgorithm(loss, params.grow_params(loss), is_classifier=is_classifier)
    return XGBoostAlgorithm(loss, params.grow_params(loss))


def _model(
    params, trees, base_score, loss, algorithm, n_features, feature_names, classes, categories
):
    return Model(
        trees,
        base_score,
        loss,
        n_features=n_features,
        feature_names=feature_names,
        classes=classes,
        params=algorithm.params,
        algorithm=params.algorithm,
        margin_dtype=algorithm.dtype,
        categories=categories,
    )


class LocalRows:
    """The training rows on this machine, the backend ``boost`` grows trees on: X32, y, the
    weights, what the tree method's split finder scans, and the margins ŷ^(t).

    Every backend has these methods (``teachgbt.dask`` has one for a cluster's rows):
    ``base_score(algorithm)`` the estimate from the rows; ``start(model, algorithm, trees)``
    before round 1; ``draw(sampler)`` one tree's sample; ``grow_round(algorithm,
    samples, feature_names)`` one round's trees, margins moved on; ``settle()`` the
    round's trees complete before anyone reads them; ``finish()`` after the last round,
    what only growing needed let go; ``eval_sets(evals, model)`` the
    hook scoring eval sets; ``train_score(loss)`` the progress bar's closing score (or
    None); ``trace(model, algorithm, samples)`` the fit's trace. ``origin``: what the
    model says it was.
    """

    origin = FITTED_HERE

    def __init__(self, X32, y, sample_weight=None, tree_method="exact", max_bin=256):
        self.X32, self.y, self.sample_weight = X32, y, sample_weight
        self.tree_method = TREE_METHODS[tree_method]
        self.max_bin = max_bin
        self.n_rows, self.n_features = X32.shape
        self.data = self.margin = self._digest = None

    def base_score(self, algorithm):
        return algorithm.default_base_score(self.y, self.sample_weight)

    def start(self, model, algorithm, trees=1):
        categorical = sorted(model.categories or ())
        check_codes(self.X32, categorical, model.feature_names)  # before any binning
        self._digest = digest_later(self.X32)  # (for the trace; beside the binning)
        self.data = self.tree_method.prepare(self.X32, self.max_bin, categorical, trees)
        self.margin = algorithm.initial_margin(model.base_margin, self.n_rows)  # ŷ^(0)

    def draw(self, sampler):
        return dict(zip(("rows", "features"), sampler.draw(self.n_rows, self.n_features)))

    def grow_round(self, algorithm, samples, feature_names):
        trees, self.margin = boost_round(
            self.tree_method,
            self.data,
            algorithm,
            self.X32,
            self.y,
            self.sample_weight,
            self.margin,
            samples,
            feature_names,
        )
        return trees

    def settle(self):
        pass  # a local round is complete when grow_round returns

    def finish(self):
        """The fit is over: the row arrays kept between its trees are let go (the binned
        data stays, for the trace)."""
        if getattr(self.data, "row_space", None) is not None:
            self.data.row_space = None

    def eval_sets(self, evals, model):
        return EvalSets(evals, model)

    def train_score(self, loss):
        # the bar's closing line reads the train score at the last round's margin
        return lambda: (loss.metric_name, loss.metric(self.y, self.margin, self.sample_weight))

    def trace(self, model, algorithm, samples):
        return Trace(
            model,
            self.X32,
            self.y,
            self.sample_weight,
            algorithm,
            self.tree_method,
            self.data,
            samples,
            digest=self._digest,
        )


def train(params, X32, y, sample_weight=None, **options):
    """Grow ``params.n_estimators`` rounds of trees on X32, y; return the fitted ``Model``.

    ``params``: ``TrainParams`` or a dict of XGBoost names. ``X32``: (n, d) float32
    features (NaN = missing). ``y``: (n,) float64 target; for a classifier the class
    indices 0 … K−1 of ``classes`` (its labels, sorted; None trains a regressor).
    ``sample_weight``: (n,) or None. ``options``: ``boost``'s (``classes``,
    ``feature_names``, ``evals`` as (X32, y) pairs, ``callbacks``, ``verbose``,
    ``keep_trace``, ``categories``).
    """
    params = TrainParams.of(params)
    rows = LocalRows(X32, y, sample_weight, params.tree_method, params.max_bin)
    with kernels.threads(params.n_jobs):  # this machine's kernels, this many threads
        return boost(params, rows, **options)


def boost(
    params,
    rows,
    *,
    classes=None,
    feature_names=None,
    evals=(),
    callbacks=(),
    verbose=None,
    keep_trace=True,
    categories=None,
):
    """The boosting loop: ``params.n_estimators`` rounds grown by ``rows`` (a backend, see
    ``LocalRows``); returns the fitted ``Model``.

    ``classes``: a classifier's labels (sorted; None trains a regressor). ``evals``: eval
    sets as the backend takes them (``LocalRows``: (X32, y) pairs), scored after every
    round (``model.evals_result``; early stopping watches the last). ``callbacks``: hooks
    ``hook(t, model)`` called after every round t with the model trained so far; training
    stops after a round where one returns True. ``verbose``: the progress bar (None: on
    a terminal). ``keep_trace``: attach the backend's trace (it keeps the training data).
    ``categories``: ``{feature: its categories}`` for the categorical features, whose
    columns of the rows hold category codes (``engine.categorical``; hist only).
    """
    params = TrainParams.of(params)
    params.check_categorical(categories)
    loss = make_loss(params.objective, classes, **params.objective_params())
    if not loss.trainable:
        raise ValueError(
            f"objective={loss.name!r} is one teachgbt reads in imported models, not one it "
            f"trains with; train with one of {', '.join(TRAINABLE)}"
        )
    algorithm = _algorithm(params, loss, classes is not None)
    if params.early_stopping_rounds is not None and not evals:
        raise ValueError(
            "early_stopping_rounds needs an eval_set to watch; pass "
            "fit(..., eval_set=[(X_val, y_val)])"
        )
    if params.base_score is None:  # XGBoost's estimate (the weighted mean of y, mostly)
        base_score = rows.base_score(algorithm)
    else:
        base_score = loss.check_base_score(params.base_score)
    d = rows.n_features
    model = _model(params, [], base_score, loss, algorithm, d, feature_names, classes, categories)
    model.origin = rows.origin
    _check_gain_range(rows, model, algorithm)
    rows.start(model, algorithm, trees=params.n_estimators * algorithm.n_outputs)

    # after every round: eval sets, early stopping, the caller's callbacks, progress
    eval_sets = rows.eval_sets(evals, model)
    model.evals_result = eval_sets.results
    early_stopping = None
    if params.early_stopping_rounds is not None:
        early_stopping = EarlyStopping(eval_sets, params.early_stopping_rounds)
    progress = progress_bar(params.n_estimators, verbose, metric=rows.train_score(loss))
    hooks = [h for h in (eval_sets, early_stopping, *callbacks, progress) if h is not None]
    read_each_round = bool(evals) or bool(callbacks)  # a hook reads the trees as they come

    sampler = RoundSampler(params.subsample, params.colsample_bytree, params.random_state)
    samples = []  # per tree: its sample (rows, features), for the trace
    try:
        for t in range(1, params.n_estimators + 1):
            round_samples = [rows.draw(sampler) for _ in range(algorithm.n_outputs)]
            model.add_round(rows.grow_round(algorithm, round_samples, feature_names))
            samples.extend(round_samples)
            if read_each_round:
                rows.settle()
            stops = [hook(t, model) for hook in hooks]
            if any(stop is True for stop in stops):
                break
        rows.settle()
        rows.finish()
    except KeyboardInterrupt:
        kernels.stop_compiling()  # a background compile stops with the fit
        raise
    finally:
        progress.close()
    if early_stopping is not None:
        model.best_iteration = early_stopping.best_iteration
    if keep_trace:
        model.trace = rows.trace(model, algorithm, samples)
    return model


def model_from_trees(
    trees,
    params,
    *,
    base_score=None,
    classes=None,
    n_features,
    feature_names=None,
    best_iteration=None,
    origin,
    categories=None,
):
    """A ``Model`` of trees grown elsewhere (a file, another library): the same loss,
    effective parameters and margin precision ``train`` would give them. ``base_score``
    None starts the margin at 0; ``categories``: the categorical features' categories."""
    params = TrainParams.of(params)
    loss = make_loss(params.objective, classes, **params.objective_params())
    if base_score is None:  # the base score whose margin is 0 (0.5 for log-odds, 1 for log)
        base_score = float(loss.transform(0.0)) if loss.n_outputs == 1 else 0.0
    base_score = loss.check_base_score(base_score)
    algorithm = _algorithm(params, loss, classes is not None)
    model = _model(
        params, trees, base_score, loss, algorithm, n_features, feature_names, classes, categories
    )
    model.best_iteration = best_iteration
    model.origin = origin
    return model
