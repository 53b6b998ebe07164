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

from ._categories import xgboost_category_names, xgboost_set_splits
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
# objective -> (is a classifier, its parameters: (section of the objective's config, name))
_OBJECTIVES = {
    "reg:squarederror": (False, ()),
    "reg:squaredlogerror": (False, ()),
    "reg:pseudohubererror": (False, (("pseudo_huber_param", "huber_slope"),)),
    "reg:absoluteerror": (False, ()),
    "reg:quantileerror": (False, (("quantile_loss_param", "quantile_alpha"),)),
    "count:poisson": (False, (("poisson_regression_param", "max_delta_step"),)),
    "reg:gamma": (False, ()),
    "reg:tweedie": (False, (("tweedie_regression_param", "tweedie_variance_power"),)),
    "binary:logistic": (True, ()),
    "binary:logitraw": (True, ()),
    "binary:hinge": (True, ()),
    "survival:cox": (False, ()),
    "rank:pairwise": (False, ()),
    "rank:ndcg": (False, ()),
    "rank:map": (False, ()),
}
_MULTICLASS = ("multi:softprob", "multi:softmax")
_OBJECTIVE_NOTES = {
    "survival:cox": "survival:cox: the margin is the log hazard ratio; predict is e^margin "
    "(base_score 1, start margin 0)",
    "binary:logitraw": "binary:logitraw: predict is the margin (log-odds) itself; as "
    "XGBClassifier's, predict_proba is [1 − margin, margin] and predict is margin > 0.5",
    "binary:hinge": "binary:hinge: predict is 1 where the margin is > 0, else 0",
}
_RANKING_NOTE = (
    "{name}: a ranking model; the margins are scores whose order within a query is the "
    "ranking. Its g and h came from pairs of rows within a query (LambdaMART), not from "
    "one row's label, so they are not shown"
)


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


def _objective(cfg, n_classes):
    """(teachgbt objective name, its parameters, is a classifier, notes) of the model's
    ``learner.objective`` (its name and parameter sections, which files keep too)."""
    name = cfg["name"]
    if n_classes >= 3:
        notes = [f"{n_classes} classes: base_score holds the starting margins, used as they are"]
        if name == "multi:softmax":
            notes.append("multi:softmax: the same model as multi:softprob; predict is the argmax")
        return "multi:softprob", {}, True, notes
    if name not in _OBJECTIVES:
        known = ", ".join(list(_OBJECTIVES) + [" / ".join(_MULTICLASS) + " (3+ classes)"])
        raise ValueError(f"this XGBoost model's objective is {name!r}; teachgbt imports {known}")
    is_clf, wanted = _OBJECTIVES[name]
    params = {}
    for section, key in wanted:
        text = str(cfg.get(section, {}).get(key, "")).strip()
        if text:
            values = [float(v) for v in text.strip("[]").split(",") if v.strip()]
            if key == "quantile_alpha" and len(values) > 1:
                raise ValueError(
                    f"this XGBoost model fits {len(values)} quantiles at once (quantile_alpha="
                    f"{text}), one tree per α a round; teachgbt reads models of one α"
                )
            params[key] = float(np.format_float_positional(np.float32(values[0]), unique=True))
    notes = [_OBJECTIVE_NOTES[name]] if name in _OBJECTIVE_NOTES else []
    if name.startswith("rank:"):
        notes.append(_RANKING_NOTE.format(name=name))
    return name, params, is_clf, notes


def _gbtree(booster):
    """(the gbtree part, each tree's weight or None) of a gbtree or dart booster."""
    name = booster.get("name")
    if name == "gbtree":
        return booster, None
    if name == "dart":
        return booster["gbtree"], booster.get("weight_drop")
    raise ValueError(
        f"this XGBoost model uses booster={name!r}; teachgbt imports gbtree and dart models "
        "(gblinear has no trees)"
    )


def _drop_weights(trees, weight_drop, notes):
    """dart: each tree's leaves × its weight, as XGBoost's prediction multiplies them (in
    float32); ``weight`` keeps w* = leaf/η, the ``weight_drop`` column the factor."""
    w = np.asarray(weight_drop if weight_drop is not None else [], dtype=np.float64)
    if w.shape != (len(trees),) or not np.isfinite(w).all():
        raise ValueError(
            f"this dart model has {len(trees)} trees but weight_drop holds {w.size} finite "
            "numbers: corrupted?"
        )
    for tree, wt in zip(trees, w):
        leaf = tree.is_leaf
        scaled = np.float32(tree.value[leaf]) * np.float32(wt)
        tree.value[leaf] = scaled.astype(np.float64)
        tree.extra["weight_drop"] = np.full(tree.n_nodes, float(np.float32(wt)))
    notes.append(
        "dart: each tree's leaves are multiplied by its weight_drop (the weight_drop "
        "column), as XGBoost predicts; value = η·w*·weight_drop"
    )


def _objective_in_trees(trees, params, weight_drop, notes):
    """What the objective and booster did to the stored leaves: dart's weights, and the
    leaves whose G cannot be recovered from them."""
    if weight_drop is not None:
        _drop_weights(trees, weight_drop, notes)
    if params.get("reg_alpha") or params.get("max_delta_step"):
        notes.append(
            "G is not recoverable: reg_alpha / max_delta_step shaped w*, so −w*·(H+λ) is not G"
        )
    refreshed = params["objective"] in ("reg:absoluteerror", "reg:quantileerror")
    if refreshed and params["tree_method"] != "exact":
        notes.append(
            "G is not recoverable on leaves: hist refreshed each leaf to η × the quantile of "
            "its rows' residuals after growing the tree, so value/η is that quantile, not w*"
        )
        for tree in trees:
            tree.G[tree.is_leaf] = np.nan


def _train_params(config, given):
    """(teachgbt constructor params, notes) from the Booster's config or the arguments."""
    notes = []
    if config is not None:
        gb = config["learner"]["gradient_booster"]
        if gb.get("name") == "dart":
            gb = gb["gbtree"]
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
    # set splits: XGBoost sends its set right, teachgbt left (children swapped, default flipped)
    left, right, default_left, sets = xgboost_set_splits(
        t, k, left, right, cols["default_left"].astype(bool)
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
    threshold = cols["split_conditions"].astype(np.float32).astype(np.float64)
    threshold[list(sets)] = np.nan  # a set split has none (XGBoost writes a placeholder)
    return make_tree(
        left,
        right,
        cols["split_indices"].astype(np.int64),
        threshold,
        default_left,
        stats,
        n_features,
        names,
        eta,
        rule="xgboost",
        missing=missing,
        sets=sets,
    )


def read_xgboost(d, config=None, source="model file", classes=None, missing=math.nan, **given):
    """``Imported`` from the model dict ``d`` (the JSON/UBJSON content) and, when known,
    the Booster's config dict (``json.loads(booster.save_config())``); ``missing``: the
    value that stands for a missing one (the estimator's, or the caller's for a file)."""
    try:
        learner = d["learner"]
        gbtree, weight_drop = _gbtree(learner["gradient_booster"])
        lmp = learner["learner_model_param"]
        objective_cfg = learner["objective"]
        objective = objective_cfg["name"]
        model = gbtree["model"]
    except (KeyError, TypeError) as e:
        raise ValueError(f"not a complete XGBoost model: it lacks {e}") from None
    check_xgboost(learner)  # counts, links, features, leaf values: before anything uses them
    n_classes = int(float(lmp.get("num_class", 0) or 0)) if objective in _MULTICLASS else 0
    objective, objective_params, is_clf, objective_notes = _objective(objective_cfg, n_classes)
    if int(float(lmp.get("num_target", 1) or 1)) > 1:
        raise ValueError(
            "this XGBoost model has several targets (one tree per target a round): "
            "teachgbt reads models of one target"
        )
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
    params.update(objective=objective, **objective_params)
    categories = xgboost_category_names(model, n_features)  # the DataFrame's, if it had any
    trees = []
    for k, t in enumerate(model.get("trees", [])):
        try:
            trees.append(_tree(t, k, params, n_features, names, missing))
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"tree {k} of the XGBoost model lacks {e}: corrupted?") from None
    _objective_in_trees(trees, params, weight_drop, notes)
    notes.append("XGBoost stores no row counts: n is unknown (-1)")
    if not math.isnan(missing):
        notes.append(f"inputs equal to missing={missing:g} are routed as missing values")
    best = learner.get("attributes", {}).get("best_iteration")
    base_score = _parse_base_score(lmp["base_score"], max(n_classes, 1))
    tree_class = multiclass_order("XGBoost", len(trees), n_classes, model.get("tree_info"))
    notes.extend(objective_notes)
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
        categories=categories,
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
        types = booster.feature_types
        dm = xgboost.DMatrix(
            rows,
            missing=missing,
            feature_names=booster.feature_names,
            feature_types=types,
            enable_categorical=bool(types and "c" in types),  # category codes, by code
        )
        return booster.predict(dm, output_margin=True, iteration_range=rng)

    return margin
