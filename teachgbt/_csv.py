"""Reading a CSV for the command line: clear errors for what a newcomer's file gets wrong.

The rule for text columns: a column is *text* (and gets one-hot encoded, seed 002) when
more than half of its non-empty values are not numbers; otherwise it is *numeric*, and
a value in it that is not a number is an error naming the column, the row and the value
(``5,x,0``: a typo, not a category). Rows are numbered from 0, as the data rows of the
file (the header is not a row); the error also gives the line of the file.
"""

from __future__ import annotations

import os

import pandas as pd

__all__ = ["CSVError", "read_csv", "model_features"]

_TEXT_SHARE = 0.5  # a column is text when more than this share of its values is not a number


class CSVError(ValueError):
    """A problem with the user's CSV; the command line prints it as one line."""


def read_csv(path):
    """The CSV at ``path`` as a DataFrame, numeric columns as numbers."""
    if not os.path.exists(path):
        raise CSVError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CSVError(f"{path} is a folder, not a CSV file")
    try:
        df = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise CSVError(f"{path} is empty: it has no header and no rows") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CSVError(f"{path}: not a readable CSV file ({first})") from None
    if len(df) == 0:
        raise CSVError(f"{path} has a header but no data rows")
    if len(df.columns) == 0:
        raise CSVError(f"{path} has no columns")
    for c in df.columns:
        col = df[c]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        numbers = pd.to_numeric(col, errors="coerce")
        given = col.notna() & (col.astype(str).str.strip() != "")
        bad = given & numbers.isna()
        if bad.any() and bad.sum() <= _TEXT_SHARE * given.sum():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise CSVError(
                f"{path}: column {c!r}, row {i} (line {i + 2}) holds {col.iloc[i]!r}, which is "
                f"not a number, though the column's other values are numbers"
            )
        if not bad.any():
            df[c] = numbers
    return df


def model_features(model, df, path):
    """The columns of ``df`` the model predicts from, in the model's order."""
    names = getattr(model, "feature_names_in_", None)
    d = model.n_features_in_
    if names is None:
        numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
        if len(numeric) != d:
            raise CSVError(
                f"{path} has {len(numeric)} numeric columns, but the model (which stores no "
                f"feature names) was trained on {d} features; give exactly those, in order"
            )
        return df[numeric]
    names = [str(n) for n in names]
    missing = [n for n in names if n not in df.columns]
    if missing:
        raise CSVError(
            f"{path} lacks the model's feature columns {missing[:10]}"
            f"{' ...' if len(missing) > 10 else ''} (the model has {d} features)"
        )
    return df[names]
