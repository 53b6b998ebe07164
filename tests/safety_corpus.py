"""Crafted model files, made from a valid one: each breaks one thing the readers must
check (see tests/test_safety_models.py). ``CASES[name] = (mutate(dict), words the
error must contain)``; the mutation changes the first tree of a teachgbt model dict."""

from __future__ import annotations

import struct


def _tree(d, k=0):
    return d["trees"][k]


def _set(key, i, v, k=0):
    def mutate(d):
        _tree(d, k)[key][i] = v

    return mutate


def _all(key, v):
    def mutate(d):
        t = _tree(d)
        t[key] = [v] * len(t[key])

    return mutate


def _cycle(d):
    t = _tree(d)  # a split's child points back up at its parent
    child = t["left"][0]
    t["left"][child], t["right"][child] = 0, t["right"][child]
    t["feature"][child] = max(t["feature"][child], 0)


def _self_link(d):
    t = _tree(d)
    i = t["left"][0]
    t["feature"][i] = 0
    t["left"][i] = i
    t["right"][i] = i
    t["threshold"][i] = 0.0


def _parent_cycle(d):
    t = _tree(d)
    t["parent"][0] = t["left"][0]


def _short_array(d):
    _tree(d)["right"].pop()


def _set_model(key, v):
    def mutate(d):
        d[key] = v

    return mutate


CASES = {
    "child -5": (_set("left", 0, -5), "left child -5"),
    "child 10**6": (_set("right", 0, 10**6), "right child 1000000"),
    "child one past the end": (_set("left", 0, 7), "left child 7"),
    "feature 10**9": (_set("feature", 0, 10**9), "feature 1000000000"),
    "feature one past the end": (_set("feature", 0, 3), "feature 3"),
    "feature -7": (_set("feature", 0, -7), "feature -7"),
    "child cycle": (_cycle, "cycle"),
    "self-link": (_self_link, "itself"),
    "depth 2e9": (_set("depth", 3, 2 * 10**9), "depth"),
    "all depths 0": (_all("depth", 0), "depth"),
    "parent cycle": (_parent_cycle, "parent"),
    "arrays of different lengths": (_short_array, "entries"),
    "leaf value NaN": (_set("value", 3, float("nan")), "leaf value"),
    "leaf value inf": (_set("value", 3, float("inf")), "leaf value"),
    "threshold NaN": (_set("threshold", 0, float("nan")), "threshold"),
    "child 1.5": (_set("left", 0, 1.5), "not a node"),
    "child text": (_set("left", 0, "1"), "not a whole number"),
    "count 10**30": (_set("n", 0, 10**30), "n holds"),
    "G text": (_set("G", 0, "x"), "G holds"),
    "class 10**6": (lambda d: _tree(d).update({"class": 10**6}), "class"),
    "feature_names short": (lambda d: _tree(d).update({"feature_names": ["a"]}), "feature_names"),
    "learning_rate text": (lambda d: _tree(d).update({"learning_rate": "x"}), "learning_rate"),
    "rule unknown": (lambda d: _tree(d).update({"rule": "lgbm"}), "rule 'lgbm'"),
    "missing text": (lambda d: _tree(d).update({"missing": "zero"}), "missing is"),
    "zero_missing feature 99": (lambda d: _tree(d).update({"zero_missing": [99]}), "feature 99"),
    "cover text": (_set("cover", 0, "x"), "cover holds"),
    "best_iteration -3": (_set_model("best_iteration", -3), "best_iteration"),
    "best_iteration 10**9": (_set_model("best_iteration", 10**9), "best_iteration"),
    "n_features 10**12": (_set_model("n_features_in", 10**12), "n_features_in"),
    "base_score NaN": (_set_model("base_score", float("nan")), "base_score"),
    # issue 26: values that overflow the trees' precision, per-node fields of another shape,
    # a class named twice
    "leaf value 1e308": (_set("value", 3, 1e308), "beyond float32"),
    "gain an object": (lambda d: _tree(d).update({"gain": {}}), "gain is {}"),
    "default_left a number": (lambda d: _tree(d).update({"default_left": 0}), "default_left"),
    "classes twice": (_set_model("classes", [0, 0]), "twice"),
}


def ubjson_bomb():
    """20 bytes: an array of 2³¹ nulls, declared by a typed count with no data."""
    return b"{" + b"L" + struct.pack(">q", 1) + b"x" + b"[$Z#l" + struct.pack(">i", 2**31 - 1)


def run_cli(capsys, *argv):
    """``teachgbt ARGV`` in this process: (exit code, stdout, stderr)."""
    from teachgbt.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def refused(code, err, *words):
    """A refusal as the CLI promises one: exit 2, one line, no traceback, naming ``words``."""
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def run_process(argv, cwd=None, stdin=None, send=(), timeout=120, env=None, ready=None,
                default_sigint=False):  # fmt: skip
    """``argv`` in a process of its own: (exit status, or minus the signal that ended it;
    stdout; stderr; its peak memory in MB: its own high-water resident size plus the
    largest of its children's, sampled from /proc while it runs). ``send``: (seconds,
    signal) pairs sent to it meanwhile, the seconds counted from the start, or from when
    it printed the line ``ready``; ``default_sigint``: Ctrl-C has its default meaning in
    the process even when this one ignores it. A run past ``timeout`` is killed and fails
    the test as a hang."""
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    argv = [sys.executable if a == "python" else str(a) for a in argv]
    if default_sigint or any(sig == signal.SIGINT for _, sig in send):
        # a suite started in the background has Ctrl-C ignored, which children inherit
        # across exec: put it back first (no preexec_fn: not safe beside threads)
        argv = [sys.executable, "-c", _RESET_SIGINT] + argv
    p = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    outs = {}
    started = threading.Event()
    if ready is None:
        started.set()

    def drain(name, stream):
        if name == "out" and ready is not None:
            lines = []
            for line in iter(stream.readline, b""):
                lines.append(line)
                if line.decode("utf-8", "replace").strip() == ready:
                    started.set()
            outs[name] = b"".join(lines)
            started.set()
            return
        outs[name] = stream.read()

    threads = [threading.Thread(target=drain, args=a) for a in (("out", p.stdout),
                                                                 ("err", p.stderr))]  # fmt: skip
    for t in threads:
        t.start()
    if stdin is not None:
        p.stdin.write(stdin)
        p.stdin.close()
    begin, start, pending = time.monotonic(), None, sorted(send)
    peaks = {}
    while True:
        sample_peaks(p.pid, peaks)
        pid, status, _ = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if start is None and started.is_set():
            start = time.monotonic()
        now = -1.0 if start is None else time.monotonic() - start
        while pending and pending[0][0] <= now:
            p.send_signal(pending.pop(0)[1])
        if time.monotonic() - begin > timeout:
            p.kill()
            os.wait4(p.pid, 0)
            raise AssertionError(f"{argv[1:4]}... still running after {timeout} s: a hang")
        time.sleep(0.01)
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    own = peaks.pop(p.pid, 0)
    peak = (own + max(peaks.values(), default=0)) / 1024
    return (p.returncode, outs["out"].decode("utf-8", "replace"),
            outs["err"].decode("utf-8", "replace"), peak)  # fmt: skip


def sample_peaks(pid, peaks):
    """Each process's high-water resident size (VmHWM, kB) under ``pid``, into ``peaks``.
    Not wait4's ru_maxrss: a child forked from a large test process counts the parent's
    pages until it execs, and Linux carries that over the exec."""
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peaks[p] = max(peaks.get(p, 0), int(line.split()[1]))
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            continue


_RESET_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)
