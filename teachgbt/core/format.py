"""One formatter for the numbers, rules and category sets every view shows.

The walkthrough's text, the tree diagrams, the text tree, ``explain``,
``check``, ``display`` and ``plot`` all print a threshold, a rule or a tree's
statistic through these functions, so the same split reads the same
everywhere: ``age < 38``, never ``age < 38.0`` in one place and ``age < 38``
in another.
"""

from __future__ import annotations

import math

import numpy as np

from .routing import DEFAULT_RULE, rule_of

__all__ = [
    "format_number",
    "format_threshold",
    "exact_threshold",
    "format_rule",
    "format_category",
    "format_set",
    "format_set_rule",
    "format_value",
    "split_rule",
]

# a threshold prints as a plain decimal inside this range of magnitudes, else in e-notation
_PLAIN_MIN, _PLAIN_MAX = 1e-4, 1e9
# a set of more categories than this is shortened to its first ones and its size
SET_SHOWN = 4


def format_number(x, precision=3):
    """``x`` with at most ``precision`` decimals, trailing zeros dropped (never ``-0``)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = f"{x:.{int(precision)}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def format_threshold(t, rule=DEFAULT_RULE):
    """The shortest decimal that reads back as the same threshold, in the precision the
    tree's library keeps it: float32 for XGBoost's rule (so no ``0.5`` printed for a
    float32 0.50000006), float64 for the ``≤`` rules (LightGBM, scikit-learn), as the
    library writes it. This text is exactly the rule the tree applies."""
    x = np.float32(t) if rule_of(rule).op == "<" else np.float64(t)
    if x == 0 or _PLAIN_MIN <= abs(x) < _PLAIN_MAX:
        return np.format_float_positional(x, unique=True, trim="-")
    return np.format_float_scientific(x, unique=True, trim="-")


def exact_threshold(t, rule=DEFAULT_RULE):
    """The threshold the tree stores, to every digit float64 tells apart: what a view shows
    on hover beside ``format_threshold``'s reading (the float32 that reads ``0.066259995``
    is 0.06625999510288239). For the ``≤`` rules the two are the same number."""
    x = np.float64(np.float32(t)) if rule_of(rule).op == "<" else np.float64(t)
    if x == 0 or _PLAIN_MIN <= abs(x) < _PLAIN_MAX:
        return np.format_float_positional(x, unique=True, trim="-")
    return np.format_float_scientific(x, unique=True, trim="-")


def format_rule(feature, threshold, rule=DEFAULT_RULE):
    """The rule of a split, ``feature < threshold`` (``≤`` for the libraries that compare
    so): rows for which it holds go left."""
    return f"{feature} {rule_of(rule).op} {format_threshold(threshold, rule)}"


def format_category(label):
    """A category as a rule shows it: its name, or its code (a whole number)."""
    if isinstance(label, (bool, np.bool_)):
        return str(label)
    if isinstance(label, (int, np.integer)):
        return str(int(label))
    if isinstance(label, (float, np.floating)):
        return format_number(label, 6)
    return str(label)


def format_value(x, categories=None, rule=DEFAULT_RULE):
    """A feature's value as a row shows it: ``missing``, the category a code names (with
    ``categories``, the feature's; "unseen" for a code none has), or the number as the
    trees of ``rule`` read it, through the threshold's formatter (``17.06``, the float32
    an XGBoost tree compares, not ``17.059999``)."""
    x = float(x)
    if math.isnan(x):
        return "missing"
    if categories is None:
        return format_threshold(x, rule)
    if x == int(x) and 0 <= x < len(categories):
        return format_category(categories[int(x)])
    # −1: a category the model never saw, as a DataFrame or CSV is read; else the code
    return "unseen" if x == -1 else f"unseen ({format_number(x, 6)})"


def format_set(labels, full=False):
    """``{red, blue}``; with more than ``SET_SHOWN`` categories (unless ``full``) the first
    few and the count: ``{a, b, c, … 12 in all}``."""
    shown = [format_category(v) for v in labels]
    if not full and len(shown) > SET_SHOWN:
        return "{" + ", ".join(shown[: SET_SHOWN - 1]) + f", … {len(shown)} in all}}"
    return "{" + ", ".join(shown) + "}"


def format_set_rule(feature, labels, full=False):
    """The rule of a set split, ``colour ∈ {red, blue}``: rows for which it holds go left."""
    return f"{feature} ∈ {format_set(labels, full)}"


def split_rule(tree, node, full=False):
    """The rule of split node ``node`` of ``tree``, with the tree's own feature name; a set
    split's set shortened unless ``full``."""
    node = int(node)
    name = tree.feature_name(int(tree.feature[node]))
    if node in tree.sets:
        return format_set_rule(name, tree.set_labels(node), full)
    return format_rule(name, tree.threshold[node], tree.rule)
