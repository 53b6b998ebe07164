"""The walkthrough as plain text, in seed 004's order (``html.py`` lays it out for Jupyter).

Every number, threshold and rule goes through teachgbt's one formatter, so a
split reads here as it does in the tree diagrams.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from ...core.format import format_number, format_threshold, split_rule

__all__ = ["fmt", "table_text", "wrap", "growth_text", "walkthrough_text"]

# rows shown per table in the text form; the DataFrames hold every row
TEXT_MAX_ROWS = 30
# decimals of a number in the text: seed 004 writes its numbers to six
TEXT_DECIMALS = 6
# characters per line of the wrapped prose
TEXT_WIDTH = 92


def fmt(x):
    """A number as a learner writes it: up to six decimals, no trailing zeros, no −0."""
    return format_number(x, TEXT_DECIMALS)


def readable_csv_frame(df, precision=6):
    """``df`` with its numbers as a reader writes them, for a CSV file: ``precision``
    significant digits (``1.5``, not ``1.4999999999999998``), float noise below 1e-12 of
    the column's largest value written as 0 (a root's G is ``0``, not ``-2.22e-16``), never
    ``-0``; thresholds stay exactly the rule the tree applies."""
    precision = int(precision)
    if precision < 1:
        raise ValueError(f"precision must be a whole number ≥ 1, got {precision}")
    out = df.copy()
    for col in out.columns:
        values = out[col]
        if col == "threshold":
            out[col] = [format_threshold(v) if pd.notna(v) else "" for v in values]
            continue
        if not pd.api.types.is_float_dtype(values):
            continue
        a = values.to_numpy(dtype=np.float64)
        finite = np.isfinite(a)
        scale = np.abs(a[finite]).max() if finite.any() else 0.0
        a = np.where(np.abs(a) < scale * 1e-12, 0.0, a)
        out[col] = ["" if np.isnan(v) else _sig(v, precision) for v in a]
    return out


def _sig(v, precision):
    s = f"{v:.{precision}g}"
    return "0" if s in ("-0", "0") else s


def table_text(df, indent="    ", fixed=True):
    """``df`` as indented text; ``fixed``: every float to six decimals, aligned."""
    number = (lambda x: f"{x:.{TEXT_DECIMALS}f}") if fixed else fmt
    rules = {"threshold": format_threshold} if "threshold" in df.columns else None
    text = df.to_string(max_rows=TEXT_MAX_ROWS, float_format=number, formatters=rules)
    return "\n".join(indent + line for line in text.splitlines())


def wrap(text, indent="  ", width=TEXT_WIDTH):
    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent)


def growth_text(params):
    parts = []
    if params.max_depth:
        parts.append(f"max_depth = {params.max_depth}")
    if params.max_leaves:
        parts.append(f"max_leaves = {params.max_leaves}")
    return ", ".join(parts) or "no depth limit"


def _limits_text(params):
    parts = [growth_text(params)]
    if params.reg_lambda:
        parts.append(f"lambda = {fmt(params.reg_lambda)}")
    if params.min_child_weight:
        parts.append(f"min_child_weight = {fmt(params.min_child_weight)}")
    if params.gamma:
        parts.append(f"gamma = {fmt(params.gamma)}")
    return ", ".join(parts)


def tree_lines(tree, leaves):
    """The tree as indented text: each split's rule and gain, each leaf's rows."""
    rows_of = {int(r["leaf"]): r["rows"] for _, r in leaves.iterrows()}
    output_of = {int(r["leaf"]): r["leaf_output"] for _, r in leaves.iterrows()}
    lines = []

    def visit(i, prefix, label):
        n = int(tree.n[i])
        if tree.is_leaf[i]:
            lines.append(
                f"{prefix}{label}leaf {i}: n={n}, rows {rows_of.get(i, '')}"
                f"  -> output {fmt(output_of.get(i, tree.weight[i]))}"
            )
            return
        lines.append(
            f"{prefix}{label}node {i}: {split_rule(tree, i)} ?  n={n}, gain {fmt(tree.gain[i])}"
        )
        visit(int(tree.left[i]), prefix + "    ", "yes: ")
        visit(int(tree.right[i]), prefix + "    ", "no:  ")

    visit(0, "", "")
    return lines


# ---------------------------------------------------------------- the walkthrough
def walkthrough_text(w):
    """A ``Walkthrough`` as plain text, in the tutorial's order."""
    kind = "classifier" if w.classifier else "regressor"
    params = w.model.params_
    lines = [
        f"GBDT {kind}, step by step (seed 004)",
        f"{len(w.data)} instances, target {w.target!r}, {len(w.rounds)} trees, "
        f"learning rate η = {fmt(params.learning_rate)} (seed 004 calls it ν), "
        + _limits_text(params),
        "",
        "The data:",
        table_text(w.data, fixed=False),
    ]
    for col, new in w.encoded.items():
        lines.append(
            wrap(
                f"({col!r} is text; trees split numbers, so it is one-hot "
                f"encoded as {', '.join(new)}.)"
            )
        )
    lines += ["", *start_text(w), ""]
    for e in w.rounds:
        lines += _epoch_text(w, e) + [""]
    lines += [
        "Result: every epoch side by side (seed 004's table)",
        table_text(w.epochs),
    ]
    lines.append(
        wrap(
            "leaf_index is the node id in teachgbt's tree (numbered level by level); "
            "scikit-learn's apply() numbers nodes depth first, so its ids differ while the "
            "leaves, and their outputs, are the same."
        )
    )
    for note in w.notes:
        lines += ["", wrap(note)]
    if w.comparison is not None:
        lines += ["", "", w.comparison.text()]
    return "\n".join(lines)


def start_text(w):
    """Step 1: F0, and why it is the best constant."""
    s = w.start.set_index("quantity")["value"]
    if w.classifier:
        n_pos, n_neg = int(s["positives"]), int(s["negatives"])
        return [
            "Step 1: initial prediction F0 = log(odds)",
            f"  {n_pos} of the {n_pos + n_neg} instances are positive, {n_neg} are not.",
            f"  F0 = log(odds) = log({n_pos} / {n_neg}) = {fmt(s['F0'])}",
            f"  p0 = sigmoid(F0) = 1 / (1 + e^-{fmt(s['F0'])}) = {fmt(s['p0'])}"
            f"  (= {n_pos}/{n_pos + n_neg}, the positive rate)",
            wrap(
                "Why the log(odds): F0 is the constant c that makes the total cross "
                "entropy sum of -[y log p + (1 - y) log(1 - p)], p = sigmoid(c), "
                "smallest. Its derivative with respect to c is sum of (p - y), zero "
                f"when p = {n_pos}/{n_pos + n_neg}, the positive rate; so F0 = c = "
                f"log(p / (1 - p)) = log({n_pos} / {n_neg})."
            ),
            "  Every instance starts there: ep_0_pre = F0, ep_0_prob = p0.",
        ]
    n = int(s["n"])
    return [
        "Step 1: initial prediction F0 = the mean of y",
        f"  F0 = sum of y / n = {fmt(s['sum_y'])} / {n} = {fmt(s['F0'])}",
        wrap(
            "Why the mean: F0 is the constant c that makes the squared error sum of "
            "(1/2)(y - c)^2 smallest; its derivative sum of (c - y) is zero when "
            "c is the mean of y."
        ),
        "  Every instance starts there: ep_0_pre = F0.",
    ]


def _epoch_text(w, e):
    """One epoch's steps (A) to (D) with its tables."""
    t = e.t
    clf = w.classifier
    prev = f"F{t - 1}"
    lam = w.model.params_.reg_lambda
    nu = fmt(w.model.params_.learning_rate)
    out = [f"Epoch {t}"]
    if clf:
        out += [
            f"  (A) residual = observed - predicted probability = y - sigmoid({prev}(x))",
            wrap(
                "The residual is minus the derivative of the cross entropy with respect "
                "to the log(odds): dL/dF = p - y.",
                indent="      ",
            ),
        ]
        cols = [w.target, f"ep_{t - 1}_prob", f"ep_{t}_residual"]
    else:
        out += [
            f"  (A) residual = observed - predicted = y - {prev}(x)",
            wrap(
                "The residual is minus the derivative of the squared error "
                "(1/2)(y - F)^2 with respect to F.",
                indent="      ",
            ),
        ]
        cols = [w.target, f"ep_{t - 1}_pre", f"ep_{t}_residual"]
    out.append(table_text(e.residuals[cols], indent="      "))
    out += [
        "",
        f"  (B) a regression tree f{t}(x) fitted to ep_{t}_residual by squared error",
        wrap(
            "gain: half the drop in the sum of squared residuals a split makes (the number "
            "the tree diagrams show; XGBoost's loss_chg is the whole drop).",
            indent="      ",
        ),
    ]
    out += ["      " + line for line in tree_lines(e.tree, e.leaves)]
    out += [""]
    if clf:
        den = "sum of p(1 - p)" + (" + lambda" if lam else "")
        out.append(f"  (C) leaf output = sum of residuals / ({den}), p = sigmoid({prev})")
        out.append(
            wrap(
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
        f"  (D) F{t}(x) = {prev}(x) + η * f{t}(x), η = {nu}"
        + (f";  p = sigmoid(F{t})" if clf else ""),
        table_text(e.update, indent="      "),
    ]
    r0 = e.update.iloc[0]
    label = e.update.index[0]
    example = (
        f"      e.g. row {label}: {fmt(r0[f'ep_{t - 1}_pre'])} + "
        f"{nu} x {fmt(r0[f'ep_{t}_leaf_output'])}"
        f" = {fmt(r0[f'ep_{t}_pre'])}"
    )
    if clf:
        example += f", p = sigmoid({fmt(r0[f'ep_{t}_pre'])}) = {fmt(r0[f'ep_{t}_prob'])}"
    out.append(example)
    return out
