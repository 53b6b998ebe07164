"""Explanations: the tutorial's formulas with a model's own numbers filled in, and each
feature's contribution to a prediction.

    tg.explain.leaf(model, t, node)      w* = −G/(H+λ) and η·w*
    tg.explain.split(model, t, node)     the gain of the split made at a node
    tg.explain.prediction(model, x)      base score + the leaves x reaches, the link
    tg.explain.contributions(model, X)   each feature's share of each margin (SHAP or path)

    _builder.py      the one formula builder: each step as text and as LaTeX
    _worked.py       leaf, split, prediction: a model's numbers put into the builder
    attributions.py  TreeSHAP, Saabas paths, Shapley values by subsets, expected values
"""

from . import attributions
from ._builder import (
    Explanation,
    Line,
    bracketed,
    leaf_weight_steps,
    line,
    number,
    split_gain_steps,
    structure_score_steps,
    tex_text,
)
from ._worked import contributions, leaf, prediction, split

__all__ = [
    "attributions",
    "leaf",
    "split",
    "prediction",
    "contributions",
    "Explanation",
    "Line",
    "bracketed",
    "leaf_weight_steps",
    "line",
    "number",
    "split_gain_steps",
    "structure_score_steps",
    "tex_text",
]
