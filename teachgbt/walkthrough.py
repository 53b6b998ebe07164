"""Seed 004, step by step, for any small dataset.

    >>> import teachgbt as tg
    >>> w = tg.walkthrough.troll2()        # the tutorial's own data and settings
    >>> print(w)                            # F0, then per epoch (A) residuals, (B) tree,
    ...                                     # (C) leaf outputs, (D) updated log-odds
    >>> w.epochs                            # the final table, seed 004's columns
    >>> w.save("out/")                      # every table as CSV

The sequence is the tutorial's:

* Step 1, F0: the log(odds) of the positive rate (classifier) or the mean of y
  (regressor), and why it is the best constant;
* for each epoch m: (A) the residuals of F_{m−1}, (B) a squared-error
  regression tree fitted to them, (C) each leaf's output with its formula
  filled in, Σresidual / Σp(1−p) (classifier) or the mean residual
  (regressor), (D) F_m = F_{m−1} + ν·f_m and the new probabilities.

``compare`` runs the same data through XGBoost-style boosting (base_score =
the class prior, λ = 0, min_child_weight = 0) and shows where the two grow the
same tree and where they part.

About the StatQuest video of the Troll 2 example: its leaf outputs 1.4, −1
and −3.3 are 1.5, −0.75 and −3.0 unrounded. The video rounds the starting
probability 2/3 to 0.7 before dividing (0.9/0.63 = 1.43, −0.4/0.42 = −0.95,
−0.7/0.21 = −3.33); teachgbt and scikit-learn keep every digit, so the first
row's log-odds after epoch 1 is log(2) + 0.8 × 1.5 = 1.893147.
"""

from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import datasets
from .engine.gbdt import initial_prediction
from .estimators import BoostingClassifier, BoostingRegressor

__all__ = [
    "Walkthrough",
    "Epoch",
    "Comparison",
    "walkthrough",
    "compare",
    "troll2",
    "troll2_compare",
    "ice_cream",
]

# rows shown per table in the text form; the DataFrames hold every row
TEXT_MAX_ROWS = 30
# a leaf formula lists each row's terms up to this many rows, then only the sums
FORMULA_MAX_TERMS = 8

STATQUEST_NOTE = (
    "The StatQuest video of this example shows leaf outputs 1.4, -1 and -3.3; they are "
    "1.5, -0.75 and -3.0 unrounded. The video rounds the starting probability 2/3 to 0.7 "
    "before dividing (0.9/0.63 = 1.43, -0.4/0.42 = -0.95, -0.7/0.21 = -3.33); here every "
    "digit is kept, as scikit-learn keeps it, so row 0's log(odds) after epoch 1 is "
    "log(2) + 0.8 x 1.5 = 1.893147."
)


# ---------------------------------------------------------------- formatting
def _fmt(x):
    """A number as a learner writes it: up to 6 decimals, no trailing zeros, no −0."""
    x = float(x)
    if not np.isfinite(x):
        return str(x)
    if 0 < abs(x) < 5e-7:
        return f"{x:.3g}"
    s = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _sum_terms(values):
    """'a + b - c' for a list of numbers."""
    out = ""
    for i, v in enumerate(values):
        s = _fmt(v)
        if i == 0:
            out = s
        elif s.startswith("-"):
            out += f" - {s[1:]}"
        else:
            out += f" + {s}"
    return out


def _table_text(df, indent="    ", fixed=True):
    fmt = (lambda x: f"{x:.6f}") if fixed else _fmt
    text = df.to_string(max_rows=TEXT_MAX_ROWS, float_format=fmt)
    return "\n".join(indent + line for line in text.splitlines())


def _wrap(text, indent="  ", width=92):
    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent)


def _rows_text(labels):
    labels = [str(v) for v in labels]
    if len(labels) > 12:
        return ", ".join(labels[:10]) + f", ... ({len(labels)} rows)"
    return ", ".join(labels)


# ---------------------------------------------------------------- results
@dataclass
class Epoch:
    """One boosting round of the walkthrough, the tutorial's steps (A) to (D)."""

    k: int
    residuals: pd.DataFrame  # (A) features, target, previous prediction, residual
    tree: object  # (B) the fitted teachgbt Tree
    nodes: pd.DataFrame  # (B) trace_.nodes(k)
    leaves: pd.DataFrame  # (C) one row per leaf: its rows, sums, output and formula
    update: pd.DataFrame  # (D) F_{k-1}, leaf output, F_k (and probabilities)


@dataclass
class Walkthrough:
    """The tutorial's tables for one dataset; ``print()`` it for the readable form."""

    model: object
    classifier: bool
    target: str
    data: pd.DataFrame  # features and target, as trained on
    start: pd.DataFrame  # Step 1: F0 and how it is computed
    epochs: pd.DataFrame  # target + seed 004's ep_* columns
    rounds: list = field(default_factory=list)  # one Epoch per tree
    notes: list = field(default_factory=list)
    comparison: object = None  # a Comparison, or None
    encoded: dict = field(default_factory=dict)  # text column -> its one-hot columns

    # ------------------------------------------------------------ tables
    def tables(self):
        """Every table by name (the CSV file names of ``save``)."""
        out = {"data": self.data, "start": self.start}
        for e in self.rounds:
            out[f"epoch_{e.k}_residuals"] = e.residuals
            out[f"epoch_{e.k}_nodes"] = e.nodes
            out[f"epoch_{e.k}_leaves"] = e.leaves
            out[f"epoch_{e.k}_update"] = e.update
        out["epochs"] = self.epochs
        if self.comparison is not None:
            out.update(self.comparison.tables())
        return out

    def save(self, out_dir, pictures=True):
        """Write every table as ``<name>.csv`` and the text as ``walkthrough.txt`` into
        ``out_dir`` (created if needed); with ``pictures``, also each round's tree
        (``tree_<k>.svg`` and ``.png``), the whole model (``model.png``) and the plots
        of the probabilities and residuals per epoch. Returns the paths written."""
        from ._files import write_atomic

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, df in self.tables().items():
            p = out / f"{name}.csv"
            write_atomic(p, lambda f, df=df: df.to_csv(f, index=True))
            paths.append(p)
        p = out / "walkthrough.txt"
        text = self.text() + "\n"
        write_atomic(p, lambda f: f.write(text))
        paths.append(p)
        if pictures:
            paths.extend(self._save_pictures(out))
        return paths

    def _save_pictures(self, out):
        import matplotlib.pyplot as plt

        from . import draw, plot
        from ._files import write_atomic

        paths = []
        for e in self.rounds:
            diagram = e.tree.draw(proba=self.classifier)
            for ext in ("svg", "png"):
                p = out / f"tree_{e.k}.{ext}"
                diagram.save(p)
                paths.append(p)
        p = out / "model.png"
        draw.draw_model(self.model, rounds=[e.k for e in self.rounds]).save(p)
        paths.append(p)
        shows = [("residuals", plot.residuals)]
        if self.classifier:
            shows.insert(0, ("probabilities", plot.probabilities))
        for name, fn in shows:
            ax = fn(self.model)
            p = out / f"{name}.png"
            write_atomic(
                p,
                lambda f, fig=ax.figure: fig.savefig(f, format="png", dpi=120, bbox_inches="tight"),
                binary=True,
            )
            plt.close(ax.figure)
            paths.append(p)
        return paths

    # ------------------------------------------------------------ text
    def text(self):
        """The walkthrough as plain text, in the tutorial's order."""
        m = self.model
        kind = "classifier" if self.classifier else "regressor"
        lines = [
            f"GBDT {kind}, step by step (seed 004)",
            f"{len(self.data)} instances, target {self.target!r}, {len(self.rounds)} trees, "
            f"learning rate nu = {_fmt(m.params_.learning_rate)}, " + _limits_text(m.params_),
            "",
            "The data:",
            _table_text(self.data, fixed=False),
        ]
        for col, new in self.encoded.items():
            lines.append(
                _wrap(
                    f"({col!r} is text; trees split numbers, so it is one-hot "
                    f"encoded as {', '.join(new)}.)"
                )
            )
        lines += ["", *self._start_text(), ""]
        for e in self.rounds:
            lines += self._epoch_text(e) + [""]
        lines += [
            "Result: every epoch side by side (seed 004's table)",
            _table_text(self.epochs),
        ]
        lines.append(
            _wrap(
                "leaf_index is the node id in teachgbt's tree (numbered level by level); "
                "scikit-learn's apply() numbers nodes depth first, so its ids differ while the "
                "leaves, and their outputs, are the same."
            )
        )
        for note in self.notes:
            lines += ["", _wrap(note)]
        if self.comparison is not None:
            lines += ["", "", self.comparison.text()]
        return "\n".join(lines)

    def _start_text(self):
        s = self.start.set_index("quantity")["value"]
        if self.classifier:
            n_pos, n_neg = int(s["positives"]), int(s["negatives"])
            return [
                "Step 1: initial prediction F0 = log(odds)",
                f"  {n_pos} of the {n_pos + n_neg} instances are positive, {n_neg} are not.",
                f"  F0 = log(odds) = log({n_pos} / {n_neg}) = {_fmt(s['F0'])}",
                f"  p0 = sigmoid(F0) = 1 / (1 + e^-{_fmt(s['F0'])}) = {_fmt(s['p0'])}"
                f"  (= {n_pos}/{n_pos + n_neg}, the positive rate)",
                _wrap(
                    "Why the log(odds): F0 is the constant gamma that makes the total cross "
                    "entropy sum of -[y log p + (1 - y) log(1 - p)], p = sigmoid(gamma), "
                    "smallest. Its derivative with respect to gamma is sum of (p - y), zero "
                    f"when p = {n_pos}/{n_pos + n_neg}, the positive rate; so gamma = "
                    f"log(p / (1 - p)) = log({n_pos} / {n_neg})."
                ),
                "  Every instance starts there: ep_0_pre = F0, ep_0_prob = p0.",
            ]
        n = int(s["n"])
        return [
            "Step 1: initial prediction F0 = the mean of y",
            f"  F0 = sum of y / n = {_fmt(s['sum_y'])} / {n} = {_fmt(s['F0'])}",
            _wrap(
                "Why the mean: F0 is the constant gamma that makes the squared error sum of "
                "(1/2)(y - gamma)^2 smallest; its derivative sum of (gamma - y) is zero when "
                "gamma is the mean of y."
            ),
            "  Every instance starts there: ep_0_pre = F0.",
        ]

    def _epoch_text(self, e):
        k = e.k
        clf = self.classifier
        prev = f"F{k - 1}"
        lam = self.model.params_.reg_lambda
        nu = _fmt(self.model.params_.learning_rate)
        out = [f"Epoch {k}"]
        if clf:
            out += [
                f"  (A) residual = observed - predicted probability = y - sigmoid({prev}(x))",
                _wrap(
                    "The residual is minus the derivative of the cross entropy with respect "
                    "to the log(odds): dL/dF = p - y.",
                    indent="      ",
                ),
            ]
            cols = [self.target, f"ep_{k - 1}_prob", f"ep_{k}_residual"]
        else:
            out += [
                f"  (A) residual = observed - predicted = y - {prev}(x)",
                _wrap(
                    "The residual is minus the derivative of the squared error "
                    "(1/2)(y - F)^2 with respect to F.",
                    indent="      ",
                ),
            ]
            cols = [self.target, f"ep_{k - 1}_pre", f"ep_{k}_residual"]
        out.append(_table_text(e.residuals[cols], indent="      "))
        out += [
            "",
            f"  (B) a regression tree f{k}(x) fitted to ep_{k}_residual by squared error",
            _wrap(
                "'improvement': how much a split lowers the sum of squared residuals.",
                indent="      ",
            ),
        ]
        out += ["      " + line for line in _tree_lines(e.tree, e.leaves, self.data.index)]
        out += [""]
        if clf:
            den = "sum of p(1 - p)" + (" + lambda" if lam else "")
            out.append(f"  (C) leaf output = sum of residuals / ({den}), p = sigmoid({prev})")
            out.append(
                _wrap(
                    "One Newton step on the cross entropy in the leaf: minus the sum of first "
                    "derivatives over the sum of second derivatives, d2L/dF2 = p(1 - p).",
                    indent="      ",
                )
            )
        else:
            den = "(n + lambda)" if lam else "n"
            out.append(
                f"  (C) leaf output = sum of residuals / {den}: the mean residual"
                + (", shrunk by lambda" if lam else "")
            )
        for _, row in e.leaves.iterrows():
            out.append(f"      leaf {int(row['leaf'])} (rows {row['rows']}): {row['formula']}")
        out += [
            "",
            f"  (D) F{k}(x) = {prev}(x) + nu * f{k}(x), nu = {nu}"
            + (f";  p = sigmoid(F{k})" if clf else ""),
            _table_text(e.update, indent="      "),
        ]
        r0 = e.update.iloc[0]
        label = e.update.index[0]
        example = (
            f"      e.g. row {label}: {_fmt(r0[f'ep_{k - 1}_pre'])} + "
            f"{nu} x {_fmt(r0[f'ep_{k}_leaf_output'])}"
            f" = {_fmt(r0[f'ep_{k}_pre'])}"
        )
        if clf:
            example += f", p = sigmoid({_fmt(r0[f'ep_{k}_pre'])}) = {_fmt(r0[f'ep_{k}_prob'])}"
        out.append(example)
        return out

    def __str__(self):
        return self.text()

    def __repr__(self):
        kind = "classifier" if self.classifier else "regressor"
        return (
            f"<teachgbt Walkthrough: GBDT {kind}, {len(self.data)} instances, "
            f"{len(self.rounds)} epochs; print() it, or .tables(), .save(dir)>"
        )

    def _repr_html_(self):
        parts = [f"<pre>{html.escape(self._start_text()[0])}</pre>", self.start.to_html()]
        for e in self.rounds:
            parts.append(f"<h4>Epoch {e.k}</h4>")
            parts += [
                e.residuals.to_html(),
                e.nodes.to_html(),
                e.leaves.to_html(),
                e.update.to_html(),
            ]
        parts += ["<h4>Every epoch</h4>", self.epochs.to_html()]
        parts.append(
            f"<details><summary>as text</summary><pre>{html.escape(self.text())}</pre></details>"
        )
        return "\n".join(parts)


def _growth_text(p):
    parts = []
    if p.max_depth:
        parts.append(f"max_depth = {p.max_depth}")
    if p.max_leaves:
        parts.append(f"max_leaves = {p.max_leaves}")
    return ", ".join(parts) or "no depth limit"


def _limits_text(p):
    parts = [_growth_text(p)]
    if p.reg_lambda:
        parts.append(f"lambda = {_fmt(p.reg_lambda)}")
    if p.min_child_weight:
        parts.append(f"min_child_weight = {_fmt(p.min_child_weight)}")
    if p.gamma:
        parts.append(f"gamma = {_fmt(p.gamma)}")
    return ", ".join(parts)


def _tree_lines(tree, leaves, index):
    """The tree as indented text: each split's rule and improvement, each leaf's rows."""
    rows_of = {int(r["leaf"]): r["rows"] for _, r in leaves.iterrows()}
    output_of = {int(r["leaf"]): r["leaf_output"] for _, r in leaves.iterrows()}
    lines = []

    def visit(i, prefix, label):
        n = int(tree.n[i])
        if tree.is_leaf[i]:
            lines.append(
                f"{prefix}{label}leaf {i}: n={n}, rows {rows_of.get(i, '')}"
                f"  -> output {_fmt(output_of.get(i, tree.weight[i]))}"
            )
            return
        rule = f"{tree.feature_name(int(tree.feature[i]))} < {_fmt(tree.threshold[i])}"
        lines.append(
            f"{prefix}{label}node {i}: {rule} ?  n={n}, improvement {_fmt(tree.loss_chg[i])}"
        )
        visit(int(tree.left[i]), prefix + "    ", "yes: ")
        visit(int(tree.right[i]), prefix + "    ", "no:  ")

    visit(0, "", "")
    return lines


# ---------------------------------------------------------------- building
def _prepare(X, y, target):
    if y is None:
        if target is None:
            raise ValueError("give the target: walkthrough(X, y) or walkthrough(df, target='col')")
        if not isinstance(X, pd.DataFrame) or target not in X.columns:
            raise ValueError(f"target={target!r} is not a column of X")
        y = X[target]
        X = X.drop(columns=target)
    if not isinstance(X, pd.DataFrame):
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (rows x features); got shape {arr.shape}")
        X = pd.DataFrame(arr, columns=[f"f{j}" for j in range(arr.shape[1])])
    if len(y) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}; they must match")
    if isinstance(y, pd.Series):
        name = str(y.name) if y.name is not None else (target or "y")
        y = y.reset_index(drop=True).set_axis(X.index).rename(name)
    else:
        name = target or "y"
        y = pd.Series(np.asarray(y), index=X.index, name=name)
    text_cols = [
        c
        for c in X.columns
        if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]))
    ]
    encoded = {}
    if text_cols:
        Xe = datasets.one_hot(X, columns=text_cols)
        for c in text_cols:
            encoded[str(c)] = [
                str(n) for n in Xe.columns if n not in X.columns and str(n).startswith(f"{c}_")
            ]
        X = Xe
    return X, y, name, encoded


def _is_classification(y):
    if pd.api.types.is_bool_dtype(y) or not pd.api.types.is_numeric_dtype(y):
        return True
    return y.nunique() == 2


def _fit(X, y, classifier, algorithm, params):
    est = BoostingClassifier if classifier else BoostingRegressor
    return est(algorithm=algorithm, **params).fit(X, y)


def walkthrough(
    X,
    y=None,
    *,
    target=None,
    classifier=None,
    n_estimators=2,
    learning_rate=0.8,
    max_depth=2,
    max_leaves=None,
    compare=True,
    **params,
):
    """Fit a GBDT on a small dataset and lay out seed 004's steps for it.

    ``X``: a DataFrame (text columns are one-hot encoded for you) or an array;
    ``y``: the target, or ``target=`` names a column of ``X``. ``classifier``:
    True / False, or None to decide from ``y`` (booleans, text or two distinct
    values: a classifier). Other keyword arguments (``reg_lambda``,
    ``min_child_weight``, ``gamma``, ...) go to the estimator. With
    ``compare=True`` the same data also goes through XGBoost-style boosting
    (see :func:`compare`).
    """
    X, y, name, encoded = _prepare(X, y, target)
    if classifier is None:
        classifier = _is_classification(y)
    params = dict(
        params,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        max_leaves=max_leaves,
    )
    model = _fit(X, y, bool(classifier), "gbdt", params)
    w = _build(model, X, y, name, bool(classifier))
    w.encoded = encoded
    if compare:
        w.comparison = _compare_models(model, X, y, name, bool(classifier), params)
    return w


def _build(model, X, y, name, classifier):
    tr = model.trace_
    ep = tr.epochs()
    ep.index = X.index
    data = pd.concat([X, y], axis=1)
    if classifier:
        y01 = (np.asarray(y) == model.classes_[1]).astype(float)
        n_pos = int(y01.sum())
        n_neg = len(y01) - n_pos
        start = pd.DataFrame(
            {
                "quantity": ["positives", "negatives", "odds", "F0", "p0"],
                "value": [
                    n_pos,
                    n_neg,
                    n_pos / n_neg if n_neg else np.inf,
                    initial_prediction(y01, classifier=True),
                    n_pos / len(y01),
                ],
                "formula": [
                    "count of y = 1",
                    "count of y = 0",
                    "positives / negatives",
                    "log(odds)",
                    "sigmoid(F0) = positives / n",
                ],
            }
        )
    else:
        yv = np.asarray(y, dtype=float)
        start = pd.DataFrame(
            {
                "quantity": ["n", "sum_y", "F0"],
                "value": [len(yv), yv.sum(), initial_prediction(yv, classifier=False)],
                "formula": ["count", "sum of y", "sum_y / n (the mean)"],
            }
        )
    epochs = pd.concat([y, ep], axis=1)
    w = Walkthrough(
        model=model, classifier=classifier, target=name, data=data, start=start, epochs=epochs
    )
    lam = model.params_.reg_lambda
    for k in range(1, tr.n_rounds + 1):
        tree = model.trees_[k - 1]
        prev_pre = ep[f"ep_{k - 1}_pre"]
        residual = ep[f"ep_{k}_residual"]
        res_cols = [X, y]
        if classifier:
            res_cols.append(ep[[f"ep_{k - 1}_pre", f"ep_{k - 1}_prob"]])
        else:
            res_cols.append(ep[[f"ep_{k - 1}_pre"]])
        res_cols.append(residual)
        residuals = pd.concat(res_cols, axis=1)
        leaf_index = ep[f"ep_{k}_leaf_index"].to_numpy()
        p_prev = ep[f"ep_{k - 1}_prob"].to_numpy() if classifier else None
        leaf_rows = []
        for leaf in tree.leaves:
            mask = leaf_index == leaf
            r = residual.to_numpy()[mask]
            num = float(r.sum())
            if classifier:
                terms = p_prev[mask] * (1 - p_prev[mask])
                den = float(terms.sum())
            else:
                terms = np.ones(mask.sum())
                den = float(mask.sum())
            output = float(tree.weight[leaf])
            leaf_rows.append(
                {
                    "leaf": int(leaf),
                    "rows": _rows_text(X.index[mask]),
                    "n": int(mask.sum()),
                    "residual_sum": num,
                    ("p(1-p)_sum" if classifier else "count"): den,
                    "leaf_output": output,
                    "formula": _leaf_formula(r, terms, num, den, lam, output, classifier),
                }
            )
        leaves = pd.DataFrame(leaf_rows)
        upd = [y, prev_pre, ep[[f"ep_{k}_leaf_index", f"ep_{k}_leaf_output", f"ep_{k}_pre"]]]
        if classifier:
            upd.append(ep[f"ep_{k}_prob"])
        update = pd.concat(upd, axis=1)
        nodes = tr.nodes(k)
        w.rounds.append(Epoch(k, residuals, tree, nodes, leaves, update))
    return w


def _leaf_formula(r, terms, num, den, lam, output, classifier):
    """Seed 004's leaf output with the numbers filled in."""
    n = len(r)
    if n > FORMULA_MAX_TERMS:
        what = "sum of p(1-p)" if classifier else "n"
        if lam:
            what = f"({what} + lambda)"
        elif classifier:
            what = f"({what})"
        return f"sum of residuals / {what} = {_fmt(num)} / {_fmt(den + lam)} = {_fmt(output)}"
    top = _sum_terms(r)
    bottom = _sum_terms(terms) if classifier else str(n)
    if lam:
        bottom += f" + {_fmt(lam)}"
    if n > 1:
        top = f"({top})"
    if (classifier and n > 1) or lam:
        bottom = f"({bottom})"
    text = f"{top} / {bottom}"
    sums = f"{_fmt(num)} / {_fmt(den + lam)}"
    if sums != text:
        text += f" = {sums}"
    return f"{text} = {_fmt(output)}"


# ---------------------------------------------------------------- comparison
@dataclass
class Comparison:
    """The same data through Friedman GBDT and XGBoost-style boosting, round by round."""

    gbdt: object  # the fitted GBDT model
    xgboost: object  # the fitted XGBoost-style model
    classifier: bool
    rounds: pd.DataFrame  # one row per round: each tree's splits, whether they agree
    instances: pd.DataFrame  # per row, each algorithm's prediction after every round
    target: str = "y"

    def root_candidates(self, t):
        """Round t's root candidates, ranked by each algorithm's own criterion.

        ``squared_error_improvement``: GBDT's (drop in the sum of squared residuals);
        ``xgboost_loss_chg``: the second-order G_L²/H_L + G_R²/H_R − G²/H (λ = 0), at
        XGBoost's own margins.
        """
        g = self.gbdt.trace_.splits(t, 0)
        x = self.xgboost.trace_.splits(t, 0)
        key = ["feature", "threshold", "default_left"]
        g = g.assign(squared_error_improvement=2 * (g["gain"] + self.gbdt.params_.gamma))
        x = x.assign(
            xgboost_loss_chg=2 * (x["gain"] + self.xgboost.params_.gamma),
            threshold=x["threshold"].astype(np.float32).astype(float),
        )
        g = g.assign(threshold=g["threshold"].astype(np.float32).astype(float))
        df = (
            g[key + ["squared_error_improvement", "chosen"]]
            .rename(columns={"chosen": "gbdt_chosen"})
            .merge(
                x[key + ["xgboost_loss_chg", "chosen"]].rename(
                    columns={"chosen": "xgboost_chosen"}
                ),
                on=key,
                how="outer",
            )
        )
        df["gbdt_rank"] = df["squared_error_improvement"].rank(ascending=False, method="min")
        df["xgboost_rank"] = df["xgboost_loss_chg"].rank(ascending=False, method="min")
        df = df.sort_values(["gbdt_rank", "xgboost_rank"]).reset_index(drop=True)
        for c in ("gbdt_rank", "xgboost_rank"):
            df[c] = df[c].astype("Int64")
        return df[
            [
                "feature",
                "threshold",
                "squared_error_improvement",
                "gbdt_rank",
                "gbdt_chosen",
                "xgboost_loss_chg",
                "xgboost_rank",
                "xgboost_chosen",
            ]
        ]

    def tables(self):
        out = {"compare_rounds": self.rounds, "compare_instances": self.instances}
        first = self._first_parting()
        if first is not None:
            out[f"compare_root_candidates_{first}"] = self.root_candidates(first)
        return out

    def _first_parting(self):
        differ = self.rounds.loc[~self.rounds["same_tree"], "round"]
        return int(differ.iloc[0]) if len(differ) else None

    def text(self):
        g, x = self.gbdt, self.xgboost
        p = g.params_
        settings = (
            f"lambda = {_fmt(p.reg_lambda)}, min_child_weight = {_fmt(p.min_child_weight)}, "
            f"nu = {_fmt(p.learning_rate)}, {_growth_text(p)}"
        )
        lam = f" + {_fmt(p.reg_lambda)}" if p.reg_lambda else ""
        lines = ["Side by side: Friedman GBDT and XGBoost-style boosting on the same data"]
        if self.classifier:
            lines += [
                _wrap(
                    f"Both start from F0 = {_fmt(g.base_margin_)} (XGBoost's base_score = "
                    f"{_fmt(x.base_score_)}, the class prior) and use {settings}."
                ),
                _wrap(
                    "GBDT ranks splits by the squared error of the residuals: "
                    "G_L^2/n_L + G_R^2/n_R - G^2/n with G = -sum of residuals. XGBoost ranks "
                    "them by the second-order gain G_L^2/H_L + G_R^2/H_R - G^2/H, "
                    "H = sum of p(1-p). Both value a leaf at sum of residuals / (sum of "
                    f"p(1-p){lam}), XGBoost's -G/(H + lambda)."
                ),
            ]
        else:
            lines += [
                _wrap(
                    f"Both start from F0 = the mean of y = {_fmt(g.base_margin_)} and use "
                    f"{settings}."
                ),
                _wrap(
                    "For the squared error every h_i = 1, in every round: XGBoost's gain "
                    "G_L^2/H_L + G_R^2/H_R - G^2/H is then exactly GBDT's squared-error "
                    "improvement and -G/H is the mean residual, so the two grow the same "
                    "trees throughout (up to XGBoost's float32 rounding)."
                ),
            ]
        show = self.rounds.drop(columns=["h_min", "h_max"])
        lines += ["", _table_text(show.set_index("round")), ""]
        first = self._first_parting()
        for _, r in self.rounds.iterrows():
            t = int(r["round"])
            if self.classifier and r["h_equal"]:
                why = (
                    f"every h_i = p(1-p) = {_fmt(r['h_min'])}, so H = {_fmt(r['h_min'])} x n "
                    "on each side of every split and the gain is the squared-error "
                    f"improvement divided by {_fmt(r['h_min'])}: both rank splits alike"
                )
                if p.reg_lambda:
                    why = (
                        f"every h_i = p(1-p) = {_fmt(r['h_min'])}; with lambda = 0 the gain would "
                        "be the squared-error improvement divided by that, but lambda = "
                        f"{_fmt(p.reg_lambda)} is added to each H, so the two rankings can differ"
                    )
            elif self.classifier:
                why = (
                    f"h_i = p(1-p) now ranges from {_fmt(r['h_min'])} to "
                    f"{_fmt(r['h_max'])}, so XGBoost weighs each row's residual by its "
                    "curvature while GBDT counts every row alike"
                )
            else:
                why = "every h_i = 1"
            if r["same_tree"]:
                verdict = (
                    "the same tree, with the same leaf outputs"
                    if r["same_leaf_outputs"]
                    else "the same splits"
                )
                if self.classifier and not r["h_equal"]:
                    verdict += "; the same split still wins here" if t != first else ""
            else:
                verdict = (
                    f"the trees part: GBDT splits on {r['gbdt_splits']}, XGBoost on "
                    f"{r['xgboost_splits']}"
                )
                if t != first:
                    verdict += " (their margins already differ)"
            lines.append(_wrap(f"Round {t}: {why}; {verdict}."))
        if first is not None:
            cand = self.root_candidates(first)
            lines += [
                "",
                f"Round {first}, root candidates under each criterion (best first):",
                _table_text(cand.head(8)),
            ]
        elif self.classifier:
            lines.append(
                _wrap(
                    "On this data the trees never part; with more rounds or "
                    "other data they can, once the h_i differ."
                )
            )
        lines += [
            "",
            "Predictions after the last round:",
            _table_text(self.instances.iloc[:, [0, -2, -1]]),
        ]
        return "\n".join(lines)

    def __str__(self):
        return self.text()

    def __repr__(self):
        differ = int((~self.rounds["same_tree"]).sum())
        return (
            f"<teachgbt Comparison: GBDT vs XGBoost-style, {len(self.rounds)} rounds, "
            f"{differ} with different trees; print() it>"
        )


def _splits_text(tree):
    if tree.n_leaves == 1:
        return "(no split)"
    return "; ".join(
        f"{tree.feature_name(int(tree.feature[i]))} < {_fmt(tree.threshold[i])}"
        for i in range(tree.n_nodes)
        if not tree.is_leaf[i]
    )


def _same_structure(a, b):
    if a.n_nodes != b.n_nodes:
        return False
    return bool(
        np.array_equal(a.feature, b.feature)
        and np.array_equal(a.left, b.left)
        and np.array_equal(a.right, b.right)
        and np.array_equal(
            a.threshold.astype(np.float32), b.threshold.astype(np.float32), equal_nan=True
        )
    )


def _compare_models(gbdt, X, y, name, classifier, params):
    # the same settings as the GBDT (λ = 0 and min_child_weight = 0 unless asked otherwise),
    # so that only the split criterion differs
    p = gbdt.params_
    xparams = dict(
        params,
        learning_rate=p.learning_rate,
        reg_lambda=p.reg_lambda,
        min_child_weight=p.min_child_weight,
    )
    if classifier:
        xparams["base_score"] = gbdt.base_score_  # the class prior: F0 = log(odds) as GBDT's
    xgb = _fit(X, y, classifier, "xgboost", xparams)
    rows = []
    inst = {name: y}
    gt, xt = gbdt.trace_, xgb.trace_
    gep, xep = gt.epochs(), xt.epochs()
    for t in range(1, gt.n_rounds + 1):
        a, b = gbdt.trees_[t - 1], xgb.trees_[t - 1]
        h = np.asarray(xt.instances(t)["h"])
        same = _same_structure(a, b)
        close = np.allclose(
            gep[f"ep_{t}_leaf_output"], xep[f"ep_{t}_leaf_output"], rtol=1e-5, atol=1e-6
        )  # XGBoost-style leaves are float32
        rows.append(
            {
                "round": t,
                "gbdt_splits": _splits_text(a),
                "xgboost_splits": _splits_text(b),
                "same_tree": same,
                "same_leaf_outputs": same and bool(close),
                "h_equal": bool(np.ptp(h) <= 1e-6 * max(1.0, float(np.max(np.abs(h))))),
                "h_min": float(h.min()),
                "h_max": float(h.max()),
                "max_pre_gap": float(np.max(np.abs(gep[f"ep_{t}_pre"] - xep[f"ep_{t}_pre"]))),
            }
        )
    for t in range(0, gt.n_rounds + 1):
        inst[f"gbdt_ep_{t}_pre"] = gep[f"ep_{t}_pre"].to_numpy()
        inst[f"xgboost_ep_{t}_pre"] = xep[f"ep_{t}_pre"].to_numpy()
    instances = pd.DataFrame(inst, index=X.index)
    return Comparison(gbdt, xgb, classifier, pd.DataFrame(rows), instances, name)


def compare(
    X,
    y=None,
    *,
    target=None,
    classifier=None,
    n_estimators=2,
    learning_rate=0.8,
    max_depth=2,
    max_leaves=None,
    **params,
):
    """The same data through ``algorithm="gbdt"`` and ``algorithm="xgboost"``.

    XGBoost-style boosting gets ``base_score`` = the class prior (so both start
    from the same log(odds)), ``reg_lambda=0`` and ``min_child_weight=0`` (so
    its leaves are the same Newton step). Returns a :class:`Comparison`:
    ``.rounds`` (one row per round), ``.instances`` (each algorithm's
    prediction per row and round), ``.root_candidates(t)`` and ``print()``.
    """
    X, y, name, _ = _prepare(X, y, target)
    if classifier is None:
        classifier = _is_classification(y)
    params = dict(
        params,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        max_leaves=max_leaves,
    )
    model = _fit(X, y, bool(classifier), "gbdt", params)
    return _compare_models(model, X, y, name, bool(classifier), params)


# ---------------------------------------------------------------- the tutorials
def troll2(n_estimators=2, learning_rate=0.8, max_depth=2, compare=True, **params):
    """Seed 004's walkthrough: the Troll 2 data, colours one-hot encoded, ν = 0.8, depth 2."""
    X, y = datasets.troll2_xy()
    w = walkthrough(
        X,
        y,
        classifier=True,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        compare=compare,
        **params,
    )
    w.encoded = {"favorite_color": [c for c in X.columns if c.startswith("favorite_color_")]}
    w.notes.append(STATQUEST_NOTE)
    return w


def troll2_compare(n_estimators=2, learning_rate=0.8, max_depth=2, **params):
    """The Troll 2 data through GBDT and XGBoost-style boosting, side by side."""
    X, y = datasets.troll2_xy()
    return compare(
        X,
        y,
        classifier=True,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        **params,
    )


def ice_cream(n_estimators=2, learning_rate=0.8, max_depth=2, compare=True, **params):
    """A regression walkthrough on :func:`teachgbt.datasets.ice_cream`: F0 is the mean."""
    X, y = datasets.ice_cream_xy()
    w = walkthrough(
        X,
        y,
        classifier=False,
        n_estimators=n_estimators,
        learning_rate=learning_rate,
        max_depth=max_depth,
        compare=compare,
        **params,
    )
    w.encoded = {"weather": [c for c in X.columns if c.startswith("weather_")]}
    return w
