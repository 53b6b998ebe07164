"""Benchmark: teachgbt's exact trainer beside XGBoost exact and scikit-learn.

All fit the same generated binary problem (default 100k rows × 28 features) with the
same settings: 50 rounds, depth 6, learning rate 0.1, 2 threads. As in
``bench_hist.py``, each library runs in a fresh Python process of its own, after a
warm-up fit that loads what it loads once per session (for teachgbt: numba's
compiled kernels), with ``OMP_WAIT_POLICY=PASSIVE``; the libraries alternate,
``--repeats`` times (3), and the table gives medians, each ratio the median of the
ratios within one repeat. Reported: fit time, the peak memory the fit adds above the
loaded data (``VmHWM``), test AUC.

    python benchmarks/bench_exact.py                  # 100k x 28, 50 rounds, depth 6
    python benchmarks/bench_exact.py --skip-sklearn   # without the slow scikit-learn fit
    TEACHGBT_KERNEL=numpy python benchmarks/bench_exact.py   # the numpy scan alone
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_hist import _reset_peak, _status_kb, auc, machine  # noqa: E402

NAMES = {
    "teachgbt": "teachgbt exact",
    "xgboost": "XGBoost exact",
    "sklearn": "scikit-learn GradientBoosting",
}


def make_problem(n_rows, n_features=28, seed=0):
    """A binary problem with interactions, thresholds and noise (no download needed)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features)).astype(np.float32)
    X[:, ::4] = np.round(X[:, ::4] * 4) / 4  # some features with few distinct values
    logit = (
        X[:, 0]
        - 0.8 * X[:, 1]
        + 0.6 * X[:, 2] * X[:, 3]
        + np.sin(2 * X[:, 4])
        + 0.5 * (X[:, 5] > 0.5)
        - 0.4 * np.abs(X[:, 6])
        + 0.3 * X[:, 7] ** 2
    )
    y = (logit + rng.logistic(size=n_rows) > 0.3).astype(np.int32)
    return X, y


def make_model(lib, args):
    lr = 0.1
    if lib == "teachgbt":
        import teachgbt as tg

        return tg.BoostingClassifier(
            n_estimators=args.rounds, max_depth=args.depth, learning_rate=lr, verbose=False
        )
    if lib == "xgboost":
        import xgboost as xgb

        return xgb.XGBClassifier(
            n_estimators=args.rounds,
            max_depth=args.depth,
            learning_rate=lr,
            tree_method="exact",
            n_jobs=args.threads,
        )
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(
        n_estimators=args.rounds, max_depth=args.depth, learning_rate=lr
    )


def worker(args):
    """Fit one library on the saved data; print one JSON line of measurements."""
    X, y = np.load(os.path.join(args.data, "X.npy")), np.load(os.path.join(args.data, "y.npy"))
    n = args.rows
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    from teachgbt.utils import kernels

    warm = max(10_000, -(-kernels.MIN_CELLS // X.shape[1]))  # enough rows to load compiled kernels
    small = argparse.Namespace(**{**vars(args), "rounds": 2})
    make_model(args.worker, small).fit(Xtr[:warm], ytr[:warm])
    model = make_model(args.worker, args)
    base_kb = _status_kb("VmRSS")
    _reset_peak()
    t0 = time.perf_counter()
    model.fit(Xtr, ytr)
    fit_s = time.perf_counter() - t0
    peak_mb = (_status_kb("VmHWM") - base_kb) / 1024
    out = {"lib": args.worker, "fit_s": fit_s, "peak_mb": peak_mb}
    out["auc"] = auc(yte, model.predict_proba(Xte)[:, 1])
    if args.worker == "teachgbt":
        from teachgbt.engine.exact import numba_kernels

        out["kernel"] = "numba" if numba_kernels() is not None else "numpy"
    print(json.dumps(out), flush=True)


def run_worker(lib, data_dir, args):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(args.threads)
    if args.wait_policy:
        env["OMP_WAIT_POLICY"] = args.wait_policy
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", lib, "--data", data_dir]
    cmd += ["--rows", str(args.rows), "--rounds", str(args.rounds), "--depth", str(args.depth)]
    cmd += ["--threads", str(args.threads)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"  {lib} failed:\n{res.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def table(runs, libs):
    def median(lib, key):
        return float(np.median([r[lib][key] for r in runs if lib in r]))

    def ratio(lib, key):
        vals = [r[lib][key] / r["xgboost"][key] for r in runs if lib in r and "xgboost" in r]
        return f"{np.median(vals):.2f}" if vals else "–"

    lines = [
        "| library | fit (s) | peak memory (MB) | test AUC | fit ÷ XGBoost | memory ÷ XGBoost |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for lib in libs:
        if not any(lib in r for r in runs):
            continue
        kernel = next((r[lib].get("kernel") for r in runs if lib in r), None)
        name = NAMES[lib] + (f" ({kernel})" if kernel else "")
        lines.append(
            f"| {name} | {median(lib, 'fit_s'):.2f} | {median(lib, 'peak_mb'):.0f} "
            f"| {median(lib, 'auc'):.4f} | {ratio(lib, 'fit_s')} | {ratio(lib, 'peak_mb')} |"
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-sklearn", action="store_true", help="skip the slow scikit-learn fit")
    ap.add_argument("--wait-policy", default="PASSIVE", help="as in bench_hist.py")
    ap.add_argument("--out", help="also write the table to this markdown file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    libs = ["teachgbt", "xgboost"] + ([] if args.skip_sklearn else ["sklearn"])
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench_exact_") as data_dir:
        X, y = make_problem(int(args.rows * 1.25))
        np.save(os.path.join(data_dir, "X.npy"), X)
        np.save(os.path.join(data_dir, "y.npy"), y)
        for rep in range(args.repeats):
            run = {}
            for lib in libs:
                r = run_worker(lib, data_dir, args)
                if r:
                    run[lib] = r
                    print(
                        f"  run {rep + 1}: {NAMES[lib]:<30} fit {r['fit_s']:7.2f} s   "
                        f"peak {r['peak_mb']:6.0f} MB   AUC {r['auc']:.4f}",
                        flush=True,
                    )
            runs.append(run)
    text = "\n".join(
        [
            f"Settings: {args.rows:,} training rows × 28 features, {args.rounds} rounds, depth "
            f"{args.depth}, learning rate 0.1, {args.threads} threads, OMP_WAIT_POLICY="
            f"{args.wait_policy or '(unset)'}; medians of {args.repeats} alternating runs, "
            f"{time.strftime('%Y-%m-%d')}.",
            f"Machine: {machine()}.",
            "",
            table(runs, libs),
        ]
    )
    print("\n" + text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
