"""What every part of the package leans on: input checks, safe files, kernel choice.

    _validation.py   checks of X, y, weights and parameters with messages that name the
                     column, row or value; the one fitted-check
    _files.py        writes that never clobber (into the path named, whole or not at all),
                     bounded reads, the folder writer, Ctrl-C's record
    _escape.py       names read from files made safe to show: in HTML, on a terminal
    _kernels.py      numba or numpy: which compiled kernels run, and from what size
    _sklearn_base.py scikit-learn's estimator protocol without importing it; init_taking,
                     a constructor made from parameters declared elsewhere
    _categories.py   pandas category columns as the codes set splits test, and back

Nothing here imports any other part of teachgbt.
"""

import importlib

from . import _kernels as kernels
from ._escape import escape_html, printable
from ._files import (
    FolderWriter,
    OutputError,
    check_distinct,
    interrupted,
    read_bytes,
    remove_temporaries,
    write_atomic,
)
from ._sklearn_base import BaseEstimator, ClassifierMixin, RegressorMixin, init_taking

__all__ = [
    "kernels",
    "escape_html",
    "printable",
    "UNSEEN_CODE",
    "categorical_columns",
    "encode_categories",
    "split_categories",
    "FolderWriter",
    "OutputError",
    "check_distinct",
    "interrupted",
    "read_bytes",
    "remove_temporaries",
    "write_atomic",
    "BaseEstimator",
    "ClassifierMixin",
    "RegressorMixin",
    "init_taking",
    "check_eval_set",
    "check_finite_params",
    "check_instance",
    "check_is_fitted",
    "check_nonneg",
    "check_sample_weight",
    "check_X",
    "check_y_classes",
    "check_y_numeric",
    "check_y_present",
    "is_text",
    "text_columns",
    "NotFittedError",
]


#: names imported on first use, by module: the checks and categories import pandas, which
#: the background compile's child (``_compile``, needing ``kernels`` alone) does without
_ON_USE = {
    "_categories": ("UNSEEN_CODE", "categorical_columns", "encode_categories", "split_categories"),
    "_validation": (
        "check_eval_set", "check_finite_params", "check_instance", "check_is_fitted",
        "check_nonneg", "check_sample_weight", "check_X", "check_y_classes", "check_y_numeric",
        "check_y_present", "is_text", "text_columns",
    ),
}  # fmt: skip


def __getattr__(name):
    if name in ("NotFittedError", "DataConversionWarning"):
        # scikit-learn's exception classes when it is installed, looked up on use
        # (importing scikit-learn takes seconds; ``import teachgbt`` must not wait for it)
        from . import _validation

        return getattr(_validation, name)
    for module, names in _ON_USE.items():
        if name in names:
            value = getattr(importlib.import_module(f".{module}", __name__), name)
            globals()[name] = value  # (looked up here once)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
