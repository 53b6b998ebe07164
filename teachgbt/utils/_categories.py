"""Categorical columns: pandas ``category`` columns as the codes a tree's set splits test.

A model trained with ``enable_categorical=True`` keeps, for each categorical feature, its
categories in pandas' order (as XGBoost keeps them): code c is ``categories[j][c]``. Reading a
DataFrame, such a column becomes those codes again, matched by value, so a column whose
categories are listed in another order (or hold more or fewer of them) reads the same:

* a missing value is NaN (it goes a split's default way);
* a category the model never saw is code −1, which no set holds: it goes where XGBoost sends
  an out-of-range code, with the categories outside the set (see ``teachgbt.core.routing``);
* a numeric column is taken as the codes themselves, as XGBoost takes a numpy array.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["UNSEEN_CODE", "categorical_columns", "split_categories", "encode_categories"]

UNSEEN_CODE = -1.0  # a category not among the model's: no set holds it


def categorical_columns(df):
    """Positions of the pandas ``category`` columns of ``df``."""
    # by position (df.dtypes), so that a name given twice reaches check_X's message
    return [j for j, t in enumerate(df.dtypes) if isinstance(t, pd.CategoricalDtype)]


def _labels(categories):
    """A pandas categories index as plain Python values (str, int, float, ...)."""
    return [v.item() if hasattr(v, "item") else v for v in categories]


def split_categories(X, enable_categorical, what="X"):
    """``(X, categories)`` for training: a DataFrame's ``category`` columns replaced by their
    codes (float, NaN for missing) and ``{position: categories}``; other inputs unchanged,
    ``{}``. Without ``enable_categorical`` such a column is refused, as XGBoost refuses it."""
    if not isinstance(X, pd.DataFrame):
        return X, {}
    cols = categorical_columns(X)
    if not cols:
        return X, {}
    if not enable_categorical:
        shown = ", ".join(repr(str(X.columns[j])) for j in cols)
        raise TypeError(
            f"{what} has categorical columns ({shown}). Pass enable_categorical=True (with "
            "tree_method='hist') to split them natively into sets of categories, as XGBoost "
            "does, or encode them as 0/1 columns first (one-hot encoding, seed 002): "
            "pd.get_dummies(X, columns=[...], dtype=float)"
        )
    categories = {j: _labels(X.iloc[:, j].cat.categories) for j in cols}
    return _with_codes(X, {j: X.iloc[:, j].cat.codes.to_numpy() for j in cols}), categories


def _with_codes(X, codes):
    """A copy of X whose columns ``codes`` (position -> int codes, −1 missing) hold floats."""
    out = X.copy()
    for j, c in codes.items():
        out[out.columns[j]] = np.where(c < 0, np.nan, c.astype(np.float64))
    return out


def encode_categories(X, categories):
    """X with the model's categorical columns as its codes, matched by value (see the
    module docstring). Inputs other than a DataFrame are taken as codes already."""
    if not categories or not isinstance(X, pd.DataFrame):
        return X
    out = None
    for j, labels in categories.items():
        if j >= X.shape[1]:
            continue  # the caller reports a wrong number of columns
        col = X.iloc[:, j]
        if pd.api.types.is_numeric_dtype(col) and not isinstance(col.dtype, pd.CategoricalDtype):
            continue  # codes already
        out = X.copy() if out is None else out
        out[out.columns[j]] = _codes_by_value(col, labels)
    return X if out is None else out


def _codes_by_value(col, labels):
    """The model's code of each value of ``col`` (float): NaN where missing, ``UNSEEN_CODE``
    for a value that is none of ``labels``."""
    lookup = {label: float(k) for k, label in enumerate(labels)}
    if isinstance(col.dtype, pd.CategoricalDtype):  # look each category up once
        per_category = np.array(
            [lookup.get(v, UNSEEN_CODE) for v in _labels(col.cat.categories)] + [np.nan]
        )
        return per_category[col.cat.codes.to_numpy()]  # code −1 (missing) takes the last
    values = [v.item() if hasattr(v, "item") else v for v in col.astype(object).to_numpy()]
    codes = np.array([lookup.get(v, UNSEEN_CODE) for v in values], dtype=np.float64)
    return np.where(col.isna().to_numpy(), np.nan, codes)
