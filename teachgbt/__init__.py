"""teachgbt: gradient boosted trees you can read, matching XGBoost and scikit-learn.

Read ``teachgbt/reference.py`` first: seed 000's whole algorithm in one file
(``tg.reference.fit``); the trainers below are tested equal to it.

import teachgbt as tg
clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
clf.trace_.epochs()          # seed 004's per-epoch table
clf.trace_.splits(1, 0)      # every candidate split at the root of round 1's tree
clf.model_                   # the fitted tg.Model every view asks (margins, trees by round)
tg.train({"max_depth": 2}, X32, y)   # the engine directly: plain parameters -> tg.Model
"""

from . import explain, reference
from .core import Model, Tree, formulas, losses
from .engine import gbdt
from .engine.trace import Trace
from .engine.training import TrainParams, train
from .estimators import BoostingClassifier, BoostingRegressor
from .io import from_lightgbm, from_sklearn, from_xgboost, load
from .show import display, draw, explore, plot
from .teach import check, datasets, exercises, walkthrough

__version__ = "0.1.0"


def __getattr__(name):
    # scikit-learn's NotFittedError when it is installed, looked up on use: importing
    # scikit-learn takes seconds and ``import teachgbt`` must not wait for it
    if name == "NotFittedError":
        from . import utils

        return utils.NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BoostingClassifier",
    "BoostingRegressor",
    "Model",
    "NotFittedError",
    "Trace",
    "TrainParams",
    "Tree",
    "check",
    "datasets",
    "display",
    "draw",
    "exercises",
    "explain",
    "explore",
    "formulas",
    "gbdt",
    "plot",
    "reference",
    "walkthrough",
    "load",
    "from_xgboost",
    "from_lightgbm",
    "from_sklearn",
    "losses",
    "train",
    "__version__",
]
