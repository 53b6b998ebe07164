"""One formatter for the numbers and rules every view shows.

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

__all__ = ["format_number", "format_threshold", "exact_threshold", "format_rule", "split_rule"]

# a threshold prints as a plain decimal inside this range of magnitudes, else in e-notation
_PLAIN_MIN, _PLAIN_MAX = 1e-4, 1e9


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


def split_rule(tree, node):
    """The rule of split node ``node`` of ``tree``, with the tree's own feature name."""
    node = int(node)
    name = tree.feature_name(int(tree.feature[node]))
    return format_rule(name, tree.threshold[node], tree.rule)
