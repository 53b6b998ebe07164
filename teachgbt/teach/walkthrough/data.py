"""Data preparation: X and y as the walkthrough trains on them, text one-hot encoded."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...estimators import BoostingClassifier, BoostingRegressor
from ...utils import text_columns
from .. import datasets

__all__ = ["prepare", "is_classification", "fit", "settings"]


def prepare(X, y, target):
    """``(X, y, target name, {text column: its one-hot columns})`` from what the caller gave:
    a frame with a ``target`` column, or X and y; arrays get columns ``f0, f1, ...``."""
    if y is None:
        if target is None:
            raise ValueError("give the target: walkthrough(X, y) or walkthrough(df, target='col')")
        if not isinstance(X, pd.DataFrame) or target not in X.columns:
            raise ValueError(f"target={target!r} is not a column of X")
        y = X[target]
        X = X.drop(columns=target)
    if not isinstance(X, pd.DataFrame):
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (rows x features); got shape {arr.shape}")
        X = pd.DataFrame(arr, columns=[f"f{j}" for j in range(arr.shape[1])])
    if len(y) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}; they must match")
    if isinstance(y, pd.Series):
        name = str(y.name) if y.name is not None else (target or "y")
        y = y.reset_index(drop=True).set_axis(X.index).rename(name)
    else:
        name = target or "y"
        y = pd.Series(np.asarray(y), index=X.index, name=name)
    text_cols = text_columns(X)
    encoded = {}
    if text_cols:
        Xe = datasets.one_hot(X, columns=text_cols)
        for c in text_cols:
            encoded[str(c)] = [
                str(n) for n in Xe.columns if n not in X.columns and str(n).startswith(f"{c}_")
            ]
        X = Xe
    return X, y, name, encoded


def is_classification(y):
    """Booleans, text or two distinct values: a classification target."""
    if pd.api.types.is_bool_dtype(y) or not pd.api.types.is_numeric_dtype(y):
        return True
    return y.nunique() == 2


def settings(params, n_estimators, learning_rate, max_depth, max_leaves):
    """The estimator's keyword arguments: the caller's, with the walkthrough's own four."""
    return dict(
        params,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        max_leaves=max_leaves,
    )


def fit(X, y, classifier, algorithm, params):
    """A fitted ``BoostingClassifier`` or ``BoostingRegressor`` of ``algorithm``."""
    est = BoostingClassifier if classifier else BoostingRegressor
    return est(algorithm=algorithm, **params).fit(X, y)
