"""Saving and loading models as versioned JSON.

The file holds the parameters, the base score and every tree with all its
node statistics (n, G, H, w*, gains), so a loaded model predicts exactly as
the saved one and its trees can still be drawn and explained. The per-
instance trace needs the training data and is not saved.
"""

from __future__ import annotations

import json

import numpy as np

from ._files import write_atomic

FORMAT = "teachgbt-model"
VERSION = 1

__all__ = ["save", "load"]


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def to_dict(model):
    model._check_fitted()
    params = model.get_params(deep=False)
    if callable(params.get("objective")):
        raise ValueError(
            "a model with a custom objective function cannot be saved as JSON: the function "
            "itself is code. Save the trees with model.trees_ or refit after loading"
        )
    if params.get("callbacks"):
        params["callbacks"] = None
    return {
        "format": FORMAT,
        "version": VERSION,
        "estimator": type(model).__name__,
        "params": {k: _jsonable(v) for k, v in params.items()},
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": (
            [str(c) for c in model.feature_names_in_]
            if getattr(model, "feature_names_in_", None) is not None
            else None
        ),
        "classes": [_jsonable(c) for c in model.classes_.tolist()]
        if hasattr(model, "classes_")
        else None,
        "base_score": float(model.base_score_),
        "base_margin": float(model.base_margin_),
        "best_iteration": model.best_iteration_,
        "trees": [t.to_dict() for t in model.trees_],
    }


def save(model, path):
    """Write ``model`` to ``path`` as JSON (atomically: no partial file on error)."""
    payload = to_dict(model)
    write_atomic(path, lambda f: json.dump(payload, f))


def from_dict(d):
    from . import estimators
    from .engine.boosting import resolve_grow_params
    from .losses import get_loss
    from .tree import Tree

    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError("not a teachgbt model file (its 'format' field is not 'teachgbt-model')")
    if d.get("version") != VERSION:
        raise ValueError(
            f"model file version {d.get('version')!r} is not supported by this teachgbt "
            f"(it reads version {VERSION})"
        )
    kinds = {
        "BoostingClassifier": estimators.BoostingClassifier,
        "BoostingRegressor": estimators.BoostingRegressor,
    }
    if d.get("estimator") not in kinds:
        raise ValueError(f"unknown estimator {d.get('estimator')!r} in model file")
    model = kinds[d["estimator"]](**d["params"])
    model._check_params()
    model.n_features_in_ = d["n_features_in"]
    if d.get("feature_names_in") is not None:
        model.feature_names_in_ = np.asarray(d["feature_names_in"], dtype=object)
    if d.get("classes") is not None:
        model.classes_ = np.asarray(d["classes"])
    model.base_score_ = d["base_score"]
    model.base_margin_ = d["base_margin"]
    model.best_iteration_ = d.get("best_iteration")
    model.loss_ = get_loss(model.objective, model._is_classifier)
    model.params_ = resolve_grow_params(model, model.algorithm)
    model.evals_result_ = {}
    model.trees_ = [Tree.from_dict(t) for t in d["trees"]]
    return model


def load(path):
    """Read a model written by ``model.save(path)``."""
    with open(path, encoding="utf-8") as f:
        try:
            d = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not valid JSON: {e}") from None
    return from_dict(d)
