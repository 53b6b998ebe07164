"""What every plot shares: its Axes, the fitted-check, the training labels, the colours.
Shared by the modules of ``teachgbt.show.plot`` only; a user calls the plots themselves."""

from __future__ import annotations

import numpy as np

from ...utils import check_is_fitted

POS, NEG = "#1f77b4", "#ff7f0e"  # y = 1 / y = 0, as the tree diagrams' leaf colours
MANY = 60  # more instances than this: draw quantile bands instead of one line each


def literal(text):
    """``text`` shown as written: a feature named ``$\\frac{$`` is not mathtext."""
    return str(text).replace("$", r"\$")


def axes(ax, figsize=(6.4, 4.2)):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def integer_ticks():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def check_fitted(model):
    return check_is_fitted(model)


def train_y_w(model):
    """Training labels (0/1 for a classifier) and sample weights, as the trace holds them."""
    tr = model.trace_
    return np.asarray(tr.y, dtype=np.float64), tr.sample_weight


def is_classifier(model):
    """Whether the model's margins are log-odds (or softmax margins): the model's answer."""
    return model.model_.is_classifier
