"""What a fit does around the boosting loop, as hooks ``train`` calls after each round.

Each hook is called as ``hook(t, model)`` after round t, with the ``Model`` trained so
far, and returns True to stop training (XGBoost's ``TrainingCallback.after_iteration``):

* ``EvalSets``      scores the eval sets after every round (``evals_result_``);
* ``EarlyStopping`` stops when the last eval set's score has not improved for a while;
* ``progress_bar``  a tqdm bar for long fits, shown only on a terminal.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from .boosting import round_step

__all__ = ["EvalSets", "EarlyStopping", "progress_bar"]


class EvalSets:
    """Margins and the loss's metric of each (X32, y) pair, round by round.

    ``results`` is XGBoost's ``evals_result()``: ``{"validation_k": {metric: [score, ...]}}``.
    """

    def __init__(self, evals, algorithm, base_margin):
        self.evals = evals
        self.algorithm = algorithm
        self.loss = algorithm.loss
        self.margins = [algorithm.initial_margin(base_margin, len(ey)) for _, ey in evals]
        self.results = {}

    def __call__(self, t, model):
        trees = model.round_trees(t)  # one tree, or one per class
        for k, (ex, ey) in enumerate(self.evals):
            self.margins[k] = self.algorithm.add(self.margins[k], round_step(trees, ex))
            score = self.loss.metric(ey, self.margins[k])
            self.results.setdefault(f"validation_{k}", {}).setdefault(
                self.loss.metric_name, []
            ).append(score)

    def last_scores(self):
        """The scores of the last eval set, one per round so far."""
        return self.results[f"validation_{len(self.evals) - 1}"][self.loss.metric_name]


class EarlyStopping:
    """Stop when the last eval set's score has not improved for ``rounds`` rounds (XGBoost's
    ``early_stopping_rounds``); ``best_iteration`` is the 0-based best round."""

    def __init__(self, eval_sets, rounds):
        self.eval_sets = eval_sets
        self.rounds = rounds
        self.best_score, self.best_iteration, self.since_best = np.inf, None, 0

    def __call__(self, t, model):
        score = self.eval_sets.last_scores()[-1]
        if score < self.best_score:
            self.best_score, self.best_iteration, self.since_best = score, t - 1, 0
            return False
        self.since_best += 1
        return self.since_best >= self.rounds


class _NoProgress:
    def __call__(self, t, model):
        pass

    def close(self):
        pass


class _Progress:
    def __init__(self, bar):
        self.bar = bar

    def __call__(self, t, model):
        self.bar.update(1)

    def close(self):
        self.bar.close()


def progress_bar(total, verbose):
    """A hook showing a tqdm bar for long fits, only on a terminal (or when verbose=True).
    Call its ``close()`` when training ends."""
    if verbose is False or total < 2:
        return _NoProgress()
    if verbose is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return _NoProgress()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if verbose:
            warnings.warn(
                "verbose=True shows a progress bar only when tqdm is installed", stacklevel=3
            )
        return _NoProgress()
    return _Progress(tqdm(total=total, desc="boosting", unit="tree", leave=False))
