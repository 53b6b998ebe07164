"""Data and kernels the histogram trainer's tests share (tests/test_hist*.py,
test_callbacks.py, test_plot.py); the ``kernel`` fixture is conftest's."""

import numpy as np

try:
    import numba  # noqa: F401

    KERNELS = ["numpy", "numba"]
except ImportError:  # pragma: no cover - numba is optional
    KERNELS = ["numpy"]


def few_values(seed=0, n=400, d=6, levels=6, nan=0.0):
    """Features with few distinct values (rounded), a logit, and optional missing values."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)).astype(float) / 2
    logit = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 1) + rng.normal(0, 1, n)
    y = (logit > 0.6).astype(float)
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    return X, y, logit
