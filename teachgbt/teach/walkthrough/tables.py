"""The walkthrough's tables: seed 004's steps (A) to (D) per epoch, as DataFrames."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...engine.gbdt import initial_prediction
from . import files, html, text
from .text import fmt

__all__ = ["Epoch", "Walkthrough", "build", "FORMULA_MAX_TERMS"]

# a leaf formula lists each row's terms up to this many rows, then only the sums
FORMULA_MAX_TERMS = 8
# a leaf's rows are listed up to this many; beyond, the first ROWS_SHOWN and a count
ROWS_LISTED, ROWS_SHOWN = 12, 10


@dataclass
class Epoch:
    """One boosting round of the walkthrough, the tutorial's steps (A) to (D)."""

    t: int  # the round (epoch), 1-based
    residuals: pd.DataFrame  # (A) features, target, previous prediction, residual
    tree: object  # (B) the fitted teachgbt Tree
    nodes: pd.DataFrame  # (B) trace_.nodes(t)
    leaves: pd.DataFrame  # (C) one row per leaf: its rows, sums, output and formula
    update: pd.DataFrame  # (D) F_{t-1}, leaf output, F_t (and probabilities)


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

    def tables(self):
        """Every table by name (the CSV file names of ``save``)."""
        out = {"data": self.data, "start": self.start}
        for e in self.rounds:
            out[f"epoch_{e.t}_residuals"] = e.residuals
            out[f"epoch_{e.t}_nodes"] = e.nodes
            out[f"epoch_{e.t}_leaves"] = e.leaves
            out[f"epoch_{e.t}_update"] = e.update
        out["epochs"] = self.epochs
        if self.comparison is not None:
            out.update(self.comparison.tables())
        return out

    def save(self, out_dir, pictures=True, precision=6, force=False):
        """Write every table as ``<name>.csv`` (numbers to ``precision`` significant digits)
        and the text as ``walkthrough.txt`` into ``out_dir`` (created if needed); with
        ``pictures``, also ``walkthrough.html`` and ``explorer.html`` (pages to open in a
        browser), each round's tree (``tree_<k>.svg`` and ``.png``), the whole model
        (``model.png``) and the plots of the probabilities and residuals per epoch. A file
        of the user's already in ``out_dir`` is kept (an error names it) unless ``force``.
        Returns the paths written."""
        return files.save(self, out_dir, pictures, precision, force)

    def text(self):
        """The walkthrough as plain text, in the tutorial's order."""
        return text.walkthrough_text(self)

    def __str__(self):
        return self.text()

    def __repr__(self):
        kind = "classifier" if self.classifier else "regressor"
        return (
            f"<teachgbt Walkthrough: GBDT {kind}, {len(self.data)} instances, "
            f"{len(self.rounds)} epochs; print() it, or .tables(), .save(dir)>"
        )

    def _repr_html_(self):
        return html.walkthrough_html(self)


def _start_table(model, y, classifier):
    """Step 1: F0 and the counts or sums it comes from."""
    if classifier:
        y01 = (np.asarray(y) == model.classes_[1]).astype(float)
        n_pos = int(y01.sum())
        n_neg = len(y01) - n_pos
        return pd.DataFrame(
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
    yv = np.asarray(y, dtype=float)
    return pd.DataFrame(
        {
            "quantity": ["n", "sum_y", "F0"],
            "value": [len(yv), yv.sum(), initial_prediction(yv, classifier=False)],
            "formula": ["count", "sum of y", "sum_y / n (the mean)"],
        }
    )


def build(model, X, y, name, classifier):
    """The ``Walkthrough`` of a fitted GBDT ``model`` on the data it was trained on."""
    tr = model.trace_
    ep = tr.epochs()
    ep.index = X.index
    w = Walkthrough(
        model=model,
        classifier=classifier,
        target=name,
        data=pd.concat([X, y], axis=1),
        start=_start_table(model, y, classifier),
        epochs=pd.concat([y, ep], axis=1),
    )
    for t in range(1, tr.n_rounds + 1):
        w.rounds.append(_epoch(model, t, ep, X, y, classifier))
    return w


def _epoch(model, t, ep, X, y, classifier):
    """Round t's tables: (A) residuals, (B) the tree's nodes, (C) leaves, (D) the update."""
    tree = model.model_.tree(t)
    lam = model.params_.reg_lambda
    prev = [f"ep_{t - 1}_pre", f"ep_{t - 1}_prob"] if classifier else [f"ep_{t - 1}_pre"]
    residual = ep[f"ep_{t}_residual"]
    residuals = pd.concat([X, y, ep[prev], residual], axis=1)
    leaf_index = ep[f"ep_{t}_leaf_index"].to_numpy()
    prob_prev = ep[f"ep_{t - 1}_prob"].to_numpy() if classifier else None
    leaf_rows = []
    for leaf in tree.leaves:
        mask = leaf_index == leaf
        r = residual.to_numpy()[mask]
        num = float(r.sum())
        if classifier:
            terms = prob_prev[mask] * (1 - prob_prev[mask])  # seed 004's p(1 − p) per row
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
    update = [y, ep[f"ep_{t - 1}_pre"]]
    update.append(ep[[f"ep_{t}_leaf_index", f"ep_{t}_leaf_output", f"ep_{t}_pre"]])
    if classifier:
        update.append(ep[f"ep_{t}_prob"])
    return Epoch(
        t,
        residuals,
        tree,
        model.trace_.nodes(t),
        pd.DataFrame(leaf_rows),
        pd.concat(update, axis=1),
    )


def _rows_text(labels):
    labels = [str(v) for v in labels]
    if len(labels) > ROWS_LISTED:
        return ", ".join(labels[:ROWS_SHOWN]) + f", ... ({len(labels)} rows)"
    return ", ".join(labels)


def _sum_terms(values):
    """'a + b - c' for a list of numbers."""
    out = ""
    for i, v in enumerate(values):
        s = fmt(v)
        if i == 0:
            out = s
        elif s.startswith("-"):
            out += f" - {s[1:]}"
        else:
            out += f" + {s}"
    return out


def _leaf_formula(r, terms, num, den, lam, output, classifier):
    """Seed 004's leaf output with the numbers filled in."""
    n = len(r)
    if n > FORMULA_MAX_TERMS:
        what = "sum of p(1-p)" if classifier else "n"
        if lam:
            what = f"({what} + lambda)"
        elif classifier:
            what = f"({what})"
        return f"sum of residuals / {what} = {fmt(num)} / {fmt(den + lam)} = {fmt(output)}"
    top = _sum_terms(r)
    bottom = _sum_terms(terms) if classifier else str(n)
    if lam:
        bottom += f" + {fmt(lam)}"
    if n > 1:
        top = f"({top})"
    if (classifier and n > 1) or lam:
        bottom = f"({bottom})"
    formula = f"{top} / {bottom}"
    sums = f"{fmt(num)} / {fmt(den + lam)}"
    if sums != formula:
        formula += f" = {sums}"
    return f"{formula} = {fmt(output)}"
