"""Where the compiled kernels come from: numba when it is installed, numpy otherwise.

The compiled modules (``teachgbt._tree_numba`` for routing rows through a tree,
``teachgbt.engine._hist_numba`` for the histogram trainer,
``teachgbt.engine._exact_numba`` for the exact one) repeat the numpy code's
arithmetic in the same order, so either grows and predicts the same trees.
``KERNEL`` (or the environment variable ``TEACHGBT_KERNEL``) picks: "auto"
(numba when importable), "numpy" or "numba".
"""

from __future__ import annotations

import importlib
import os

__all__ = ["KERNEL", "load"]

KERNEL = os.environ.get("TEACHGBT_KERNEL", os.environ.get("TEACHGBT_HIST_KERNEL", "auto"))

_CHOICES = ("auto", "numpy", "numba")


def load(module):
    """The compiled module ``teachgbt.<module>``, or None when numpy is to be used."""
    if KERNEL not in _CHOICES:
        raise ValueError(f"teachgbt._kernels.KERNEL = {KERNEL!r}; use 'auto', 'numpy' or 'numba'")
    if KERNEL == "numpy":
        return None
    try:
        return importlib.import_module(f"teachgbt.{module}")
    except ImportError:
        if KERNEL == "numba":
            raise
        return None
