"""What the explorer page shows, as one JSON-ready dict.

The page computes nothing it could get wrong: every number with a formula behind it
comes from here — the trees' n, G, H, w*, gain and loss_chg, the formula text of
``tg.explain``, the trace's g and h, the candidate splits of ``trace_.splits``. The
page only adds leaf values up (the running margin, in the trainer's precision) and
applies the link (σ or softmax) to show a probability.

Sizes are kept classroom-sized: every row's leaf in every tree is sent (so any row's
path and margin can be shown), but g and h only for the first ``table_rows`` rows,
feature values only while rows × features ≤ ``MAX_X_VALUES``, and candidate-split
tables only for small trees, at most ``max_split_tables`` of them, each cut to the
``split_rows`` best candidates plus the chosen one. The same limits hold in Jupyter
and in a saved file.
"""

from __future__ import annotations

import base64

import numpy as np
import pandas as pd

from ... import explain
from ...core import routing
from ...core.format import (
    format_number,
    format_rule,
    format_set,
    format_threshold,
    split_rule,
)
from ...core.tree import as_float32_matrix
from ...utils import check_is_fitted, encode_categories

__all__ = ["build", "MAX_X_VALUES", "SMALL_TREE_NODES", "SPLIT_TABLE_COST"]

MAX_X_VALUES = 300_000  # feature values sent for the rows, at most
SMALL_TREE_NODES = 31  # candidate splits are sent for trees of at most this many nodes (depth 4)
SPLIT_TABLE_COST = 2_000_000  # training rows × candidate tables, at most (each one rescans)


def _floats(a, digits=9):
    """A float array as a JSON list: ``digits`` significant digits, NaN as null."""
    a = np.asarray(a, dtype=np.float64).ravel()
    return [None if np.isnan(v) else float(f"{v:.{digits}g}") for v in a.tolist()]


def _packed(ids, n_nodes):
    """Node ids as base64 of little-endian uint8 (uint16 for big trees): what the page
    unpacks into a typed array; far smaller and faster to read than a JSON list."""
    dtype = "<u1" if n_nodes <= 256 else "<u2" if n_nodes <= 65536 else "<u4"
    raw = np.asarray(ids).astype(dtype).tobytes()
    return {"bytes": np.dtype(dtype).itemsize, "b64": base64.b64encode(raw).decode("ascii")}


def _ints(a):
    return np.asarray(a, dtype=np.int64).ravel().tolist()


class _WithoutTrace:
    """The model as ``explain`` sees one made from trees: the split's G_L, H_L, G_R, H_R are
    read off its children instead of rescanning the node (the same numbers for XGBoost-style
    trees, in a fraction of the time)."""

    trace_ = None

    def __init__(self, model):
        self._model = model

    def __getattr__(self, name):
        return getattr(self._model, name)


def _unwrap(obj, X, y):
    """(model, X, y, extras) from a fitted model or a walkthrough."""
    if hasattr(obj, "rounds") and hasattr(obj, "model") and hasattr(obj, "data"):
        w = obj
        if X is not None or y is not None:
            raise ValueError("a walkthrough brings its own data: call explore(walkthrough)")
        data = w.data.drop(columns=w.target)
        extras = {
            "start": w.start,
            "notes": list(w.notes),
            "title": f"Walkthrough: GBDT {'classifier' if w.classifier else 'regressor'} of "
            f"{w.target!s}, {len(w.data)} rows",
        }
        return w.model, data, w.data[w.target], extras
    if not hasattr(type(obj), "trace_") or not hasattr(obj, "get_params"):  # not our estimator
        raise TypeError(
            f"explore needs a fitted BoostingClassifier / BoostingRegressor or a walkthrough; "
            f"got {type(obj).__name__}"
        )
    check_is_fitted(obj)
    return obj, X, y, {}


def _feature_matrix(model, X):
    names = getattr(model, "feature_names_in_", None)
    if isinstance(X, pd.DataFrame) and names is not None:
        missing = [c for c in names if c not in X.columns]
        if missing:
            raise ValueError(f"X lacks the model's feature columns {missing}")
        X = X[list(names)]
    X = encode_categories(X, model.model_.categories)  # category columns as the trees' codes
    # in the precision the model's trees compare (float64 for LightGBM, HistGradientBoosting)
    return as_float32_matrix(X, model.n_features_in_, dtype=routing.input_dtype(model.trees_))


def _same_data(a, b):
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _y_codes(model, y, n):
    """y as the page uses it: a class index for a classifier, the value for a regressor."""
    y = np.asarray(y).ravel()
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)}; they must match")
    if not model.model_.is_classifier:
        return y.astype(np.float64)
    classes = list(model.classes_)
    lookup = {c: i for i, c in enumerate(classes)}
    codes = [lookup.get(v.item() if hasattr(v, "item") else v) for v in y]
    unknown = sorted({str(v) for v, c in zip(y, codes) if c is None})
    if unknown:
        raise ValueError(f"y has labels the model does not know: {unknown[:5]}; its classes are "
                         f"{[str(c) for c in classes]}")  # fmt: skip
    return np.asarray(codes, dtype=np.int64)


def _tree_label(i, t, k):
    """How every screen names tree i (0-based): as ``tg.explain`` does, by its number in
    XGBoost's order, with its round and class index when there are several per round."""
    if k is None:
        return f"Tree {i + 1}"
    return f"Tree {i + 1} (round {t}, class {k})"


def _tree_dict(model, i, tree, prox, reported):
    """Tree i (0-based) with its node arrays, rules and explanation texts. ``reported``:
    None when the formula's loss_chg is what XGBoost reports, else where it comes from."""
    leaf = tree.is_leaf
    nodes = range(tree.n_nodes)
    t, k = tree.round, tree.class_  # the round and class the model stamped on its tree
    leaf_text = [str(explain.leaf(model, t, j, class_=k)) for j in nodes]
    split_text = []
    for j in nodes:
        if leaf[j]:
            split_text.append(None)
            continue
        try:
            split_text.append(_reported(str(explain.split(prox, t, j, class_=k)), reported))
        except ValueError as e:  # a GBDT split without the residual sums it was chosen by
            split_text.append(f"{split_rule(tree, j)}: {e}")
    return {
        "round": int(t),
        "class": None if k is None else int(k),
        "label": _tree_label(i, int(t), None if k is None else int(k)),
        "left": _ints(tree.left),
        "right": _ints(tree.right),
        "parent": _ints(tree.parent),
        "depth": _ints(tree.depth),
        "feature": _ints(tree.feature),
        # one text per rule on every screen (box, panel, path): the threshold to 6
        # significant digits for reading; the exact rule (as the trees compare) on hover
        "rule": [None if leaf[j] else _reading_rule(tree, j) for j in nodes],
        "exact_rule": [None if leaf[j] else split_rule(tree, j, full=True) for j in nodes],
        "threshold": _floats(np.where(leaf, np.nan, tree.threshold)),
        "op": routing.rule_of(tree.rule).op,  # "<" (XGBoost) or "≤" (LightGBM, scikit-learn)
        # set splits: node -> the category codes that go left (x ∈ S)
        "sets": {str(i): _ints(c) for i, c in tree.sets.items()},
        "default_left": [bool(v) for v in tree.default_left],
        "n": _ints(tree.n),
        "G": _floats(tree.G),
        "H": _floats(tree.H),
        "weight": _floats(tree.weight),
        "value": _floats(tree.value),
        "gain": _floats(np.where(leaf, np.nan, tree.gain)),
        "loss_chg": _floats(np.where(leaf, np.nan, tree.loss_chg)),
        "leaf_text": leaf_text,
        "split_text": split_text,
        "splits": {},
    }


def _reading_rule(tree, j):
    if j in tree.sets:  # a set split: long sets shortened (whole in exact_rule)
        return split_rule(tree, j)
    t = float(tree.threshold[j])
    return format_rule(tree.feature_name(int(tree.feature[j])), float(f"{t:.6g}"), tree.rule)


_REPORTS = "XGBoost reports loss_chg"


def _reported(text, reported):
    """``tg.explain``'s split text, saying "XGBoost reports" only of a number XGBoost
    reported: a GBDT model's loss_chg, or one recomputed with an assumed λ, is not;
    ``reported`` then says where it comes from."""
    if reported is None or _REPORTS not in text:
        return text
    return text.replace(_REPORTS, f"loss_chg ({reported})")


def _counts_from_rows(tree, leaf_ids):
    """n of every node, counted from the rows given (for trees whose file has no counts)."""
    n = np.bincount(np.asarray(leaf_ids, dtype=np.int64), minlength=tree.n_nodes)
    for j in np.argsort(-np.asarray(tree.depth), kind="stable"):
        if tree.parent[j] >= 0:
            n[tree.parent[j]] += n[j]
    return n


def _split_table(trace, t, node, class_, split_rows):
    table = trace.splits(t, node, class_=class_)
    total = len(table)
    if total == 0:
        return {"total": 0, "rows": []}
    order = table.sort_values("gain", ascending=False, kind="stable")
    keep = order.head(split_rows)
    chosen = order[order["chosen"]]
    if len(chosen) and chosen.index[0] not in keep.index:
        keep = pd.concat([keep, chosen.head(1)])
    rows = []
    for _, r in keep.iterrows():
        cut = r.get("categories")  # a set candidate: its set in place of a threshold
        rows.append(
            [
                str(r["feature"]),
                format_set(cut) if cut is not None else format_threshold(r["threshold"]),
                bool(r["default_left"]),
                *_floats([r["G_L"], r["H_L"], r["G_R"], r["H_R"], r["gain"]]),
                bool(r["chosen"]),
            ]
        )
    return {"total": total, "rows": rows}


def build(obj, X=None, y=None, *, title=None, table_rows=500, max_split_tables=400, split_rows=20):
    """The page's data for a fitted model or a walkthrough (see ``teachgbt.show.explorer``)."""
    model, X, y, extras = _unwrap(obj, X, y)
    fitted = model.model_
    trace = fitted.trace
    loss = fitted.loss
    K = fitted.n_outputs
    trees = fitted.trees
    T = fitted.n_rounds
    clf = fitted.is_classifier
    algorithm = fitted.algorithm
    notes = list(extras.get("notes", []))
    limits = []
    unknown_n = any((np.asarray(tree.n) < 0).any() for tree in trees)

    # the rows: the training data (with the trace's tables), or the X given
    index = None
    if X is not None:
        X32 = _feature_matrix(model, X)
        if isinstance(X, (pd.DataFrame, pd.Series)):
            index = [str(v) for v in X.index]
    use_trace = trace is not None and (X is None or _same_data(X32, trace.X))
    if use_trace:
        X32 = trace.X
        codes = np.asarray(trace.y)
        codes = codes.astype(np.int64) if clf else codes.astype(np.float64)
    elif X is not None:
        codes = _y_codes(model, y, len(X32)) if y is not None else None
        if trace is not None:
            notes.append(
                "These rows are not the training data, so the trace's g and h are not shown: "
                "paths, margins and probabilities are."
            )
    else:
        X32, codes = None, None
    if unknown_n:
        notes.append(
            f"The model file stores no row counts: n is counted from the {len(X32)} rows given."
            if X32 is not None
            else "The model file stores no row counts (n is shown as —): give explore(model, X) "
            "rows to count them."
        )
    if trace is None:
        notes.append(
            "This model was made from trees (tg.load, from_trees), not trained here: it has no "
            "training trace, so there are no g/h tables and no candidate splits. "
            + (
                "The trees, and the paths and margins of the rows given, are shown."
                if X32 is not None
                else "Give explore(model, X) rows to see their paths and margins."
            )
        )

    prox = model if (algorithm == "gbdt" and trace is not None and K == 1) else _WithoutTrace(model)
    if prox is model and sum(t.n_nodes for t in trees) > 2 * SMALL_TREE_NODES * 20:
        prox = _WithoutTrace(model)  # rescanning every node of a large GBDT would take minutes
    # what an import assumed (a λ not in the file, ...) is said on the page, not only on stderr
    assumed = [str(s) for s in getattr(model, "import_notes_", None) or []]
    reported = None  # the formula's loss_chg is what XGBoost reports for the split
    if algorithm == "gbdt":
        reported = "XGBoost's measure, computed here"
    elif any("assum" in s for s in assumed):
        reported = "computed here with the assumed parameters; the file's is in the table"
    tree_dicts = [_tree_dict(model, i, tree, prox, reported) for i, tree in enumerate(trees)]

    rows = None
    if X32 is not None:
        n = len(X32)
        leaves = []
        for i, tree in enumerate(trees):
            ids = trace.leaf(tree.round, class_=tree.class_) if use_trace else tree.apply(X32)
            leaves.append(_packed(ids, tree.n_nodes))
            if (np.asarray(tree.n) < 0).any():
                tree_dicts[i]["n"] = _ints(_counts_from_rows(tree, ids))
        rows = {
            "n": n,
            "index": index if index is not None else [str(i) for i in range(n)],
            "y": None if codes is None else (_ints(codes) if clf else _floats(codes)),
            "leaf": leaves,
            "X": None,
            "g": None,
            "h": None,
            "table_rows": n,
        }
        if n * X32.shape[1] <= MAX_X_VALUES:
            rows["X"] = [_floats(X32[:, j]) for j in range(X32.shape[1])]
        else:
            limits.append(
                f"Feature values are not included ({n} rows × {X32.shape[1]} features); "
                "paths are still shown."
            )
        if use_trace:
            m = min(n, int(table_rows))
            rows["table_rows"] = m
            g = [[None] * T for _ in range(K)]
            h = [[None] * T for _ in range(K)]
            for t in range(1, T + 1):
                for k in range(K):
                    inst = trace.instances(t, class_=k if K > 1 else None)
                    g[k][t - 1] = _floats(inst["g"].to_numpy()[:m], 7)
                    h[k][t - 1] = _floats(inst["h"].to_numpy()[:m], 7)
            rows["g"], rows["h"] = g, h
            if m < n:
                limits.append(
                    f"The tables list the first {m} of {n} rows (explore(..., table_rows=N) for "
                    "more); pick any row by its number to see its path and margin."
                )
        elif n > table_rows:
            rows["table_rows"] = int(table_rows)
            limits.append(f"The tables list the first {table_rows} of {n} rows.")

    # candidate splits: small trees only, a bounded number of rescans
    if trace is not None and use_trace:
        budget = min(int(max_split_tables), SPLIT_TABLE_COST // max(len(X32), 1))
        done = 0
        for i, tree in enumerate(trees):
            if tree.n_nodes > SMALL_TREE_NODES or done >= budget:
                continue
            for j in range(tree.n_nodes):
                if done >= budget:
                    break
                tab = _split_table(trace, tree.round, j, tree.class_, split_rows)
                tree_dicts[i]["splits"][str(j)] = tab
                done += 1
        big = sum(t.n_nodes > SMALL_TREE_NODES for t in trees)
        if big or done >= budget:
            limits.append(
                f"Candidate splits are included for trees of at most {SMALL_TREE_NODES} nodes, "
                f"{done} tables in all, each with its {split_rows} best candidates; for any "
                "other node ask Python: model.trace_.splits(t, node)."
            )

    params = _effective_params(model, trees)
    base_margin = np.atleast_1d(np.asarray(fitted.base_margin, dtype=np.float64))
    return {
        "version": 1,
        "title": title or extras.get("title") or _default_title(model, clf, K, T),
        "classifier": clf,
        "algorithm": algorithm,
        "objective": getattr(loss, "name", ""),
        "classes": [str(c) for c in model.classes_] if clf else None,
        "K": K,
        "rounds": T,
        "features": fitted.names,
        # the categorical features' categories: a row's code c shown as categories[c]
        "categories": {str(j): [str(v) for v in names] for j, names in fitted.categories.items()},
        "params": params,
        "assumed": assumed,
        # an import's loss_chg is the number its file stores
        "loss_chg_from_file": getattr(model, "import_notes_", None) is not None,
        "base_score": _floats(np.atleast_1d(np.asarray(model.base_score_, dtype=float))),
        "base_margin": _floats(base_margin, 17),
        "float32": algorithm != "gbdt",
        "has_trace": trace is not None,
        "trace_rows": use_trace,
        "start": _start_text(model, clf, K, base_margin, extras.get("start")),
        "notes": notes,
        "limits": limits,
        "trees": tree_dicts,
        "rows": rows,
    }


_SHOWN = ("learning_rate", "max_depth", "max_leaves", "reg_lambda", "reg_alpha", "gamma",
          "min_child_weight", "max_delta_step", "subsample", "colsample_bytree",
          "tree_method")  # fmt: skip


def _effective_params(model, trees):
    """The parameters the trees were grown with: ``params_`` (what None resolved to), else
    the estimator's; a max_depth of 0 (unlimited, or unknown for an import) is the depth of
    the deepest tree; nothing unknown is listed."""
    given = model.get_params()
    grown = getattr(model, "params_", None)
    out = {}
    for k in _SHOWN:
        v = getattr(grown, k, None) if grown is not None else None
        if v is None:
            v = given.get(k)
        if k == "max_depth" and not v and trees:
            out[k] = f"{max(int(t.max_depth) for t in trees)} (the deepest tree)"
            continue
        if k == "max_leaves" and not v:
            continue
        if v is not None:
            out[k] = _param(v)
    return out


def _param(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer, float, np.floating)):
        return format_number(v, 6)
    return None if v is None else str(v)


def _default_title(model, clf, K, T):
    kind = "classifier" if clf else "regressor"
    if K > 1:
        kind += f" of {K} classes"
    trees = f"{T} round{'s' * (T != 1)}" + (f" of {K} trees" if K > 1 else "")
    return f"{type(model).__name__}: {kind}, {trees}"


def _start_text(model, clf, K, base_margin, start):
    """Round 0: where every margin starts, as lines of text."""
    f = format_number
    base = np.atleast_1d(np.asarray(model.base_score_, dtype=float))
    lines = []
    if start is not None:  # the walkthrough's Step 1 table
        for _, r in start.iterrows():
            lines.append(f"{r['quantity']} = {f(r['value'], 6)}   ({r['formula']})")
    if K > 1:
        classes = [str(c) for c in model.classes_]
        lines.append("Every row starts at the same K margins (log-odds of each class):")
        lines.extend(f"  margin₀[{c}] = {f(m, 6)}" for c, m in zip(classes, base_margin))
        lines.append("p = softmax(margin₀)")
    elif clf:
        b = float(base[0])
        lines.append(
            f"margin₀ = logit(base_score) = log({f(b, 6)} / (1 − {f(b, 6)})) = "
            f"{f(base_margin[0], 6)}"
        )
        lines.append(f"p₀ = σ(margin₀) = {f(b, 6)} for every row")
    else:
        lines.append(f"margin₀ = base_score = {f(base_margin[0], 6)} for every row")
    return lines
