"""The training rows on a Dask cluster: the backend the one boosting loop
(``teachgbt.engine.training.boost``) grows trees on, as ``LocalRows`` is on one machine.

``ClusterRows`` makes three kinds of tasks and never gathers a row:

1. a **survey** of every partition (a cut-point summary, label and weight sums),
   merged pairwise on the workers: the cut points of the whole data
   (``cuts``: exact for a feature of at most ``max_bin`` distinct values, a
   merged quantile summary otherwise), the classes and the base score;
2. a **shard** per worker, of the partitions it holds: their rows binned with those
   cut points, kept on the worker with their labels, weights and margins for the
   whole fit;
3. per tree, per level, a step of every shard's chain (``shard``), whose replies,
   histograms of the shard's rows in each new node, are summed through Dask;
   the driver chooses each split from the sums with the single-machine split
   finder (``driver.ClusterSplitter``).

The loop itself (sampling, eval sets, early stopping, callbacks, numbering the trees)
is the engine's; the trees are those of ``BoostingClassifier(tree_method="hist")`` given
the same data and cut points, up to the order in which floats are added.
"""

from __future__ import annotations

import functools

import numpy as np

from ..engine.binning import HistData
from ..engine.grow import grow_tree
from . import cuts as C
from . import shard as S
from .driver import ClusterSplitter, Driver
from .inputs import partitions
from .trace import DaskTrace

__all__ = ["ClusterRows", "ClusterEvalSets", "TRAINED_ON_DASK"]

#: the origin of a model trained here (``model_.origin``, kept by to_local and files)
TRAINED_ON_DASK = "trained on a Dask cluster (teachgbt.dask)"


class ClusterRows:
    """The rows of ``parts`` (``inputs.Partitions``) where they live, for ``boost``: see
    ``teachgbt.engine.training.LocalRows`` for what each method does."""

    origin = TRAINED_ON_DASK

    def __init__(self, client, parts, max_bin, timeout, n_workers):
        self.driver = Driver(client, timeout)
        self.parts, self.max_bin, self.n_workers = parts, int(max_bin), n_workers
        self.n_features = parts.n_features
        self.n_rows = self.classes = self.cuts = self.meta = None
        self.offsets = []  # each partition's first row in the whole data (subsample)
        self._total = self._by_worker = None

    # ------------------------------------------------------------ before the loop
    def survey(self, is_classifier):
        """Load every partition where it lives; survey it; merge the surveys: the cut
        points, the number of rows and, for a classifier, the classes (returned)."""
        from dask import delayed

        driver, parts = self.driver, self.parts
        weights = parts.weight or [None] * len(parts)
        loaded = driver.client.compute(
            [
                delayed(S.load_part)(x, y, w, k, parts.feature_names)
                for k, (x, y, w) in enumerate(zip(parts.X, parts.y, weights))
            ],
            optimize_graph=False,
        )
        surveys = [driver.submit(S.survey, part, self.max_bin, is_classifier) for part in loaded]
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
        self.offsets, self._total, self._by_worker = offsets, total, by_worker
        self.n_rows = int(total.summary.n_rows)
        # (cut points, min_val, has_missing, exact, max_bin): HistData.from_cuts
        self.cuts = C.cut_points(total.summary, self.max_bin) + (self.max_bin,)
        self.meta = HistData.from_cuts(np.empty((0, self.n_features), dtype=np.float32), *self.cuts)
        if total.label_weights is not None:
            self.classes = np.array(sorted(total.label_weights))
            if len(self.classes) < 2:
                raise ValueError(
                    f"y has one class ({self.classes.tolist()}); a classifier needs two"
                )
        return self.classes

    def base_score(self, algorithm):
        """XGBoost's estimate, from the survey's sums: the weighted mean of y, the weighted
        share of the second class, or the K classes' priors, each through the loss's own
        estimate (which keeps a share off 0 and 1)."""
        total, classes, loss = self._total, self.classes, algorithm.loss
        if classes is not None and len(classes) >= 3:
            w = np.array([total.label_weights[c] for c in classes.tolist()])
            return loss.default_base_score(np.arange(len(classes)), w)
        if total.sum_w <= 0:
            raise ValueError("sample_weight adds up to 0: there is nothing to fit")
        if classes is not None:  # two classes: the weighted share of the second
            mean = total.label_weights[classes.tolist()[1]] / total.sum_w
        else:
            mean = total.sum_wy / total.sum_w
        return loss.default_base_score(np.array([mean]))  # the mean of one number is itself

    def start(self, model, algorithm, trees=1):
        """One shard per worker, of the partitions it holds: the rows stay where they are.
        (``trees``: how many the fit grows; each worker picks its kernels by its own rows.)"""
        self.driver.shards = [
            self.driver.client.submit(
                S.make_shard,
                [part for part, _ in held],
                [offset for _, offset in held],
                self.cuts,
                model,
                workers=None if worker is None else [worker],
                allow_other_workers=True,
                pure=False,
            )
            for worker, held in self._by_worker.items()
        ]
        self._by_worker = None  # the loaded partitions go once their shards are made

    # ------------------------------------------------------------ each round
    def draw(self, sampler):
        """One tree's sample, as ``LocalRows`` draws it: a uniform number per row of the
        whole data (row i is kept when its number is below ``subsample``), then the
        features. The rows' numbers are drawn on the workers: each shard gets the
        generator's state and skips to its partitions' rows; the driver skips all n."""
        state = sampler.skip_rows(self.n_rows)
        draw = None if state is None else (state, float(sampler.subsample))
        return {"draw": draw, "features": sampler.features(self.n_features)}

    def grow_round(self, algorithm, samples, feature_names):
        trees = []
        for k, sample in enumerate(samples):
            splitter = ClusterSplitter(
                self.driver, self.meta, algorithm, k, sample["features"], sample["draw"]
            )
            d = self.n_features
            tree, keys, leaves = grow_tree(splitter, algorithm.params, d, feature_names)
            splitter.finish(tree, keys, leaves)
            trees.append(tree)
        return trees

    def settle(self):
        self.driver.settle()  # the trees' counts, fetched while the next tree starts

    def finish(self):
        pass  # the workers' row arrays are each tree's own

    def eval_sets(self, evals, model):
        return ClusterEvalSets(self.driver, evals, model, self.n_workers)

    def train_score(self, loss):
        return None  # the margins are on the workers: the bar's last line has no score

    def trace(self, model, algorithm, samples):
        return DaskTrace(
            model,
            algorithm,
            self.meta,
            self.cuts,
            self.parts,
            self.offsets,
            samples,
            self.driver.client,
            self.driver.timeout,
        )

    def release(self):
        self.driver.release()


class ClusterEvalSets:
    """The engine's ``EvalSets`` on the cluster: each eval set's partitions keep their
    margins on the workers; after round t they add its trees and reply with their rows and
    the loss's metric, and the driver averages those (``results``: ``evals_result()``)."""

    def __init__(self, driver, evals, model, n_workers):
        from dask import delayed

        self.driver, self.loss, self.results = driver, model.loss, {}
        self.shards = []
        for X_e, y_e in evals or ():
            parts = partitions(X_e, y_e, None, n_workers)
            self.shards.append(
                [
                    driver.client.compute(
                        delayed(S.make_eval_shard, pure=True)(x, y, model),
                        optimize_graph=False,
                    )
                    for x, y in zip(parts.X, parts.y)
                ]
            )

    def __call__(self, t, model):
        trees = model.round_trees(t)
        name = self.loss.metric_name
        driver = self.driver
        for j, shards in enumerate(self.shards):
            shards[:] = [driver.submit(S.eval_round, s, trees, self.loss) for s in shards]
            replies = [driver.result(driver.submit(S.reply, s), "an eval set") for s in shards]
            rows = np.array([r[0] for r in replies], dtype=np.float64)
            metric = np.array([r[1] for r in replies])
            # a mean over partitions weighted by their rows; rmse averages the squares
            if name == "rmse":
                score = float(np.sqrt(np.dot(rows, metric**2) / rows.sum()))
            else:
                score = float(np.dot(rows, metric) / rows.sum())
            self.results.setdefault(f"validation_{j}", {}).setdefault(name, []).append(score)

    def last_scores(self):
        """The scores of the last eval set, one per round so far."""
        return self.results[f"validation_{len(self.shards) - 1}"][self.loss.metric_name]
