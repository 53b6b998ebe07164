"""No wait before a classroom's first tree: ``import teachgbt`` leaves scikit-learn,
SciPy and numba unloaded, and a small fit runs numpy instead of compiling."""

import importlib.util
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


def test_auto_compiles_small_data_when_the_fits_trees_make_the_work_large(monkeypatch):
    """Under a million cells, a trainer's kernels are compiled once cells × trees reach
    the module's MIN_WORK (10k rows × 28 features × 100 trees: numpy 2.3 s, compiled
    1.0 s), and not one tree before."""
    monkeypatch.setattr(_kernels, "KERNEL", "auto")
    monkeypatch.setattr(_kernels, "BACKGROUND", False)  # compiled at the call, if at all
    for module in ("engine._hist_numba", "engine._exact_numba"):
        cells = _kernels.MIN_CELLS // 4
        enough = -(-_kernels.MIN_WORK[module] // cells)  # trees that make the work pay
        assert 1 < enough < 1000
        assert _kernels.load(module, cells, trees=enough - 1) is None
        if importlib.util.find_spec("numba") is not None:
            assert _kernels.load(module, cells, trees=enough) is not None
    assert _kernels.load("core._tree_numba", cells, trees=10**6) is None  # not a trainer's


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
from teachgbt.utils import kernels
print(kernels.compile_seconds())
"""
    env = dict(os.environ, TEACHGBT_KERNEL="numba", NUMBA_CACHE_DIR=str(tmp_path))
    said, waited = [], []
    for _ in range(2):
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        said.append([line for line in run.stderr.splitlines() if "compiling" in line])
        waited.append(float(run.stdout.split()[-1]))
    assert waited[0] > 0.1 and waited[1] == 0.0  # compiled at the calls, then loaded
    assert len(said[0]) == 1
    assert said[0][0].startswith("teachgbt: compiling its numba kernels") and " s)" in said[0][0]
    assert said[1] == []


def test_the_compiling_child_imports_the_kernels_without_pandas(monkeypatch):
    """The background compile's child (started with TEACHGBT_COMPILE_CHILD=1) imports the
    trainers' kernel modules and nothing of the public API: no pandas, a third of a second
    sooner at its compile. A process without the variable imports the whole package."""
    modules = (
        "teachgbt.utils._compile",
        "teachgbt.engine._hist_numba",
        "teachgbt.engine._exact_numba",
    )
    code = (
        f"import json, sys\nfor m in {modules!r}: __import__(m)\n"
        "import teachgbt\n"
        "print(json.dumps(['pandas' in sys.modules, hasattr(teachgbt, 'BoostingClassifier')]))"
    )
    env = dict(os.environ, TEACHGBT_COMPILE_CHILD="1")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [False, False], run.stderr
    env.pop("TEACHGBT_COMPILE_CHILD")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [True, True], run.stderr
    seen = {}  # and the child is started with it
    monkeypatch.setattr(_kernels.subprocess, "Popen", lambda args, **kw: seen.update(kw))
    _kernels._start_child()
    assert seen["env"]["TEACHGBT_COMPILE_CHILD"] == "1"
