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

import os as _os
import signal as _signal
import sys as _sys


def _as_a_command():
    """Whether this process is the ``teachgbt`` command (``teachgbt ...`` or ``python -m
    teachgbt ...``), not a program that imports the package."""
    argv = list(getattr(_sys, "orig_argv", _sys.argv))
    if "-m" in argv:
        return argv[argv.index("-m") + 1 : argv.index("-m") + 2] == ["teachgbt"]
    return bool(_sys.argv) and _os.path.basename(_sys.argv[0]).split(".")[0] == "teachgbt"


def _interrupted_while_starting(signum, frame):
    _os.write(2, b"interrupted\n")  # nothing is written yet: there is nothing to undo
    _os._exit(130)


# The command: Ctrl-C while Python imports the package is one line and exit 130, not a
# traceback through the import machinery; the command's own handler takes over once it runs
if _as_a_command() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

# The background compile's child process (utils._compile) needs only the kernel modules:
# it skips the public API's imports (pandas among them), a third of a second of its start
if _os.environ.get("TEACHGBT_COMPILE_CHILD") != "1":
    from . import explain, reference  # noqa: E402
    from .core import Model, Tree, formulas, losses  # noqa: E402
    from .engine import gbdt  # noqa: E402
    from .engine.trace import Trace  # noqa: E402
    from .engine.training import TrainParams, train  # noqa: E402
    from .estimators import BoostingClassifier, BoostingRegressor  # noqa: E402
    from .io import from_lightgbm, from_sklearn, from_xgboost, load  # noqa: E402
    from .show import display, draw, explore, plot  # noqa: E402
    from .teach import check, datasets, exercises, walkthrough  # noqa: E402

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
