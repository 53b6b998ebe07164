"""Reading a CSV for the command line: clear errors for what a newcomer's file gets wrong.

The rule for text columns: a column is *text* (and gets one-hot encoded, seed 002) when
more than half of its non-empty values are not numbers; otherwise it is *numeric*, and
a value in it that is not a number is an error naming the column, the row and the value
(``5,x,0``: a typo, not a category). Rows are numbered from 0, as the data rows of the
file (the header is not a row); the error also gives the line of the file.
"""

from __future__ import annotations

import csv
import io
import os
import warnings

import pandas as pd

from ..core import shorten
from ..utils import read_bytes

__all__ = ["CSVError", "read_csv", "model_features"]

_TEXT_SHARE = 0.5  # a column is text when more than this share of its values is not a number
_STREAM_LIMIT = 1 << 30  # bytes read from a FIFO or a device before it counts as endless


class CSVError(ValueError):
    """A problem with the user's CSV; the command line prints it as one line."""


def read_csv(path, decimal=".", thousands=None, sep=",", na_values=None):
    """The CSV at ``path`` (``-``: standard input) as a DataFrame, numeric columns as
    numbers. ``decimal`` and ``thousands`` say how its numbers are written (``3,5`` and
    ``1,234`` need them: a column of such numbers is refused, not one-hot encoded into
    nonsense); ``sep`` is the column separator. An empty cell is a missing value; so are
    ``NA``, ``NaN``, ``null`` and pandas' other missing-value words in a numeric column,
    but in a text column they are categories like any other text (a category named NA
    stays one); ``na_values`` (texts) are missing in every column."""
    path = os.fspath(path)
    shown = "standard input" if path == "-" else path
    if path != "-" and not os.path.exists(path):
        raise CSVError(f"{path}: no such file")
    if path != "-" and os.path.isdir(path):
        raise CSVError(f"{path} is a folder, not a CSV file")
    source = path
    if path == "-" or not os.path.isfile(path):  # a FIFO, a device, a pipe: read it once
        try:
            source = io.BytesIO(read_bytes(path, _STREAM_LIMIT, "CSV file", _text_start(shown)))
        except ValueError as e:
            raise CSVError(str(e)) from None
    options = dict(sep=sep, decimal=decimal, thousands=thousands, keep_default_na=False,
                   na_values=[""] + list(na_values or ()))  # fmt: skip
    try:
        header = pd.read_csv(source, header=None, nrows=1, dtype=str, **options)
        if not isinstance(source, str):
            source.seek(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.ParserWarning)
            # index_col=False: rows longer than the header are not a silent index
            df = pd.read_csv(source, index_col=False, **options)
    except pd.errors.EmptyDataError:
        raise CSVError(f"{shown} is empty: it has no header and no rows") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CSVError(f"{shown}: not a readable CSV file ({shorten(first)})") from None
    names = [str(c) for c in header.iloc[0].tolist()] if len(header) else []
    if any(issubclass(w.category, pd.errors.ParserWarning) for w in caught):
        _refuse_long_rows(source, shown, sep, len(names))
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CSVError(
            f"{shown} names the column{'s' if len(twice) > 1 else ''} "
            f"{', '.join(shorten(n) for n in twice[:5])} twice; give every column its own name "
            "(a copied target would be learned from as a feature)"
        )
    if len(df) == 0:
        raise CSVError(f"{shown} has a header but no data rows")
    if len(df.columns) == 0:
        raise CSVError(f"{shown} has no columns")
    for c in df.columns:
        _read_column(df, c, shown, decimal, thousands)
    return df


#: pandas' words for a missing value, read as such in a numeric column only
_MISSING_WORDS = ("#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                  "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan",
                  "null")  # fmt: skip


def _read_column(df, c, path, decimal, thousands):
    """Column ``c`` of ``df`` as numbers when its values are numbers (missing words as
    NaN), else kept as text: refused when it is numbers but for a few values (a typo)."""
    col = df[c]
    if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        return
    text = col.astype(str).str.strip()
    missing = col.notna() & text.isin(_MISSING_WORDS)
    numbers = pd.to_numeric(col.where(~missing), errors="coerce")
    given = col.notna() & (text != "") & ~missing
    bad = given & numbers.isna()
    _refuse_written_numbers(path, c, text[bad], given.sum(), decimal, thousands)
    if bad.any() and bad.sum() <= _TEXT_SHARE * given.sum():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise CSVError(
            f"{path}: column {shorten(c)}, row {i} (line {i + 2}) holds "
            f"{shorten(col.iloc[i])}, which is not a number, though the column's other "
            "values are numbers"
        )
    if not bad.any():
        df[c] = numbers


def _refuse_long_rows(source, path, sep, width):
    """Refuse rows with more fields than the header has names, naming the first: pandas
    would make the first field an index and shift every column by one."""
    if len(sep) == 1:
        if isinstance(source, str):
            f = open(source, encoding="utf-8", errors="replace", newline="")  # noqa: SIM115
        else:
            source.seek(0)
            f = io.TextIOWrapper(source, encoding="utf-8", errors="replace", newline="")
        with f:
            rows = csv.reader(f, delimiter=sep)
            next(rows, None)  # the header
            for i, row in enumerate(rows):
                if len(row) > width:
                    raise CSVError(
                        f"{path}: row {i} (line {i + 2}) has {len(row)} fields, but the header "
                        f"names {width} columns: a value without a column would shift every "
                        "column (name every column, or check --sep)"
                    )
    raise CSVError(f"{path}: rows have more fields than the header names columns (check --sep)")


def _text_start(path):
    def check(start):
        if b"\0" in start[:4096]:
            raise ValueError(f"{path} holds zero bytes: not a CSV file (a device? /dev/zero?)")

    return check


def _refuse_written_numbers(path, column, bad, n_given, decimal, thousands):
    """Refuse a column whose values are numbers written with a comma, a space or an
    apostrophe (``1,234``, ``3,5``, ``1 234``): read as text they would become dozens of
    one-hot columns. The fix is an option saying how the numbers are written."""
    if not len(bad) or len(bad) <= _TEXT_SHARE * n_given:
        return
    marks = bad.str.contains(r"[,\s']", regex=True)
    cleaned = bad.str.replace(r"[,.\s']", "", regex=True).str.lstrip("+-")
    written = marks & cleaned.str.fullmatch(r"\d+")
    if written.sum() <= _TEXT_SHARE * len(bad):
        return
    example = bad[written].iloc[0]
    raise CSVError(
        f"{path}: column {shorten(column)} holds numbers written like {shorten(example)}, "
        "read as text. Say how they are written: --thousands , (1,234 is one thousand two "
        "hundred thirty-four) or --decimal , (3,5 is three and a half; often with --sep ';')"
    )


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
            f"{path} lacks the model's feature columns {shorten(missing[:10])}"
            f"{' ...' if len(missing) > 10 else ''} (the model has {d} features)"
        )
    return df[names]
