"""The other library's own reading of a model file, run where it cannot hurt teachgbt.

XGBoost and LightGBM read model files in C++, and a crafted file can make that code crash
the process (a segfault, heap corruption), allocate without bound or never finish. The
import's check against the library's own margins (``_common.self_check``) therefore runs
the library in a child Python process, on the file's own bytes (never a text rebuilt from
teachgbt's parse, which would hide what the library would read differently), under a cap
on its address space (``RLIMIT_AS``) and a time limit. Whatever happens there (an error,
a signal, memory or time running out) comes back as one sentence, "XGBoost could not read
FILE (...)": a ``ModelFileError``, which the command line prints as one line, exit 2.
"""

from __future__ import annotations

import importlib.util
import io
import os
import pickle
import signal
import subprocess
import sys

import numpy as np

from ..core import ModelFileError
from ._common import DENSE_CELLS

__all__ = ["LIBRARIES", "installed", "library_margins", "MEMORY_BASE", "TIME_BASE"]

LIBRARIES = {"xgboost": "XGBoost", "lightgbm": "LightGBM"}
MEMORY_BASE = 1 << 30  # address space of Python + numpy + the library, with room to predict
MEMORY_PER_BYTE = 32  # more for a larger file: the library's parse tree of it
TIME_BASE = 120.0  # seconds; importing the library alone takes 1-4 s on a busy machine
TIME_PER_MB = 2.0
_EXIT_NO_LIBRARY = 4  # the child's exit status when the library cannot be imported

# The child: limits first (before numpy), then the library on the bytes it is sent. One
# thread (OpenMP stacks and malloc arenas per thread would eat the address space). The
# libraries' optional companions are kept out: importing scikit-learn and pandas, which
# reading a model does not need, took three quarters of the child's time.
_CHILD = r"""
import resource, sys
limit = int(sys.argv[1])
hard = resource.getrlimit(resource.RLIMIT_AS)[1]
if hard != resource.RLIM_INFINITY:  # a cap set from outside stays: it cannot be raised
    limit = min(limit, hard)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

class _Unneeded:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("sklearn", "pandas", "dask", "pyarrow", "polars"):
            raise ImportError(f"{name} is not needed to read a model")

sys.meta_path.insert(0, _Unneeded())
import pickle
meta, data, indptr, indices, values = pickle.load(sys.stdin.buffer)
try:
    import numpy as np
    from scipy.sparse import csr_matrix
    library = __import__(meta["library"])
except ImportError as e:  # the installation, not the file: no check can be made
    sys.stderr.write(f"ImportError: {e}\n")
    sys.exit(4)
try:
    X = csr_matrix((values, indices, indptr), shape=tuple(meta["shape"]))
    if meta["library"] == "xgboost":
        xgboost = library
        booster = xgboost.Booster(params={"nthread": 1}, model_file=bytearray(data))
        types = booster.feature_types
        dm = xgboost.DMatrix(X, missing=meta["missing"], nthread=1,
                             feature_names=booster.feature_names, feature_types=types,
                             enable_categorical=bool(types and "c" in types))
        margin = booster.predict(dm, output_margin=True,
                                 iteration_range=(0, meta["iteration_end"]))
    else:
        booster = library.Booster(model_str=data.decode("utf-8"))
        # dense blocks: LightGBM reads a CSR value at the edge of its zero band otherwise
        step = max(1, meta["dense_cells"] // max(X.shape[1], 1))
        margin = np.concatenate([
            booster.predict(X[a : a + step].toarray(), raw_score=True, num_threads=1)
            for a in range(0, X.shape[0], step)
        ])
    out = np.asarray(margin, dtype=np.float64)
except MemoryError:
    sys.stderr.write("MemoryError: it needed more memory than the check allows\n")
    sys.exit(3)
except BaseException as e:
    first = [ln.strip() for ln in str(e).splitlines() if ln.strip()][:1]
    sys.stderr.write(f"{type(e).__name__}: {first[0] if first else ''}\n")
    sys.exit(3)
np.save(sys.stdout.buffer, out, allow_pickle=False)
"""


def installed(module):
    """Whether the library (``xgboost`` or ``lightgbm``) can be imported here."""
    return importlib.util.find_spec(module) is not None


def library_margins(module, data, X, missing=np.nan, iteration_end=0):
    """The library's raw margins of the model file ``data`` (its bytes) on ``X`` (a scipy
    CSR matrix as wide as the model), computed in a child process. Raises
    ``ModelFileError`` when the library cannot read the file (the caller names it)."""
    name = LIBRARIES[module]
    X = X.tocsr()
    payload = pickle.dumps(
        (
            {"library": module, "shape": X.shape, "missing": float(missing),
             "iteration_end": int(iteration_end), "dense_cells": DENSE_CELLS},
            bytes(data),
            X.indptr.astype(np.int64),
            X.indices.astype(np.int64),
            X.data.astype(np.float64),
        ),
        protocol=pickle.HIGHEST_PROTOCOL,
    )  # fmt: skip
    limit = MEMORY_BASE + MEMORY_PER_BYTE * len(data)
    timeout = TIME_BASE + TIME_PER_MB * len(data) / 1e6
    env = dict(os.environ, OMP_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    try:
        done = subprocess.run(
            [sys.executable, "-P", "-c", _CHILD, str(limit)],
            input=payload,
            capture_output=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        raise ModelFileError(
            f"{name} could not read this file: it did not finish within {timeout:.0f} s "
            "(a crafted or corrupted model?)"
        ) from None
    if done.returncode < 0:
        sig = signal.Signals(-done.returncode).name
        raise ModelFileError(
            f"{name} could not read this file: reading it ended {name}'s process with {sig} "
            "(a crafted or corrupted model; teachgbt refuses a file its library cannot read)"
        )
    if done.returncode == _EXIT_NO_LIBRARY:  # not the file's fault: the check is left out
        raise RuntimeError(f"{name} could not be imported: {_first_line(done.stderr)}")
    if done.returncode != 0:
        why = _first_line(done.stderr) or f"exit status {done.returncode}"
        raise ModelFileError(f"{name} could not read this file ({why})")
    try:
        return np.load(io.BytesIO(done.stdout), allow_pickle=False)
    except ValueError:
        raise ModelFileError(f"{name} could not read this file (it gave no margins)") from None


def _first_line(stderr):
    """The child's error line: the last line it wrote (libraries log before it)."""
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""
