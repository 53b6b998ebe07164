"""Benchmark: the first fit in a fresh process, teachgbt beside XGBoost and LightGBM.

What a student meets: a new Python process (a notebook's kernel) imports the library
and fits once. For teachgbt the process also starts with an empty numba cache
(``NUMBA_CACHE_DIR`` set to a new temporary folder), as on the day it is installed, so
whatever it compiles is counted; a second process on the same cache then shows the
first fit of every later day ("warm"). Each fit: ``tree_method="hist"``, 100 rounds,
depth 6, learning rate 0.1, 256 bins, 2 threads (as ``bench_hist.py``), on the first
rows and features of ``bench_hist.py``'s problem.

Timed, in the fresh process: ``import`` of the library, making the estimator and
``fit`` (the data is loaded first and not timed). teachgbt's lines on stderr (what it
says while it compiles) are kept, with when they came, to check that it never waits
long without saying why.

The libraries alternate, ``--repeats`` times (3); the table gives medians and, per
size, the median of the within-run ratios to XGBoost.

    python benchmarks/bench_cold.py                        # 2k x 10, 100k x 10, 400k x 28
    python benchmarks/bench_cold.py --sizes 100000x10 --repeats 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_hist import make_model, make_problem  # noqa: E402

LIBRARIES = ["teachgbt", "xgboost", "lightgbm"]
NAMES = {"teachgbt": "teachgbt hist", "xgboost": "XGBoost hist", "lightgbm": "LightGBM"}
SIZES = "2000x10,100000x10,400000x28"


def worker(args):
    """In a fresh process: import, make, fit; print one JSON line of times and messages."""
    X = np.load(os.path.join(args.data, "X.npy"))
    y = np.load(os.path.join(args.data, "y.npy"))
    lines = []
    if args.worker == "teachgbt":  # keep what teachgbt says on stderr, with when it said it
        real_stderr = sys.stderr

        class Tee:
            def write(self, text):
                if text.strip():
                    lines.append((time.perf_counter() - t0, text.strip()))
                return real_stderr.write(text)

            def flush(self):
                real_stderr.flush()

        sys.stderr = Tee()
    t0 = time.perf_counter()
    __import__(args.worker)
    import_s = time.perf_counter() - t0
    model = make_model(args.worker, args.rounds, args.depth, args.lr, args.bins, args.threads)
    model.fit(X, y)
    total_s = time.perf_counter() - t0
    print(
        json.dumps({"lib": args.worker, "import_s": import_s, "total_s": total_s, "stderr": lines}),
        flush=True,
    )


def run_worker(lib, data_dir, args, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(args.threads)
    if args.wait_policy:
        env["OMP_WAIT_POLICY"] = args.wait_policy
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", lib, "--data", data_dir]
    cmd += ["--rounds", str(args.rounds), "--depth", str(args.depth), "--lr", str(args.lr)]
    cmd += ["--bins", str(args.bins), "--threads", str(args.threads)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"  {lib} failed:\n{res.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def longest_silence(r):
    """The longest time teachgbt's first fit went on without a new line on stderr."""
    said = [0.0] + [at for at, _ in r["stderr"]] + [r["total_s"]]
    return max(b - a for a, b in zip(said, said[1:]))


def table(results, sizes):
    lines = [
        "| rows × features | library | first fit, cold (s) | ÷ XGBoost | import (s) "
        "| warm first fit (s) | longest silence (s) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        runs = [r for r in results if r["size"] == size]
        for lib in LIBRARIES:
            mine = [r for r in runs if r["lib"] == lib]
            if not mine:
                continue
            ratios = []
            for rep in {r["rep"] for r in mine}:
                xgb = [r for r in runs if r["lib"] == "xgboost" and r["rep"] == rep]
                if xgb:
                    ratios.append(
                        [r for r in mine if r["rep"] == rep][0]["total_s"] / xgb[0]["total_s"]
                    )
            warm = [r["warm_s"] for r in mine if r.get("warm_s") is not None]
            silence = (
                f"{np.median([longest_silence(r) for r in mine]):.1f}" if lib == "teachgbt" else ""
            )
            lines.append(
                f"| {size[0]:,} × {size[1]} | {NAMES[lib]} "
                f"| {np.median([r['total_s'] for r in mine]):.2f} "
                f"| {np.median(ratios):.2f} | {np.median([r['import_s'] for r in mine]):.2f} "
                f"| {np.median(warm):.2f} | {silence} |"
                if warm
                else f"| {size[0]:,} × {size[1]} | {NAMES[lib]} "
                f"| {np.median([r['total_s'] for r in mine]):.2f} "
                f"| {np.median(ratios):.2f} | {np.median([r['import_s'] for r in mine]):.2f} "
                f"| – | {silence} |"
            )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=SIZES, help="rows x features, comma-separated")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--bins", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--libraries", default=",".join(LIBRARIES))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--wait-policy", default="PASSIVE", help="as in bench_hist.py")
    ap.add_argument("--out", help="also write the table to this markdown file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    libs = [lib.strip() for lib in args.libraries.split(",") if lib.strip()]
    sizes = [tuple(int(v) for v in s.lower().split("x")) for s in args.sizes.split(",")]
    results = []
    with tempfile.TemporaryDirectory(prefix="bench_cold_") as tmp:
        X, y = make_problem(max(n for n, _ in sizes), 28)
        for n, d in sizes:
            data_dir = os.path.join(tmp, f"{n}x{d}")
            os.makedirs(data_dir)
            np.save(os.path.join(data_dir, "X.npy"), np.ascontiguousarray(X[:n, :d]))
            np.save(os.path.join(data_dir, "y.npy"), y[:n])
            for rep in range(args.repeats):
                for lib in libs:
                    cache = tempfile.mkdtemp(prefix="numba_cache_", dir=tmp)  # empty: cold
                    r = run_worker(lib, data_dir, args, cache)
                    if r is None:
                        continue
                    warm = run_worker(lib, data_dir, args, cache) if lib == "teachgbt" else None
                    r.update(size=(n, d), rep=rep, warm_s=warm and warm["total_s"])
                    results.append(r)
                    said = "; ".join(f"{at:.1f} s: {text}" for at, text in r["stderr"])
                    print(
                        f"  {n:>9,} × {d:<3} run {rep + 1}: {NAMES[lib]:<14} cold "
                        f"{r['total_s']:6.2f} s (import {r['import_s']:.2f} s)"
                        + (f", warm {r['warm_s']:.2f} s" if r["warm_s"] else "")
                        + (f"   [{said}]" if said else ""),
                        flush=True,
                    )
    text = "\n".join(
        [
            f"Settings: hist, {args.rounds} rounds, depth {args.depth}, learning rate "
            f"{args.lr}, {args.bins} bins, {args.threads} threads, OMP_WAIT_POLICY="
            f"{args.wait_policy or '(unset)'}; each fit in a fresh process, teachgbt's with "
            f"an empty numba cache; medians of {args.repeats} alternating runs.",
            f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}.",
            "",
            table(results, sizes),
        ]
    )
    print("\n" + text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
