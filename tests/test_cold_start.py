"""No wait before a classroom's first tree: ``import teachgbt`` leaves scikit-learn,
SciPy and numba unloaded, and a small fit runs numpy instead of compiling."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.utils import _kernels


def _fresh(code):
    """Run ``code`` in a new interpreter (this one has loaded everything); its JSON."""
    env = dict(os.environ, TEACHGBT_KERNEL="auto")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


HEAVY = "json.dumps([m for m in ('sklearn', 'scipy', 'numba') if m in sys.modules])"


def test_import_loads_neither_sklearn_scipy_nor_numba():
    assert _fresh(f"import json, sys, teachgbt\nprint({HEAVY})") == []


def test_small_fits_and_the_walkthrough_do_not_load_numba():
    code = f"""
import contextlib, io, json, sys
import numpy as np
import teachgbt as tg
rng = np.random.default_rng(0)
X = rng.normal(size=(2000, 10))
y = (X[:, 0] > 0).astype(int)
for method in ("hist", "exact"):
    tg.BoostingClassifier(tree_method=method, n_estimators=3, max_depth=3).fit(X, y)
with contextlib.redirect_stdout(io.StringIO()):
    tg.walkthrough.troll2()
print({HEAVY})
"""
    assert _fresh(code) == []


def test_auto_compiles_only_from_min_cells(monkeypatch):
    monkeypatch.setattr(_kernels, "KERNEL", "auto")
    assert _kernels.load("engine._hist_numba", _kernels.MIN_CELLS - 1) is None
    monkeypatch.setattr(_kernels, "KERNEL", "numba")  # forced: compiled at any size
    try:
        import numba  # noqa: F401
    except ImportError:
        return
    assert _kernels.load("engine._hist_numba", 10) is not None


def test_not_fitted_error_is_sklearns_once_asked_for():
    sklearn_exceptions = pytest.importorskip("sklearn.exceptions")
    assert tg.NotFittedError is sklearn_exceptions.NotFittedError
    try:
        tg.BoostingRegressor().predict(np.zeros((1, 1)))
    except sklearn_exceptions.NotFittedError as e:
        assert "not fitted yet" in str(e)
    else:
        raise AssertionError("predict before fit did not raise")


def test_a_compile_says_why_once_and_a_cached_load_says_nothing(tmp_path):
    """A fresh numba cache: the first fit that compiles teachgbt's kernels says so in one
    line on stderr (never a silent wait); the next process loads them and says nothing."""
    pytest.importorskip("numba")
    code = """
import numpy as np
import teachgbt as tg
rng = np.random.default_rng(0)
X = rng.normal(size=(3000, 4)).astype(np.float32)
X[::7, 1] = np.nan
tg.BoostingClassifier(tree_method="hist", n_estimators=2, max_depth=3).fit(X, X[:, 0] > 0)
"""
    env = dict(os.environ, TEACHGBT_KERNEL="numba", NUMBA_CACHE_DIR=str(tmp_path))
    said = []
    for _ in range(2):
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        said.append([line for line in run.stderr.splitlines() if "compiling" in line])
    assert len(said[0]) == 1
    assert said[0][0].startswith("teachgbt: compiling its numba kernels") and " s)" in said[0][0]
    assert said[1] == []
