"""Train on a Dask cluster: seed 003's distributed histogram boosting, with the same trees as
one machine.

    from dask.distributed import Client, LocalCluster
    from teachgbt.dask import DaskBoostingClassifier

    client = Client(LocalCluster(n_workers=2))
    clf = DaskBoostingClassifier(n_estimators=100, max_depth=6).fit(dask_X, dask_y)

Each worker keeps the rows of its partitions, computes their g, h and the
gradient histograms of each tree's nodes; the histograms (nodes × features ×
bins) are summed through Dask and every split is chosen once, on the client,
by the single-machine split finder; the workers then move their rows to the
children. ``to_local()`` gives the ``BoostingClassifier`` / ``BoostingRegressor``
with the same trees. Needs the ``dask`` extra: ``pip install "teachgbt[dask]"``.

Cut points come from the whole data: exact (every distinct value, as the
single-machine trainer and XGBoost ``hist``) for a feature with at most
``max_bin`` distinct values, otherwise read off a merged quantile summary
(``teachgbt.dask.cuts``). The single-machine trainer estimates the latter from
a sample of 200 000 rows on large data, so on many distinct values the two may
cut differently; given the same cut points they grow the same trees.
"""

from __future__ import annotations

try:
    import dask.distributed  # noqa: F401
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('teachgbt.dask needs dask.distributed: pip install "teachgbt[dask]"') from err

from .estimators import DaskBoostingClassifier, DaskBoostingRegressor

__all__ = ["DaskBoostingClassifier", "DaskBoostingRegressor"]
