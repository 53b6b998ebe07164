"""Dask collections (or numpy/pandas data) as lists of partitions, aligned row for row."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["Partitions", "partitions", "is_dask_collection"]


def is_dask_collection(obj):
    import dask

    return dask.is_dask_collection(obj)


class Partitions:
    """Per partition a Delayed of X, of y and of the weights (or None); feature names."""

    def __init__(self, X, y, weight, n_features, feature_names):
        self.X, self.y, self.weight = X, y, weight
        self.n_features, self.feature_names = n_features, feature_names

    def __len__(self):
        return len(self.X)


def _as_dask(obj, what, n_parts):
    """numpy / pandas data as a dask collection of ``n_parts`` partitions."""
    import dask.array as da
    import dask.dataframe as dd

    if is_dask_collection(obj):
        return obj
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        return dd.from_pandas(obj, npartitions=n_parts, sort=False)
    arr = np.asarray(obj)
    if arr.ndim == 0:
        raise TypeError(f"{what} must be an array, a DataFrame or a dask collection; got {obj!r}")
    rows = max(1, -(-len(arr) // n_parts))
    return da.from_array(arr, chunks=(rows,) + arr.shape[1:])


def _blocks(obj, what, row_chunks=None):
    """A collection's partitions as a list of Delayed, rows split as ``row_chunks`` when the
    collection is an array whose blocks can be made to match them."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(obj, da.Array):
        if obj.ndim == 2 and what != "X":
            if obj.shape[1] != 1:
                raise ValueError(f"{what} must be one column; got shape {obj.shape}")
            obj = obj[:, 0]
        if what == "X":
            if obj.ndim != 2:
                raise ValueError(f"X must be 2-dimensional (rows × features); got {obj.ndim}-D")
            obj = obj.rechunk({1: -1})
        elif row_chunks is not None and not any(np.isnan(row_chunks)):
            n_rows = int(sum(row_chunks))
            if not np.isnan(obj.shape[0]) and obj.shape[0] != n_rows:
                raise ValueError(f"X has {n_rows} rows but {what} has {obj.shape[0]}")
            if not any(np.isnan(obj.chunks[0])) and obj.chunks[0] != tuple(row_chunks):
                obj = obj.rechunk((tuple(row_chunks),))
        return list(obj.to_delayed().ravel())
    if isinstance(obj, dd.DataFrame) and what != "X":
        if len(obj.columns) != 1:
            raise ValueError(f"{what} must be one column; got {len(obj.columns)} columns")
        obj = obj[obj.columns[0]]
    if isinstance(obj, (dd.DataFrame, dd.Series)):
        return list(obj.to_delayed())
    raise TypeError(
        f"{what} must be a dask array or dask DataFrame (or numpy/pandas data); "
        f"got {type(obj).__name__}"
    )


def partitions(X, y, weight, n_parts):
    """X, y and the weights split the same way; ``n_parts``: partitions for in-memory data."""
    import dask.dataframe as dd

    X = _as_dask(X, "X", n_parts)
    names = None
    if isinstance(X, dd.DataFrame):
        names = [str(c) for c in X.columns]
        bad = [c for c, t in X.dtypes.items() if not (pd.api.types.is_numeric_dtype(t))]
        if bad:
            raise ValueError(f"X has columns that are not numbers: {bad}")
        n_features = len(names)
        row_chunks = None
    else:
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (rows × features); got {X.ndim}-D")
        n_features = int(X.shape[1])
        row_chunks = X.chunks[0]
    parts_X = _blocks(X, "X")
    parts = []
    for obj, what in ((y, "y"), (weight, "sample_weight")):
        if obj is None:
            parts.append(None)
            continue
        blocks = _blocks(_as_dask(obj, what, n_parts), what, row_chunks)
        if len(blocks) != len(parts_X):
            raise ValueError(
                f"X has {len(parts_X)} partitions but {what} has {len(blocks)}: split them "
                "the same way (e.g. columns of one dask DataFrame, or arrays with equal chunks)"
            )
        parts.append(blocks)
    return Partitions(parts_X, parts[0], parts[1], n_features, names)
