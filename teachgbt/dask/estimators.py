"""DaskBoostingClassifier and DaskBoostingRegressor: the histogram trainer on a Dask cluster.

They are ``BoostingClassifier`` / ``BoostingRegressor`` whose ``fit`` grows the trees
where the rows live: the engine's one boosting loop (``engine.training.boost``) over the
cluster's rows (``rows.ClusterRows``), so ``model_`` is a ``teachgbt.core.Model`` like any
other, whose origin says it was trained on a Dask cluster, and every fitted attribute
(``trees_``, ``classes_``, ``evals_result_``, ...) is the local estimators'. Predictions
take dask collections too (a dask array out, computed where each partition lives);
``trace_`` recomputes its per-row tables on the workers (``trace.DaskTrace``).
"""

from __future__ import annotations

import numpy as np

from ..engine.training import TrainParams, boost
from ..estimators import BoostingClassifier, BoostingRegressor
from ..utils import check_is_fitted, init_taking
from .inputs import is_dask_collection, partitions
from .rows import ClusterRows

__all__ = ["DaskBoostingClassifier", "DaskBoostingRegressor", "DEFAULT_TIMEOUT"]

#: seconds any single wait of a fit may take before the fit fails (never a hang)
DEFAULT_TIMEOUT = 600.0

# what the cluster grows: XGBoost's algorithm with the histogram split finder
_FIXED = {"algorithm": "xgboost", "tree_method": "hist"}
# the objectives the cluster trains (their base score is a weighted mean or class shares)
_DASK_OBJECTIVES = (None, "reg:squarederror", "binary:logistic", "multi:softprob")


class _DaskBoosting:
    """What the Dask estimators add to the local ones (listed first among their bases)."""

    algorithm, tree_method = _FIXED["algorithm"], _FIXED["tree_method"]
    # the training parameters (declared once, ``TrainParams``) but the two fixed above, the
    # fit's hooks, and where and how long to wait
    __init__ = init_taking(
        {
            **{k: v for k, v in TrainParams.defaults().items() if k not in _FIXED},
            "callbacks": None,
            "verbose": None,
            "client": None,
            "timeout": DEFAULT_TIMEOUT,
        }
    )

    def _get_client(self):
        client = self.client
        if client is None:
            from dask.distributed import default_client

            try:
                client = default_client()
            except ValueError:
                raise ValueError(
                    "no Dask client: start one (dask.distributed.Client(...)) or pass client="
                ) from None
        if getattr(client, "status", "running") in ("closing", "closed"):
            raise ValueError(
                "the Dask client is closed: start a new one (dask.distributed.Client(...)) "
                "and pass it as client= (or make it the default)"
            )
        return client

    # ------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None, eval_set=None, verbose=None):
        """Grow ``n_estimators`` trees on the rows of X, y where they live (dask arrays or
        dask DataFrames; numpy or pandas data is split into one partition per worker).

        ``eval_set``: a list of (X, y) pairs scored after every round (``evals_result_``);
        with ``early_stopping_rounds`` training stops when the last one has not improved
        for that many rounds. Returns self.
        """
        params = self._train_params()
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise ValueError(f"timeout must be a number of seconds > 0; got {self.timeout!r}")
        if y is None:
            raise ValueError(f"{type(self).__name__}.fit needs y")
        if self.objective not in _DASK_OBJECTIVES:
            raise ValueError(
                f"objective={self.objective!r}: the Dask trainer estimates base_score as a mean "
                "and refreshes no leaf, so it trains only reg:squarederror, binary:logistic "
                "and multi:softprob; train other objectives with BoostingRegressor/Classifier"
            )
        if params.enable_categorical:  # partitions hold numbers (inputs.partitions)
            raise ValueError(
                "enable_categorical=True: categories are not split into sets on a Dask "
                "cluster; one-hot encode them"
            )
        client = self._get_client()
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        parts = partitions(X, y, sample_weight, n_workers)
        rows = ClusterRows(client, parts, params.max_bin, self.timeout, n_workers)
        for attr in ("model_", "_local", "cuts_", "n_rows_"):
            self.__dict__.pop(attr, None)  # a failed fit leaves no half-fitted model behind
        try:
            classes = rows.survey(self._is_classifier)
            model = boost(
                params,
                rows,
                classes=classes,
                feature_names=parts.feature_names,
                evals=eval_set or (),
                callbacks=[self._run_callbacks] if self.callbacks else (),
                verbose=verbose if verbose is not None else self.verbose,
            )
        except BaseException:
            self.__dict__.pop("model_", None)
            raise
        finally:
            rows.release()
        self.model_ = model
        self.cuts_ = rows.cuts  # (cut points, min_val, has_missing, exact, max_bin)
        self.n_rows_ = rows.n_rows
        return self

    # ------------------------------------------------------------ the fitted model
    def to_local(self):
        """The single-machine model with the same trees (``BoostingClassifier`` or
        ``BoostingRegressor``), whose ``model_.origin`` still says where it was trained:
        every view (explain, draw, explore, contributions, save)."""
        model = check_is_fitted(self).model_
        local_class = self._local_class()
        names = local_class().get_params()
        params = {k: v for k, v in self.get_params().items() if k in names}
        base_score_param = params.pop("base_score")  # as given (None: estimated); fitted below
        local = local_class.from_trees(
            model.trees,
            base_score=model.base_score,
            feature_names=model.feature_names,
            classes=model.classes,
            n_features=model.n_features,
            best_iteration=model.best_iteration,
            origin=model.origin,
            **params,
            **_FIXED,
        )
        return local.set_params(base_score=base_score_param)

    def training_rows(self, max_values=None):
        """The rows the model was trained on, gathered from the workers: (X, y) numpy, X as
        float32 as trained on. ``max_values``: refuse (ValueError) when rows × features is
        larger, before anything is gathered."""
        check_is_fitted(self)
        n, d = int(self.n_rows_), int(self.model_.n_features)
        if max_values is not None and n * d > max_values:
            raise ValueError(
                f"the {n} training rows × {d} features are more than {max_values} values to "
                "gather onto this machine"
            )
        return self.model_.trace.rows()

    @classmethod
    def _local_class(cls):
        """The local estimator this one extends."""
        return next(c for c in cls.__mro__ if c in (BoostingClassifier, BoostingRegressor))

    def save(self, path):
        """Write the fitted model to ``path`` (``tg.load`` reads it back as the local
        estimator, its origin kept)."""
        self.to_local().save(path)

    def _local_model(self):
        if "_local" not in self.__dict__:
            self._local = self.to_local()
        return self._local

    def _apply(self, method, X, n_out, dtype, *args):
        """``method(X)`` of the local estimator: numpy in, numpy out; a dask collection in,
        a dask array out (one block per partition, computed where the partition lives)."""
        local = self._local_model()
        if not is_dask_collection(X):
            return getattr(local, method)(X, *args)
        import dask.dataframe as dd

        if isinstance(X, dd.DataFrame):
            names = getattr(self, "feature_names_in_", None)
            if names is not None:
                missing = [c for c in names if c not in set(map(str, X.columns))]
                if missing:
                    raise ValueError(f"X lacks the features the model was fitted with: {missing}")
                X = X.rename(columns=str)[list(names)]  # the fitted order, whatever X's
            X = X.to_dask_array()
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (rows × features); got {X.ndim}-D")
        X = X.rechunk({1: -1})
        if n_out is None:
            return X.map_blocks(_call, local, method, n_out, dtype, args, drop_axis=1, dtype=dtype)
        chunks = (X.chunks[0], (n_out,))
        return X.map_blocks(_call, local, method, n_out, dtype, args, chunks=chunks, dtype=dtype)

    def decision_function(self, X, iteration_range=None):
        """Margins: (n,), or (n, K) with K ≥ 3 classes. A dask array for dask input."""
        check_is_fitted(self)
        K = self.model_.n_outputs
        return self._apply(
            "decision_function", X, None if K == 1 else K, np.float64, iteration_range
        )


def _call(block, model, method, n_out, dtype, args):
    if len(block) == 0:  # the local model refuses empty data; an empty partition has no rows
        return np.empty((0,) if n_out is None else (0, n_out), dtype=dtype)
    return getattr(model, method)(block, *args)


class DaskBoostingRegressor(_DaskBoosting, BoostingRegressor):
    """Gradient boosted regression trees grown on a Dask cluster (the histogram trainer).

    The parameters are those of ``BoostingRegressor(tree_method="hist")`` (XGBoost's
    names), and ``client`` (default: the current Dask client) and ``timeout`` (seconds
    any one wait may take; then the fit fails instead of hanging). ``n_jobs`` is the
    threads of a prediction on this machine; the workers' kernels use the workers' own.
    """

    def predict(self, X, iteration_range=None):
        check_is_fitted(self)
        return self._apply("predict", X, None, np.float64, iteration_range)


class DaskBoostingClassifier(_DaskBoosting, BoostingClassifier):
    """Gradient boosted trees for classes, grown on a Dask cluster (the histogram trainer).

    The parameters are those of ``BoostingClassifier(tree_method="hist")`` (XGBoost's
    names), and ``client`` and ``timeout`` (see ``DaskBoostingRegressor``).
    """

    def predict_proba(self, X, iteration_range=None):
        check_is_fitted(self)
        return self._apply("predict_proba", X, len(self.classes_), np.float64, iteration_range)

    def predict(self, X, iteration_range=None):
        check_is_fitted(self)
        return self._apply("predict", X, None, self.classes_.dtype, iteration_range)
