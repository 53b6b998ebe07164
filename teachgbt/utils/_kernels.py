"""Where the compiled kernels come from: numba when it is installed, numpy otherwise.

The compiled modules (``teachgbt.core._tree_numba`` for routing rows through a tree,
``teachgbt.engine._hist_numba`` for the histogram trainer,
``teachgbt.engine._exact_numba`` for the exact one) repeat the numpy code's
arithmetic in the same order, so either grows and predicts the same trees.
``KERNEL`` (or the environment variable ``TEACHGBT_KERNEL``) picks: "auto",
"numpy" or "numba" (compiled whatever the size, as the tests that prove the two
equal need).

"auto" compiles only where it pays: on large data. numba compiles each function
the first time it is called and keeps it in its disk cache, but that first time
costs seconds per module (about 10 s for the histogram trainer on a quiet
machine), and importing numba alone about half a second. Small fits, where numpy
takes well under a second, would pay that wait before a classroom's first tree;
so below ``MIN_CELLS`` (rows × features of the data) "auto" uses numpy and does
not even import numba. Measured (2026-11-26, 2 cores, 20 features, 20 trees of
depth 6, compiled code already cached): hist 1 000 rows numpy 0.60 s / numba
0.10 s, 5 000 rows 0.82 / 0.14 s, 100 000 rows 2.9 / 0.68 s; exact 5 000 rows
1.33 / 0.61 s, 20 000 rows 3.7 / 2.2 s. numba is faster at every size once its
code is cached, but the saving covers a first compile only from about a million
cells (50 000 rows × 20 features), where numpy's fit takes seconds anyway.
"""

from __future__ import annotations

import importlib
import os

__all__ = ["KERNEL", "MIN_CELLS", "load"]

KERNEL = os.environ.get("TEACHGBT_KERNEL", os.environ.get("TEACHGBT_HIST_KERNEL", "auto"))

_CHOICES = ("auto", "numpy", "numba")

#: "auto" compiles from this many cells (rows × features) of data
MIN_CELLS = 1_000_000


def load(module, cells=None):
    """The compiled module ``teachgbt.<module>``, or None when numpy is to be used.

    ``cells``: the size of the work (rows × features, or rows where every row is one
    step); under "auto" fewer than ``MIN_CELLS`` run numpy. None: size unknown, compiled.
    """
    if KERNEL not in _CHOICES:
        raise ValueError(
            f"teachgbt.utils.kernels.KERNEL = {KERNEL!r}; use 'auto', 'numpy' or 'numba'"
        )
    if KERNEL == "numpy" or (KERNEL == "auto" and cells is not None and cells < MIN_CELLS):
        return None
    try:
        return importlib.import_module(f"teachgbt.{module}")
    except ImportError:
        if KERNEL == "numba":
            raise
        return None
