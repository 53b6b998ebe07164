"""XGBoost models as teachgbt trees: a Booster, an XGBClassifier/XGBRegressor, or a
``.json`` / ``.ubj`` model file (read without XGBoost).

What the model file holds (``learner.gradient_booster.model.trees[]``, arrays by node id):
``split_conditions`` is the threshold of ``x < t`` (float32) on a split and the leaf value
η·w* on a leaf; ``base_weights`` is w* before η on a split; ``sum_hessian`` is H;
``loss_changes`` is XGBoost's gain (no ½, no γ). So, with the model's λ and η:

    w* = value / η (leaves), base_weights (splits);   G = −w*·(H + λ)   (seed 000: w* = −G/(H+λ))
    gain = ½(loss_chg − γ)                            (DESIGN, γ: one convention)

λ, η and γ are training parameters: they live in the Booster's configuration, not in
the model file. Given a Booster they are read from ``save_config()``; given a file they
are arguments (XGBoost's defaults otherwise, with a warning). G cannot be recovered
when ``reg_alpha`` or ``max_delta_step`` shaped w*, nor where w* was zeroed because
H < min_child_weight; those G are NaN. XGBoost stores no row counts: ``n`` is unknown.

Multiclass (``multi:softprob``, ``multi:softmax``: the same trees, softmax only predicts
the argmax): ``num_class`` K, one tree per class per round, ``tree_info`` the class of
each tree. ``base_score`` holds the K starting margins, used as they are (no link): 3.2
writes the centred log class priors, "[1.397E-1,4.625E-1,-6.022E-1]"; 3.1 wrote the class
shares themselves; before 3.1 one number (default "5E-1"), which every class starts from.
"""

from __future__ import annotations

import json
import math

import numpy as np

from ._common import (
    Imported,
    make_tree,
    multiclass_order,
    unknown_count,
)
from ._common import warn_assumed as _warn_assumed
from ._validate import check_xgboost

__all__ = ["read_xgboost", "XGB_DEFAULTS"]

XGB_DEFAULTS = {"learning_rate": 0.3, "reg_lambda": 1.0, "gamma": 0.0}
_OBJECTIVES = {"binary:logistic": True, "reg:squarederror": False}  # name -> is a classifier
_MULTICLASS = ("multi:softprob", "multi:softmax")


def _param(config, name, default):
    """A float parameter of the config; XGBoost keeps them in float32 and prints 0.3 as
    "0.300000012", so read back the shortest decimal of that float32."""
    v = config.get(name, default)
    return (
        float(np.format_float_positional(np.float32(v), unique=True)) if v is not None else default
    )


def _parse_base_score(text, n=1):
    """``base_score`` as stored: "5E-1" (up to 3.0) or a list such as "[3.775E-1]" (3.1+);
    ``n`` numbers (a single one stands for all of them), as a float when n is 1."""
    s = str(text).strip()
    try:
        values = [float(v) for v in s.strip("[]").split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"the model's base_score {s!r} is not a number") from None
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise ValueError(f"the model has {len(values)} base scores; teachgbt reads {n}")
    return values[0] if n == 1 else values


def _train_params(config, given):
    """(teachgbt constructor params, notes) from the Booster's config or the arguments."""
    notes = []
    if config is not None:
        gb = config["learner"]["gradient_booster"]
        tp = gb.get("tree_train_param", {})
        method = gb.get("gbtree_train_param", {}).get("tree_method", "hist")
        params = {
            "learning_rate": _param(tp, "eta", 0.3),
            "reg_lambda": _param(tp, "lambda", 1.0),
            "gamma": _param(tp, "gamma", 0.0),
            "reg_alpha": _param(tp, "alpha", 0.0),
            "max_delta_step": _param(tp, "max_delta_step", 0.0),
            "min_child_weight": _param(tp, "min_child_weight", 1.0),
            "max_depth": int(float(tp.get("max_depth", 6))),
            "max_leaves": int(float(tp.get("max_leaves", 0))) or None,
        }
        params["tree_method"] = "exact" if method == "exact" else "hist"
        for k, v in given.items():
            if v is not None:
                params[k] = float(v)
        if params["max_depth"] == 0 and not params["max_leaves"]:
            params["max_depth"] = 0  # lossguide without a bound: say so explicitly
        return params, notes
    assumed = {k: v for k, v in XGB_DEFAULTS.items() if given.get(k) is None}
    params = {**XGB_DEFAULTS, **{k: float(v) for k, v in given.items() if v is not None}}
    params.update(tree_method="hist", max_depth=0)
    if assumed:
        said = ", ".join(f"{k}={v:g}" for k, v in assumed.items())
        depends = (
            "The columns weight (w* = value/η), G (= −w*·(H+λ)) and gain (= ½(loss_chg − "
            "γ)) depend on them; value, H, loss_chg and the predictions do not."
        )
        notes.append(f"assumed {said} (not stored in XGBoost model files). {depends}")
        _warn_assumed("XGBoost", assumed, depends, "reg_lambda=, learning_rate=, gamma=")
    return params, notes


def _tree(t, k, params, n_features, names, missing):
    size_leaf = int(t.get("tree_param", {}).get("size_leaf_vector", 1) or 1)
    if size_leaf > 1:
        raise ValueError(
            f"tree {k} has vector leaves ({size_leaf} outputs per tree, "
            "multi_strategy='multi_output_tree'): several outputs per tree are not supported; "
            "train with multi_strategy='one_output_per_tree' (the default)"
        )
    left = np.asarray(t["left_children"], dtype=np.int64)
    right = np.asarray(t["right_children"], dtype=np.int64)
    n_nodes = len(left)
    cols = {}
    for key in (
        "split_indices",
        "split_conditions",
        "default_left",
        "sum_hessian",
        "base_weights",
        "loss_changes",
    ):
        cols[key] = np.asarray(t[key])
        if len(cols[key]) != n_nodes or len(right) != n_nodes:
            raise ValueError(f"tree {k}: its node arrays have different lengths")
    split = left >= 0
    split_type = np.asarray(t.get("split_type", np.zeros(n_nodes)))
    if len(split_type) == n_nodes and (split_type[split] != 0).any():
        j = int(cols["split_indices"][split][split_type[split] != 0][0])
        name = names[j] if names and 0 <= j < len(names) else f"f{j}"
        raise ValueError(
            f"tree {k} has a categorical split on feature {name!r}; teachgbt's trees split "
            "numbers (x < t). One-hot encode the feature and retrain, or import a model "
            "without categorical splits"
        )
    eta, lam = params["learning_rate"], params["reg_lambda"]
    H = cols["sum_hessian"].astype(np.float64)
    value = np.where(split, np.nan, cols["split_conditions"].astype(np.float64))
    weight = np.where(split, cols["base_weights"].astype(np.float64), value / eta)
    value = np.where(split, eta * weight, value)
    G = -weight * (H + lam)  # w* = −G/(H+λ), solved for G
    if params.get("reg_alpha") or params.get("max_delta_step"):
        G = np.full(n_nodes, np.nan)
    zeroed = (weight == 0) & (H < params.get("min_child_weight", 1.0))
    G = np.where(zeroed, np.nan, G)
    loss_chg = cols["loss_changes"].astype(np.float64)
    stats = {
        "n": unknown_count(n_nodes),
        "G": G,
        "H": H,
        "weight": weight,
        "value": value,
        "loss_chg": loss_chg,
        "gain": 0.5 * (loss_chg - params["gamma"]),
        "cover": H,  # XGBoost's cover is the hessian sum
    }
    return make_tree(
        left,
        right,
        cols["split_indices"].astype(np.int64),
        cols["split_conditions"].astype(np.float32).astype(np.float64),
        cols["default_left"].astype(bool),
        stats,
        n_features,
        names,
        eta,
        rule="xgboost",
        missing=missing,
    )


def read_xgboost(d, config=None, source="model file", classes=None, missing=math.nan, **given):
    """``Imported`` from the model dict ``d`` (the JSON/UBJSON content) and, when known,
    the Booster's config dict (``json.loads(booster.save_config())``); ``missing``: the
    value that stands for a missing one (the estimator's, or the caller's for a file)."""
    try:
        learner = d["learner"]
        booster = learner["gradient_booster"]
        lmp = learner["learner_model_param"]
        objective = learner["objective"]["name"]
    except (KeyError, TypeError) as e:
        raise ValueError(f"not a complete XGBoost model: it lacks {e}") from None
    check_xgboost(learner)  # counts, links, features, leaf values: before anything uses them
    name = booster.get("name")
    if name != "gbtree":
        raise ValueError(
            f"this XGBoost model uses booster={name!r}; teachgbt imports gbtree models only "
            "(gblinear has no trees; dart scales its trees by dropout weights)"
        )
    n_classes = int(float(lmp.get("num_class", 0) or 0)) if objective in _MULTICLASS else 0
    if objective not in _OBJECTIVES and n_classes < 3:
        raise ValueError(
            f"this XGBoost model's objective is {objective!r}; teachgbt imports "
            f"{', '.join(_OBJECTIVES)} and {' / '.join(_MULTICLASS)} with 3 or more classes"
        )
    if int(float(lmp.get("num_target", 1) or 1)) > 1:
        raise ValueError("this XGBoost model has several targets: not supported")
    model = booster["model"]
    n_parallel = int(float(model.get("gbtree_model_param", {}).get("num_parallel_tree", 1)))
    if n_parallel > 1:
        raise ValueError(
            f"this XGBoost model grows {n_parallel} parallel trees a round (a boosted random "
            "forest): not supported"
        )
    n_features = int(float(lmp["num_feature"]))
    names = [str(c) for c in learner.get("feature_names") or []] or None
    if names is not None and len(names) != n_features:
        raise ValueError(f"{len(names)} feature names for {n_features} features")
    params, notes = _train_params(config, given)
    trees = []
    for k, t in enumerate(model.get("trees", [])):
        try:
            trees.append(_tree(t, k, params, n_features, names, missing))
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"tree {k} of the XGBoost model lacks {e}: corrupted?") from None
    if params.get("reg_alpha") or params.get("max_delta_step"):
        notes.append(
            "G is not recoverable: reg_alpha / max_delta_step shaped w*, so −w*·(H+λ) is not G"
        )
    notes.append("XGBoost stores no row counts: n is unknown (-1)")
    if not math.isnan(missing):
        notes.append(f"inputs equal to missing={missing:g} are routed as missing values")
    best = learner.get("attributes", {}).get("best_iteration")
    is_clf = n_classes >= 3 or _OBJECTIVES[objective]
    base_score = _parse_base_score(lmp["base_score"], max(n_classes, 1))
    params["objective"] = "multi:softprob" if n_classes >= 3 else objective
    tree_class = multiclass_order("XGBoost", len(trees), n_classes, model.get("tree_info"))
    if n_classes >= 3:
        notes.append(
            f"{n_classes} classes: base_score holds the starting margins, used as they are"
        )
        if objective == "multi:softmax":
            notes.append("multi:softmax: the same model as multi:softprob; predict is the argmax")
    return Imported(
        library="XGBoost",
        source=source,
        is_classifier=is_clf,
        trees=trees,
        base_score=base_score,
        n_features=n_features,
        params=params,
        feature_names=names,
        classes=classes if is_clf else None,
        best_iteration=int(best) if best is not None else None,
        tree_class=tree_class,
        notes=notes,
    )


def _check_missing(missing):
    try:
        missing = float(missing)
    except (TypeError, ValueError):
        raise ValueError(
            f"missing={missing!r}: the value that marks a missing input is a number"
        ) from None
    if math.isinf(missing):
        raise ValueError(f"missing={missing!r}: an infinite value cannot mark missing inputs")
    return missing


def xgboost_file(d, data, shown, missing=None, **given):
    """``Imported`` from a model file already read (``d`` its content, ``data`` its bytes,
    ``shown`` its name), and XGBoost's own margins on it (None without XGBoost). A file
    does not store the value that marks a missing input: NaN unless ``missing`` is given."""
    missing = math.nan if missing is None else _check_missing(missing)
    imp = read_xgboost(d, None, f"model file {shown}", missing=missing, **given)
    return imp, _file_margin(data, imp, missing)


def xgboost_source(model, missing=None, **given):
    """``Imported`` from a Booster or an XGBModel, and a margin function (probe rows ->
    XGBoost's own margins).

    ``missing``: the value that marks a missing input. An XGBClassifier/XGBRegressor
    knows its own (``missing=`` here must then agree or be None); a Booster does not
    store it, so it is NaN unless given."""
    classes = None
    if hasattr(model, "get_booster"):  # XGBClassifier / XGBRegressor
        own = _check_missing(model.get_params().get("missing", math.nan))
        if missing is not None and not _same(_check_missing(missing), own):
            raise ValueError(
                f"missing={missing!r} differs from the estimator's own missing={own!r}; "
                "leave missing=None to use the estimator's"
            )
        missing = own
        classes = getattr(model, "classes_", None)
        classes = None if classes is None else list(np.asarray(classes).tolist())
        source = type(model).__name__
        model = model.get_booster()
    elif type(model).__module__.startswith("xgboost") and type(model).__name__ == "Booster":
        source = "xgboost.Booster"
        missing = math.nan if missing is None else _check_missing(missing)
    else:
        raise TypeError(
            "from_xgboost takes an xgboost.Booster, an XGBClassifier/XGBRegressor or the path "
            f"of a .json/.ubj model file; got {type(model).__name__}"
        )
    d = json.loads(bytes(model.save_raw(raw_format="json")))
    config = json.loads(model.save_config())
    imp = read_xgboost(d, config, source, classes=classes, missing=missing, **given)
    return imp, _booster_margin(model, imp, missing)


def _same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def _file_margin(data, imp, missing):
    """XGBoost's margins for the model file's bytes ``data``, computed in a child process
    (``_library``: a crafted file can crash XGBoost's reader), when XGBoost is installed
    (else None)."""
    from ._library import installed, library_margins

    if not installed("xgboost"):
        return None
    end = imp.best_iteration + 1 if imp.best_iteration is not None else 0

    def margin(rows):
        return library_margins("xgboost", data, rows, missing, iteration_end=end)

    return margin


def _booster_margin(booster, imp, missing):
    def margin(rows):  # the probe rows: a CSR matrix as wide as the model
        import xgboost

        best = imp.best_iteration
        rng = (0, best + 1) if best is not None else (0, 0)
        dm = xgboost.DMatrix(
            rows,
            missing=missing,
            feature_names=booster.feature_names,
            feature_types=booster.feature_types,
        )
        return booster.predict(dm, output_margin=True, iteration_range=rng)

    return margin
