"""The teachgbt model file: its format name and version, and a fitted model as a dict.

The file holds the parameters, the base score and every tree with all its
node statistics (n, G, H, w*, gains), so a loaded model predicts exactly as
the saved one and its trees can still be drawn and explained, and where the
trees came from (``model_.origin``). The per-instance trace needs the training
data and is not saved.

Writing lives here, below the estimators (``model.save`` uses it); reading
lives in ``teachgbt.io``, above them, and builds the model with the public
``from_trees`` constructor.
"""

from __future__ import annotations

import json

import numpy as np

from ..core import FITTED_HERE, MADE_FROM_TREES
from ..utils import check_is_fitted, write_atomic

FORMAT = "teachgbt-model"
# version 2 adds set splits (``sets``) and the categorical features' ``categories``; a model
# without them is written as version 1, which every teachgbt reads
VERSION = 2
READS = (1, 2)

__all__ = ["FORMAT", "VERSION", "to_dict", "save", "check_header"]


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def to_dict(model):
    """A fitted model as the JSON-ready dict ``teachgbt.io.from_dict`` reads back."""
    check_is_fitted(model)
    params = model.get_params(deep=False)
    if callable(params.get("objective")):
        raise ValueError(
            "a model with a custom objective function cannot be saved as JSON: the function "
            "itself is code. Save the trees with model.trees_ or refit after loading"
        )
    if params.get("callbacks"):
        params["callbacks"] = None
    categories = model.model_.categories
    with_sets = bool(categories) or any(t.has_sets for t in model.trees_)
    out = {
        "format": FORMAT,
        "version": VERSION if with_sets else 1,
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
        # a number; K numbers (the starting margins) for a classifier of K >= 3 classes
        "base_score": np.asarray(model.base_score_, dtype=float).tolist(),
        "base_margin": np.asarray(model.base_margin_, dtype=float).tolist(),
        "best_iteration": model.best_iteration_,
        **_origin(model.model_.origin),
        # the category names are the model's, written once (not with every tree)
        "trees": [t.to_dict(category_names=not categories) for t in model.trees_],
    }
    if categories:
        out["categories"] = {str(j): [_jsonable(v) for v in c] for j, c in categories.items()}
    return out


def _origin(origin):
    """Where the trees came from ("trained on a Dask cluster", "imported from XGBoost
    (m.json)", ...), when it says more than what every loaded file is: made from trees."""
    return {} if origin in (FITTED_HERE, MADE_FROM_TREES) else {"origin": origin}


def save(model, path):
    """Write ``model`` to ``path`` as JSON (atomically: no partial file on error)."""
    payload = to_dict(model)
    write_atomic(path, lambda f: json.dump(payload, f))


def check_header(d):
    """Raise ValueError unless ``d`` is a teachgbt model file this version reads."""
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError("not a teachgbt model file (its 'format' field is not 'teachgbt-model')")
    if d.get("version") not in READS:
        raise ValueError(
            f"model file version {d.get('version')!r} is not supported by this teachgbt "
            f"(it reads versions {', '.join(map(str, READS))})"
        )
