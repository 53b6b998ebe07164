"""Where the compiled kernels come from: numba when it is installed, numpy otherwise.

The compiled modules (``teachgbt.core._tree_numba`` for routing rows through a tree,
``core._sets_numba`` for trees with set splits, ``teachgbt.engine._hist_numba`` for the
histogram trainer, ``teachgbt.engine._exact_numba`` for the exact one) repeat the numpy
code's arithmetic in the same order, so either grows and predicts the same trees. Each
has a ``warm_up(*spec)`` that calls its kernels once on a few rows of the types its
callers pass (``spec``: their dtypes), which the background compile below runs.
``KERNEL`` (or the environment variable ``TEACHGBT_KERNEL``) picks: "auto",
"numpy" or "numba" (compiled whatever the size, as the tests that prove the two
equal need).

"auto" compiles only where it pays: on large data. Below ``MIN_CELLS`` (rows × features
of the data) it uses numpy and does not even import numba (importing it alone takes
about half a second): small fits, where numpy takes well under a second, start at once.

Above it, numba's kernels are faster, but the first time they are needed on a machine
numba compiles them, seconds of work (``COMPILE_SECONDS``), and keeps them in its disk
cache; every later process loads them in a fraction of a second. So that no fit waits
for that compile, "auto" does it in the background (``BACKGROUND``): the first time a
fit asks for a module, ``load`` tries to load its kernels from numba's cache without
compiling anything (``_probe``). If one is missing, a child process
(``utils._compile``) compiles them into the cache while the fit goes on with numpy, one
line on stderr says so, and ``load`` answers None (numpy) until the child is done; the
next tree then loads the kernels from the cache. numpy and numba grow the same trees
bit for bit, so a fit may switch between trees. The child is stopped when the fit is
interrupted (``stop_compiling``; the command line calls it too when a command is
interrupted) and when an uncaught exception (Ctrl-C too) ends the process; when this
process otherwise exits while the child still compiles, it waits for it (``EXIT_WAIT``
seconds at most, saying so; Ctrl-C stops it at once), so
that a script whose fits end before the compile does still leaves the kernels in the
cache for its next run; if this process dies, the child sees its input close and ends.
numba writes each cache file whole (to a temporary name, then renamed), so a child
stopped mid-compile leaves the cache as it was plus the kernels it had finished.

With ``KERNEL = "numba"`` (or when no child process can be started) a missing kernel is
compiled here, at the call, and the first compile in a process says so on stderr.

The kernels run on one thread each, compiled with ``nogil=True``; ``share`` spreads
a kernel's work over plain Python threads (see there why not numba's own).
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import importlib
import importlib.util
import json
import numbers
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "KERNEL",
    "MIN_CELLS",
    "BACKGROUND",
    "load",
    "compile_seconds",
    "n_threads",
    "threads",
    "check_n_jobs",
    "share",
    "stop_compiling",
    "compiling",
]

KERNEL = os.environ.get("TEACHGBT_KERNEL", os.environ.get("TEACHGBT_HIST_KERNEL", "auto"))

_CHOICES = ("auto", "numpy", "numba")

#: "auto" compiles from this many cells (rows × features) of data
MIN_CELLS = 1_000_000

#: ... or, for a trainer's kernels, from this much work in one fit: cells × the trees
#: that will scan them. Measured on the 2-core benchmark machine with a warm cache (fresh
#: processes, importing numba and loading the kernels counted): the hist fit of 10k × 28,
#: 100 trees took 2.3 s with numpy and 1.0 s compiled, 30k × 14 × 20 trees 0.47 and
#: 0.62 s; the exact fit of 10k × 10, 100 trees 3.3 and 1.8 s, 2k × 10 × 100 0.85 and
#: 0.79 s
MIN_WORK = {"engine._hist_numba": 20_000_000, "engine._exact_numba": 5_000_000}

#: "auto" compiles missing kernels in a child process while the fit runs numpy (False:
#: here, waiting for them); the environment variable ``TEACHGBT_BACKGROUND_COMPILE=0``
#: sets it False
BACKGROUND = os.environ.get("TEACHGBT_BACKGROUND_COMPILE", "1") != "0"

#: at exit, how long this process waits for a background compile to finish
EXIT_WAIT = 30.0

#: what compiling each module's kernels takes the first time, in seconds of one core of
#: the 2-core benchmark machine, the child's start included (2026-11-28: its Python,
#: numpy and numba start in about 0.9 s; ``warm_up`` then compiles the histogram kernels
#: in 2.5 s, the exact trainer's in 2.3, the prediction's in 0.7; the histogram module's
#: later kernels for the last level and a level's scan made it 4.5 -> 5.3 s on a busier
#: hour, so about 3 s on the quiet machine)
COMPILE_SECONDS = {
    "engine._hist_numba": 4,
    "engine._exact_numba": 3,
    "core._tree_numba": 2,
}


def load(module, cells=None, spec=(), trees=1):
    """The compiled module ``teachgbt.<module>``, or None when numpy is to be used.

    ``cells``: the size of the work (rows × features, or rows where every row is one
    step); under "auto" fewer than ``MIN_CELLS`` run numpy, unless ``trees`` (how many
    trees of the fit will run the kernels on those cells) make the fit's work at least
    the module's ``MIN_WORK``. None: size unknown, compiled.
    ``spec``: the dtypes the caller will pass, as the module's ``warm_up(*spec)`` takes
    them (its defaults when empty): under "auto" the module is returned once those
    kernels are loaded, and None while a child process compiles them.
    """
    if KERNEL not in _CHOICES:
        raise ValueError(
            f"teachgbt.utils.kernels.KERNEL = {KERNEL!r}; use 'auto', 'numpy' or 'numba'"
        )
    if KERNEL == "numpy" or (
        KERNEL == "auto" and cells is not None and not _pays(module, cells, trees)
    ):
        return None
    if KERNEL == "auto" and BACKGROUND:
        if importlib.util.find_spec("numba") is None:
            return None
        return _compiles().ready(module, tuple(str(s) for s in spec))
    kernels = _import(module)  # anything missing compiles here, and says so
    if kernels is not None:
        _warm_once(kernels, tuple(str(s) for s in spec))
    return kernels


_warmed = set()  # (module, spec) whose ``warm_up`` this process has run


def _warm_once(kernels, spec):
    """Run ``kernels.warm_up(*spec)`` once a process: compiled here (or loaded), every kernel
    a background compile would have cached is in numba's cache, so that the next process's
    probe (``_probe``) finds them all, not only those this fit happened to call."""
    key = (kernels.__name__, spec)
    if key in _warmed or not hasattr(kernels, "warm_up"):
        return
    kernels.warm_up(*spec)
    _warmed.add(key)


def _pays(module, cells, trees):
    """Whether compiled kernels pay for loading (or compiling) them on this much work."""
    return cells >= MIN_CELLS or cells * trees >= MIN_WORK.get(module, float("inf"))


def _import(module):
    """The compiled module, or None (under "auto") when numba cannot be imported."""
    try:
        kernels = importlib.import_module(f"teachgbt.{module}")
    except ImportError:
        if KERNEL == "numba":
            raise
        return None
    _listen()
    return kernels


def stop_compiling():
    """Stop this process's background compile, if one runs (a fit was interrupted). What
    it had finished stays in numba's cache; the next fit that needs the rest starts
    another."""
    state = _state.get(os.getpid())
    if state is not None:
        state.stop()


def compile_seconds():
    """How long this process has waited for numba to compile teachgbt's kernels at their
    calls (0 when they were loaded from the cache or compiled in the background)."""
    return _listening[0].seconds if _listening else 0.0


# ------------------------------------------------------------------ compile events
class _WouldCompile(Exception):
    """Raised at the start of a compile that a probe (``_probe``) must not do."""


_local = threading.local()  # .probing: only load from the cache; .threads: threads(n_jobs)
_listening = []  # the one listener, once registered


def _listen():
    """Register (once a process) a listener on numba's compile events. During a probe it
    stops a compile before it starts; otherwise, the first time one of teachgbt's kernels
    is compiled in this process rather than loaded from numba's disk cache, it says on
    stderr why the fit waits."""
    if _listening:
        return
    from numba.core import event

    class Listener(event.Listener):
        said = False
        seconds = 0.0  # spent compiling teachgbt's kernels here (``compile_seconds``)
        depth, start = 0, 0.0  # a kernel's compile compiles the kernels it calls

        def on_start(self, ev):
            module = getattr(ev.data["dispatcher"].py_func, "__module__", "")
            if not module.startswith("teachgbt."):
                return
            if getattr(_local, "probing", False):
                raise _WouldCompile(module)
            if not self.said:
                self.said = True
                _say(
                    "compiling its numba kernels for this machine, once (about "
                    f"{_seconds(module)} s); they are cached for every later fit"
                )
            if self.depth == 0:
                self.start = time.perf_counter()
            self.depth += 1

        def on_end(self, ev):
            if getattr(ev.data["dispatcher"].py_func, "__module__", "").startswith("teachgbt."):
                self.depth -= 1
                if self.depth == 0:
                    self.seconds += time.perf_counter() - self.start

    _listening.append(Listener())
    event.register("numba:compile", _listening[0])


def _say(text):
    print(f"teachgbt: {text}", file=sys.stderr, flush=True)


def _seconds(module):
    return COMPILE_SECONDS.get(module.removeprefix("teachgbt."), 2)


def _probe(kernels, spec):
    """Load the kernels ``kernels.warm_up(*spec)`` calls from numba's disk cache, compiling
    none: True when every one was there (they are then loaded in this process)."""
    if not hasattr(kernels, "warm_up"):  # nothing to load ahead: compiled at its calls
        return True
    _local.probing = True
    try:
        kernels.warm_up(*spec)
        return True
    except _WouldCompile:
        return False
    finally:
        _local.probing = False


# ------------------------------------------------------------------ the background compile
class _Compiles:
    """This process's kernels: which are loaded, which a child process compiles.

    Keys are (module, spec). The child (``utils._compile``) takes one request a line on
    its stdin and answers one line on its stdout when it has compiled it; a thread here
    reads the answers. When nothing is left to compile, its stdin is closed and it ends.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.loaded = set()  # probed: loaded in this process
        self.pending = {}  # key -> the child compiling it
        self.answered = set()  # keys a child finished (or died on)
        self.child = None
        self.said = False

    def ready(self, module, spec):
        """The module once its kernels for ``spec`` are loaded here, else None."""
        key = (module, spec)
        with self.lock:
            if key in self.pending:
                return None
            answered = key in self.answered
            if key in self.loaded:
                return _import(module)
        # on an empty cache, not even numba is imported before the child is done
        if not answered and not _maybe_cached(module) and self.request(key):
            return None
        kernels = _import(module)
        if kernels is None or _probe(kernels, spec):
            self.loaded.add(key)
            return kernels
        # a child compiled it and still it is not in the cache (a cache numba cannot
        # write), or no child can be started: compile here, at the calls (and say so)
        if answered or not self.request(key):
            self.loaded.add(key)
            return kernels
        return None

    def request(self, key):
        """Ask the child (started if need be) to compile ``key``; False if it cannot start."""
        with self.lock:
            if self.child is None:
                try:
                    self.child = _start_child()
                except OSError:
                    return False
                threading.Thread(
                    target=self._read, args=(self.child,), name="teachgbt-compile", daemon=True
                ).start()
            try:
                self.child.stdin.write(json.dumps(list(key)) + "\n")
                self.child.stdin.flush()
            except (OSError, ValueError):
                return False
            self.pending[key] = self.child
            if not self.said:
                self.said = True
                _say(
                    "compiling its numba kernels for this machine in the background, once "
                    f"(about {_seconds(key[0])} s); this fit goes on with numpy meanwhile and "
                    "switches to them when they are ready"
                )
        return True

    def _read(self, child):
        """The child's answers, until its stdout closes (it ended, or was stopped)."""
        for line in child.stdout:
            try:
                module, spec, _seconds, _error = json.loads(line)
            except ValueError:
                continue
            key = (module, tuple(spec))
            with self.lock:
                if self.pending.get(key) is child:
                    del self.pending[key]
                    self.answered.add(key)
                if self.child is child and not any(c is child for c in self.pending.values()):
                    self.child = None  # nothing left for it: let it end
                    child.stdin.close()
        with self.lock:
            for key in [k for k, c in self.pending.items() if c is child]:
                del self.pending[key]  # it died: the next request compiles here
                self.answered.add(key)
            if self.child is child:
                self.child = None
        child.wait()

    def finish(self, timeout):
        """Wait for the child to finish what it was asked (at most ``timeout`` seconds;
        Ctrl-C stops the wait), then stop it."""
        with self.lock:
            child = self.child
        if child is None:
            return
        _say("finishing the compile of its numba kernels before this process ends, once "
             f"(at most {timeout:.0f} s; Ctrl-C stops it)")  # fmt: skip
        try:
            child.wait(timeout)
        except (subprocess.TimeoutExpired, KeyboardInterrupt):
            pass
        self.stop()

    def stop(self):
        with self.lock:
            child, self.child = self.child, None
            for key in [k for k, c in self.pending.items() if c is child]:
                del self.pending[key]  # not answered: a later fit asks again
        if child is not None:
            child.kill()
            child.wait()


def _maybe_cached(module):
    """Whether numba's disk cache may hold kernels of ``teachgbt.<module>``: an index file
    of that module's in one of the folders numba keeps them in (``NUMBA_CACHE_DIR``, or the
    module's ``__pycache__`` and the user's cache folder). Looked up without importing
    numba (half a second), which a fit on an empty cache then leaves to the child; where
    the folders are not known, True (the caller then looks in numba's own way)."""
    path = importlib.util.find_spec(f"teachgbt.{module}").origin
    name = os.path.splitext(os.path.basename(path))[0]
    if os.environ.get("NUMBA_CACHE_DIR"):
        folders = [os.path.join(os.environ["NUMBA_CACHE_DIR"], "*")]
    elif sys.platform.startswith("linux"):
        user = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        folders = [
            os.path.join(os.path.dirname(path), "__pycache__"),
            os.path.join(user, "numba", "*"),
        ]
    else:
        return True
    return any(glob.glob(os.path.join(folder, f"{name}.*.nbi")) for folder in folders)


def _start_child():
    """The compiling child: this Python, on the teachgbt this process imported, with stderr
    discarded (it reports on stdout), its stdin a pipe from here; ``TEACHGBT_COMPILE_CHILD``
    keeps its ``import teachgbt`` to what the kernels need (``utils._compile``)."""
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, TEACHGBT_KERNEL="numba", TEACHGBT_COMPILE_CHILD="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-m", "teachgbt.utils._compile"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
        bufsize=1,
    )


_state = {}  # process id -> _Compiles (a forked process starts its own)


def compiling():
    """Whether a child process is compiling kernels for this one (on a core of its own)."""
    state = _state.get(os.getpid())
    return state is not None and bool(state.pending)


def _compiles():
    state = _state.get(os.getpid())
    if state is None:
        state = _state[os.getpid()] = _Compiles()
    return state


def _at_exit():
    state = _state.get(os.getpid())
    if state is None:
        return
    if getattr(sys, "last_type", None) is not None:  # an uncaught exception (Ctrl-C too)
        state.stop()  # ends the process: no wait
    else:
        state.finish(EXIT_WAIT)


atexit.register(_at_exit)


# ------------------------------------------------------------------ threads
def n_threads():
    """How many threads the compiled kernels share their work between: inside
    ``threads(n_jobs)`` what it chose, else numba's setting (the environment variable
    ``NUMBA_NUM_THREADS``; by default the machine's cores)."""
    chosen = getattr(_local, "threads", None)
    if chosen is not None:
        return chosen
    if "numba" not in sys.modules:  # (numpy's work is shared too: no half-second import)
        setting = os.environ.get("NUMBA_NUM_THREADS", "").strip()
        if setting.isdigit():
            return max(1, int(setting))
        cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        return max(1, len(cores) if cores else os.cpu_count() or 1)  # numba's default
    from numba import config

    return max(1, int(config.NUMBA_NUM_THREADS))


def check_n_jobs(n_jobs):
    """Raise ValueError unless ``n_jobs`` is None or a whole number other than 0."""
    whole = isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool)
    if n_jobs is not None and (not whole or n_jobs == 0):
        raise ValueError(
            f"n_jobs must be None, a whole number of threads >= 1, or -1 (every core), -2 "
            f"(all but one) ...; got {n_jobs!r}"
        )


@contextlib.contextmanager
def threads(n_jobs):
    """Within the block, the kernels this thread calls share their work between
    ``n_jobs`` threads, with scikit-learn's meaning: None leaves ``n_threads()``'s
    default, n >= 1 is n threads, -1 every core, -2 all but one, and so on."""
    check_n_jobs(n_jobs)
    previous = getattr(_local, "threads", None)
    if n_jobs is not None:
        cores = os.cpu_count() or 1
        _local.threads = n_jobs if n_jobs > 0 else max(1, cores + 1 + n_jobs)
    try:
        yield
    finally:
        _local.threads = previous


_pools = {}  # process id -> (ThreadPoolExecutor, its size), made on first use


def share(kernel, args, n, threads=None):
    """``kernel(*args, lo, hi)`` for the parts [lo, hi) of range(n), shared out between
    this thread and helper threads (``threads`` in all; default ``n_threads()``, one fewer
    while a child process compiles kernels on a core of its own).

    The kernels are compiled with ``nogil=True``, so plain Python threads run them side
    by side. Why not numba's own threads (``parallel=True``)? Compiling a function for
    them takes several times as long as compiling it for one thread, which a fresh
    installation pays on its first fit; and a thread waiting for the others sleeps
    here instead of spinning, which keeps a machine shared with other jobs from being
    swamped. A forked child (whose copy of the pool has no threads) makes its own pool.
    """
    if threads is None:  # (a compiling child has a core: the work here leaves it that one)
        threads = n_threads() - 1 if compiling() else n_threads()
    threads = 1 if n < 2 else min(threads, n)
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
