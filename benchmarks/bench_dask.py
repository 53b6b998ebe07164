"""Benchmark: teachgbt.dask beside xgboost.dask and lightgbm.dask on one local Dask cluster.

The issue's setting is 4M rows × 28 features, 100 trees of depth 6 (learning rate
0.1, 256 bins) on a ``LocalCluster`` of two worker processes; ``--rows``,
``--rounds`` and ``--depth`` make it smaller. The data is generated on the workers,
block by block (``bench_hist.make_problem``'s problem, each block its own seed), and
persisted there: the driver never holds it. Each library fits alone on the cluster;
the libraries alternate, ``--repeats`` times (3), and the table gives the median fit
time of each and the median of the within-run ratios to teachgbt. The driver's peak
memory is the most resident memory of this (driver) process during the fit, above
what it held before (Linux ``VmHWM``, reset before each fit).

    python benchmarks/bench_dask.py                                 # the full size
    python benchmarks/bench_dask.py --rows 200000 --rounds 20       # a quick look

Numbers depend on the machine and on what else runs on it; compare the ratios
within one run.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_hist import make_problem  # noqa: E402

LIBRARIES = ["teachgbt", "xgboost", "lightgbm"]
NAMES = {"teachgbt": "teachgbt.dask", "xgboost": "xgboost.dask", "lightgbm": "lightgbm.dask"}


def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak():
    """Make VmHWM start again from the current resident size (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _block(block_id, rows, n_features, seed):
    X, y = make_problem(rows, n_features, seed=seed + block_id)
    return np.column_stack([X, y])


def make_data(client, n_rows, n_features, n_blocks, seed=0):
    """X, y as dask arrays generated and persisted on the workers, never on the driver."""
    import dask
    import dask.array as da

    rows = [len(b) for b in np.array_split(np.arange(n_rows), n_blocks)]
    blocks = [
        da.from_delayed(
            dask.delayed(_block)(i, r, n_features, seed), (r, n_features + 1), np.float32
        )
        for i, r in enumerate(rows)
    ]
    Xy = da.concatenate(blocks).persist()
    client.wait_for_workers(1)
    dask.distributed.wait(Xy)
    return Xy[:, :n_features], Xy[:, n_features]


def make_model(lib, args, client):
    common = dict(n_estimators=args.rounds, max_depth=args.depth, learning_rate=args.lr)
    if lib == "teachgbt":
        from teachgbt.dask import DaskBoostingClassifier

        return DaskBoostingClassifier(max_bin=args.bins, client=client, **common)
    if lib == "xgboost":
        import xgboost.dask as xgbd

        model = xgbd.DaskXGBClassifier(tree_method="hist", max_bin=args.bins, n_jobs=1, **common)
        model.client = client
        return model
    import lightgbm as lgb

    return lgb.DaskLGBMClassifier(
        client=client, num_leaves=2**args.depth, max_bin=args.bins - 1, n_jobs=1, verbose=-1,
        **common,
    )  # fmt: skip


def fit_once(lib, args, client, X, y):
    model = make_model(lib, args, client)
    before = _status_kb("VmRSS")
    _reset_peak()
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    peak_mb = (_status_kb("VmHWM") - before) / 1024
    return seconds, peak_mb


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=4_000_000)
    ap.add_argument("--features", type=int, default=28)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--bins", type=int, default=256)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--blocks", type=int, default=8, help="partitions of the data")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--libraries", default=",".join(LIBRARIES))
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # the workers' warm-up fits compile any kernel numba's cache lacks then and there (not in
    # the background, which would leave the measured fit to start with numpy)
    os.environ["TEACHGBT_BACKGROUND_COMPILE"] = "0"
    from dask.distributed import Client, LocalCluster

    libs = args.libraries.split(",")
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        X, y = make_data(client, args.rows, args.features, args.blocks)
        warm_X, warm_y = X[::50], y[::50]  # every partition, so every worker warms up
        for lib in libs:  # what each library loads once per worker is not timed
            make_model(lib, argparse.Namespace(**{**vars(args), "rounds": 2}), client).fit(
                warm_X, warm_y
            )
        runs = []
        for r in range(args.repeats):
            order = libs[r % len(libs) :] + libs[: r % len(libs)]  # alternate who goes first
            run = {}
            for lib in order:
                run[lib] = fit_once(lib, args, client, X, y)
                print(f"run {r + 1}: {NAMES[lib]:14s} fit {run[lib][0]:7.2f} s, "
                      f"driver peak +{run[lib][1]:6.1f} MB", flush=True)  # fmt: skip
            runs.append(run)

    print()
    print(
        f"{args.rows:,} rows × {args.features} features, {args.rounds} trees of depth "
        f"{args.depth}, {args.bins} bins, LocalCluster of {args.workers} worker processes × "
        f"1 thread, {args.blocks} partitions; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores; medians of {args.repeats} alternating runs"
    )
    print()
    print("| library | fit (s) | teachgbt / library | driver peak memory (MB) |")
    print("|---|---:|---:|---:|")
    for lib in libs:
        fit = np.median([run[lib][0] for run in runs])
        ratio = np.median([run.get("teachgbt", (np.nan,))[0] / run[lib][0] for run in runs])
        peak = np.median([run[lib][1] for run in runs])
        print(f"| {NAMES[lib]} | {fit:.2f} | {ratio:.2f} | {peak:.1f} |")


if __name__ == "__main__":
    main()
