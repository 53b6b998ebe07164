"""What a fit does around the boosting loop, as hooks ``train`` calls after each round.

Each hook is called as ``hook(t, model)`` after round t, with the ``Model`` trained so
far, and returns True to stop training (XGBoost's ``TrainingCallback.after_iteration``):

* ``EvalSets``      scores the eval sets after every round (``evals_result_``);
* ``EarlyStopping`` stops when the last eval set's score has not improved for a while;
* ``progress_bar``  a tqdm bar for fits that last over a second, on a terminal or in a
                    notebook; one summary line stays on stdout when it ends.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

__all__ = ["EvalSets", "EarlyStopping", "progress_bar"]


class EvalSets:
    """Margins and the loss's metric of each (X32, y) pair, round by round.

    ``results`` is XGBoost's ``evals_result()``: ``{"validation_k": {metric: [score, ...]}}``.
    """

    def __init__(self, evals, model):
        self.evals = evals
        self.loss = model.loss
        self.margins = [model.start_margins(len(ey)) for _, ey in evals]
        self.results = {}

    def __call__(self, t, model):
        for j, (ex, ey) in enumerate(self.evals):
            self.margins[j] = model.next_margins(ex, t, self.margins[j])
            score = self.loss.metric(ey, self.margins[j])
            self.results.setdefault(f"validation_{j}", {}).setdefault(
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
    """A tqdm bar while training; when it ends, the bar goes and one line stays, on stdout
    (a notebook shows stderr in red, as if the fit had failed; a saved notebook would
    otherwise keep a widget's stale state, or nothing). Unasked for (``verbose=None``), the
    bar and the line appear only once a fit has lasted ``SHOW_AFTER`` seconds."""

    def __init__(self, bar, metric, always):
        self.bar, self.metric, self.always = bar, metric, always
        self.start = time.perf_counter()
        self.trees = 0

    def __call__(self, t, model):
        self.bar.update(1)
        self.trees = len(model.trees)

    def close(self):
        self.bar.close()
        seconds = time.perf_counter() - self.start
        if not self.trees or not (self.always or seconds >= SHOW_AFTER):
            return  # a failed fit's error says why; a quick one needs no report
        line = f"{self.trees} trees in {seconds:.1f} s"
        if self.metric is not None:
            name, value = self.metric()
            line += f", train {name} {value:.4g}"
        print(line, file=sys.stdout, flush=True)


#: seconds a fit runs before an unasked-for progress bar appears
SHOW_AFTER = 1.0


def _shell():
    """The name of IPython's shell class ("ZMQInteractiveShell" in a Jupyter kernel)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return type(shell).__name__


def _tqdm_class():
    """tqdm's notebook widget in a Jupyter kernel with ipywidgets, else its text bar. Not
    ``tqdm.auto``: without ipywidgets it warns ("IProgress not found") before falling back."""
    from importlib.util import find_spec

    if _shell() == "ZMQInteractiveShell" and find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm


def progress_bar(total, verbose, metric=None):
    """A hook showing a tqdm bar: with verbose=True always, with verbose=None (the default)
    on a terminal or in a notebook once the fit has run a second. Call its ``close()`` when
    training ends: it prints one line to stdout, "150 trees in 6.8 s, train logloss 0.21"
    (``metric()`` gives the name and value of the train score)."""
    if verbose is False or total < 2:
        return _NoProgress()
    notebook = _shell() == "ZMQInteractiveShell"
    terminal = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    if verbose is None and not (terminal or notebook):
        return _NoProgress()
    try:
        tqdm = _tqdm_class()
    except ImportError:
        if verbose:
            warnings.warn(
                "verbose=True shows a progress bar only when tqdm is installed", stacklevel=3
            )
        return _NoProgress()
    # a text bar in a notebook goes to stdout: its stderr is shown as an error
    out = sys.stdout if notebook else sys.stderr
    delay = 0.0 if verbose else SHOW_AFTER
    bar = tqdm(total=total, desc="boosting", unit="tree", leave=False, delay=delay, file=out)
    return _Progress(bar, metric, always=bool(verbose))
