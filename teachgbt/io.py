"""Loading models: teachgbt's versioned JSON (``model.save``) back into estimators.

This module sits above the estimators: it builds every model it reads through
the public constructor ``BoostingClassifier.from_trees`` /
``BoostingRegressor.from_trees``, the way any importer of another library's
trees does. The file format itself (name, version, model → dict) lives in
``teachgbt._modelfile``, which ``model.save`` uses.
"""

from __future__ import annotations

import json

from ._modelfile import FORMAT, VERSION, check_header, save, to_dict
from .estimators import BoostingClassifier, BoostingRegressor
from .tree import Tree

__all__ = ["save", "load", "to_dict", "from_dict", "FORMAT", "VERSION"]

_ESTIMATORS = {cls.__name__: cls for cls in (BoostingClassifier, BoostingRegressor)}


def from_dict(d):
    """The model a dict from ``to_dict`` describes (a model file's content)."""
    check_header(d)
    if d.get("estimator") not in _ESTIMATORS:
        raise ValueError(f"unknown estimator {d.get('estimator')!r} in model file")
    params = dict(d["params"])
    # the parameter as it was given (None: estimated from y); the fitted value is below
    base_score_param = params.pop("base_score", None)
    model = _ESTIMATORS[d["estimator"]].from_trees(
        [Tree.from_dict(t) for t in d["trees"]],
        base_score=d["base_score"],
        feature_names=d.get("feature_names_in"),
        classes=d.get("classes"),
        n_features=d["n_features_in"],
        best_iteration=d.get("best_iteration"),
        **params,
    )
    return model.set_params(base_score=base_score_param)


def load(path):
    """Read a model written by ``model.save(path)``."""
    with open(path, encoding="utf-8") as f:
        try:
            d = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not valid JSON: {e}") from None
    return from_dict(d)
