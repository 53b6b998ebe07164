"""Helpers that put a teachgbt tree beside an XGBoost tree, node for node."""

import itertools
import json

import numpy as np
import pytest


def xgb_params(params, objective, tree_method):
    """XGBoost's native parameters for teachgbt estimator parameters ``params``."""
    out = {
        "objective": objective,
        "tree_method": tree_method,
        "max_depth": params.get("max_depth", 6),
        "eta": params.get("learning_rate", 0.3),
        "lambda": params.get("reg_lambda", 1.0),
        "alpha": params.get("reg_alpha", 0.0),
        "gamma": params.get("gamma", 0.0),
        "min_child_weight": params.get("min_child_weight", 1.0),
        "max_delta_step": params.get("max_delta_step", 0.0),
        "max_bin": params.get("max_bin", 256),
        "nthread": 1,
    }
    if params.get("base_score") is not None:
        out["base_score"] = params["base_score"]
    if params.get("max_leaves"):
        out.update(
            grow_policy="lossguide",
            max_leaves=params["max_leaves"],
            max_depth=params.get("max_depth", 6) or 0,
        )
    return out


def run_both(X, y, params, classifier, tree_method, sample_weight=None, n_rounds=5):
    """The same model fitted by teachgbt and by XGBoost: ``(estimator, booster)``."""
    import xgboost as xgb

    import teachgbt as tg

    est = (tg.BoostingClassifier if classifier else tg.BoostingRegressor)(
        tree_method=tree_method, n_estimators=n_rounds, **params
    )
    est.fit(X, y, sample_weight=sample_weight)
    objective = "binary:logistic" if classifier else "reg:squarederror"
    dtrain = xgb.DMatrix(X, label=y, weight=sample_weight, missing=np.nan)
    booster = xgb.train(xgb_params(params, objective, tree_method), dtrain, n_rounds)
    return est, booster


def xgb_trees(booster):
    """Each tree of an XGBoost booster as its JSON dump (a nested dict)."""
    return [json.loads(t) for t in booster.get_dump(dump_format="json", with_stats=True)]


def compare_tree(ours, theirs, leaf_atol=1e-6, X=None):
    """Walk both trees from the root; return a list of differences (empty when equal).

    Compares split features, thresholds (as float32), default directions and leaf values.
    With the training data X, two different rules that split a node's training rows
    identically count as the same split: such candidates tie exactly, and which one
    wins is decided by float rounding of equal sums.
    """
    diffs = []
    X32 = None if X is None else np.asarray(X, dtype=np.float32)
    leaves = None if X is None else ours.apply(X32)

    def same_partition(i, feat, thr, default_left):
        if X32 is None:
            return False
        rows = ours.node_mask(X32, i, leaves)
        mine = X32[rows, ours.feature[i]]
        go_mine = np.where(np.isnan(mine), ours.default_left[i], mine < ours.threshold[i])
        theirs_x = X32[rows, feat]
        go_theirs = np.where(np.isnan(theirs_x), default_left, theirs_x < thr)
        return bool(np.array_equal(go_mine, go_theirs))

    def walk(i, node, path):
        if "leaf" in node:
            if ours.feature[i] >= 0:
                diffs.append(f"{path}: teachgbt splits on f{ours.feature[i]}, XGBoost has a leaf")
            elif abs(ours.value[i] - node["leaf"]) > leaf_atol * max(1.0, abs(node["leaf"])):
                diffs.append(f"{path}: leaf {ours.value[i]!r} vs {node['leaf']!r}")
            return
        if ours.feature[i] < 0:
            # XGBoost may split a node whose split gains nothing in exact arithmetic (one
            # float32 rounding step): every leaf below then carries the same value as ours.
            below = leaf_values(node)
            if not np.allclose(below, ours.value[i], rtol=1e-6, atol=leaf_atol):
                diffs.append(f"{path}: teachgbt has a leaf, XGBoost splits on {node['split']}")
            return
        feat = int(str(node["split"]).lstrip("f"))
        thr = np.float32(node["split_condition"])
        default_left = node["missing"] == node["yes"]
        if feat != ours.feature[i] or thr != np.float32(ours.threshold[i]):
            if not same_partition(i, feat, thr, default_left):
                diffs.append(
                    f"{path}: split f{ours.feature[i]} < {ours.threshold[i]!r} vs "
                    f"{node['split']} < {node['split_condition']!r}"
                )
                return
        elif default_left != bool(ours.default_left[i]):
            diffs.append(f"{path}: default_left {bool(ours.default_left[i])} vs {default_left}")
        kids = {c["nodeid"]: c for c in node["children"]}
        walk(int(ours.left[i]), kids[node["yes"]], path + "L")
        walk(int(ours.right[i]), kids[node["no"]], path + "R")

    walk(0, theirs, "root")
    return diffs


def leaf_values(node):
    """Every leaf value below a node of an XGBoost JSON dump."""
    if "leaf" in node:
        return [node["leaf"]]
    return [v for c in node["children"] for v in leaf_values(c)]


# ------------------------------------------------------------------ pairwise grids
#: two values, neither the default, of each parameter the pairwise parity grids combine;
#: reg_lambda stays > 0 (see the README on reg_lambda = 0 classification)
PAIR_VALUES = {
    "max_depth": (2, 4),
    "reg_lambda": (0.1, 5.0),
    "reg_alpha": (0.5, 2.0),
    "gamma": (0.5, 3.0),
    "min_child_weight": (0.0, 3.0),
    "max_delta_step": (0.3, 1.0),
    "learning_rate": (0.1, 1.0),
    "sample_weight": ("uniform", "integer"),
    "base_score": ("low", "high"),
    "max_leaves": (4, 9),
}
#: a given base_score, in response space, for "low" and "high"
BASE_SCORES = {True: {"low": 0.2, "high": 0.7}, False: {"low": -1.0, "high": 2.0}}


def pair_cases(names):
    """Every pair of the parameters ``names``, with each two values of both (pytest params)."""
    return [
        pytest.param({a: va, b: vb}, id=f"{a}={va}-{b}={vb}")
        for a, b in itertools.combinations(names, 2)
        for va, vb in itertools.product(PAIR_VALUES[a], PAIR_VALUES[b])
    ]


def resolve_case(case, classifier, n_rows, seed=0):
    """Estimator parameters and sample weights (or None) for one case of ``pair_cases``."""
    params = dict(case)
    kind = params.pop("sample_weight", None)
    rng = np.random.default_rng(seed)
    sample_weight = {
        None: None,
        "uniform": rng.uniform(0.2, 3.0, n_rows),
        "integer": rng.integers(1, 4, n_rows).astype(float),
    }[kind]
    if "base_score" in params:
        params["base_score"] = BASE_SCORES[classifier][params["base_score"]]
    return params, sample_weight
