"""BoostingClassifier and BoostingRegressor: scikit-learn adapters over the boosting loop.

They follow XGBoost's scikit-learn API for names and meanings, so that what a
learner practises here carries over, and they are as thin over
``engine.boosting.train`` as XGBoost's ``XGBModel`` is over ``xgboost.train``:
``fit`` checks the parameters, validates X, y and the weights, encodes the
labels, sets up the hooks that run around the loop (eval sets, early stopping,
callbacks, progress bar), calls ``train`` and stores the fitted attributes.
``from_trees`` makes a fitted model from trees without training (``tg.load``
and the importers of other libraries' models use it).

scikit-learn is optional (``_sklearn_base``): with it the estimators work with
``clone``, ``cross_val_score`` and pipelines.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from . import _modelfile
from . import _validation as V
from ._sklearn_base import BaseEstimator as _Base
from ._sklearn_base import ClassifierMixin as _ClassifierMixin
from ._sklearn_base import RegressorMixin as _RegressorMixin
from .engine.boosting import (
    TREE_METHODS,
    RoundSampler,
    XGBoostAlgorithm,
    resolve_grow_params,
    train,
)
from .engine.callbacks import EarlyStopping, EvalSets, progress_bar
from .engine.gbdt import GBDTAlgorithm
from .engine.trace import Trace
from .losses import get_loss
from .tree import Tree, add_tree_values

__all__ = ["BoostingClassifier", "BoostingRegressor"]


def _expected_failed_checks(estimator):
    """``{check name: reason}``: where teachgbt differs from scikit-learn's estimator checks
    on purpose. The one place these are declared; the tests pass it to
    ``check_estimator(..., expected_failed_checks=...)``."""
    expected = {
        "check_sample_weight_equivalence_on_dense_data": (
            "a row of weight 0 still places thresholds, as in XGBoost: exact thresholds are "
            "midpoints between neighbouring distinct values and hist cut points come from the "
            "rows, so dropping such a row moves them (a weight of 2 and a repeated row agree)"
        ),
    }
    if estimator.algorithm == "xgboost" and estimator.tree_method == "exact":
        if not getattr(estimator, "_is_classifier", False):
            del expected["check_sample_weight_equivalence_on_dense_data"]  # it passes here
    if not getattr(estimator, "_is_classifier", False):
        expected["check_regressors_no_decision_function"] = (
            "decision_function is the margin before the link (XGBoost's output_margin); the "
            "lessons read it on regressors too, where it equals predict for squared error"
        )
    return expected


# the algorithms by name; the tree methods are ``engine.boosting.TREE_METHODS``
_ALGORITHMS = {"xgboost": XGBoostAlgorithm, "gbdt": GBDTAlgorithm}
_EDGE_PROBABILITY = 1e-6  # an estimated base_score is kept this far from 0 and 1

_PARAMETERS = """
    Parameters
    ----------
    XGBoost's names and meanings; ``None`` picks the algorithm's default.

    algorithm : "xgboost" (second-order, regularized; seeds 000-003) or "gbdt"
        (Friedman's GBDT, as scikit-learn's GradientBoosting*; seed 004).
    tree_method : "exact" (sorted scan of every value, full trace) or "hist"
        (binned features, for full-size data).
    n_estimators, learning_rate (η; None: 0.3 xgboost, 0.1 gbdt), max_depth (0: no
        limit), max_leaves (best-first growth to this many leaves).
    reg_lambda : λ, the L2 penalty on leaf weights in w* = −G/(H+λ) (None: 1 xgboost,
        0 gbdt). reg_alpha : α, the L1 penalty. max_delta_step : clip on |w*|.
    gamma : XGBoost's gamma (min_split_loss): a split stays when its ``loss_chg``
        = G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ) (no ½) is at least ``gamma``. Seed
        000's γ is ``gamma / 2``; seed 002's (whose square loss doubles g, h and λ)
        is ``gamma``. The ``gain`` of every split is seed 000's gain for this gamma,
        ½(loss_chg − gamma), so its sign says what gamma decided: pre-stopping
        never keeps a split with gain < 0; post-pruning removes, bottom up, a split
        whose children are leaves when its gain is < 0.
    min_child_weight : smallest H a child may have (None: 1 xgboost, 0 gbdt).
    pruning : "post" (grow, then prune bottom up, as XGBoost exact) or "pre" (stop
        before a split, as XGBoost hist); None picks by tree_method.
    base_score : the starting prediction (a probability for two classes, K margins
        for K >= 3); None: estimated as XGBoost >= 2 does.
    objective : "reg:squarederror", "binary:logistic", "multi:softprob" (chosen for
        K >= 3 classes) or a callable ``(y, margin) -> (g, h)``.
    max_bin, subsample, colsample_bytree, random_state, early_stopping_rounds,
    callbacks, verbose : as in XGBoost (sampling uses numpy's generator).
"""


class _Boosting(_Base):
    _is_classifier = False

    def __init__(
        self,
        algorithm="xgboost",
        tree_method="exact",
        n_estimators=100,
        learning_rate=None,
        max_depth=6,
        max_leaves=None,
        reg_lambda=None,
        reg_alpha=0.0,
        gamma=0.0,
        min_child_weight=None,
        max_delta_step=0.0,
        pruning=None,
        base_score=None,
        objective=None,
        max_bin=256,
        subsample=1.0,
        colsample_bytree=1.0,
        random_state=None,
        early_stopping_rounds=None,
        callbacks=None,
        verbose=None,
    ):
        self.algorithm = algorithm
        self.tree_method = tree_method
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.max_leaves = max_leaves
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_delta_step = max_delta_step
        self.pruning = pruning
        self.base_score = base_score
        self.objective = objective
        self.max_bin = max_bin
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.random_state = random_state
        self.early_stopping_rounds = early_stopping_rounds
        self.callbacks = callbacks
        self.verbose = verbose

    # ------------------------------------------------------------ checks
    def _check_params(self):
        if self.algorithm not in _ALGORITHMS:
            raise ValueError(f"algorithm={self.algorithm!r}; use one of {tuple(_ALGORITHMS)}")
        if self.tree_method not in TREE_METHODS:
            raise ValueError(f"tree_method={self.tree_method!r}; use one of {tuple(TREE_METHODS)}")
        if self.pruning not in (None, "pre", "post"):
            raise ValueError(f"pruning={self.pruning!r}; use 'pre', 'post' or None")
        if not isinstance(self.n_estimators, numbers.Integral) or self.n_estimators < 0:
            raise ValueError(f"n_estimators must be a whole number >= 0; got {self.n_estimators!r}")
        for name in ("reg_lambda", "reg_alpha", "gamma", "min_child_weight", "max_delta_step"):
            value = getattr(self, name)
            if value is not None:
                V.check_nonneg(name, value)
        lr = self.learning_rate
        if lr is not None and (not isinstance(lr, numbers.Real) or not lr > 0):
            raise ValueError(f"learning_rate must be > 0; got {lr!r}")
        V.check_finite_params({"learning_rate": lr, "base_score": self.base_score})
        md, ml = self.max_depth, self.max_leaves
        if md is not None and (not isinstance(md, numbers.Integral) or md < 0):
            raise ValueError(
                f"max_depth must be a whole number >= 0 (0: no depth limit); got {md!r}"
            )
        if ml is not None and (not isinstance(ml, numbers.Integral) or ml < 0 or ml == 1):
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
        if not isinstance(self.max_bin, numbers.Integral) or not 2 <= self.max_bin <= 65535:
            raise ValueError(f"max_bin must be a whole number in 2..65535; got {self.max_bin!r}")
        esr = self.early_stopping_rounds
        if esr is not None and (not isinstance(esr, numbers.Integral) or esr < 1):
            raise ValueError(f"early_stopping_rounds must be a whole number >= 1; got {esr!r}")

    def _validate_X_predict(self, X, what="X"):
        V.check_is_fitted(self)
        if isinstance(X, pd.DataFrame) and getattr(self, "feature_names_in_", None) is not None:
            names = [str(c) for c in X.columns]
            expected = [str(c) for c in self.feature_names_in_]
            if names != expected:
                missing = [c for c in expected if c not in names]
                extra = [c for c in names if c not in expected]
                if missing or extra:
                    raise ValueError(
                        f"{what} has other feature names than the model was fitted with: "
                        f"missing {missing}, unexpected {extra}"
                    )
                X = X[[c for c in X.columns if str(c) in expected]]
                X = X[sorted(X.columns, key=lambda c: expected.index(str(c)))]
        X32, _ = V.check_X(X, what)
        if X32.shape[1] != self.n_features_in_:
            raise ValueError(
                f"{what} has {X32.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input (it was fitted with "
                f"{self.n_features_in_})"
            )
        return X32

    def _loss(self, n_classes=2):
        loss = get_loss(self.objective, self._is_classifier, n_classes)
        if self._is_classifier and not loss.is_classification and isinstance(self.objective, str):
            raise ValueError(f"objective={self.objective!r} is not a classification objective")
        return loss

    def _make_algorithm(self, loss, params):
        if self.algorithm == "gbdt":
            return GBDTAlgorithm(loss, params, is_classifier=self._is_classifier)
        return XGBoostAlgorithm(loss, params)

    def _set_fitted(self, n_features, feature_names, base_score, loss, params):
        """The fitted attributes that ``fit`` and ``from_trees`` share (not the trees)."""
        self.n_features_in_ = int(n_features)
        if feature_names is not None:
            self.feature_names_in_ = np.asarray(feature_names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.base_score_ = base_score  # a number; with K >= 3 classes K margins
        self.base_margin_ = loss.base_margin(base_score)
        self.loss_ = loss
        self.params_ = params  # the GrowParams the trees are (or would be) grown with

    # ------------------------------------------------------------ fitting
    def _prepare_y(self, y, n):
        return V.check_y_numeric(y, n)

    def fit(self, X, y, sample_weight=None, eval_set=None, verbose=None):
        """Grow ``n_estimators`` trees on X, y. Returns self.

        ``eval_set``: a list of (X, y) pairs scored after every round
        (``evals_result_``); with ``early_stopping_rounds`` training stops
        when the last pair's loss has not improved for that many rounds.
        """
        self._check_params()
        V.check_y_present(y, self)
        X32, names = V.check_X(X)
        n, d = X32.shape
        y_train = self._prepare_y(y, n)  # a classifier's labels as class indices (0/1 if two)
        sample_weight = V.check_sample_weight(sample_weight, n)
        loss = self._loss(len(getattr(self, "classes_", ())))
        algorithm = self._make_algorithm(loss, resolve_grow_params(self, self.algorithm))
        evals = V.check_eval_set(eval_set, d, names, self._prepare_eval_y)
        if self.early_stopping_rounds is not None and not evals:
            raise ValueError(
                "early_stopping_rounds needs an eval_set to watch; pass "
                "fit(..., eval_set=[(X_val, y_val)])"
            )
        if self.base_score is None:  # XGBoost's estimate: the weighted mean of y
            base_score = algorithm.default_base_score(y_train, sample_weight)
            if loss.is_classification and loss.n_outputs == 1:
                base_score = min(max(base_score, _EDGE_PROBABILITY), 1 - _EDGE_PROBABILITY)
        else:
            base_score = loss.check_base_score(self.base_score)
        self._set_fitted(d, names, base_score, loss, algorithm.params)

        # around the loop, after every round: eval sets, early stopping, callbacks, progress
        eval_sets = EvalSets(evals, algorithm, self.base_margin_)
        early_stopping = None
        if self.early_stopping_rounds is not None:
            early_stopping = EarlyStopping(eval_sets, self.early_stopping_rounds)
        progress = progress_bar(self.n_estimators, verbose if verbose is not None else self.verbose)
        hooks = [eval_sets, early_stopping, self._run_callbacks, progress]
        self.evals_result_ = eval_sets.results
        self.best_iteration_ = None
        try:
            booster = train(
                X32,
                y_train,
                algorithm,
                TREE_METHODS[self.tree_method],
                self.n_estimators,
                self.base_margin_,
                sample_weight,
                feature_names=names,
                max_bin=self.max_bin,
                sampler=RoundSampler(self.subsample, self.colsample_bytree, self.random_state),
                after_round=[hook for hook in hooks if hook is not None],
            )
            self.trees_ = booster.trees
            if early_stopping is not None:
                self.best_iteration_ = early_stopping.best_iteration
            self._trace = Trace(self, X32, y_train, sample_weight, booster, algorithm)
        except BaseException:
            # a failed fit leaves no half-fitted model behind
            for attr in ("trees_", "_trace", "evals_result_", "best_iteration_"):
                self.__dict__.pop(attr, None)
            raise
        finally:
            progress.close()
        return self

    def _run_callbacks(self, t, booster):
        """The user's ``callbacks``: each is called as ``cb(model, t)``; True stops training."""
        self.trees_ = booster.trees  # the model as trained so far
        stops = [cb(self, t) for cb in self.callbacks or ()]
        return any(stop is True for stop in stops)

    def _prepare_eval_y(self, y, n, k):
        return V.check_y_numeric(y, n, f"eval_set[{k}] y")

    # ------------------------------------------------------------ a model from trees
    @classmethod
    def from_trees(
        cls,
        trees,
        base_score=None,
        feature_names=None,
        classes=None,
        n_features=None,
        best_iteration=None,
        **params,
    ):
        """A fitted model made of ``trees``: the way to build one without ``fit``.

        ``trees``: ``tg.Tree`` objects in boosting order, their leaf ``value`` already
        η·w* (what a leaf adds to the margin); with K ≥ 3 classes XGBoost's order, round
        by round, one tree per class. ``base_score``: the fitted base score in
        prediction space (a probability for a binary classifier, its logit is the starting
        margin; with K ≥ 3 classes the K starting margins, as XGBoost); None starts the
        margin at 0. ``feature_names`` (default: the trees'),
        ``classes`` (a classifier's labels, default [0, 1]), ``n_features`` (default:
        the trees'), ``best_iteration`` (0-based; prediction stops there), and any
        constructor parameter in ``params``. ``tg.load`` builds models with it, and so do
        the importers of other libraries' models. The model has no ``trace_``: that
        needs the training data.
        """
        model = cls(**params)
        model._check_params()
        trees = list(trees)
        bad = [type(tree).__name__ for tree in trees if not isinstance(tree, Tree)]
        if bad:
            raise TypeError(f"from_trees needs teachgbt Tree objects; got {bad[0]}")
        if n_features is None:
            if not trees:
                raise ValueError("from_trees needs n_features when there are no trees")
            n_features = trees[0].n_features
        if any(tree.n_features != n_features for tree in trees):
            raise ValueError(f"every tree must have the model's {n_features} features")
        if feature_names is None and trees:
            feature_names = trees[0].feature_names
        if feature_names is not None and len(feature_names) != n_features:
            raise ValueError(
                f"{len(feature_names)} feature names for a model of {n_features} features"
            )
        n_classes = 0
        if model._is_classifier:
            model.classes_ = np.asarray([0, 1] if classes is None else classes)
            n_classes = len(model.classes_)
            if n_classes < 2:
                raise ValueError(f"a classifier has at least two classes; got {n_classes}")
        elif classes is not None:
            raise ValueError("a regressor has no classes")
        loss = model._loss(n_classes)
        if len(trees) % loss.n_outputs:
            raise ValueError(
                f"{n_classes} classes need one tree per class in every round; "
                f"{len(trees)} trees are not whole rounds of {n_classes}"
            )
        for i, tree in enumerate(trees):  # XGBoost's order: round by round, class by class
            if tree.round is None:
                tree.round = i // loss.n_outputs + 1
            if tree.class_ is None and loss.n_outputs > 1:
                tree.class_ = i % loss.n_outputs
        if base_score is None:  # the base score whose margin is 0
            base_score = 0.5 if loss.n_outputs == 1 and loss.is_classification else 0.0
        base_score = loss.check_base_score(base_score)
        algorithm = model._make_algorithm(loss, resolve_grow_params(model, model.algorithm))
        model._set_fitted(n_features, feature_names, base_score, loss, algorithm.params)
        model.trees_ = trees
        model.evals_result_ = {}
        model.best_iteration_ = best_iteration
        return model

    # ------------------------------------------------------------ fitted model
    @property
    def trace_(self):
        """Every intermediate of the fit, as DataFrames (``tg.Trace``)."""
        V.check_is_fitted(self)
        if "_trace" not in self.__dict__:
            origin = self.__dict__.get("_origin", "made from trees (tg.load, from_trees)")
            raise AttributeError(
                f"this {type(self).__name__} was {origin}, not fitted here: it has no trace_, "
                "which needs the training data; its trees_ keep every node's statistics"
            )
        return self._trace

    def _n_trees(self, iteration_range):
        """Trees used to predict: ``iteration_range`` and ``best_iteration_`` count rounds,
        as XGBoost's do; a round has one tree per class."""
        per_round = self.loss_.n_outputs
        if iteration_range is not None:
            return int(iteration_range[1]) * per_round
        if self.best_iteration_ is not None:
            return (self.best_iteration_ + 1) * per_round
        return len(self.trees_)

    def decision_function(self, X, iteration_range=None):
        """The margin: base margin + Σ η·w of the leaves reached (log-odds for a binary
        classifier). With K ≥ 3 classes (n, K): class k's margin adds class k's trees."""
        X32 = self._validate_X_predict(X)
        dtype = _ALGORITHMS[self.algorithm].dtype  # the precision margins were trained in
        K = self.loss_.n_outputs
        if K == 1:
            margin = np.full(len(X32), self.base_margin_, dtype=dtype)
            margin = add_tree_values(self.trees_[: self._n_trees(iteration_range)], X32, margin)
            return margin.astype(np.float64)
        margin = np.tile(np.asarray(self.base_margin_, dtype=dtype), (len(X32), 1))  # (n, K)
        for i, tree in enumerate(self.trees_[: self._n_trees(iteration_range)]):
            k = i % K  # XGBoost's order: round by round, one tree per class
            margin[:, k] = (margin[:, k] + tree.predict(X32).astype(dtype)).astype(dtype)
        return margin.astype(np.float64)

    def save(self, path):
        """Write the fitted model to ``path`` as versioned JSON (read back with ``tg.load``)."""
        _modelfile.save(self, path)

    @property
    def feature_importances_(self):
        """Total gain (loss_chg) of each feature's splits, normalised to sum to 1."""
        V.check_is_fitted(self)
        imp = np.zeros(self.n_features_in_)
        for tree in self.trees_:
            split = ~tree.is_leaf
            np.add.at(imp, tree.feature[split], tree.loss_chg[split])
        total = imp.sum()
        return imp / total if total > 0 else imp

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class BoostingRegressor(_RegressorMixin, _Boosting):
    """Gradient boosted regression trees (squared error by default).

    ``algorithm="xgboost"`` is XGBoost's second-order, regularized boosting;
    ``algorithm="gbdt"`` is Friedman's GBDT (scikit-learn's
    GradientBoostingRegressor). See the package README for every parameter.
    """

    def predict(self, X, iteration_range=None):
        margin = self.decision_function(X, iteration_range)
        return self.loss_.transform(margin)


class BoostingClassifier(_ClassifierMixin, _Boosting):
    """Gradient boosted trees for classes: log-odds (cross entropy) for two classes,
    softmax with one tree per class per round for K ≥ 3 (XGBoost's ``multi:softprob``).

    Labels may be bools, whole numbers or strings; with two, ``classes_[1]`` is the
    positive class and ``decision_function`` gives its log-odds; with K ≥ 3 it gives
    (n, K) margins. ``predict_proba`` gives the probabilities of ``classes_``.
    """

    _is_classifier = True

    def _prepare_y(self, y, n):
        codes, classes = V.check_y_classes(y, n)
        self.classes_ = classes
        return codes

    def _prepare_eval_y(self, y, n, k):
        arr = np.asarray(y)
        unknown = ~np.isin(arr, self.classes_)
        if unknown.any():
            raise ValueError(
                f"eval_set[{k}] y has labels the training data does not: "
                f"{np.unique(arr[unknown]).tolist()}"
            )
        return np.searchsorted(self.classes_, arr).astype(np.float64)

    def predict_proba(self, X, iteration_range=None):
        margin = self.decision_function(X, iteration_range)
        prob = self.loss_.transform(margin)
        if prob.ndim == 2:  # softmax: (n, K) already
            return prob
        return np.column_stack([1.0 - prob, prob])

    def predict(self, X, iteration_range=None):
        prob = self.predict_proba(X, iteration_range)
        if prob.shape[1] > 2:
            return self.classes_[np.argmax(prob, axis=1)]
        return self.classes_[(prob[:, 1] > 0.5).astype(int)]


for _cls in (BoostingRegressor, BoostingClassifier):
    _cls.__doc__ += _PARAMETERS
