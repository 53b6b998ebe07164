"""Tree.from_rules: seed 000's hand-drawn trees as tg.Tree objects that predict and draw."""

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg

NAMES = ["age", "is_male", "uses_computer_daily"]
TREE_1 = ("age < 15", ("is_male < 0.5", 0.1, 2.0), -1.0)
TREE_2 = ("uses_computer_daily < 0.5", -0.9, 0.9)


def test_the_tutorials_two_trees_add_up():
    t1 = tg.Tree.from_rules(TREE_1, feature_names=NAMES)
    t2 = tg.Tree.from_rules(TREE_2, feature_names=NAMES)
    family = pd.DataFrame(
        {"age": [10, 70], "is_male": [1, 1], "uses_computer_daily": [1, 0]},
        index=["boy", "grandpa"],
    )
    total = t1.predict(family) + t2.predict(family)
    assert total == pytest.approx([2.9, -1.9])
    assert t1.n_leaves == 3 and t1.max_depth == 2 and t2.n_leaves == 2
    assert t1.hand_made and np.isnan(t1.G).all()
    assert list(t1.to_frame()["feature"][:2]) == ["age", "is_male"]


def test_hand_made_trees_draw_rules_and_scores_only():
    t1 = tg.Tree.from_rules(TREE_1, feature_names=NAMES)
    dot = t1.to_dot()
    assert '0 [label="#0  age < 15"] ;' in dot
    assert '4 [label="leaf 4\\nscore = 2"' in dot
    assert "G =" not in dot and "missing" not in dot and "nan" not in dot
    assert "leaf 2  |  score = -1" in str(t1)
    ax = t1.plot()
    assert ax is not None


def test_feature_names_default_to_the_order_of_the_rules():
    t = tg.Tree.from_rules(("b < 1", ("a < 2.5", 1, 2), 3))
    assert t.feature_names == ["b", "a"] and t.n_features == 2
    assert t.predict(np.array([[0.0, 3.0], [5.0, 0.0]])) == pytest.approx([2.0, 3.0])
    assert tg.Tree.from_rules(4.0).predict(np.zeros((2, 0))) == pytest.approx([4.0, 4.0])


@pytest.mark.parametrize(
    "rules, match",
    [
        (("age > 15", 1, 2), "feature < threshold"),
        (("age < 15", 1), "a split is a tuple"),
        (("age < 15", 1, "x"), "a leaf is a number"),
        (("height < 1", 1, 2), "unknown feature 'height'"),
    ],
)
def test_bad_rules_are_refused_with_a_reason(rules, match):
    with pytest.raises(ValueError, match=match):
        tg.Tree.from_rules(rules, feature_names=NAMES)


def test_the_family_dataset_holds_the_tutorials_boy_and_grandpa():
    family = tg.datasets.family()
    assert list(family) == NAMES and len(family) == 10
    t1 = tg.Tree.from_rules(TREE_1, feature_names=NAMES)
    t2 = tg.Tree.from_rules(TREE_2, feature_names=NAMES)
    total = pd.Series(t1.predict(family) + t2.predict(family), index=family.index)
    assert total["boy"] == pytest.approx(2.9) and total["grandpa"] == pytest.approx(-1.9)


def test_nodes_are_numbered_as_a_trained_tree_numbers_them():
    """Level by level: the root 0, its children 1 (yes) and 2 (no), then the next level."""
    family = tg.datasets.family().iloc[:5]
    t1 = tg.Tree.from_rules(TREE_1, feature_names=NAMES)
    trained = tg.BoostingRegressor(
        n_estimators=1, max_depth=2, learning_rate=1, reg_lambda=0, min_child_weight=0,
        base_score=0,
    ).fit(family, t1.predict(family))  # fmt: skip
    tree = trained.trees_[0]
    assert list(t1.to_frame()["is_leaf"]) == list(tree.to_frame()["is_leaf"])
    assert list(t1.apply(family)) == list(tree.apply(family)) == [4, 3, 2, 2, 2]
    deep = tg.Tree.from_rules(("b < 1", ("a < 2.5", 1, ("a < 1", 5, 6)), ("b < 3", 3, 4)))
    assert list(deep.left) == [1, 3, 5, -1, 7, -1, -1, -1, -1]
    assert list(deep.value[[3, 5, 6, 7, 8]]) == [1, 3, 4, 5, 6]
    X = np.array([[0.0, 3.0], [0.0, 0.5], [5.0, 0.0], [2.0, 0.0]])
    assert list(deep.predict(X)) == [6, 1, 4, 3]
