"""DaskBoostingClassifier and DaskBoostingRegressor: the histogram trainer on a Dask cluster.

``fit`` makes three kinds of tasks and never gathers a row:

1. a **survey** of every partition (a cut-point summary, label and weight sums),
   merged pairwise on the workers: the cut points of the whole data
   (``cuts``: exact for a feature of at most ``max_bin`` distinct values, a
   merged quantile summary otherwise) and the base score;
2. a **shard** per partition: its rows binned with those cut points, kept on the
   worker with its labels, weights and margins for the whole fit;
3. per tree, per level, a step of every shard's chain (``shard``), whose replies,
   histograms of the shard's rows in each new node, are summed through Dask;
   the driver chooses each split from the sums with the single-machine split
   finder (``driver.ClusterSplitter``).

The trees are those of ``BoostingClassifier(tree_method="hist")`` given the
same data and cut points, up to the order in which floats are added.
"""

from __future__ import annotations

import functools

import numpy as np

from ..engine.binning import HistData
from ..engine.boosting import RoundSampler, XGBoostAlgorithm
from ..engine.callbacks import EarlyStopping
from ..engine.grow import grow_tree
from ..estimators import BoostingClassifier, BoostingRegressor
from . import cuts as C
from . import shard as S
from .driver import ClusterSplitter, Driver
from .inputs import is_dask_collection, partitions
from .trace import DaskTrace

__all__ = ["DaskBoostingClassifier", "DaskBoostingRegressor", "DEFAULT_TIMEOUT"]

#: seconds any single wait of a fit may take before the fit fails (never a hang)
DEFAULT_TIMEOUT = 600.0
# an estimated base_score is kept this far from 0 and 1 (as the local estimators keep it)
_EDGE_PROBABILITY = 1e-6

# the objectives the cluster trains (their base score is a weighted mean or class shares)
_DASK_OBJECTIVES = (None, "reg:squarederror", "binary:logistic", "multi:softprob")

# the parameters passed on to the single-machine estimator (to_local, checks)
_LOCAL_PARAMS = (
    "n_estimators",
    "learning_rate",
    "max_depth",
    "max_leaves",
    "reg_lambda",
    "reg_alpha",
    "gamma",
    "min_child_weight",
    "max_delta_step",
    "pruning",
    "objective",
    "max_bin",
    "subsample",
    "colsample_bytree",
    "random_state",
)


class _DaskBoosting:
    _local_class = BoostingRegressor

    def __init__(
        self,
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
        client=None,
        timeout=DEFAULT_TIMEOUT,
    ):
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
        self.client = client
        self.timeout = timeout

    def get_params(self, deep=True):
        names = _LOCAL_PARAMS + (
            "base_score",
            "early_stopping_rounds",
            "callbacks",
            "client",
            "timeout",
        )
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in self.get_params():
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        return (
            f"{type(self).__name__}(n_estimators={self.n_estimators}, max_depth={self.max_depth})"
        )

    # ------------------------------------------------------------ checks
    def _local_params(self):
        return {name: getattr(self, name) for name in _LOCAL_PARAMS}

    def _shell(self, n_features, **fitted):
        """A single-machine estimator of these parameters and no trees: it checks them,
        and gives the loss, the growth parameters and the base margin."""
        return self._local_class.from_trees(
            [], n_features=n_features, tree_method="hist", **fitted, **self._local_params()
        )

    def _check_params(self):
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise ValueError(f"timeout must be a number of seconds > 0; got {self.timeout!r}")
        self._shell(1)  # every other parameter, checked as the local estimator checks it
        if self.objective not in _DASK_OBJECTIVES:
            raise ValueError(
                f"objective={self.objective!r}: the Dask trainer estimates base_score as a mean "
                "and refreshes no leaf, so it trains only reg:squarederror, binary:logistic "
                "and multi:softprob; train other objectives with BoostingRegressor/Classifier"
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
    def fit(self, X, y, sample_weight=None, eval_set=None):
        """Grow ``n_estimators`` trees on the rows of X, y where they live (dask arrays or
        dask DataFrames; numpy or pandas data is split into one partition per worker).

        ``eval_set``: a list of (X, y) pairs scored after every round (``evals_result_``);
        with ``early_stopping_rounds`` training stops when the last one has not improved
        for that many rounds. Returns self.
        """
        self._check_params()
        if y is None:
            raise ValueError(f"{type(self).__name__}.fit needs y")
        if self.early_stopping_rounds and not eval_set:
            raise ValueError(
                "early_stopping_rounds needs an eval_set to watch; pass "
                "fit(..., eval_set=[(X_val, y_val)])"
            )
        client = self._get_client()
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        parts = partitions(X, y, sample_weight, n_workers)
        driver = Driver(client, self.timeout)
        for attr in ("trees_", "_trace", "_local", "evals_result_"):
            self.__dict__.pop(attr, None)
        try:
            self._fit(driver, parts, eval_set, n_workers)
        except BaseException:
            for attr in ("trees_", "_trace", "_local"):
                self.__dict__.pop(attr, None)
            raise
        finally:
            driver.release()
        return self

    def _survey(self, driver, parts):
        """Load every partition where it lives; survey it; merge the surveys. Returns the
        merged Survey and, per worker, the loaded partitions it holds (futures)."""
        from dask import delayed

        is_clf = self._local_class is BoostingClassifier
        weights = parts.weight or [None] * len(parts)
        names = parts.feature_names
        loaded = driver.client.compute(
            [delayed(S.load_part)(x, y, w, k, names)
             for k, (x, y, w) in enumerate(zip(parts.X, parts.y, weights))],
            optimize_graph=False,
        )  # fmt: skip
        surveys = [driver.submit(S.survey, part, self.max_bin, is_clf) for part in loaded]
        sizes = driver.gather([driver.submit(S.n_rows, s) for s in surveys], "the survey")
        # summaries are large: merged on the workers, only the last one reaches the driver
        combine = functools.partial(S.combine_surveys, self.max_bin)
        total = driver.reduce(surveys, combine=combine, on_driver=1)
        by_worker = {}
        holders = driver.client.who_has(loaded)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int).tolist()
        for part, size, offset in zip(loaded, sizes, offsets):
            if size > 0:  # an empty partition has nothing to add
                where = sorted(holders.get(part.key, ())) or [None]
                by_worker.setdefault(where[0], []).append((part, offset))
        self._offsets = offsets  # each partition's first row in the whole data (subsample)
        return total, by_worker

    def _base_score(self, total, loss, classes):
        if self.base_score is not None:
            return self.base_score
        if classes is not None and len(classes) >= 3:
            w = np.array([total.label_weights[c] for c in classes.tolist()])
            return loss.default_base_score(np.arange(len(classes)), w)
        if total.sum_w <= 0:
            raise ValueError("sample_weight adds up to 0: there is nothing to fit")
        if classes is not None:  # two classes: the weighted share of the second
            mean = total.label_weights[classes.tolist()[1]] / total.sum_w
            return min(max(mean, _EDGE_PROBABILITY), 1 - _EDGE_PROBABILITY)
        return total.sum_wy / total.sum_w

    def _fit(self, driver, parts, eval_set, n_workers):
        total, by_worker = self._survey(driver, parts)
        classes = None
        if total.label_weights is not None:
            classes = np.array(sorted(total.label_weights))
            if len(classes) < 2:
                raise ValueError(f"y has one class ({classes.tolist()}); a classifier needs two")
        d, names = parts.n_features, parts.feature_names
        labels = {} if classes is None else {"classes": classes}
        loss = self._shell(d, **labels).loss_
        shell = self._shell(
            d, base_score=self._base_score(total, loss, classes), feature_names=names, **labels
        )
        algorithm = XGBoostAlgorithm(shell.loss_, shell.params_)
        cuts = C.cut_points(total.summary, self.max_bin) + (self.max_bin,)
        meta = HistData.from_cuts(np.empty((0, d), dtype=np.float32), *cuts)
        # one shard per worker, of the partitions it holds: the rows stay where they are
        driver.shards = [
            driver.client.submit(
                S.make_shard,
                [part for part, _ in held],
                [offset for _, offset in held],
                cuts,
                classes,
                algorithm,
                shell.base_margin_,
                workers=None if worker is None else [worker],
                allow_other_workers=True,
                pure=False,
            )
            for worker, held in by_worker.items()
        ]
        del by_worker  # the loaded partitions go once their shards are made
        evals = self._eval_shards(driver, eval_set, classes, algorithm, shell, n_workers)
        self._set_fitted(shell, classes, cuts, total.summary.n_rows)
        self.trees_, self.evals_result_, self.best_iteration_ = [], {}, None
        stopper = (
            EarlyStopping(_LastScores(self), self.early_stopping_rounds)
            if self.early_stopping_rounds
            else None
        )
        self._parts = parts  # the training data's partitions (Delayed), for the trace
        self._features = []  # per tree: the features it could split on (None: all)
        K = algorithm.n_outputs
        sampler = RoundSampler(1.0, self.colsample_bytree, self.random_state)
        self._row_draws = []  # per tree: where its subsample's draws start (None: every row)
        for t in range(1, self.n_estimators + 1):
            samples = [self._draw(sampler, total.summary.n_rows, d) for _ in range(K)]
            for k, (draw, features) in enumerate(samples):
                splitter = ClusterSplitter(driver, meta, algorithm, k, features, draw)
                tree, keys, leaves = grow_tree(splitter, algorithm.params, d, names)
                splitter.finish(tree, keys, leaves)
                tree.round, tree.class_ = t, (k if K > 1 else None)
                self.trees_.append(tree)
                self._features.append(features)
                self._row_draws.append(draw)
            if evals or self.callbacks or t == self.n_estimators:
                driver.settle()  # the round's trees are whole before anyone looks at them
            self._score_evals(driver, evals, algorithm, t)
            stop = stopper is not None and stopper(t, None)
            if stopper is not None:
                self.best_iteration_ = stopper.best_iteration
            stops = [cb(self, t) for cb in self.callbacks or ()]
            if stop or any(s is True for s in stops):
                break
        driver.settle()
        self._trace = DaskTrace(self, algorithm, meta)

    def _draw(self, sampler, n, d):
        """One tree's sample, as the local ``RoundSampler`` draws it: a uniform number per row
        of the whole data (row i is kept when its number is below ``subsample``), then the
        features. The rows' numbers are drawn on the workers: each shard gets the generator's
        state and skips to its partitions' rows; the driver skips all n."""
        draw = None
        if self.subsample < 1.0:
            draw = (sampler.rng.bit_generator.state, float(self.subsample))
            sampler.rng.bit_generator.advance(n)  # Generator.random: one 64-bit draw a row
        return draw, sampler.draw(n, d)[1]

    def _set_fitted(self, shell, classes, cuts, n_rows):
        self.n_features_in_ = shell.n_features_in_
        if getattr(shell, "feature_names_in_", None) is not None:
            self.feature_names_in_ = shell.feature_names_in_
        if classes is not None:
            self.classes_ = shell.classes_
        self.base_score_, self.base_margin_ = shell.base_score_, shell.base_margin_
        self.loss_, self.params_ = shell.loss_, shell.params_
        self.cuts_ = cuts  # (cut points, min_val, has_missing, exact, max_bin): HistData.from_cuts
        self.n_rows_ = int(n_rows)

    # ------------------------------------------------------------ eval sets
    def _eval_shards(self, driver, eval_set, classes, algorithm, shell, n_workers):
        from dask import delayed

        evals = []
        for X_e, y_e in eval_set or ():
            parts = partitions(X_e, y_e, None, n_workers)
            evals.append(
                [
                    driver.client.compute(
                        delayed(S.make_eval_shard, pure=True)(
                            x, y, classes, algorithm, shell.base_margin_
                        ),
                        optimize_graph=False,
                    )
                    for x, y in zip(parts.X, parts.y)
                ]
            )
        return evals

    def _score_evals(self, driver, evals, algorithm, t):
        trees = self.trees_[-algorithm.n_outputs :]
        name = algorithm.loss.metric_name
        for j, shards in enumerate(evals):
            shards[:] = [driver.submit(S.eval_round, s, algorithm, trees) for s in shards]
            replies = [driver.result(driver.submit(S.reply, s), "an eval set") for s in shards]
            rows = np.array([r[0] for r in replies], dtype=np.float64)
            metric = np.array([r[1] for r in replies])
            # a mean over partitions weighted by their rows; rmse averages the squares
            if name == "rmse":
                score = float(np.sqrt(np.dot(rows, metric**2) / rows.sum()))
            else:
                score = float(np.dot(rows, metric) / rows.sum())
            self.evals_result_.setdefault(f"validation_{j}", {}).setdefault(name, []).append(score)

    # ------------------------------------------------------------ the fitted model
    def _check_fitted(self):
        if "trees_" not in self.__dict__:
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")

    def to_local(self):
        """The single-machine model with the same trees (``BoostingClassifier`` or
        ``BoostingRegressor``): every view (explain, draw, explore, contributions, save)."""
        self._check_fitted()
        fitted = {"classes": self.classes_} if hasattr(self, "classes_") else {}
        model = self._local_class.from_trees(
            self.trees_,
            base_score=self.base_score_,
            feature_names=getattr(self, "feature_names_in_", None),
            n_features=self.n_features_in_,
            best_iteration=self.best_iteration_,
            tree_method="hist",
            **fitted,
            **self._local_params(),
        )
        model._origin = "trained on a Dask cluster (teachgbt.dask); its trace_ is the Dask model's"
        return model

    def _local_model(self):
        if "_local" not in self.__dict__:
            self._local = self.to_local()
        return self._local

    @property
    def trace_(self):
        """Per-node tables of the fit; per-row tables as dask DataFrames (``DaskTrace``)."""
        self._check_fitted()
        return self._trace

    def _apply(self, method, X, n_out, dtype):
        """``local.method(X)``: numpy in, numpy out; a dask collection in, a dask array out
        (one block per partition, computed where the partition lives)."""
        local = self._local_model()
        if not is_dask_collection(X):
            return getattr(local, method)(X)
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
            return X.map_blocks(_call, local, method, n_out, dtype, drop_axis=1, dtype=dtype)
        chunks = (X.chunks[0], (n_out,))
        return X.map_blocks(_call, local, method, n_out, dtype, chunks=chunks, dtype=dtype)

    def decision_function(self, X):
        """Margins: (n,), or (n, K) with K ≥ 3 classes. A dask array for dask input."""
        self._check_fitted()
        K = self.loss_.n_outputs
        return self._apply("decision_function", X, None if K == 1 else K, np.float64)

    @property
    def feature_importances_(self):
        return self._local_model().feature_importances_


class _LastScores:
    """What ``EarlyStopping`` watches: the last eval set's scores so far."""

    def __init__(self, model):
        self.model = model

    def last_scores(self):
        results = self.model.evals_result_
        return results[f"validation_{len(results) - 1}"][self.model.loss_.metric_name]


def _call(block, model, method, n_out, dtype):
    if len(block) == 0:  # the local model refuses empty data; an empty partition has no rows
        return np.empty((0,) if n_out is None else (0, n_out), dtype=dtype)
    return getattr(model, method)(block)


class DaskBoostingRegressor(_DaskBoosting):
    """Gradient boosted regression trees grown on a Dask cluster (the histogram trainer).

    The parameters are those of ``BoostingRegressor(tree_method="hist")`` (XGBoost's
    names), and ``client`` (default: the current Dask client) and ``timeout`` (seconds
    any one wait may take; then the fit fails instead of hanging).
    """

    _local_class = BoostingRegressor

    def predict(self, X):
        self._check_fitted()
        return self._apply("predict", X, None, np.float64)


class DaskBoostingClassifier(_DaskBoosting):
    """Gradient boosted trees for classes, grown on a Dask cluster (the histogram trainer).

    The parameters are those of ``BoostingClassifier(tree_method="hist")`` (XGBoost's
    names), and ``client`` and ``timeout`` (see ``DaskBoostingRegressor``).
    """

    _local_class = BoostingClassifier

    def predict_proba(self, X):
        self._check_fitted()
        return self._apply("predict_proba", X, len(self.classes_), np.float64)

    def predict(self, X):
        self._check_fitted()
        return self._apply("predict", X, None, self.classes_.dtype)
