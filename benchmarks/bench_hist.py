"""Benchmark: teachgbt's histogram trainer beside LightGBM, XGBoost hist and scikit-learn.

All four fit the same generated binary problem (default 1M rows × 28 features)
in one run, with the same settings: 100 rounds, depth 6, learning rate 0.1,
256 bins, 2 threads. The data is generated once and saved to files that every
process loads. Each library runs in a fresh Python process of its own, one
after another, so that its peak memory is its own; the libraries alternate,
``--repeats`` times (3), and the table gives medians, with each ratio the
median of the ratios within one repeat. Every process runs with
``OMP_WAIT_POLICY=PASSIVE`` (``--wait-policy``): waiting OpenMP threads sleep
rather than spin, which on a virtual machine with shared cores is what makes
XGBoost (and the numba kernels' OpenMP threads) fast. Reported per library:
fit time, predict time (test set of the same size), peak memory above the
loaded data, and test AUC; then the ratios to the others; then a scaling
table of fit times at 10k, 100k, 1M and 4M rows (one run each).

    python benchmarks/bench_hist.py                       # the full run (several minutes)
    python benchmarks/bench_hist.py --rows 100000 --scaling 10000,100000
    python benchmarks/bench_hist.py --out benchmarks/results.md

Numbers depend on the machine and on what else runs on it; compare the
ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

LIBRARIES = ["teachgbt", "lightgbm", "xgboost", "sklearn"]
WARMUP_ROWS = 25_000
NAMES = {
    "teachgbt": "teachgbt hist",
    "lightgbm": "LightGBM",
    "xgboost": "XGBoost hist",
    "sklearn": "scikit-learn HistGB",
}


# ------------------------------------------------------------------ the problem
def make_problem(n_rows, n_features=28, seed=0):
    """A binary problem with interactions, thresholds, skewed and discrete features.

    Generated, so no download is needed; the same seed gives the same data.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features)).astype(np.float32)
    X[:, 20:] = np.exp(0.7 * X[:, 20:])  # skewed, positive (like momenta)
    X[:, 3::7] = np.round(2 * X[:, 3::7])  # a few features with few distinct values
    logit = (
        0.9 * X[:, 0]
        - 0.7 * X[:, 1] * X[:, 2]
        + np.sin(2 * X[:, 3])
        + 0.8 * (X[:, 4] > 0.6)
        - 0.5 * np.abs(X[:, 5])
        + 0.4 * X[:, 6] * (X[:, 7] > 0)
        + 0.6 * np.log(X[:, 20]) * np.tanh(X[:, 8])
        - 0.3 * X[:, 21]
        + 0.2 * X[:, 9:14].sum(axis=1)
    )
    y = (logit + rng.logistic(size=n_rows) > 0.2).astype(np.float32)
    return X, y


def auc(y, score):
    """Area under the ROC curve (ties share their rank)."""
    order = np.argsort(score, kind="stable")
    s = score[order]
    ranks = np.empty(len(s))
    first = np.r_[True, s[1:] != s[:-1]]
    start = np.flatnonzero(first)
    stop = np.r_[start[1:], len(s)]
    mean_rank = (start + stop + 1) / 2.0  # 1-based mean rank of each run of ties
    ranks[order] = np.repeat(mean_rank, stop - start)
    pos = y == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


# ------------------------------------------------------------------ one library
def make_model(lib, rounds, depth, lr, bins, threads):
    if lib == "teachgbt":
        import teachgbt as tg

        return tg.BoostingClassifier(
            tree_method="hist",
            n_estimators=rounds,
            max_depth=depth,
            learning_rate=lr,
            max_bin=bins,
            verbose=False,
        )
    if lib == "lightgbm":
        import lightgbm as lgb

        return lgb.LGBMClassifier(
            n_estimators=rounds,
            max_depth=depth,
            num_leaves=2**depth,
            learning_rate=lr,
            max_bin=bins,
            n_jobs=threads,
            verbose=-1,
        )
    if lib == "xgboost":
        import xgboost as xgb

        return xgb.XGBClassifier(
            tree_method="hist",
            n_estimators=rounds,
            max_depth=depth,
            learning_rate=lr,
            max_bin=bins,
            n_jobs=threads,
        )
    if lib == "sklearn":
        from sklearn.ensemble import HistGradientBoostingClassifier

        # scikit-learn allows at most 255 bins for values (plus one for missing)
        return HistGradientBoostingClassifier(
            max_iter=rounds,
            max_depth=depth,
            max_leaf_nodes=None,
            learning_rate=lr,
            max_bins=min(bins, 255),
            early_stopping=False,
        )
    raise ValueError(f"unknown library {lib!r}")


def _status_kb(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def _reset_peak():
    """Reset the peak resident size (VmHWM) to the current one; False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def warmup_rows(n_features):
    """Rows of the warm-up fit: ``WARMUP_ROWS``, or more where teachgbt would otherwise
    fit them with numpy and leave its compiled kernels (and numba) to the measured fit."""
    from teachgbt.utils import kernels

    return max(WARMUP_ROWS, -(-kernels.MIN_CELLS // n_features))


def worker(args):
    """Fit one library on the saved data; print one JSON line of measurements."""
    d = args.data
    Xtr, ytr = np.load(os.path.join(d, "Xtr.npy")), np.load(os.path.join(d, "ytr.npy"))
    Xte, yte = np.load(os.path.join(d, "Xte.npy")), np.load(os.path.join(d, "yte.npy"))
    if args.rows:
        Xtr, ytr = Xtr[: args.rows], ytr[: args.rows]
    # a first small fit loads what each library loads once per session (numba's compiled
    # kernels for teachgbt); it is reported apart and left out of the measurements
    t0 = time.perf_counter()
    warm = warmup_rows(Xtr.shape[1])
    make_model(args.worker, 2, args.depth, args.lr, args.bins, args.threads).fit(
        Xtr[:warm], ytr[:warm]
    )
    warmup_s = time.perf_counter() - t0
    model = make_model(args.worker, args.rounds, args.depth, args.lr, args.bins, args.threads)
    base_kb = _status_kb("VmRSS")
    exact_peak = _reset_peak()
    t0 = time.perf_counter()
    model.fit(Xtr, ytr)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    p = model.predict_proba(Xte)[:, 1]
    predict_s = time.perf_counter() - t0
    peak_kb = (
        _status_kb("VmHWM") if exact_peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    )
    out = {
        "lib": args.worker,
        "rows": len(Xtr),
        "fit_s": fit_s,
        "predict_s": predict_s,
        "peak_mb": (peak_kb - base_kb) / 1024,
        "auc": auc(yte, p),
        "warmup_s": warmup_s,
    }
    if args.worker == "teachgbt":
        from teachgbt.engine.hist import numba_kernels

        out["kernel"] = "numba" if numba_kernels() is not None else "numpy"
    print(json.dumps(out), flush=True)


def run_worker(lib, data_dir, args, rows=None):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(args.threads)
    if args.wait_policy:
        env["OMP_WAIT_POLICY"] = args.wait_policy
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--worker",
        lib,
        "--data",
        data_dir,
        "--rounds",
        str(args.rounds),
        "--depth",
        str(args.depth),
        "--lr",
        str(args.lr),
        "--bins",
        str(args.bins),
        "--threads",
        str(args.threads),
    ]
    if rows:
        cmd += ["--rows", str(rows)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"  {lib} failed:\n{res.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ the tables
def main_table(runs):
    """The table of medians; ``runs``: one list of per-library results per repeat. A
    ratio is the median of the ratios measured within each repeat (the libraries of one
    repeat ran one after another, under the same load)."""
    libs = [r["lib"] for r in runs[0]]
    by_run = [{r["lib"]: r for r in run} for run in runs]

    def median(lib, key):
        return float(np.median([b[lib][key] for b in by_run if lib in b]))

    def ratio(lib, other, key):
        vals = [b[lib][key] / b[other][key] for b in by_run if lib in b and other in b]
        vals = [v for v in vals if np.isfinite(v)]
        return f"{np.median(vals):.2f}" if vals else "–"

    lines = [
        "| library | fit (s) | predict (s) | peak memory (MB) | test AUC "
        "| fit ÷ LightGBM | fit ÷ XGBoost | fit ÷ sklearn | predict ÷ XGBoost "
        "| memory ÷ XGBoost | AUC − XGBoost |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for lib in libs:
        first = by_run[0][lib]
        name = NAMES[lib] + (f" ({first['kernel']})" if "kernel" in first else "")
        dauc = (
            f"{median(lib, 'auc') - median('xgboost', 'auc'):+.4f}"
            if "xgboost" in by_run[0]
            else "–"
        )
        lines.append(
            f"| {name} | {median(lib, 'fit_s'):.2f} | {median(lib, 'predict_s'):.2f} "
            f"| {median(lib, 'peak_mb'):.0f} | {median(lib, 'auc'):.4f} "
            f"| {ratio(lib, 'lightgbm', 'fit_s')} | {ratio(lib, 'xgboost', 'fit_s')} "
            f"| {ratio(lib, 'sklearn', 'fit_s')} | {ratio(lib, 'xgboost', 'predict_s')} "
            f"| {ratio(lib, 'xgboost', 'peak_mb')} | {dauc} |"
        )
    return "\n".join(lines)


def scaling_table(scaling):
    sizes = sorted({r["rows"] for r in scaling})
    libs = [lib for lib in LIBRARIES if any(r["lib"] == lib for r in scaling)]
    fit = {(r["lib"], r["rows"]): r["fit_s"] for r in scaling}
    head = "| library | " + " | ".join(f"{n:,} rows (s)" for n in sizes)
    head += f" | {sizes[-1] // sizes[0]:,}× rows → × time |" if len(sizes) > 1 else " |"
    lines = [head, "|---|" + "---:|" * (len(sizes) + (len(sizes) > 1))]
    for lib in libs:
        cells = [f"{fit[(lib, n)]:.2f}" if (lib, n) in fit else "–" for n in sizes]
        growth = ""
        if len(sizes) > 1 and (lib, sizes[0]) in fit and (lib, sizes[-1]) in fit:
            growth = f" | {fit[(lib, sizes[-1])] / fit[(lib, sizes[0])]:.1f}"
        elif len(sizes) > 1:
            growth = " | –"
        lines.append(f"| {NAMES[lib]} | " + " | ".join(cells) + growth + " |")
    return "\n".join(lines)


def machine():
    import numpy

    parts = [
        platform.platform(),
        f"{os.cpu_count()} CPUs",
        f"Python {platform.python_version()}",
        f"numpy {numpy.__version__}",
    ]
    for mod in ("teachgbt", "lightgbm", "xgboost", "sklearn", "numba"):
        try:
            parts.append(f"{mod} {__import__(mod).__version__}")
        except ImportError:
            pass
    return ", ".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000, help="training rows (and test rows)")
    ap.add_argument("--features", type=int, default=28)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--bins", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--libraries", default=",".join(LIBRARIES))
    ap.add_argument(
        "--repeats", type=int, default=3, help="alternating runs of every library (medians)"
    )
    ap.add_argument(
        "--scaling",
        default="10000,100000,1000000,4000000",
        help="training sizes of the scaling table ('' to skip)",
    )
    ap.add_argument(
        "--wait-policy",
        default="PASSIVE",
        help="OMP_WAIT_POLICY of every library's process ('' leaves the environment's). "
        "PASSIVE: an OpenMP thread waiting for work sleeps instead of spinning; on a "
        "virtual machine whose cores are shared, spinning threads can cost every "
        "parallel region milliseconds (XGBoost hist: three times slower on ours).",
    )
    ap.add_argument("--out", help="also write the tables to this markdown file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)

    libs = [lib.strip() for lib in args.libraries.split(",") if lib.strip()]
    sizes = [int(s) for s in args.scaling.split(",") if s.strip()]
    n_train = max([args.rows] + sizes)
    print(
        f"generating {n_train:,} training and {args.rows:,} test rows × {args.features} features",
        flush=True,
    )
    X, y = make_problem(n_train + args.rows, args.features)
    with tempfile.TemporaryDirectory(prefix="bench_hist_") as data_dir:
        for name, arr in [
            ("Xtr", X[:n_train]),
            ("ytr", y[:n_train]),
            ("Xte", X[n_train:]),
            ("yte", y[n_train:]),
        ]:
            np.save(os.path.join(data_dir, f"{name}.npy"), np.ascontiguousarray(arr))
        del X, y
        runs = []
        for rep in range(args.repeats):  # the libraries alternate: one run of each per repeat
            run = []
            for lib in libs:
                r = run_worker(lib, data_dir, args, rows=args.rows)
                if r:
                    run.append(r)
                    print(
                        f"  run {rep + 1}: {NAMES[lib]:<22} fit {r['fit_s']:7.2f} s   predict "
                        f"{r['predict_s']:6.2f} s   peak {r['peak_mb']:7.0f} MB   "
                        f"AUC {r['auc']:.4f}",
                        flush=True,
                    )
            runs.append(run)
        results = runs[0]
        # the main size enters the scaling table with its median fit time over the repeats
        scaling = [
            dict(
                r,
                fit_s=float(
                    np.median([x["fit_s"] for run in runs for x in run if x["lib"] == r["lib"]])
                ),
            )
            for r in results
        ]
        for n in sizes:
            for lib in libs:
                if n == args.rows:
                    continue
                r = run_worker(lib, data_dir, args, rows=n)
                if r:
                    scaling.append(r)
                    print(
                        f"  scaling {NAMES[lib]:<22} {n:>9,} rows: fit {r['fit_s']:7.2f} s",
                        flush=True,
                    )
    scaling = [r for r in scaling if r["rows"] in sizes]

    settings = (
        f"{args.rows:,} training rows × {args.features} features, {args.rounds} rounds, "
        f"depth {args.depth}, learning rate {args.lr}, {args.bins} bins, "
        f"{args.threads} threads, OMP_WAIT_POLICY={args.wait_policy or '(unset)'}; "
        f"test set {args.rows:,} rows; medians of {args.repeats} alternating runs"
    )
    warm = ", ".join(f"{NAMES[r['lib']]} {r['warmup_s']:.1f} s" for r in results)
    report = [
        f"Settings: {settings}.",
        f"Machine: {machine()}.",
        "",
        main_table(runs),
        "",
        "Peak memory: the most resident memory during fit and predict, above what the "
        "process held with the data loaded. Before measuring, each process fits once on "
        f"{warmup_rows(args.features):,} rows to load what a library loads once per session "
        f"({warm}); that time and memory are not counted.",
    ]
    if len(sizes) > 0 and scaling:
        report += ["", "Fit time against training rows:", "", scaling_table(scaling)]
    text = "\n".join(report)
    print("\n" + text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return results


if __name__ == "__main__":
    main()
