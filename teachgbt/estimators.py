"""BoostingClassifier and BoostingRegressor, with scikit-learn's conventions.

They follow XGBoost's scikit-learn API for names and meanings, so that what a
learner practises here carries over. scikit-learn is optional: when it is
installed the estimators are scikit-learn estimators (``clone``,
``cross_val_score``, pipelines work); without it they keep the same
``get_params`` / ``set_params`` behaviour.
"""

from __future__ import annotations

import inspect
import numbers
import sys
import warnings

import numpy as np
import pandas as pd

from . import _validation as V
from .engine.boosting import XGBoostAlgorithm, resolve_grow_params
from .engine.grow import grow_tree
from .engine.trace import Trace
from .losses import get_loss

try:  # scikit-learn is an optional extra
    from sklearn.base import BaseEstimator as _Base
    from sklearn.base import ClassifierMixin as _ClassifierMixin
    from sklearn.base import RegressorMixin as _RegressorMixin
except ImportError:  # pragma: no cover - exercised only without scikit-learn

    class _Base:
        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(p for p in sig.parameters if p != "self")

        def get_params(self, deep=True):
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for k, v in params.items():
                if k not in valid:
                    raise ValueError(
                        f"invalid parameter {k!r} for {type(self).__name__}; "
                        f"valid parameters are {valid}"
                    )
                setattr(self, k, v)
            return self

    class _ClassifierMixin:
        _estimator_type = "classifier"

    class _RegressorMixin:
        _estimator_type = "regressor"


__all__ = ["BoostingClassifier", "BoostingRegressor", "NotFittedError"]


class NotFittedError(ValueError, AttributeError):
    """Raised when a model is used before ``fit``."""


_ALGORITHMS = ("xgboost", "gbdt")
_TREE_METHODS = ("exact", "hist")


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
            raise ValueError(f"algorithm={self.algorithm!r}; use one of {_ALGORITHMS}")
        if self.tree_method not in _TREE_METHODS:
            raise ValueError(f"tree_method={self.tree_method!r}; use one of {_TREE_METHODS}")
        if self.pruning not in (None, "pre", "post"):
            raise ValueError(f"pruning={self.pruning!r}; use 'pre', 'post' or None")
        if not isinstance(self.n_estimators, numbers.Integral) or self.n_estimators < 0:
            raise ValueError(f"n_estimators must be a whole number >= 0; got {self.n_estimators!r}")
        for name in ("reg_lambda", "reg_alpha", "gamma", "min_child_weight", "max_delta_step"):
            v = getattr(self, name)
            if v is not None:
                V.check_nonneg(name, v)
        lr = self.learning_rate
        if lr is not None and (not isinstance(lr, numbers.Real) or not lr > 0):
            raise ValueError(f"learning_rate must be > 0; got {lr!r}")
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
            v = getattr(self, name)
            if not isinstance(v, numbers.Real) or not 0 < v <= 1:
                raise ValueError(f"{name} must be in (0, 1]; got {v!r}")
        if not isinstance(self.max_bin, numbers.Integral) or not 2 <= self.max_bin <= 65535:
            raise ValueError(f"max_bin must be a whole number in 2..65535; got {self.max_bin!r}")
        esr = self.early_stopping_rounds
        if esr is not None and (not isinstance(esr, numbers.Integral) or esr < 1):
            raise ValueError(f"early_stopping_rounds must be a whole number >= 1; got {esr!r}")

    def _check_fitted(self):
        if not hasattr(self, "trees_"):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X, y) before using it"
            )

    def _validate_X_predict(self, X, what="X"):
        self._check_fitted()
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
                f"{what} has {X32.shape[1]} features, but {type(self).__name__} was fitted with "
                f"{self.n_features_in_}"
            )
        return X32

    def _make_algorithm(self, loss, params):
        if self.algorithm == "gbdt":
            from .engine.gbdt import GBDTAlgorithm

            return GBDTAlgorithm(loss, params, is_classifier=self._is_classifier)
        return XGBoostAlgorithm(loss, params)

    # ------------------------------------------------------------ tree methods
    def _prepare_features(self, X32):
        if self.tree_method == "hist":
            from .engine.hist import HistData

            return HistData(X32, max_bin=int(self.max_bin))
        from .engine.exact import SortedColumns

        return SortedColumns(X32)

    def _splitter(self, data, stats, scan_params, rows, features):
        if self.tree_method == "hist":
            from .engine.hist import HistSplitter as S
        else:
            from .engine.exact import ExactSplitter as S
        return S(
            data,
            stats["g"],
            stats["h"],
            scan_params,
            rows=rows,
            features=features,
            h_cover=stats.get("h_cover"),
        )

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
        X32, names = V.check_X(X)
        n, d = X32.shape
        y01 = self._prepare_y(y, n)
        w = V.check_sample_weight(sample_weight, n)
        loss = get_loss(self.objective, self._is_classifier)
        if self._is_classifier and not loss.is_classification and isinstance(self.objective, str):
            raise ValueError(f"objective={self.objective!r} is not a classification objective")
        params = resolve_grow_params(self, self.algorithm)
        algo = self._make_algorithm(loss, params)

        evals = self._check_eval_set(eval_set, d, names)
        if self.early_stopping_rounds is not None and not evals:
            raise ValueError(
                "early_stopping_rounds needs an eval_set to watch; pass "
                "fit(..., eval_set=[(X_val, y_val)])"
            )

        if self.base_score is None:
            base_score = loss.default_base_score(y01, w)
            if loss.is_classification:
                base_score = min(max(base_score, 1e-6), 1 - 1e-6)
        else:
            base_score = loss.check_base_score(self.base_score)
        base_margin = loss.base_margin(base_score)

        self.n_features_in_ = d
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.base_score_ = base_score
        self.base_margin_ = base_margin
        self.loss_ = loss
        self.params_ = algo.params
        self.trees_ = []
        self.evals_result_ = {}
        self.best_iteration_ = None

        try:
            self._boost(X32, y01, w, names, loss, algo, evals, verbose)
        except BaseException:
            # a failed fit leaves no half-fitted model behind
            for attr in ("trees_", "trace_", "evals_result_", "best_iteration_"):
                self.__dict__.pop(attr, None)
            raise
        return self

    def _boost(self, X32, y01, w, names, loss, algo, evals, verbose):
        """The boosting rounds of ``fit``."""
        n, d = X32.shape
        base_margin = self.base_margin_
        data = self._prepare_features(X32)
        rng = np.random.default_rng(self.random_state)
        margin = algo.initial_margin(base_margin, n)
        eval_margins = [algo.initial_margin(base_margin, len(ey)) for _, ey in evals]
        rounds = []
        scan_params = algo.scan_params()
        best_score, best_round, since_best = np.inf, None, 0
        progress = _progress(self.n_estimators, verbose if verbose is not None else self.verbose)
        for t in range(1, self.n_estimators + 1):
            stats = algo.round_stats(y01, margin, w)
            rows = self._sample_rows(rng, n)
            features = self._sample_features(rng, d)
            splitter = self._splitter(data, stats, scan_params, rows, features)
            tree, grown_rows, grown_leaf = grow_tree(
                splitter, algo.params, d, names, algo.leaf_stats(splitter, stats)
            )
            self.trees_.append(tree)
            rounds.append({"rows": rows, "features": features})
            if len(grown_rows) == n:  # every row's leaf is known from growing the tree
                step = np.empty(n, dtype=np.float64)
                step[grown_rows] = tree.value[grown_leaf]
            else:  # rows left out by subsample are routed
                step = tree.predict(X32)
            margin = algo.add(margin, step)
            stop = False
            for k, (ex, ey) in enumerate(evals):
                eval_margins[k] = algo.add(eval_margins[k], tree.predict(ex))
                score = loss.metric(ey, eval_margins[k])
                self.evals_result_.setdefault(f"validation_{k}", {}).setdefault(
                    loss.metric_name, []
                ).append(score)
            if evals and self.early_stopping_rounds is not None:
                score = self.evals_result_[f"validation_{len(evals) - 1}"][loss.metric_name][-1]
                if score < best_score:
                    best_score, best_round, since_best = score, t - 1, 0
                else:
                    since_best += 1
                    stop = since_best >= self.early_stopping_rounds
            for cb in self.callbacks or ():
                if cb(self, t) is True:
                    stop = True
            progress.update(1)
            if stop:
                break
        progress.close()
        self.best_iteration_ = best_round
        self.trace_ = Trace(self, X32, y01, w, rounds, data, algo)

    def _check_eval_set(self, eval_set, d, names):
        out = []
        for k, pair in enumerate(eval_set or ()):
            try:
                ex, ey = pair
            except (TypeError, ValueError):
                raise TypeError(f"eval_set[{k}] must be a pair (X, y)") from None
            if names is not None and isinstance(ex, pd.DataFrame):
                other = [str(c) for c in ex.columns]
                if sorted(other) != sorted(names):
                    raise ValueError(
                        f"eval_set[{k}] has other features than the training data: "
                        f"missing {[c for c in names if c not in other]}, "
                        f"unexpected {[c for c in other if c not in names]}"
                    )
                ex = ex[names]
            ex32, _ = V.check_X(ex, f"eval_set[{k}] X")
            if ex32.shape[1] != d:
                raise ValueError(
                    f"eval_set[{k}] has {ex32.shape[1]} features but the training data has {d}"
                )
            out.append((ex32, self._prepare_eval_y(ey, len(ex32), k)))
        return out

    def _prepare_eval_y(self, y, n, k):
        return V.check_y_numeric(y, n, f"eval_set[{k}] y")

    def _sample_rows(self, rng, n):
        if self.subsample >= 1.0:
            return None
        rows = np.flatnonzero(rng.random(n) < self.subsample)
        return rows if len(rows) else np.array([int(rng.integers(n))])

    def _sample_features(self, rng, d):
        if self.colsample_bytree >= 1.0:
            return None
        k = max(1, int(self.colsample_bytree * d))
        return np.sort(rng.choice(d, size=k, replace=False))

    # ------------------------------------------------------------ predicting
    def _n_trees(self, iteration_range):
        if iteration_range is not None:
            return int(iteration_range[1])
        if self.best_iteration_ is not None:
            return self.best_iteration_ + 1
        return len(self.trees_)

    def decision_function(self, X, iteration_range=None):
        """The margin: base margin + Σ η·w of the leaves reached (log-odds for a classifier)."""
        X32 = self._validate_X_predict(X)
        dtype = np.float32 if self.algorithm == "xgboost" else np.float64
        margin = np.full(len(X32), self.base_margin_, dtype=dtype)
        for tree in self.trees_[: self._n_trees(iteration_range)]:
            margin = (margin + tree.predict(X32).astype(dtype)).astype(dtype)
        return margin.astype(np.float64)

    def save(self, path):
        """Write the fitted model to ``path`` as versioned JSON (read back with ``tg.load``)."""
        from .io import save

        save(self, path)

    @property
    def feature_importances_(self):
        """Total gain (loss_chg) of each feature's splits, normalised to sum to 1."""
        self._check_fitted()
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
    """Binary gradient boosted trees on log-odds (cross entropy).

    Labels may be bool, 0/1 or two strings; ``classes_[1]`` is the positive
    class. ``decision_function`` gives log-odds, ``predict_proba`` the
    probabilities of ``classes_``.
    """

    _is_classifier = True

    def _prepare_y(self, y, n):
        y01, classes = V.check_y_binary(y, n)
        self.classes_ = classes
        return y01

    def _prepare_eval_y(self, y, n, k):
        arr = np.asarray(y)
        unknown = ~np.isin(arr, self.classes_)
        if unknown.any():
            raise ValueError(
                f"eval_set[{k}] y has labels the training data does not: "
                f"{np.unique(arr[unknown]).tolist()}"
            )
        return (arr == self.classes_[1]).astype(np.float64)

    def predict_proba(self, X, iteration_range=None):
        margin = self.decision_function(X, iteration_range)
        p = self.loss_.transform(margin)
        return np.column_stack([1.0 - p, p])

    def predict(self, X, iteration_range=None):
        p = self.predict_proba(X, iteration_range)[:, 1]
        return self.classes_[(p > 0.5).astype(int)]


class _NoProgress:
    def update(self, k):
        pass

    def close(self):
        pass


def _progress(total, verbose):
    """A tqdm bar for long fits, only on a terminal (or when verbose=True)."""
    if verbose is False or total < 2:
        return _NoProgress()
    if verbose is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return _NoProgress()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if verbose:
            warnings.warn(
                "verbose=True shows a progress bar only when tqdm is installed", stacklevel=3
            )
        return _NoProgress()
    return tqdm(total=total, desc="boosting", unit="tree", leave=False)
