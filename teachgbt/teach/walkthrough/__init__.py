"""Seed 004, step by step, for any small dataset.

    >>> import teachgbt as tg
    >>> w = tg.walkthrough.troll2()        # the tutorial's own data and settings
    >>> print(w)                            # F0, then per epoch (A) residuals, (B) tree,
    ...                                     # (C) leaf outputs, (D) updated log-odds
    >>> w.epochs                            # the final table, seed 004's columns
    >>> w.save("out/")                      # every table as CSV

The sequence is the tutorial's:

* Step 1, F0: the log(odds) of the positive rate (classifier) or the mean of y
  (regressor), and why it is the best constant;
* for each epoch m: (A) the residuals of F_{m−1}, (B) a squared-error
  regression tree fitted to them, (C) each leaf's output with its formula
  filled in, Σresidual / Σp(1−p) (classifier) or the mean residual
  (regressor), (D) F_m = F_{m−1} + η·f_m (seed 004's ν) and the new probabilities.

``compare`` runs the same data through XGBoost-style boosting (base_score =
the class prior, λ = 0, min_child_weight = 0) and shows where the two grow the
same tree and where they part.

About the StatQuest video of the Troll 2 example: its leaf outputs 1.4, −1
and −3.3 are 1.5, −0.75 and −3.0 unrounded. The video rounds the starting
probability 2/3 to 0.7 before dividing (0.9/0.63 = 1.43, −0.4/0.42 = −0.95,
−0.7/0.21 = −3.33); teachgbt and scikit-learn keep every digit, so the first
row's log-odds after epoch 1 is log(2) + 0.8 × 1.5 = 1.893147.
"""

from __future__ import annotations

from .. import datasets
from .comparison import Comparison, compare, compare_models
from .data import (
    fit,
    is_classification,
    prepare,
    settings,
)
from .native import troll2_native_note
from .tables import (
    FORMULA_MAX_TERMS,
    Epoch,
    Walkthrough,
    build,
)
from .text import TEXT_MAX_ROWS

# data.py prepares X and y; tables.py builds the tables and the Walkthrough holding them;
# text.py writes them out as text, html.py as HTML for Jupyter; files.py saves them;
# comparison.py sets GBDT beside XGBoost-style boosting.
__all__ = [
    "Walkthrough",
    "Epoch",
    "Comparison",
    "walkthrough",
    "compare",
    "troll2",
    "troll2_compare",
    "ice_cream",
    "FORMULA_MAX_TERMS",
    "TEXT_MAX_ROWS",
    "STATQUEST_NOTE",
]

STATQUEST_NOTE = (
    "The StatQuest video of this example shows leaf outputs 1.4, -1 and -3.3; they are "
    "1.5, -0.75 and -3.0 unrounded. The video rounds the starting probability 2/3 to 0.7 "
    "before dividing (0.9/0.63 = 1.43, -0.4/0.42 = -0.95, -0.7/0.21 = -3.33); here every "
    "digit is kept, as scikit-learn keeps it, so row 0's log(odds) after epoch 1 is "
    "log(2) + 0.8 x 1.5 = 1.893147."
)


def walkthrough(
    X,
    y=None,
    *,
    target=None,
    classifier=None,
    n_estimators=2,
    learning_rate=0.8,
    max_depth=2,
    max_leaves=None,
    compare=True,
    **params,
):
    """Fit a GBDT on a small dataset and lay out seed 004's steps for it.

    ``X``: a DataFrame (text columns are one-hot encoded for you) or an array;
    ``y``: the target, or ``target=`` names a column of ``X``. ``classifier``:
    True / False, or None to decide from ``y`` (booleans, text or two distinct
    values: a classifier). Other keyword arguments (``reg_lambda``,
    ``min_child_weight``, ``gamma``, ...) go to the estimator. With
    ``compare=True`` the same data also goes through XGBoost-style boosting
    (see :func:`compare`).
    """
    X, y, name, encoded = prepare(X, y, target)
    if classifier is None:
        classifier = is_classification(y)
    params = settings(params, n_estimators, learning_rate, max_depth, max_leaves)
    model = fit(X, y, bool(classifier), "gbdt", params)
    w = build(model, X, y, name, bool(classifier))
    w.encoded = encoded
    if compare:
        w.comparison = compare_models(model, X, y, name, bool(classifier), params)
    return w


# ---------------------------------------------------------------- the tutorials
def troll2(n_estimators=2, learning_rate=0.8, max_depth=2, compare=True, **params):
    """Seed 004's walkthrough: the Troll 2 data, colours one-hot encoded, η = 0.8, depth 2."""
    X, y = datasets.troll2_xy()
    w = walkthrough(
        X,
        y,
        classifier=True,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        compare=compare,
        **params,
    )
    w.encoded = {"favorite_color": [c for c in X.columns if c.startswith("favorite_color_")]}
    w.notes.append(STATQUEST_NOTE)
    # the tutorial's one-hot colours stay; the native split of the same data, in a note
    w.notes.append(troll2_native_note(n_estimators, learning_rate, max_depth))
    return w


def troll2_compare(n_estimators=2, learning_rate=0.8, max_depth=2, **params):
    """The Troll 2 data through GBDT and XGBoost-style boosting, side by side."""
    X, y = datasets.troll2_xy()
    return compare(
        X,
        y,
        classifier=True,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        **params,
    )


def ice_cream(n_estimators=2, learning_rate=0.8, max_depth=2, compare=True, **params):
    """A regression walkthrough on :func:`teachgbt.teach.datasets.ice_cream`: F0 is the mean."""
    X, y = datasets.ice_cream_xy()
    w = walkthrough(
        X,
        y,
        classifier=False,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        compare=compare,
        **params,
    )
    w.encoded = {"weather": [c for c in X.columns if c.startswith("weather_")]}
    return w
