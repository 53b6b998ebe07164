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
costs seconds per module (``COMPILE_SECONDS``; the first compile in a process
says so on stderr, ``_say_when_compiling``), and importing numba alone about
half a second. Small fits, where numpy
takes well under a second, would pay that wait before a classroom's first tree;
so below ``MIN_CELLS`` (rows × features of the data) "auto" uses numpy and does
not even import numba. Measured (2026-11-26, 2 cores, 20 features, 20 trees of
depth 6, compiled code already cached): hist 1 000 rows numpy 0.60 s / numba
0.10 s, 5 000 rows 0.82 / 0.14 s, 100 000 rows 2.9 / 0.68 s; exact 5 000 rows
1.33 / 0.61 s, 20 000 rows 3.7 / 2.2 s. numba is faster at every size once its
code is cached, but the saving covers a first compile only from about a million
cells (50 000 rows × 20 features), where numpy's fit takes seconds anyway.

The kernels run on one thread each, compiled with ``nogil=True``; ``share`` spreads
a kernel's work over plain Python threads (see there why not numba's own).
"""

from __future__ import annotations

import importlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor

__all__ = ["KERNEL", "MIN_CELLS", "load", "n_threads", "share"]

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
        kernels = importlib.import_module(f"teachgbt.{module}")
    except ImportError:
        if KERNEL == "numba":
            raise
        return None
    _say_when_compiling()
    return kernels


#: what compiling each module's kernels takes the first time, on a 2-core machine
#: (measured with ``benchmarks/bench_cold.py``; numba's own start-up included)
COMPILE_SECONDS = {"teachgbt.engine._hist_numba": 5, "teachgbt.engine._exact_numba": 3}
_listening = []  # the one listener, once registered


def _say_when_compiling():
    """Register (once a process) a listener on numba's compile events: the first time one
    of teachgbt's kernels is compiled rather than loaded from numba's disk cache, one
    line on stderr says why the fit waits. A fresh installation compiles them on its
    first large fit; every later process loads them in well under a second."""
    if _listening:
        return
    from numba.core import event

    class Notice(event.Listener):
        said = False

        def on_start(self, ev):
            module = getattr(ev.data["dispatcher"].py_func, "__module__", "")
            if not self.said and module.startswith("teachgbt."):
                Notice.said = True
                about = COMPILE_SECONDS.get(module, 2)
                print(
                    f"teachgbt: compiling its numba kernels for this machine, once (about "
                    f"{about} s); they are cached for every later fit",
                    file=sys.stderr,
                    flush=True,
                )

        def on_end(self, ev):
            pass

    _listening.append(Notice())
    event.register("numba:compile", _listening[0])


def n_threads():
    """How many threads the compiled kernels share their work between: numba's setting
    (the environment variable ``NUMBA_NUM_THREADS``; by default the machine's cores)."""
    from numba import config

    return max(1, int(config.NUMBA_NUM_THREADS))


_pools = {}  # process id -> (ThreadPoolExecutor, its size), made on first use


def share(kernel, args, n, threads=None):
    """``kernel(*args, lo, hi)`` for the parts [lo, hi) of range(n), shared out between
    this thread and helper threads (``threads`` in all; default ``n_threads()``).

    The kernels are compiled with ``nogil=True``, so plain Python threads run them side
    by side. Why not numba's own threads (``parallel=True``)? Compiling a function for
    them takes several times as long as compiling it for one thread, which a fresh
    installation pays on its first fit; and a thread waiting for the others sleeps
    here instead of spinning, which keeps a machine shared with other jobs from being
    swamped. A forked child (whose copy of the pool has no threads) makes its own pool.
    """
    threads = min(n_threads() if threads is None else threads, n)
    if threads < 2:
        kernel(*args, 0, n)
        return
    pool, size = _pools.get(os.getpid(), (None, 0))
    if size < threads - 1:
        pool = ThreadPoolExecutor(threads - 1, "teachgbt-kernels")
        _pools[os.getpid()] = pool, threads - 1
    cuts = [n * t // threads for t in range(threads + 1)]
    waits = [pool.submit(kernel, *args, lo, hi) for lo, hi in zip(cuts[1:-1], cuts[2:])]
    try:
        kernel(*args, cuts[0], cuts[1])
    finally:  # the helpers write into the caller's arrays: wait for them whatever happens
        for w in waits:
            w.result()
