"""What every plot shares: its Axes, the fitted-check, the training labels, the colours.
Shared by the modules of ``teachgbt.show.plot`` only; a user calls the plots themselves."""

from __future__ import annotations

import numpy as np

from ...core.losses import LINKS
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


def shown(model, margin):
    """What a plot shows of margins, by the model's objective: the probability where a margin
    means one (``Loss.probability``), else the prediction (``Model.link``: e^margin for a
    log link, the class for binary:hinge, the margin itself for squared error)."""
    loss = model.model_.loss
    return loss.probability(margin) if loss.has_probability else model.model_.link(margin)


def shown_name(model, margin="margin"):
    """The symbol and formula of what ``shown`` gives, with the margin named ``margin``:
    ("p", "σ(margin)"), ("ŷ", "e^margin"), ("ŷ", "margin")."""
    loss = model.model_.loss
    link = LINKS[loss.link]
    if loss.has_probability:
        return "p", link.probability_of(margin)
    return "ŷ", link.prediction_of(margin)
