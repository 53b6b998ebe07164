"""The Troll 2 data with its colours as one column of categories: the split a tree makes
there natively (a set of colours), beside the tutorial's one-hot columns."""

from __future__ import annotations

import numpy as np

from ...core.format import format_number, split_rule
from ...estimators import BoostingClassifier
from .. import datasets

__all__ = ["troll2_native_note"]


def troll2_native_note(n_estimators=2, learning_rate=0.8, max_depth=2):
    """A note, worked out now: XGBoost-style boosting (the comparison's settings: λ = 0,
    min_child_weight = 0, base_score 4/6) on ``favorite_color`` as one categorical column
    and on its one-hot columns; their first roots and how far their predictions part."""
    df = datasets.troll2()
    y = df["love_troll2"]
    native_X = df.drop(columns="love_troll2")
    native_X["favorite_color"] = native_X["favorite_color"].astype("category")
    onehot_X, _ = datasets.troll2_xy()
    settings = dict(n_estimators=n_estimators, learning_rate=learning_rate, max_depth=max_depth,
                    reg_lambda=0.0, min_child_weight=0.0, base_score=4 / 6,
                    tree_method="hist")  # fmt: skip
    native = BoostingClassifier(enable_categorical=True, **settings).fit(native_X, y)
    onehot = BoostingClassifier(**settings).fit(onehot_X, y)
    tree, other = native.trees_[0], onehot.trees_[0]
    n_colours = len(native_X["favorite_color"].cat.categories)
    gap = float(np.abs(native.predict_proba(native_X) - onehot.predict_proba(onehot_X)).max())
    limit = native.params_.max_cat_to_onehot
    how = (
        f"with {n_colours} colours, fewer than max_cat_to_onehot = {limit}, a native split "
        "tries one colour against the others: the partitions the one-hot columns offer"
        if n_colours < limit
        else "the colours sorted by w* = −G/(H+λ) and each cut of that order tried"
    )
    return (
        "The same data with favorite_color kept as one column of categories "
        "(enable_categorical=True, tree_method='hist', the XGBoost-style settings of the "
        f"comparison): the first tree's root splits {split_rule(tree, 0)}, gain "
        f"{format_number(tree.gain[0], 6)}; on the one-hot columns it splits "
        f"{split_rule(other, 0)}, gain {format_number(other.gain[0], 6)}. {how[0].upper()}"
        f"{how[1:]}; the two models' probabilities differ by at most {format_number(gap, 6)}."
    )
