"""The background compile's child process (``python -m teachgbt.utils._compile``).

``utils.kernels`` starts it when a fit needs numba kernels that are not in numba's disk
cache yet, and goes on fitting with numpy meanwhile. It reads requests on stdin, one JSON
line each, ``[module, spec]``; for each it calls ``teachgbt.<module>.warm_up(*spec)``,
which calls every kernel of the module once on a few rows of those types, so numba
compiles each and saves it in its cache; then it answers one JSON line on stdout,
``[module, spec, seconds, error or null]``. It ends as soon as its stdin closes: its
parent has nothing more for it, or was stopped, or died. Ctrl-C in a terminal reaches it
too, and is left to the parent, which stops it.

It runs with ``TEACHGBT_COMPILE_CHILD=1``: ``import teachgbt`` then skips the public API
(the estimators, views and pandas), so the trainers' kernels start compiling a third of a
second sooner; ``teachgbt.utils`` imports its checks only when they are used.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import signal
import sys
import threading
import time


def main():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it (kernels.stop_compiling)
    requests = queue.Queue()

    def read():
        for line in sys.stdin:
            requests.put(line)
        os._exit(0)  # stdin closed: end now, even in the middle of a compile

    threading.Thread(target=read, daemon=True).start()
    while True:
        module, spec = json.loads(requests.get())
        t0 = time.perf_counter()
        error = None
        try:
            importlib.import_module(f"teachgbt.{module}").warm_up(*spec)
        except Exception as e:  # reported to the parent, which then compiles at the call
            error = f"{type(e).__name__}: {e}"
        print(json.dumps([module, spec, time.perf_counter() - t0, error]), flush=True)


if __name__ == "__main__":
    main()
