"""What a fitted model is, and the tutorial's math it is made of.

    formulas.py     the tutorials' equations (w*, gain, structure score), each citing its
                    seed: the one home of the math
    losses.py       each objective: g, h, base score, link; the one sigmoid
    routing.py      which way a row goes: each library's own comparison, in one form (x < T)
    tree.py         Tree: flat node arrays (threshold and set splits), its rule, apply,
                    predict, path, to_frame
    model.py        Model: trees by round and class, base margins, link, origin; every
                    margin any view shows is computed here
    format.py       the one formatter of numbers, thresholds and rules
    _validate.py    what a valid tree is, checked before any compiled code walks one
    _tree_numba.py  the compiled twins of Tree.apply and the margin sum (optional: numba)
    _sets_numba.py  the compiled walk of a tree with set splits (x ∈ S; optional: numba)

Nothing here imports the engine or anything that shows or wraps a model.
"""

from . import format, formulas, losses, routing
from ._validate import (
    MAX_DEPTH,
    MAX_FEATURES,
    ModelFileError,
    check_count,
    check_imported_tree,
    check_sets,
    check_structure,
    check_tree,
    check_values,
    float_array,
    int_array,
    shorten,
)
from .model import FITTED_HERE, MADE_FROM_TREES, Model, add_rounds, round_and_class, tree_number
from .tree import NODE_COLUMNS, Tree, TreeBuilder, add_tree_values, as_float32_matrix

__all__ = [
    "format",
    "formulas",
    "losses",
    "routing",
    "Model",
    "FITTED_HERE",
    "MADE_FROM_TREES",
    "add_rounds",
    "round_and_class",
    "tree_number",
    "Tree",
    "TreeBuilder",
    "NODE_COLUMNS",
    "add_tree_values",
    "as_float32_matrix",
    "ModelFileError",
    "MAX_DEPTH",
    "MAX_FEATURES",
    "check_count",
    "check_imported_tree",
    "check_sets",
    "check_structure",
    "check_tree",
    "check_values",
    "float_array",
    "int_array",
    "shorten",
]
