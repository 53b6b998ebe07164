"""Plots of every step of boosting. Each takes ``ax=None`` and returns the Axes.

With ``ax=None`` a new figure is made (``plt.subplots``); pass an Axes to
draw into a figure of your own. Nothing here changes matplotlib's global
settings.

    curves.py     loss_curve, probabilities, residuals: round by round, epoch by epoch
    trees.py      split_scan, structure_score: one tree, one node
    fits.py       staircase, compare_fits: the model as a step function of 1-D data
    features.py   importance, importance_values
    waterfall.py  contributions: one prediction as a waterfall from the bias
    voting.py     vote_error, majority_vote_error (seed 002)
    _common.py    the Axes, the fitted-check (``check_fitted``), training labels, colours
"""

from __future__ import annotations

from .curves import loss_curve, probabilities, residuals
from .features import importance, importance_values
from .fits import compare_fits, staircase
from .trees import split_scan, structure_score
from .voting import majority_vote_error, vote_error
from .waterfall import contributions

__all__ = [
    "loss_curve",
    "split_scan",
    "staircase",
    "compare_fits",
    "probabilities",
    "residuals",
    "structure_score",
    "importance",
    "importance_values",
    "vote_error",
    "majority_vote_error",
    "contributions",
]
