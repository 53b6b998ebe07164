"""Benchmark: teachgbt's readable exact trainer against XGBoost exact and scikit-learn.

All three fit the same generated binary problem in one run, one after another,
with the same settings (rounds, depth, learning rate). Reported: fit time,
test AUC and the ratio of each fit time to teachgbt's.

    python benchmarks/bench_exact.py              # 100k x 28, 50 rounds, depth 6
    python benchmarks/bench_exact.py --rows 20000 --rounds 10
    TEACHGBT_KERNEL=numpy python benchmarks/bench_exact.py   # the numpy scan alone
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


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


def auc(y, score):
    order = np.argsort(score)
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    n_pos = y.sum()
    n_neg = len(y) - n_pos
    return (ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-sklearn", action="store_true", help="skip the slow scikit-learn fit")
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))

    X, y = make_problem(int(args.rows * 1.25))
    n = args.rows
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    lr = 0.1
    rows = []

    def run(name, fit, score):
        t0 = time.perf_counter()
        model = fit()
        t = time.perf_counter() - t0
        rows.append((name, t, auc(yte, score(model))))
        print(f"{name:<38} fit {t:8.2f} s   test AUC {rows[-1][2]:.4f}", flush=True)

    import teachgbt as tg
    from teachgbt.engine.exact import numba_kernels

    # numba's compiled twins of the scan when installed (TEACHGBT_KERNEL=numpy: numpy only)
    kernel = "numba" if numba_kernels() is not None else "numpy"
    run(
        f"teachgbt exact ({kernel})",
        lambda: tg.BoostingClassifier(
            n_estimators=args.rounds, max_depth=args.depth, learning_rate=lr, verbose=False
        ).fit(Xtr, ytr),
        lambda m: m.decision_function(Xte),
    )
    try:
        import xgboost as xgb

        run(
            "XGBoost exact",
            lambda: xgb.XGBClassifier(
                n_estimators=args.rounds,
                max_depth=args.depth,
                learning_rate=lr,
                tree_method="exact",
                n_jobs=args.threads,
            ).fit(Xtr, ytr),
            lambda m: m.predict_proba(Xte)[:, 1],
        )
    except ImportError:
        print("xgboost not installed: skipped")
    if not args.skip_sklearn:
        try:
            from sklearn.ensemble import GradientBoostingClassifier

            run(
                "scikit-learn GradientBoostingClassifier",
                lambda: GradientBoostingClassifier(
                    n_estimators=args.rounds, max_depth=args.depth, learning_rate=lr
                ).fit(Xtr, ytr),
                lambda m: m.decision_function(Xte),
            )
        except ImportError:
            print("scikit-learn not installed: skipped")

    ours = rows[0][1]
    print()
    print(
        f"{args.rows} rows x {X.shape[1]} features, {args.rounds} rounds, depth {args.depth}, "
        f"learning rate {lr}, {args.threads} threads"
    )
    print("| trainer | fit (s) | × teachgbt | test AUC |")
    print("|---|---:|---:|---:|")
    for name, t, a in rows:
        print(f"| {name} | {t:.1f} | {t / ours:.2f} | {a:.4f} |")


if __name__ == "__main__":
    main()
