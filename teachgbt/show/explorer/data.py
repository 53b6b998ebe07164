"""What the explorer page shows, as one JSON-ready dict.

The page computes nothing it could get wrong: every number with a formula behind it
comes from here — the trees' n, G, H, w*, gain and loss_chg, the formula text of
``tg.explain``, the trace's g and h, the candidate splits of ``trace_.splits``, and every
row's margin after each round (``Model.running_margins``, in the model's own precision).
The page only applies the link (σ or softmax) to show a probability, and counts the
rows it draws in a node's chart.

Sizes are kept classroom-sized: every row's leaf in every tree is sent (so any row's
path can be shown), but g and h only for the first ``table_rows`` rows, running margins
while rows × (rounds + 1) × K ≤ ``MAX_MARGIN_VALUES``, feature values only while
rows × features ≤ ``MAX_X_VALUES``, and candidate-split tables only for small trees, at
most ``max_split_tables`` of them, each cut to the ``split_rows`` best candidates plus
the chosen one. The same limits hold in Jupyter and in a saved file.
"""

from __future__ import annotations

import base64
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ... import explain
from ...core import routing
from ...core.format import (
    exact_threshold,
    format_number,
    format_set,
    format_threshold,
    split_rule,
)
from ...core.losses import LINKS
from ...utils import check_is_fitted

__all__ = [
    "build",
    "MAX_X_VALUES",
    "MAX_MARGIN_VALUES",
    "SMALL_TREE_NODES",
    "SPLIT_TABLE_COST",
    "DIGITS",
]

MAX_X_VALUES = 300_000  # feature values sent for the rows, at most
MAX_MARGIN_VALUES = 300_000  # running margins sent (rows × (rounds + 1) × K), at most
SMALL_TREE_NODES = 31  # candidate splits are sent for trees of at most this many nodes (depth 4)
SPLIT_TABLE_COST = 2_000_000  # training rows × candidate tables, at most (each one rescans)
# one precision per quantity, so that one number under one name reads the same in a box,
# the Node tab, the tables, the formulas and round 0: a tree's numbers (n, G, H, w*, η·w*,
# gain, loss_chg) as tg.explain and the diagrams print them (3 decimals), a row's (g, h,
# margin, probability, prediction, residual) to 4; a hover shows more. Parameters (η, λ)
# read as given, to 6 decimals.
DIGITS = {"tree": 3, "row": 4}


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


def _packed_floats(a):
    """Floats as base64 of little-endian float32 when every one of them is a float32 (margins
    summed in float32, as XGBoost's), else float64: every bit of the model's own numbers."""
    a = np.asarray(a, dtype=np.float64)
    narrow = np.array_equal(a.astype(np.float32).astype(np.float64), a, equal_nan=True)
    dtype = "<f4" if narrow else "<f8"
    raw = np.ascontiguousarray(a, dtype=dtype).tobytes()
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
    if hasattr(obj, "to_local") and hasattr(obj, "training_rows"):
        return _local_twin(obj, X, y)
    return obj, X, y, {}


def _local_twin(obj, X, y):
    """A model trained on a Dask cluster, explored as its local twin (``to_local()``: the same
    trees) with the rows given, or with its training rows gathered from the workers when they
    are few (rows × features ≤ ``MAX_X_VALUES``)."""
    local = obj.to_local()
    if X is None:
        if y is not None:
            raise ValueError("explore(model, X, y): y was given without X")
        try:
            X, y = obj.training_rows(MAX_X_VALUES)
        except ValueError as e:
            raise ValueError(
                f"explore(model) of a model trained on a Dask cluster: {e}; give "
                "explore(model, X, y) a sample of them"
            ) from None
        how = "its training rows, gathered from the workers"
    else:
        how = "the rows given"
    note = (
        f"Trained on a Dask cluster: explored as its local twin (model.to_local(), the same "
        f"trees) with {how}. The trace's g and h stay on the workers "
        "(model.trace_.instances(t) computes them there)."
    )
    fitted = obj.model_
    title = _default_title(obj, fitted.is_classifier, fitted.n_outputs, fitted.n_rounds)
    return local, X, y, {"notes": [note], "twin": True, "title": title}


def _feature_matrix(model, X):
    names = getattr(model, "feature_names_in_", None)
    if isinstance(X, pd.DataFrame) and names is not None:
        missing = [c for c in names if c not in X.columns]
        if missing:
            raise ValueError(f"X lacks the model's feature columns {missing}")
        X = X[list(names)]
    # validated as the model validates X: category columns as the trees' codes, in the
    # precision its trees compare (float64 for LightGBM, HistGradientBoosting)
    return model.model_.check_X(X, owner=type(model).__name__)[0]


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


def _class_names(model, class_names):
    """How the page names each class: ``class_names`` in the order of ``classes_``, else the
    labels themselves (strings such as "benign" stay as they are)."""
    if not model.model_.is_classifier:
        if class_names is not None:
            raise ValueError("class_names= is for a classifier; this model is a regressor")
        return None
    labels = [str(c) for c in model.classes_]
    if class_names is None:
        return labels
    names = [str(c) for c in class_names]
    if len(names) != len(labels):
        raise ValueError(
            f"class_names has {len(names)} names but the model has {len(labels)} classes "
            f"{labels} (name them in the order of classes_)"
        )
    return names


def _rows_given(model, X, y):
    """The rows the page follows: the training rows (with the trace's tables) when X is
    None or is the training data, else the X (and y) given. ``X32`` is None without rows."""
    trace = model.model_.trace
    clf = model.model_.is_classifier
    out = SimpleNamespace(X32=None, codes=None, index=None, use_trace=False, notes=[])
    if X is not None:
        out.X32 = _feature_matrix(model, X)
        if isinstance(X, (pd.DataFrame, pd.Series)):
            out.index = [str(v) for v in X.index]
    out.use_trace = trace is not None and (X is None or _same_data(out.X32, trace.X))
    if out.use_trace:
        out.X32 = trace.X
        out.codes = np.asarray(trace.y).astype(np.int64 if clf else np.float64)
    elif X is not None:
        out.codes = _y_codes(model, y, len(out.X32)) if y is not None else None
        if trace is not None:
            out.notes.append(
                "These rows are not the training data, so the trace's g and h are not shown: "
                "paths, margins and probabilities are."
            )
    return out


def _leaf_ids(model, given):
    """Every row's leaf in every tree (the trace's own for the training rows)."""
    trace = model.model_.trace
    if given.use_trace:
        return [trace.leaf(t.round, class_=t.class_) for t in model.model_.trees]
    return [t.apply(given.X32) for t in model.model_.trees]


def _model_notes(model, given, unknown_n, twin=False):
    """What the page says about where its numbers come from (``twin``: a Dask model's local
    twin, whose own note says where its trace is)."""
    notes = []
    if unknown_n:
        notes.append(
            f"The model file stores no row counts: n is counted from the {len(given.X32)} "
            "rows given."
            if given.X32 is not None
            else "The model file stores no row counts (n is shown as —): give "
            "explore(model, X) rows to count them."
        )
    if model.model_.trace is None and not twin:
        notes.append(
            "This model was made from trees (tg.load, from_trees), not trained here: it has no "
            "training trace, so there are no g/h tables and no candidate splits. "
            + (
                "The trees, and the paths and margins of the rows given, are shown."
                if given.X32 is not None
                else "Give explore(model, X) rows to see their paths and margins."
            )
        )
    return notes


def _counts(trees, leaves):
    """n of every node of the trees whose file stores none, counted from the rows given:
    {tree index: counts}; empty when every tree has its counts (or there are no rows)."""
    if leaves is None:
        return {}
    out = {}
    for i, tree in enumerate(trees):
        if (np.asarray(tree.n) < 0).any():
            out[i] = _counts_from_rows(tree, leaves[i])
    return out


def _tree_label(i, t, k):
    """How every screen names tree i (0-based): as ``tg.explain`` does, by its number in
    XGBoost's order, with its round and class index when there are several per round."""
    if k is None:
        return f"Tree {i + 1}"
    return f"Tree {i + 1} (round {t}, class {k})"


def _tree_dict(model, i, tree, prox, reported, counts=None):
    """Tree i (0-based) with its node arrays, rules and explanation texts. ``reported``:
    None when the formula's loss_chg is what XGBoost reports, else where it comes from.
    ``counts``: n of every node counted from the rows given, for a tree whose file has none."""
    leaf = tree.is_leaf
    nodes = range(tree.n_nodes)
    t, k = tree.round, tree.class_  # the round and class the model stamped on its tree
    n = np.asarray(tree.n) if counts is None else np.asarray(counts)
    leaf_text = [
        _with_count(str(explain.leaf(model, t, j, DIGITS["tree"], class_=k)), n[j]) for j in nodes
    ]
    split_text = []
    for j in nodes:
        if leaf[j]:
            split_text.append(None)
            continue
        try:
            # a set split's sorted categories need its rows' g and h: the trace's own
            who = model if j in tree.sets and model.model_.trace is not None else prox
            text = str(explain.split(who, t, j, DIGITS["tree"], class_=k))
            split_text.append(_said_reported(text, reported))
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
        # one text per rule on every screen (box, panel, path, diagram, explain): the
        # shortest decimal that reads back as the tree's threshold, a set shortened; on
        # hover the whole set, or the threshold as stored
        "rule": [None if leaf[j] else split_rule(tree, j) for j in nodes],
        "exact_rule": [None if leaf[j] else split_rule(tree, j, full=True) for j in nodes],
        "thr_text": [
            None if leaf[j] or j in tree.sets else format_threshold(tree.threshold[j], tree.rule)
            for j in nodes
        ],
        "exact": [
            None if leaf[j] or j in tree.sets else exact_threshold(tree.threshold[j], tree.rule)
            for j in nodes
        ],
        "threshold": _floats(np.where(leaf, np.nan, tree.threshold), 17),
        "op": routing.rule_of(tree.rule).op,  # "<" (XGBoost) or "≤" (LightGBM, scikit-learn)
        "float32": routing.rule_of(tree.rule).op == "<",  # thresholds read in float32
        # set splits: node -> the category codes that go left (x ∈ S)
        "sets": {str(i): _ints(c) for i, c in tree.sets.items()},
        "default_left": [bool(v) for v in tree.default_left],
        "n": _ints(n),
        "G": _floats(tree.G),
        "H": _floats(tree.H),
        "weight": _floats(tree.weight),
        # a refreshed leaf (quantile, absolute error): weight is the quantile q the model
        # uses, this the Newton step −G/(H+λ) the tree was grown with
        "newton": _floats(tree.extra["newton_weight"]) if "newton_weight" in tree.extra else None,
        "value": _floats(tree.value),
        "learning_rate": float(tree.learning_rate),
        "gain": _floats(np.where(leaf, np.nan, tree.gain)),
        "loss_chg": _floats(np.where(leaf, np.nan, tree.loss_chg)),
        "leaf_text": leaf_text,
        "split_text": split_text,
        "splits": {},
    }


_NO_COUNT = "n unknown (not stored)"


def _with_count(text, n):
    """``tg.explain``'s text of a tree whose file stores no counts, with the count of the
    rows given in place of "unknown"."""
    if n < 0 or _NO_COUNT not in text:
        return text
    n = int(n)
    rows = f"n = {n} row{'s' * (n != 1)} (counted from the rows given)"
    return text.replace(_NO_COUNT, rows)


_REPORTS = "XGBoost reports loss_chg"


def _said_reported(text, reported):
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


def _split_table(trace, tree, node, split_rows):
    table = trace.splits(tree.round, node, class_=tree.class_)
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
                format_set(cut) if cut is not None else format_threshold(r["threshold"], tree.rule),
                bool(r["default_left"]),
                *_floats([r["G_L"], r["H_L"], r["G_R"], r["H_R"], r["gain"]]),
                bool(r["chosen"]),
            ]
        )
    return {"total": total, "rows": rows}


def build(obj, X=None, y=None, *, title=None, class_names=None, table_rows=500,
          max_split_tables=400, split_rows=20):  # fmt: skip
    """The page's data for a fitted model or a walkthrough (see ``teachgbt.show.explorer``)."""
    model, X, y, extras = _unwrap(obj, X, y)
    fitted = model.model_
    names = _class_names(model, class_names)
    given = _rows_given(model, X, y)
    leaves = _leaf_ids(model, given) if given.X32 is not None else None
    unknown_n = any((np.asarray(t.n) < 0).any() for t in fitted.trees)
    counts = _counts(fitted.trees, leaves)
    notes = (
        list(extras.get("notes", []))
        + given.notes
        + _model_notes(model, given, unknown_n, extras.get("twin", False))
    )
    assumed = [str(s) for s in getattr(model, "import_notes_", None) or []]
    if counts:  # the counts are known now: the import's "n is unknown" no longer holds
        assumed = [s for s in assumed if "row counts" not in s]
    trees = _trees(model, counts, _reported(model, assumed))
    limits = []
    rows = None
    if leaves is not None:
        rows = _rows(model, given, leaves, int(table_rows), limits)
    if given.use_trace:
        _add_split_tables(model, trees, len(given.X32), max_split_tables, split_rows, limits)
    clf, K, T = fitted.is_classifier, fitted.n_outputs, fitted.n_rounds
    base_margin = np.atleast_1d(np.asarray(fitted.base_margin, dtype=np.float64))
    return {
        "version": 2,
        "title": title or extras.get("title") or _default_title(model, clf, K, T),
        "classifier": clf,
        "digits": DIGITS,
        "prob_link": _prob_link(fitted),
        "pred_link": _pred_link(fitted),
        "algorithm": fitted.algorithm,
        "objective": getattr(fitted.loss, "name", ""),
        "objective_text": _objective_text(fitted),
        "classes": names,
        "K": K,
        "rounds": T,
        "features": fitted.names,
        # the categorical features' categories: a row's code c shown as categories[c]
        "categories": {str(j): [str(v) for v in names] for j, names in fitted.categories.items()},
        "params": _effective_params(model, fitted.trees),
        "assumed": assumed,
        # an import's loss_chg is the number its file stores
        "loss_chg_from_file": getattr(model, "import_notes_", None) is not None,
        "base_score": _floats(np.atleast_1d(np.asarray(model.base_score_, dtype=float))),
        "base_margin": _floats(base_margin, 17),
        "has_trace": fitted.trace is not None,
        "trace_rows": given.use_trace,
        "start": _start_text(model, fitted, base_margin, extras.get("start"), names),
        "notes": notes,
        "limits": limits,
        "trees": trees,
        "rows": rows,
    }


# how the page turns a margin into a probability, as trace_.epochs() does
# (Loss.probability): σ of the log-odds (binary:logitraw's too: its predict only omits σ),
# σ(2·margin) for scikit-learn's exponential loss, softmax for K classes, K sigmoids for
# LightGBM's multiclassova, the margin itself for a forest's class fractions
_PROB_LINKS = {"logit": "sigmoid", "logitraw": "sigmoid", "half logit": "sigmoid2",
               "softmax": "softmax", "sigmoid per class": "sigmoid_each",
               "mean of trees": "identity"}  # fmt: skip
# and a prediction that is not the margin where a margin means no probability: e^margin
# (log link), the class (binary:hinge), log(1 + e^margin) (LightGBM's cross_entropy_lambda)
_PRED_LINKS = {"log": "exp", "hinge": "class", "softplus": "softplus"}


def _prob_link(fitted):
    return _PROB_LINKS[fitted.loss.link] if fitted.loss.has_probability else None


def _pred_link(fitted):
    return None if fitted.loss.has_probability else _PRED_LINKS.get(fitted.loss.link)


def _refreshed(fitted):
    return any("newton_weight" in t.extra for t in fitted.trees)


def _objective_text(fitted):
    """The objective and its link in one line, for round 0 and the About tab:
    "count:poisson — a leaf adds to the log of the mean: …; prediction = e^margin"."""
    loss = fitted.loss
    link = LINKS[loss.link]
    text = f"{loss.title} — a leaf adds to {link.leaf}; {link.formula}"
    if _refreshed(fitted):
        text += "; leaves are refreshed quantiles q, not −G/(H+λ): both shown, the model uses q"
    return text


def _reported(model, assumed):
    """None when a split formula's loss_chg is what XGBoost reports, else where it is from."""
    if model.model_.algorithm == "gbdt":
        return "XGBoost's measure, computed here"
    if any("assum" in s for s in assumed):
        return "computed here with the assumed parameters; the file's is in the table"
    return None


def _trees(model, counts, reported):
    """Every tree as the page draws it, with ``tg.explain``'s texts."""
    fitted = model.model_
    trees = fitted.trees
    gbdt_rescan = fitted.algorithm == "gbdt" and fitted.trace is not None and fitted.n_outputs == 1
    # rescanning every node of a large GBDT would take minutes: read sums off the children
    if sum(t.n_nodes for t in trees) > 2 * SMALL_TREE_NODES * 20:
        gbdt_rescan = False
    prox = model if gbdt_rescan else _WithoutTrace(model)
    return [
        _tree_dict(model, i, tree, prox, reported, counts.get(i)) for i, tree in enumerate(trees)
    ]


def _rows(model, given, leaves, table_rows, limits):
    """The rows: their leaves in every tree, y, feature values, running margins, g and h."""
    fitted = model.model_
    X32, n, clf = given.X32, len(given.X32), fitted.is_classifier
    codes = given.codes
    rows = {
        "n": n,
        "index": given.index if given.index is not None else [str(i) for i in range(n)],
        "y": None if codes is None else (_ints(codes) if clf else _floats(codes)),
        "leaf": [_packed(ids, t.n_nodes) for ids, t in zip(leaves, fitted.trees)],
        "X": None,
        # a float32 X reads back from 9 digits; a float64 one (LightGBM) needs 17
        "x_float32": X32.dtype == np.float32,
        "g": None,
        "h": None,
        "table_rows": min(n, table_rows),
    }
    if n * X32.shape[1] <= MAX_X_VALUES:
        digits = 9 if rows["x_float32"] else 17
        rows["X"] = [_floats(X32[:, j], digits) for j in range(X32.shape[1])]
    else:
        limits.append(
            f"Feature values are not included ({n} rows × {X32.shape[1]} features); "
            "paths are still shown, the charts in the nodes are not."
        )
    rows.update(_running_margins(fitted, X32, limits))
    if given.use_trace:
        _add_gradients(fitted.trace, rows, fitted.n_rounds, fitted.n_outputs)
    if rows["table_rows"] < n:
        more = " (explore(..., table_rows=N) for more)" if given.use_trace else ""
        limits.append(
            f"The tables list the first {rows['table_rows']} of {n} rows{more}; pick any row "
            "by its number to see its path."
        )
    return rows


def _running_margins(fitted, X32, limits):
    """Each row's margins after rounds 0..T, packed (rows, T + 1, K), for as many rows as
    ``MAX_MARGIN_VALUES`` allows: ``Model.running_margins``, round by round in the model's
    own precision and order, so the page adds nothing up itself."""
    T, K, n = fitted.n_rounds, fitted.n_outputs, len(X32)
    m = min(n, MAX_MARGIN_VALUES // ((T + 1) * K))
    out = np.empty((m, T + 1, K))
    for t, margins in fitted.running_margins(X32[:m], (0, T)):
        out[:, t, :] = np.asarray(margins, dtype=np.float64).reshape(m, K)
    if m < n:
        limits.append(
            f"Running margins are included for the first {m} of {n} rows; for any other, "
            "ask Python: model.model_.margins_after(X, t)."
        )
    return {"margins": _packed_floats(out), "margin_rows": m}


def _add_gradients(trace, rows, T, K):
    """g and h each tree was grown from, for the rows the tables list."""
    m = rows["table_rows"]
    g = [[None] * T for _ in range(K)]
    h = [[None] * T for _ in range(K)]
    for t in range(1, T + 1):
        for k in range(K):
            inst = trace.instances(t, class_=k if K > 1 else None)
            g[k][t - 1] = _floats(inst["g"].to_numpy()[:m], 7)
            h[k][t - 1] = _floats(inst["h"].to_numpy()[:m], 7)
    rows["g"], rows["h"] = g, h


def _add_split_tables(model, trees, n_rows, max_split_tables, split_rows, limits):
    """Candidate splits: small trees only, a bounded number of rescans."""
    fitted = model.model_
    budget = min(int(max_split_tables), SPLIT_TABLE_COST // max(n_rows, 1))
    done = 0
    for i, tree in enumerate(fitted.trees):
        if tree.n_nodes > SMALL_TREE_NODES:
            continue
        for j in range(tree.n_nodes):
            if done >= budget:
                break
            trees[i]["splits"][str(j)] = _split_table(fitted.trace, tree, j, split_rows)
            done += 1
    big = sum(t.n_nodes > SMALL_TREE_NODES for t in fitted.trees)
    if big or done >= budget:
        limits.append(
            f"Candidate splits are included for trees of at most {SMALL_TREE_NODES} nodes, "
            f"{done} tables in all, each with its {split_rows} best candidates; for any "
            "other node ask Python: model.trace_.splits(t, node)."
        )


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


# how base_score became the start margin, by the objective's link
_INVERSE = {"log": "log", "half logit": "½·logit", "softplus": "log(e^x − 1) of"}


def _start_text(model, fitted, base_margin, start, names):
    """Round 0: the objective and its link, then where every margin starts, as lines of text
    (the page wraps them); margins and probabilities to a row's decimals, as the tables."""
    f = format_number
    D = DIGITS["row"]
    link, K = fitted.loss.link, fitted.n_outputs
    b = float(np.atleast_1d(np.asarray(model.base_score_, dtype=float))[0])
    m = float(base_margin[0])
    lines = [_objective_text(fitted)]
    if start is not None:  # the walkthrough's Step 1 table
        for _, r in start.iterrows():
            lines.append(f"{r['quantity']} = {f(r['value'], D)}   ({r['formula']})")
    if K > 1:
        lines.append("Every row starts at the same K margins:")
        lines.extend(f"  margin₀[{c}] = {f(v, D)}" for c, v in zip(names, base_margin))
    elif link == "logit":
        bd = f(b, D)
        lines.append(f"margin₀ = logit(base_score) = log({bd} / (1 − {bd})) = {f(m, D)}")
    elif link in _INVERSE:
        lines.append(f"margin₀ = {_INVERSE[link]}(base_score) = {_INVERSE[link]}({f(b, D)}) "
                     f"= {f(m, D)} for every row")  # fmt: skip
    else:
        lines.append(f"margin₀ = base_score = {f(m, D)} for every row")
    if fitted.loss.has_probability:
        p0 = np.atleast_1d(fitted.loss.probability(base_margin.reshape(1, -1) if K > 1 else m))
        what = LINKS[link].probability_of("margin₀")
        if K > 1:
            lines.append(f"p₀ = {what}: " + ", ".join(
                f"{c} {f(v, D)}" for c, v in zip(names, p0.reshape(-1))))  # fmt: skip
        else:
            lines.append(f"p₀ = {what} = {f(float(p0[0]), D)} for every row: the "
                         f"probability of class {names[1]}")  # fmt: skip
    elif link in _INVERSE:
        lines.append(f"prediction₀ = {LINKS[link].prediction_of('margin₀')} = {f(b, D)}")
    return lines
