"""No wait for numba's compile on a first fit: a child process compiles the kernels into
numba's disk cache while the fit goes on with numpy, and the fit switches to them between
trees (``teachgbt.utils.kernels``). numpy and numba grow the same trees, so a fit that
switches grows them too; the child never outlives its parent, and a child stopped in the
middle of a compile leaves a cache the next process uses."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.engine import exact as E
from teachgbt.engine import hist as H
from teachgbt.utils import _kernels as K

numba = pytest.importorskip("numba")

COLUMNS = ("feature", "threshold", "default_left", "n", "G", "H", "value", "loss_chg")


def _problem(n=3000, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, 3] = np.round(X[:, 3], 1)
    X[rng.random((n, d)) < 0.05] = np.nan
    Z = np.nan_to_num(X)
    y = (Z[:, 0] + Z[:, 1] * Z[:, 2] + rng.normal(size=n) > 0).astype(float)
    return X, y


def _same_trees(a, b):
    assert len(a.trees_) == len(b.trees_)
    for s, t in zip(a.trees_, b.trees_, strict=True):
        for name in COLUMNS:
            np.testing.assert_array_equal(getattr(s, name), getattr(t, name), err_msg=name)


@pytest.mark.parametrize("method", ["hist", "exact"])
def test_a_fit_that_switches_kernels_between_trees_grows_the_same_trees(monkeypatch, method):
    """The first trees with numpy, the rest with numba (as when a background compile ends
    in the middle of a fit), against numpy alone and numba alone."""
    X, y = _problem()
    w = np.random.default_rng(1).uniform(0.5, 2, len(y))
    module = H if method == "hist" else E
    real = module.numba_kernels
    fits = {}
    for name, numpy_trees in (("numpy", 10**9), ("numba", 0), ("switched", 3)):
        monkeypatch.setattr(K, "KERNEL", "numba")
        calls = []

        def kernels(*args, numpy_trees=numpy_trees, calls=calls):
            calls.append(1)
            return None if len(calls) <= numpy_trees else real(*args)

        monkeypatch.setattr(module, "numba_kernels", kernels)
        model = tg.BoostingClassifier(
            tree_method=method, n_estimators=8, max_depth=4, reg_alpha=0.1, max_bin=64
        )
        fits[name] = model.fit(X, y, sample_weight=w)
        assert len(calls) >= 8  # one split finder a tree
    _same_trees(fits["numpy"], fits["switched"])
    _same_trees(fits["numpy"], fits["numba"])


# A fit in a fresh process, with "auto" kernels from any size: it records which kernels
# each tree used and stops a few trees after the switch, once nothing is left to compile
# (or after 240 s); it prints the compiling child's process id after its first tree, then
# which kernels each tree used.
PARENT = r"""
import json, os, sys, time
import numpy as np
import teachgbt as tg
from teachgbt.engine import exact, hist
from teachgbt.utils import _kernels
_kernels.MIN_CELLS = 1
rng = np.random.default_rng(0)
X = rng.normal(size=(3000, 6)).astype(np.float32)
X[::11, 2] = np.nan
y = (X[:, 0] + np.nan_to_num(X[:, 1]) ** 2 > 0.5).astype(int)
method = os.environ["TREE_METHOD"]
splitter = hist.HistSplitter if method == "hist" else exact.ExactSplitter
used = []
make = splitter.__init__
def init(self, *a, **k):
    make(self, *a, **k)
    used.append(self.kernels is not None)
splitter.__init__ = init
t0 = time.monotonic()
def hook(estimator, t):
    if t == 1:
        child = _kernels._compiles().child
        print(json.dumps({"child": child and child.pid}), flush=True)
    done = sum(used[-3:]) == 3 and not _kernels._compiles().pending  # every kernel compiled
    return done or time.monotonic() - t0 > float(os.environ["STOP_AFTER"])
model = tg.BoostingClassifier(tree_method=method, n_estimators=100000, max_depth=3,
                              callbacks=[hook]).fit(X, y)
model.save(os.environ["MODEL_PATH"])
model.predict_proba(np.repeat(X, 7, axis=0))  # 21,000 rows: the compiled prediction
print(json.dumps({"used": used, "waited": _kernels.compile_seconds()}), flush=True)
time.sleep(float(os.environ.get("SLEEP_AFTER", "0")))  # the script goes on after its fit
"""


def _start(tmp_path, cache, method="hist", stop_after=240.0, sleep_after=0.0):
    env = dict(
        os.environ,
        SLEEP_AFTER=str(sleep_after),
        TREE_METHOD=method,
        TEACHGBT_KERNEL="auto",
        NUMBA_CACHE_DIR=str(cache),
        MODEL_PATH=str(tmp_path / "model.json"),
        STOP_AFTER=str(stop_after),
    )
    env.pop("TEACHGBT_BACKGROUND_COMPILE", None)
    return subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _gone(pid, within=30.0):
    """Whether process ``pid`` has ended (or is a zombie nobody waits for) within the time."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(") ")[-1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def _numpy_fit(n_rounds, method="hist"):
    import teachgbt.utils._kernels as kernels

    old = kernels.KERNEL
    kernels.KERNEL = "numpy"
    try:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(3000, 6)).astype(np.float32)
        X[::11, 2] = np.nan
        y = (X[:, 0] + np.nan_to_num(X[:, 1]) ** 2 > 0.5).astype(int)
        return tg.BoostingClassifier(tree_method=method, n_estimators=n_rounds, max_depth=3).fit(
            X, y
        )
    finally:
        kernels.KERNEL = old


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("method", ["hist", "exact"])
def test_the_background_compile_fills_the_cache_and_the_fit_switches(tmp_path, method):
    cache = tmp_path / "numba_cache"
    run = _start(tmp_path, cache, method)
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err[-2000:]
    lines = [json.loads(line) for line in out.splitlines()]
    child, used = lines[0]["child"], lines[-1]["used"]
    # started with numpy, switched once, never back; said so in one line, and never
    # compiled in the fit's own process
    assert child is not None and used[0] is False and used[-3:] == [True] * 3
    assert used == sorted(used)
    said = [line for line in err.splitlines() if line.startswith("teachgbt:")]
    assert len(said) == 1 and "in the background" in said[0], err[-2000:]
    assert lines[-1]["waited"] == 0.0
    assert _gone(child)
    _same_trees(tg.load(tmp_path / "model.json"), _numpy_fit(len(used), method))
    # the next process finds every kernel it calls in the cache (its fit's and its
    # prediction's): numba from the first tree, and not a word
    again = _start(tmp_path, cache, method)
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err[-2000:]
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["child"] is None and all(lines[-1]["used"])
    assert "teachgbt:" not in err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("stop", ["kill", "ctrl-c"])
def test_a_stopped_fit_stops_its_compile_and_leaves_a_cache_that_works(tmp_path, stop):
    """The fit's process killed (SIGKILL: no clean-up runs) or interrupted (Ctrl-C) while
    its child compiles: the child ends, and the next process fits on the same cache."""
    cache = tmp_path / "numba_cache"
    run = _start(tmp_path, cache)
    child = json.loads(run.stdout.readline())["child"]
    assert child is not None
    end = time.monotonic() + 300  # until the child has saved a kernel or two: mid-compile
    while not list(cache.rglob("*.nbc")) and time.monotonic() < end:
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL if stop == "kill" else signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode != 0
    if stop == "ctrl-c":
        assert "KeyboardInterrupt" in err
    assert _gone(child)
    # the next process: whatever the cache holds loads, the rest compiles again
    again = _start(tmp_path, cache)
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err[-2000:]
    used = json.loads(out.splitlines()[-1])["used"]
    assert used[-3:] == [True] * 3
    _same_trees(tg.load(tmp_path / "model.json"), _numpy_fit(len(used)))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_process_whose_fit_ends_before_the_compile_waits_for_it_at_exit(tmp_path):
    """A script's fit shorter than the compile: the process says so and waits for the
    child as it exits, so the script's next run finds every kernel in the cache."""
    cache = tmp_path / "numba_cache"
    run = _start(tmp_path, cache, stop_after=0.0)  # one tree, then the prediction
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err[-2000:]
    said = [line for line in err.splitlines() if line.startswith("teachgbt:")]
    assert len(said) == 2 and "in the background" in said[0] and "finishing" in said[1], err
    assert _gone(json.loads(out.splitlines()[0])["child"])
    again = _start(tmp_path, cache)
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err[-2000:]
    assert all(json.loads(out.splitlines()[-1])["used"]) and "teachgbt:" not in err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_after_the_fit_ends_the_process_at_once_and_its_compile(tmp_path):
    """The script goes on after a fit shorter than the compile, and Ctrl-C stops it there:
    the uncaught KeyboardInterrupt ends the process without waiting for the child."""
    run = _start(tmp_path, tmp_path / "numba_cache", stop_after=0.0, sleep_after=120.0)
    child = json.loads(run.stdout.readline())["child"]
    assert "used" in json.loads(run.stdout.readline())  # the fit is over; the child compiles
    run.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, err = run.communicate(timeout=60)
    assert time.monotonic() - t0 < 10 and "KeyboardInterrupt" in err
    assert "finishing" not in err
    assert _gone(child, within=10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_fit_that_compiled_at_its_calls_leaves_every_kernel_the_next_process_probes(
    tmp_path,
):
    """With TEACHGBT_BACKGROUND_COMPILE=0 the first fit compiles in its own process; it
    compiles what a background compile would (the module's ``warm_up``), not only the
    kernels its own data happened to call (ten features: the root's sums come from the
    histogram's sweep, and ``column_sums`` is never called). The next process, in the
    default mode, finds them all in the cache: no compile, not a word."""
    script = (
        "import numpy as np, teachgbt as tg\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(20000, 10)).astype(np.float32)\n"
        "y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)\n"
        "tg.BoostingClassifier(tree_method='hist', n_estimators=100, max_depth=3).fit(X, y)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TEACHGBT_KERNEL", None)
    runs = []
    for background in ("0", "1"):
        env["TEACHGBT_BACKGROUND_COMPILE"] = background
        run = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
        )
        assert run.returncode == 0, run.stderr[-2000:]
        runs.append([line for line in run.stderr.splitlines() if line.startswith("teachgbt:")])
    assert len(runs[0]) == 1 and "compiling" in runs[0][0]  # compiled here, once
    assert runs[1] == []  # and the next process had nothing left to compile


def test_work_shared_here_leaves_a_core_to_the_compiling_child(monkeypatch):
    """While a child process compiles kernels on a core of its own, work shared out here
    takes one thread fewer (numpy's g and h of a cold first fit, say); after, all."""
    from teachgbt.utils import kernels

    used = []

    def part(lo, hi):
        used.append((lo, hi))

    with kernels.threads(2):
        monkeypatch.setattr(kernels, "compiling", lambda: True)
        kernels.share(part, (), 8)
        assert used == [(0, 8)]
        used.clear()
        monkeypatch.setattr(kernels, "compiling", lambda: False)
        kernels.share(part, (), 8)
        assert sorted(used) == [(0, 4), (4, 8)]


@pytest.mark.parametrize(
    "max_bin, nan, categorical, early",
    [
        (256, False, (), True),
        (64, True, (), True),
        (256, True, (), False),
        (64, False, (1,), False),
    ],
    ids=["256-bins", "64-bins-missing", "256-bins-missing", "categorical"],
)
def test_the_kernels_are_asked_for_before_the_cuts_when_the_codes_will_be_uint8(
    monkeypatch, max_bin, nan, categorical, early
):
    """A fresh installation's background compile starts before the cut points are found
    (they take a fifth of a second at 1M rows) where the codes' dtype is certain: uint8
    for at most 255 value bins plus the missing one, no categorical feature. The dtype
    asked for is the one the codes get."""
    from teachgbt.engine import binning as B

    events = []
    inner = B.HistData._inner_cuts
    monkeypatch.setattr(B, "numba_kernels", lambda cells, dtype: events.append(np.dtype(dtype)))
    monkeypatch.setattr(
        B.HistData, "_inner_cuts", lambda *a, **k: (events.append("cuts"), inner(*a, **k))[1]
    )
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3)).astype(np.float32)
    X[:, 1] = rng.integers(0, 4, 2000)
    if nan:
        X[::7, 0] = np.nan
    data = B.HistData(X, max_bin=max_bin, categorical=categorical)
    assert events[-1] == data.bins.dtype  # the codes' own ask, in _bin
    assert (events[0] == np.uint8 and events[0] == data.bins.dtype) is early
    assert events.count(np.dtype(np.uint8)) + events.count(np.dtype(np.uint16)) == 1 + early
