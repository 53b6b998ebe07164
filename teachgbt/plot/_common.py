"""What every plot shares: its Axes, the fitted-check, the training labels, the colours."""

from __future__ import annotations

import numpy as np

from .._validation import check_is_fitted

_POS, _NEG = "#1f77b4", "#ff7f0e"  # y = 1 / y = 0, as the tree diagrams' leaf colours
_MANY = 60  # more instances than this: draw quantile bands instead of one line each


def literal(text):
    """``text`` shown as written: a feature named ``$\\frac{$`` is not mathtext."""
    return str(text).replace("$", r"\$")


def _axes(ax, figsize=(6.4, 4.2)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _integer_ticks():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _fitted(model):
    return check_is_fitted(model)


def _train_y_w(model):
    """Training labels (0/1 for a classifier) and sample weights, as the trace holds them."""
    tr = model.trace_
    return np.asarray(tr.y, dtype=np.float64), tr.sample_weight


def _is_classifier(model):
    return bool(model.loss_.is_classification)
