"""Seed 004's Troll 2 example: the data, its encoding, and the epoch table against scikit-learn."""

import numpy as np
import pandas as pd
import pytest

import teachgbt.teach.datasets as datasets
import teachgbt.teach.walkthrough as walkthrough

ensemble = pytest.importorskip("sklearn.ensemble")

EPOCH_COLUMNS = [
    "ep_0_pre", "ep_0_prob",
    "ep_1_residual", "ep_1_leaf_index", "ep_1_leaf_output", "ep_1_pre", "ep_1_prob",
    "ep_2_residual", "ep_2_leaf_index", "ep_2_leaf_output", "ep_2_pre", "ep_2_prob",
]  # fmt: skip


@pytest.fixture(scope="module")
def gbdt_troll2(troll2_model):
    return troll2_model("gbdt")[0]


# ------------------------------------------------------------------ the data
def test_troll2_is_the_seed_table_with_green_spelled_out():
    df = datasets.troll2()
    assert list(df.columns) == ["like_popcorn", "age", "favorite_color", "love_troll2"]
    assert df["like_popcorn"].tolist() == [True, True, False, True, False, False]
    assert df["age"].tolist() == [12, 87, 44, 19, 32, 14]
    assert df["favorite_color"].tolist() == ["blue", "green", "blue", "red", "green", "blue"]
    assert df["love_troll2"].tolist() == [True, True, False, False, True, True]
    assert pd.api.types.is_bool_dtype(df["like_popcorn"])
    assert pd.api.types.is_bool_dtype(df["love_troll2"])
    assert pd.api.types.is_integer_dtype(df["age"])


def test_one_hot_puts_one_column_per_colour_in_place():
    df = datasets.troll2()
    before = df.copy()
    X = datasets.one_hot(df.drop(columns="love_troll2"))
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is untouched
    assert list(X.columns) == [
        "like_popcorn", "age",
        "favorite_color_blue", "favorite_color_green", "favorite_color_red",
    ]  # fmt: skip
    assert X["favorite_color_red"].tolist() == [0, 0, 0, 1, 0, 0]
    assert (X.filter(like="favorite_color_").sum(axis=1) == 1).all()
    # the same columns as pandas' own one-hot encoding, which puts them last
    dummies = pd.get_dummies(
        df.drop(columns="love_troll2"), columns=["favorite_color"], dtype=float
    )
    pd.testing.assert_frame_equal(X, dummies[X.columns])


def test_troll2_xy():
    X, y = datasets.troll2_xy()
    assert y.name == "love_troll2" and y.tolist() == datasets.troll2()["love_troll2"].tolist()
    assert "love_troll2" not in X.columns and "favorite_color" not in X.columns


def test_one_hot_errors_name_the_column_and_row():
    df = datasets.troll2()
    with pytest.raises(ValueError, match="no column 'colour'"):
        datasets.one_hot(df, columns=["colour"])
    df.loc[4, "favorite_color"] = None
    with pytest.raises(ValueError, match="'favorite_color' is missing a value at row 4"):
        datasets.one_hot(df)
    with pytest.raises(TypeError, match="needs a pandas DataFrame"):
        datasets.one_hot(df.to_numpy())


def test_one_hot_orders_numbers_as_numbers():
    X = datasets.one_hot(pd.DataFrame({"size": [100, 12, 9]}), columns=["size"])
    assert list(X.columns) == ["size_9", "size_12", "size_100"]


# ------------------------------------------------------------------ seed 004's numbers
def test_hand_checked_numbers(gbdt_troll2):
    clf = gbdt_troll2
    ep = clf.trace_.epochs()
    assert list(ep.columns) == EPOCH_COLUMNS
    # F0 = log(odds): 4 of 6 love Troll 2
    np.testing.assert_allclose(ep["ep_0_pre"], np.log(4 / 2))
    np.testing.assert_allclose(ep["ep_0_prob"], 4 / 6)
    # residual = observed − predicted probability
    y = np.array([1, 1, 0, 0, 1, 1])
    np.testing.assert_allclose(ep["ep_1_residual"], y - 4 / 6)
    # leaf outputs Σresidual / Σp(1−p), p(1−p) = (2/3)(1/3) for everyone in epoch 1
    h = (4 / 6) * (2 / 6)
    red = (0 - 4 / 6) / h  # row 3 alone (the only red)
    young = 3 * (1 - 4 / 6) / (3 * h)  # rows 0, 4, 5: not red, age < 38
    old = ((1 - 4 / 6) + (0 - 4 / 6)) / (2 * h)  # rows 1, 2: not red, age > 38
    assert (red, young, old) == pytest.approx((-3.0, 1.5, -0.75))
    np.testing.assert_allclose(ep["ep_1_leaf_output"], [young, old, old, red, young, young])
    # F1 = F0 + ν·f1 with ν = 0.8; DESIGN.md quotes 1.893147 for the first row
    np.testing.assert_allclose(ep["ep_1_pre"], np.log(2) + 0.8 * ep["ep_1_leaf_output"])
    assert ep.loc[0, "ep_1_pre"] == pytest.approx(1.893147, abs=1e-6)
    np.testing.assert_allclose(ep["ep_1_prob"], 1 / (1 + np.exp(-ep["ep_1_pre"])))


def test_epoch_table_matches_sklearn(gbdt_troll2):
    X, y = datasets.troll2_xy()
    clf = gbdt_troll2
    ep = clf.trace_.epochs()
    sk = ensemble.GradientBoostingClassifier(
        n_estimators=2, learning_rate=0.8, max_depth=2, random_state=0
    ).fit(X, y)
    raw = [np.ravel(s) for s in sk.staged_decision_function(X)]
    prob = [s[:, 1] for s in sk.staged_predict_proba(X)]
    y01 = y.to_numpy().astype(float)
    init_prob = np.full(len(y), y01.mean())
    X32 = X.to_numpy(dtype=np.float32)
    for k in (1, 2):
        np.testing.assert_allclose(ep[f"ep_{k}_pre"], raw[k - 1], rtol=0, atol=1e-6)
        np.testing.assert_allclose(ep[f"ep_{k}_prob"], prob[k - 1], rtol=0, atol=1e-6)
        before = init_prob if k == 1 else prob[k - 2]
        np.testing.assert_allclose(ep[f"ep_{k}_residual"], y01 - before, rtol=0, atol=1e-6)
        est = sk.estimators_[k - 1, 0]
        leaf_value = est.tree_.value[est.apply(X32)].ravel()
        np.testing.assert_allclose(ep[f"ep_{k}_leaf_output"], leaf_value, rtol=0, atol=1e-6)
        # the same leaves: rows share a teachgbt leaf exactly when they share a scikit-learn one
        ours, theirs = ep[f"ep_{k}_leaf_index"].to_numpy(), est.apply(X32)
        assert (ours[:, None] == ours[None, :]).tolist() == (
            theirs[:, None] == theirs[None, :]
        ).tolist()
    np.testing.assert_allclose(clf.predict_proba(X), sk.predict_proba(X), rtol=0, atol=1e-6)


def test_statquest_rounding_is_explained():
    # The video's 1.4, −1 and −3.3 come from rounding p0 = 2/3 to 0.7 before dividing
    p = 0.7
    h = p * (1 - p)
    assert round(3 * (1 - p) / (3 * h), 1) == 1.4
    assert round(((1 - p) + (0 - p)) / (2 * h), 0) == -1
    assert round((0 - p) / h, 1) == -3.3
    for text in (walkthrough.STATQUEST_NOTE, walkthrough.__doc__):
        words = " ".join(text.replace("\u2212", "-").split())
        assert "1.4, -1 and -3.3" in words
        assert "1.5, -0.75 and -3.0 unrounded" in words
