"""Input checks with messages that say which column, row or value is wrong."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd

from ._categories import encode_categories


class _DataConversionWarning(UserWarning):
    """A column-vector y was turned into a 1-D array."""


class _NotFittedError(ValueError, AttributeError):
    """Raised when a model is used before ``fit``."""


def _sklearn_exception(name, stand_in):
    """scikit-learn's class of that name when it is installed (so scikit-learn code
    catches ours), else the stand-in. Looked up when first needed: importing
    scikit-learn takes seconds, and ``import teachgbt`` must not wait for it."""
    try:
        from sklearn import exceptions
    except ImportError:  # pragma: no cover - exercised only without scikit-learn
        return stand_in
    return getattr(exceptions, name)


def __getattr__(name):
    if name == "NotFittedError":
        return _sklearn_exception(name, _NotFittedError)
    if name == "DataConversionWarning":
        return _sklearn_exception(name, _DataConversionWarning)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_is_fitted(model):
    """Raise ``NotFittedError`` unless ``model`` has trees (from ``fit`` or ``from_trees``).

    The one fitted-check of the package: the estimators, the trace, the drawings, the
    plots and the explanations all call it.
    """
    if not hasattr(model, "trees_"):
        raise _sklearn_exception("NotFittedError", _NotFittedError)(
            f"this {type(model).__name__} is not fitted yet; call fit(X, y) before using it"
        )
    return model


def _row_label(index, i):
    return f"row {index[i]!r}" if index is not None else f"row {int(i)}"


def is_text(values):
    """Whether a column (a Series, or its dtype) is neither numeric nor boolean: text,
    categories or mixed objects, which a tree cannot split until they are encoded."""
    return not (pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values))


def text_columns(df):
    """The columns of ``df`` that :func:`is_text` finds, in the frame's order."""
    return [c for c in df.columns if is_text(df[c])]


def _frame_source(X, what, dtype):
    """A DataFrame's values as ``dtype``, with how to find an original value and its
    infinities (for the messages); text columns and names used twice refused."""
    names = [str(c) for c in X.columns]
    twice = sorted({c for c in names if names.count(c) > 1})
    if twice:
        raise ValueError(
            f"{what} names the column {twice[0]!r} twice: give every column its own name "
            "(a tree's rule would not say which one it splits)"
        )
    bad = [f"{c!r} ({X[c].dtype})" for c in text_columns(X)]
    if bad:
        raise TypeError(
            f"{what} has non-numeric columns: {', '.join(bad)}. Trees split numbers; encode "
            "categories as 0/1 columns first, one per category (one-hot encoding, seed 002), "
            "e.g. pd.get_dummies(X, columns=[...], dtype=float)"
        )
    if X.shape[0] and X.shape[1]:
        with np.errstate(over="ignore"):  # too-large values are reported below
            source = X.to_numpy(dtype=dtype, na_value=np.nan)
    else:
        source = np.empty(X.shape, dtype=dtype)

    def original(i, j):
        return float(X.iat[i, j])

    def infinite():
        return np.isinf(X.to_numpy(dtype=np.float64, na_value=np.nan))

    return source, original, infinite


def _array_source(X, what):
    """Anything array-like as a 2-D numeric ndarray, with the same helpers as
    ``_frame_source``."""
    try:
        source = np.asarray(X)
    except Exception as e:  # pragma: no cover - exotic inputs
        raise TypeError(f"{what} must be a 2-D array or a DataFrame; got {type(X).__name__}") from e
    if source.dtype.kind == "c":
        raise ValueError(
            f"Complex data not supported: {what} holds complex numbers; trees split real numbers"
        )
    if source.dtype == object or source.dtype.kind in "USV":
        try:
            source = source.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"{what} holds non-numeric values (dtype {source.dtype}: {e}). Trees split "
                "numbers; encode categories as 0/1 columns (one-hot encoding, seed 002)"
            ) from None
    if source.ndim == 1:
        raise ValueError(
            f"{what} must be 2-dimensional (rows × features); got a 1-D array of shape "
            f"{source.shape}. Reshape your data: X.reshape(-1, 1) for a single feature, "
            "X.reshape(1, -1) for a single instance"
        )
    if source.ndim != 2:
        raise ValueError(
            f"{what} must be 2-dimensional (rows × features); got shape {source.shape}"
        )

    def original(i, j):
        return float(source[i, j])

    def infinite():
        return np.isinf(np.asarray(source, dtype=np.float64))

    return source, original, infinite


def check_X(X, what="X", dtype=np.float32, beyond_float32=False, allow_inf=False):
    """Return (X as a C-ordered ``dtype`` ndarray, feature names or None). Never mutates X.

    float32 is the precision teachgbt's trees (and XGBoost's) compare features in;
    models imported from a library that compares float64 values (LightGBM,
    HistGradientBoosting) are given float64 X, which may hold any finite number.
    ``beyond_float32``: finite values too large for float32 become ±inf in float32 X, as
    XGBoost reads them at prediction (else they are refused, as in training).
    ``allow_inf``: ±inf are inputs like any other (a model's library predicts them: they
    go to the side every threshold sends them), else refused as in training. An input
    that already is a C-ordered array of ``dtype`` is used as it is, without a copy.
    """
    names = index = None
    if not isinstance(X, pd.DataFrame) and (hasattr(X, "tocsr") or hasattr(X, "sparse")):
        # scipy.sparse matrices and arrays (a DataFrame has a .sparse accessor too)
        raise TypeError(
            f"{what} is a sparse matrix, and teachgbt does not take sparse input: a zero "
            "that sparse storage leaves out is a value here, not a missing one (NaN). Pass "
            "X.toarray() to train on zeros, or a dense array with NaN where values are missing"
        )
    if isinstance(X, pd.DataFrame):
        names, index = [str(c) for c in X.columns], X.index
        source, original, infinite = _frame_source(X, what, dtype)
    else:
        source, original, infinite = _array_source(X, what)
    # the wording of scikit-learn's check_array, which its estimator checks expect
    if source.shape[0] == 0:
        raise ValueError(
            f"{what} is empty: it has no rows. Found array with 0 sample(s) "
            f"(shape={source.shape}) while a minimum of 1 is required."
        )
    if source.shape[1] == 0:
        raise ValueError(
            f"{what} is empty: it has no feature columns. Found array with 0 feature(s) "
            f"(shape={source.shape}) while a minimum of 1 is required."
        )
    with np.errstate(over="ignore"):  # too-large values are reported below
        X32 = np.ascontiguousarray(source, dtype=dtype)
    if not _any_infinite(X32):
        return X32, names
    inf = np.isinf(X32)
    if inf.any() and beyond_float32:  # only values that were infinite before the cast
        inf &= infinite()
    if inf.any() and allow_inf:  # ±inf themselves are inputs; too-large values are not
        inf &= ~infinite()
    if inf.any():
        i, j = np.argwhere(inf)[0]
        col = names[j] if names else int(j)
        value = original(i, j)
        if np.isinf(value):
            raise ValueError(
                f"{what} contains an infinite value in column {col!r}, {_row_label(index, i)} "
                f"({value!r}); missing values may be NaN, but not inf"
            )
        raise ValueError(
            f"{what} value {value!r} in column {col!r}, {_row_label(index, i)} is "
            "too large for float32, the precision trees compare features in"
        )
    return X32, names


def _any_infinite(X, rows=1 << 15):
    """Whether X holds ±inf, looked for ``rows`` rows at a time (a mask of all of X at
    once would be as many bytes as X has cells: 28 MB at 1M × 28)."""
    return any(np.isinf(X[lo : lo + rows]).any() for lo in range(0, len(X), rows))


def _column_vector_warning(what):
    warnings.warn(
        f"A column-vector {what} was passed when a 1d array was expected; it is used as "
        f"{what}.ravel()",
        _sklearn_exception("DataConversionWarning", _DataConversionWarning),
        stacklevel=4,
    )


def check_y_present(y, estimator):
    """A supervised fit needs y (scikit-learn's wording)."""
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None"
        )


def _target_column(y, n_rows, what):
    """``y`` as a 1-D array of ``n_rows`` values (a single column is taken, with
    scikit-learn's warning), and its row labels when it is a Series (for messages)."""
    index = y.index if isinstance(y, pd.Series) else None
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        _column_vector_warning(what)
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{what} must be 1-dimensional; got shape {arr.shape}")
    if len(arr) != n_rows:
        raise ValueError(f"X has {n_rows} rows but {what} has {len(arr)}; they must match")
    return arr, index


def check_y_numeric(y, n_rows, what="y"):
    """Return a regression target as float64, finite and within float32's range."""
    y, index = _target_column(y, n_rows, what)
    try:
        yf = y.astype(np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be numeric for a regressor; got dtype {y.dtype}") from None
    bad = ~np.isfinite(yf)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{what} contains {float(yf[i])!r} at {_row_label(index, i)}; targets must be finite"
        )
    huge = np.abs(yf) > _FLOAT32_MAX
    if huge.any():
        i = int(np.argmax(huge))
        raise ValueError(
            f"{what} contains {float(yf[i])!r} at {_row_label(index, i)}, beyond float32's range "
            f"(±{_FLOAT32_MAX:.3g}) that gradients are summed in: the model would predict NaN. "
            "Rescale the target (e.g. divide it by a power of ten)"
        )
    return yf


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_finite_params(params):
    """Parameters that would make every prediction NaN, refused before fitting:
    ``params`` maps names to values (None: not given). A learning rate or a base score
    must be a finite number in float32's range, the precision XGBoost keeps them in."""
    for name, value in params.items():
        if value is None or isinstance(value, str) or callable(value):
            continue
        try:
            v = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a number; got {value!r}"[:200]) from None
        if not np.isfinite(v).all() or (np.abs(v) > _FLOAT32_MAX).any():
            raise ValueError(
                f"{name}={value!r} would make the model predict NaN: give a finite number "
                f"within float32's range, ±{_FLOAT32_MAX:.3g}"[:300]
            )


def check_y_classes(y, n_rows, what="y"):
    """Return (y as class indices 0 … K−1 in float64, classes_ sorted). Labels may be bools,
    whole numbers or strings; there must be at least two classes. With two classes the
    indices are 0/1, ``classes_[1]`` the positive class."""
    arr, index = _target_column(y, n_rows, what)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                f"{what} contains {float(arr[i])!r} at {_row_label(index, i)}; "
                "labels must not be missing"
            )
        if not np.all(arr == np.round(arr)):
            example = arr[arr != np.round(arr)][0]
            raise ValueError(
                f"{what} holds continuous values (e.g. {float(example)!r}): this looks "
                "like a regression target. BoostingClassifier needs two class labels; "
                "use BoostingRegressor for a numeric target"
            )
    elif arr.dtype == object:
        missing = pd.isna(arr)
        if missing.any():
            i = int(np.argmax(missing))
            raise ValueError(f"{what} is missing a label at {_row_label(index, i)}")
    classes, codes = _classes_and_codes(arr)
    if len(classes) < 2:
        shown = ", ".join(repr(c) for c in classes[:10].tolist())
        raise ValueError(
            f"BoostingClassifier needs at least two classes in {what}, got {len(classes)} "
            f"class ({shown})"
        )
    return codes.reshape(-1).astype(np.float64), classes


def _classes_and_codes(arr):
    """``np.unique(arr, return_inverse=True)``; for labels that are small whole numbers
    (0/1, 0 … K−1) counted instead of sorted, which is the same answer in one pass."""
    if arr.dtype.kind in "biuf" and arr.size:
        lo, hi = arr.min(), arr.max()
        if lo >= 0 and hi <= 1 << 16:  # whole numbers: checked above for floats
            seen = np.zeros(int(hi) + 1, dtype=bool)
            seen[arr.astype(np.intp)] = True
            values = np.flatnonzero(seen)
            code_of = np.cumsum(seen) - 1  # value v is class code_of[v]
            return values.astype(arr.dtype), code_of[arr.astype(np.intp)]
    try:
        return np.unique(arr, return_inverse=True)
    except TypeError:  # labels that cannot be sorted together: numbers beside texts
        kinds = {type(v).__name__: v for v in arr.tolist()}
        shown = ", ".join(f"{v!r} ({k})" for k, v in list(kinds.items())[:3])
        raise TypeError(
            f"the labels mix kinds that cannot be ordered ({shown}): give every label as "
            "a number, or every label as text"
        ) from None


def check_sample_weight(sample_weight, n_rows):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    if len(w) != n_rows:
        raise ValueError(f"X has {n_rows} rows but sample_weight has {len(w)}; they must match")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"sample_weight[{i}] = {float(w[i])!r}; weights must be finite and non-negative"
        )
    if not w.sum() > 0:
        raise ValueError(
            "sample_weight sums to 0 (every weight is zero): at least one row needs a "
            "positive weight"
        )
    return w


def check_nonneg(name, value):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value):
        raise TypeError(f"{name} must be a number; got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0; got {value!r}")
    return float(value)


def check_instance(x, names, n_features, what="the instance", categories=None):
    """One instance as a float vector: a 1-D array, a Series, a dict or a one-row DataFrame.

    A Series or dict is matched to the model's feature ``names`` when it carries them;
    with ``categories`` ({feature: its categories}) a category named there reads as its code.
    """
    if isinstance(x, pd.DataFrame):
        if len(x) != 1:
            raise ValueError(f"{what}: give one instance at a time; got {len(x)} rows")
        x = x.iloc[0]
    if isinstance(x, dict):
        x = pd.Series(x)
    if isinstance(x, pd.Series) and names is not None:
        idx = [str(i) for i in x.index]
        missing = [str(n) for n in names if str(n) not in idx]
        if missing:
            raise ValueError(f"{what} has no value for {missing}")
        x = x.rename(index=str)[[str(n) for n in names]]
    if categories:  # the one row as a frame: its categories read as codes, by name
        row = pd.DataFrame([list(np.asarray(x, dtype=object).reshape(-1))])
        if row.shape[1] == n_features:
            for j in categories:
                row[j] = row[j].astype(object)
            x = encode_categories(row, categories).iloc[0]
    v = np.asarray(x, dtype=np.float64).reshape(-1)
    if v.size != n_features:
        raise ValueError(f"{what} has {v.size} values; the model has {n_features} features")
    return v


def check_eval_set(eval_set, n_features, names, check_y):
    """``eval_set`` as a list of (X32, y) pairs matching the training data's features.

    ``check_y(y, n_rows, k)`` validates (and a classifier encodes) the k-th pair's y.
    """
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
        ex32, _ = check_X(ex, f"eval_set[{k}] X")
        if ex32.shape[1] != n_features:
            raise ValueError(
                f"eval_set[{k}] has {ex32.shape[1]} features but the training data has {n_features}"
            )
        out.append((ex32, check_y(ey, len(ex32), k)))
    return out
