"""BoostingClassifier and BoostingRegressor: scikit-learn adapters over the boosting loop.

They follow XGBoost's scikit-learn API for names and meanings, so that what a
learner practises here carries over, and they are as thin over
``engine.training.train`` as XGBoost's ``XGBModel`` is over ``xgboost.train``:
``fit`` validates X, y, the weights and the eval sets, encodes the labels, calls
``train`` with the constructor's parameters and keeps the fitted
``teachgbt.core.model.Model`` it returns as ``model_``. Every fitted attribute
(``trees_``, ``classes_``, ``base_score_``, ``trace_``, ...) reads that model.
``from_trees`` makes a fitted model from trees without training (``tg.load``
and the importers of other libraries' models use it).

scikit-learn is optional (``_sklearn_base``): with it the estimators work with
``clone``, ``cross_val_score`` and pipelines.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import utils as V
from .core.model import MADE_FROM_TREES
from .core.tree import Tree
from .engine.training import TrainParams, model_from_trees, train
from .utils import BaseEstimator as _Base
from .utils import ClassifierMixin as _ClassifierMixin
from .utils import RegressorMixin as _RegressorMixin
from .utils import init_taking, kernels

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
        0 gbdt). reg_alpha : α, the L1 penalty. max_delta_step : clip on |w*| (None:
        0, or 0.7 for count:poisson, as XGBoost).
    gamma : XGBoost's gamma (min_split_loss): a split stays when its ``loss_chg``
        = G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ) (no ½) is at least ``gamma``. The
        tutorials' γ and λ in Gain = ½[…] − γ follow the loss, not the seed: with
        XGBoost's ½(y − ŷ)² (g = ŷ − y, h = 1) or the logistic loss their γ is
        ``gamma / 2`` and their λ is ``reg_lambda``; with the (y − ŷ)² that seeds 000
        and 002 write (g = 2(ŷ − y), h = 2) their γ is ``gamma`` and their λ is
        2·``reg_lambda``. The ``gain`` of every split is ½(loss_chg − gamma), the
        tutorials' Gain for the model's own g and h, so its sign says what gamma
        decided: pre-stopping never keeps a split with gain < 0; post-pruning
        removes, bottom up, a split whose children are leaves when its gain is < 0.
    min_child_weight : smallest H a child may have (None: 1 xgboost, 0 gbdt).
    pruning : "post" (grow, then prune bottom up, as XGBoost exact) or "pre" (stop
        before a split, as XGBoost hist); None picks by tree_method.
    base_score : the starting prediction, in the space XGBoost stores it (a probability
        for binary:logistic, a mean for count:poisson/reg:gamma/reg:tweedie, K margins
        for K >= 3); None: estimated as XGBoost >= 2 does.
    objective : XGBoost's name of the loss (``teachgbt.losses``): regressors
        "reg:squarederror" (default), "reg:squaredlogerror", "reg:pseudohubererror",
        "reg:absoluteerror", "reg:quantileerror", "count:poisson", "reg:gamma",
        "reg:tweedie"; classifiers "binary:logistic" (default), "binary:logitraw",
        "binary:hinge", "multi:softprob" (chosen for K >= 3 classes); or a callable
        ``(y, margin) -> (g, h)``.
    huber_slope, quantile_alpha, tweedie_variance_power : the parameters of
        reg:pseudohubererror (1), reg:quantileerror (required, one α) and reg:tweedie
        (1.5), as XGBoost's.
    max_bin, subsample, colsample_bytree, random_state, early_stopping_rounds,
    callbacks, verbose : as in XGBoost (sampling uses numpy's generator).
    n_jobs : how many threads the compiled kernels share fit and predict between, as
        scikit-learn's: None the default (every core, or ``NUMBA_NUM_THREADS``), -1
        every core, -2 all but one. The trees do not depend on it.
    enable_categorical : split pandas ``category`` columns into sets of categories
        (``colour ∈ {red, blue}``), as XGBoost does (tree_method="hist" only); False:
        such columns are refused. max_cat_to_onehot : below this many categories a split
        is one category against the rest (4); else the categories are sorted by w* and
        the sorted order scanned, moving at most max_cat_threshold − 1 of them (64). A
        category the model never saw goes with the categories outside the set.
"""


class _Boosting(_Base):
    _is_classifier = False

    # the training parameters (declared once, ``TrainParams``), then the fit's hooks
    __init__ = init_taking({**TrainParams.defaults(), "callbacks": None, "verbose": None})

    # ------------------------------------------------------------ checks
    def _train_params(self):
        """The constructor's parameters as the engine's ``TrainParams``, checked."""
        return TrainParams(**{name: getattr(self, name) for name in TrainParams.defaults()}).check()

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
        X32, _ = self.model_.check_X(X, what, type(self).__name__)
        return X32

    # ------------------------------------------------------------ fitting
    def _prepare_y(self, y, n):
        """(y as trained on, the classes: None for a regressor)."""
        return V.check_y_numeric(y, n), None

    def fit(self, X, y, sample_weight=None, eval_set=None, verbose=None):
        """Grow ``n_estimators`` trees on X, y. Returns self.

        ``eval_set``: a list of (X, y) pairs scored after every round
        (``evals_result_``); with ``early_stopping_rounds`` training stops
        when the last pair's loss has not improved for that many rounds.
        """
        params = self._train_params()
        V.check_y_present(y, self)
        # pandas category columns as their codes, and their categories (code c: names[c])
        X, categories = V.split_categories(X, params.enable_categorical)
        params.check_categorical(categories)
        X32, names = V.check_X(X)
        n, d = X32.shape
        y_train, classes = self._prepare_y(y, n)  # class indices (0/1 if two) and labels
        sample_weight = V.check_sample_weight(sample_weight, n)
        evals = V.check_eval_set(
            _encoded_pairs(eval_set, categories),
            d,
            names,
            lambda ey, en, k: self._prepare_eval_y(ey, en, k, classes),
        )
        self.__dict__.pop("model_", None)  # a failed fit leaves no half-fitted model behind
        try:
            model = train(
                params,
                X32,
                y_train,
                sample_weight,
                classes=classes,
                feature_names=names,
                evals=evals,
                callbacks=[self._run_callbacks] if self.callbacks else (),
                verbose=verbose if verbose is not None else self.verbose,
                categories=categories,
            )
        except BaseException:
            self.__dict__.pop("model_", None)
            raise
        self.model_ = model
        return self

    def _run_callbacks(self, t, model):
        """The user's ``callbacks``: each is called as ``cb(estimator, t)`` with the model
        trained so far; True stops training."""
        self.model_ = model
        stops = [cb(self, t) for cb in self.callbacks or ()]
        return any(stop is True for stop in stops)

    def _prepare_eval_y(self, y, n, k, classes):
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
        origin=MADE_FROM_TREES,
        categories=None,
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
        the trees'), ``best_iteration`` (0-based; prediction stops there), ``origin``
        (where the trees came from, as ``model_.origin`` reports it), ``categories``
        (``{feature: its categories}`` of the categorical features, by which DataFrame
        columns are read; default: the trees' ``category_names``) and any
        constructor parameter in ``params``. ``tg.load`` builds models with it, and so do
        the importers of other libraries' models. The model has no ``trace_``: that
        needs the training data.
        """
        estimator = cls(**params)
        train_params = estimator._train_params()
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
        if cls._is_classifier:
            classes = np.asarray([0, 1] if classes is None else classes)
            if classes.ndim != 1 or len(classes) < 2:
                raise ValueError(f"a classifier has at least two classes; got {classes.size}")
            labels = classes.tolist()
            twice = [c for i, c in enumerate(labels) if c in labels[:i]]
            if twice:
                raise ValueError(
                    f"the classes {labels[:10]} name {twice[0]!r} twice: every class needs a "
                    "label of its own (predictions would be ambiguous)"
                )
        elif classes is not None:
            raise ValueError("a regressor has no classes")
        if categories is None:
            categories = {j: v for tree in trees for j, v in tree.category_names.items()}
        estimator.model_ = model_from_trees(
            trees,
            train_params,
            base_score=base_score,
            classes=classes,
            n_features=n_features,
            feature_names=feature_names,
            best_iteration=best_iteration,
            origin=origin,
            categories=categories,
        )
        return estimator

    # ------------------------------------------------------------ fitted model
    def _fitted(self, attribute):
        """The fitted model, or the AttributeError scikit-learn expects before fit."""
        model = self.__dict__.get("model_")
        if model is None:
            raise AttributeError(f"{type(self).__name__} is not fitted yet: it has no {attribute}")
        return model

    @property
    def trees_(self):
        """The trees in XGBoost's order: round by round, one per class within a round."""
        return self._fitted("trees_").trees

    @property
    def n_features_in_(self):
        return self._fitted("n_features_in_").n_features

    @property
    def feature_names_in_(self):
        names = self._fitted("feature_names_in_").feature_names
        if names is None:
            raise AttributeError("the model was fitted without feature names (not a DataFrame)")
        return np.asarray(names, dtype=object)

    @property
    def base_score_(self):
        """The fitted base score, in prediction space; K margins with K ≥ 3 classes."""
        return self._fitted("base_score_").base_score

    @property
    def base_margin_(self):
        """Where every margin starts: the base score through the inverse link."""
        return self._fitted("base_margin_").base_margin

    @property
    def loss_(self):
        return self._fitted("loss_").loss

    @property
    def params_(self):
        """The GrowParams the trees are (or would be) grown with: every default resolved."""
        return self._fitted("params_").params

    @property
    def evals_result_(self):
        return self._fitted("evals_result_").evals_result

    @property
    def best_iteration_(self):
        return self._fitted("best_iteration_").best_iteration

    @property
    def trace_(self):
        """Every intermediate of the fit, as DataFrames (``tg.Trace``)."""
        V.check_is_fitted(self)
        if self.model_.trace is None:
            raise AttributeError(
                f"this {type(self).__name__} was {self.model_.origin}, not fitted here: it has "
                "no trace_, which needs the training data; its trees_ keep every node's "
                "statistics"
            )
        return self.model_.trace

    def decision_function(self, X, iteration_range=None):
        """The margin: base margin + Σ η·w of the leaves reached (log-odds for a binary
        classifier). With K ≥ 3 classes (n, K): class k's margin adds class k's trees.
        ``iteration_range=(start, end)``: rounds start … end−1, as XGBoost's ((0, 0): all;
        None: all, or up to ``best_iteration_`` after early stopping)."""
        X = self._validate_X_predict(X)  # first: it says when the model is not fitted
        with kernels.threads(getattr(self, "n_jobs", None)):
            return self.model_.margins(X, iteration_range)

    def save(self, path):
        """Write the fitted model to ``path`` as versioned JSON (read back with ``tg.load``)."""
        # the file format is io's; imported here because io builds its models with this
        # module's from_trees (so io cannot be imported while this module loads)
        from .io.native import save

        save(self, path)

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


def _encoded_pairs(eval_set, categories):
    """The eval sets' X with their category columns as the training data's codes."""
    if not categories or not eval_set:
        return eval_set
    out = []
    for pair in eval_set:
        try:
            ex, ey = pair
        except (TypeError, ValueError):
            out.append(pair)  # check_eval_set says what is wrong
            continue
        out.append((V.encode_categories(ex, categories), ey))
    return out


class BoostingRegressor(_RegressorMixin, _Boosting):
    """Gradient boosted regression trees (squared error by default).

    ``algorithm="xgboost"`` is XGBoost's second-order, regularized boosting;
    ``algorithm="gbdt"`` is Friedman's GBDT (scikit-learn's
    GradientBoostingRegressor). See the package README for every parameter.
    """

    def predict(self, X, iteration_range=None):
        margin = self.decision_function(X, iteration_range)
        return self.model_.link(margin)


class BoostingClassifier(_ClassifierMixin, _Boosting):
    """Gradient boosted trees for classes: log-odds (cross entropy) for two classes,
    softmax with one tree per class per round for K ≥ 3 (XGBoost's ``multi:softprob``).

    Labels may be bools, whole numbers or strings; with two, ``classes_[1]`` is the
    positive class and ``decision_function`` gives its log-odds; with K ≥ 3 it gives
    (n, K) margins. ``predict_proba`` gives the probabilities of ``classes_``.
    """

    _is_classifier = True

    @property
    def classes_(self):
        """The labels, sorted; ``classes_[1]`` is the positive class of two."""
        return self._fitted("classes_").classes

    def _prepare_y(self, y, n):
        return V.check_y_classes(y, n)

    def _prepare_eval_y(self, y, n, k, classes):
        arr = np.asarray(y)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1 or len(arr) != n:
            raise ValueError(
                f"eval_set[{k}] y has shape {arr.shape}; its X has {n} rows: give one label a row"
            )
        unknown = ~np.isin(arr, classes)
        if unknown.any():
            raise ValueError(
                f"eval_set[{k}] y has labels the training data does not: "
                f"{np.unique(arr[unknown]).tolist()}"
            )
        return np.searchsorted(classes, arr).astype(np.float64)

    def predict_proba(self, X, iteration_range=None):
        margin = self.decision_function(X, iteration_range)  # (first: it checks the fit)
        prob = self.model_.link(margin)
        del margin  # (its n numbers are not needed beside the probabilities)
        if prob.ndim == 2:  # softmax: (n, K) already
            return prob
        # (written into its columns: no n-row temporary of 1 − p beside them)
        both = np.empty((len(prob), 2))
        both[:, 1] = prob
        np.subtract(1.0, prob, out=both[:, 0])
        return both

    def predict(self, X, iteration_range=None):
        prob = self.predict_proba(X, iteration_range)
        if prob.shape[1] > 2:
            return self.classes_[np.argmax(prob, axis=1)]
        return self.classes_[(prob[:, 1] > 0.5).astype(int)]


for _cls in (BoostingRegressor, BoostingClassifier):
    _cls.__doc__ += _PARAMETERS
