"""The tutorial's equations, checked against numbers worked out by hand."""

from fractions import Fraction as Fr

import numpy as np
import pytest

import teachgbt as tg
from teachgbt import formulas


def test_leaf_weight_by_hand():
    # w* = -G / (H + lambda): G = -6, H = 3, lambda = 1 -> 6/4
    assert formulas.leaf_weight(-6.0, 3.0, reg_lambda=1.0) == pytest.approx(1.5)
    # L1: soft threshold |G| - alpha first: G = -6, alpha = 2 -> -(-4)/4 = 1
    assert formulas.leaf_weight(-6.0, 3.0, reg_lambda=1.0, reg_alpha=2.0) == pytest.approx(1.0)
    # |G| <= alpha: the weight is exactly zero
    assert formulas.leaf_weight(1.5, 3.0, reg_lambda=1.0, reg_alpha=2.0) == 0.0
    # max_delta_step clips the step: 1.5 -> 0.7
    assert formulas.leaf_weight(-6.0, 3.0, 1.0, max_delta_step=0.7) == pytest.approx(0.7)


def test_structure_score_five_instance_table():
    """Seed 002's table: five instances, three leaves {1}, {4}, {2, 3, 5}."""
    g = [Fr(-12, 10), Fr(4, 10), Fr(6, 10), Fr(-8, 10), Fr(10, 10)]
    h = [Fr(1)] * 5
    lam, gamma = Fr(1), Fr(1, 2)
    leaves = [[0], [3], [1, 2, 4]]
    G = [sum(g[i] for i in leaf) for leaf in leaves]  # -1.2, -0.8, 2.0
    H = [sum(h[i] for i in leaf) for leaf in leaves]  # 1, 1, 3
    # by hand: 1.44/2 = 0.72, 0.64/2 = 0.32, 4/4 = 1  ->  -1/2 (2.04) + 3 * 0.5 = 0.48
    expected = -Fr(1, 2) * sum(Gj * Gj / (Hj + lam) for Gj, Hj in zip(G, H)) + gamma * 3
    assert expected == Fr(48, 100)
    got = formulas.structure_score([float(x) for x in G], [float(x) for x in H], 1.0, 0.5)
    assert got == pytest.approx(0.48, abs=1e-12)


def test_split_gain_by_hand():
    # G_L = -6, H_L = 3, G_R = -21, H_R = 2, lambda = 1:
    # 1/2 [36/4 + 441/3 - 729/6] = 1/2 [9 + 147 - 121.5] = 17.25
    assert formulas.split_gain(-6, 3, -21, 2, reg_lambda=1.0) == pytest.approx(17.25)
    assert formulas.split_gain(-6, 3, -21, 2, reg_lambda=1.0, gamma=2.0) == pytest.approx(15.25)
    # XGBoost's loss_chg is the bracket without 1/2 and gamma
    assert formulas.loss_chg(-6, 3, -21, 2, reg_lambda=1.0) == pytest.approx(34.5)


def test_gain_equals_drop_in_structure_score():
    """Gain is the structure score before the split minus after it (seed 000)."""
    rng = np.random.default_rng(1)
    for _ in range(20):
        GL, GR = rng.normal(size=2) * 5
        HL, HR = rng.uniform(0.1, 5, size=2)
        lam, gam = rng.uniform(0, 2), rng.uniform(0, 1)
        before = formulas.structure_score([GL + GR], [HL + HR], lam, gam)
        after = formulas.structure_score([GL, GR], [HL, HR], lam, gam)
        assert formulas.split_gain(GL, HL, GR, HR, lam, gam) == pytest.approx(before - after)


def test_vectorized_matches_scalar():
    G = np.array([-3.0, 0.5, 2.0])
    H = np.array([2.0, 1.0, 0.0])
    w = formulas.leaf_weight(G, H, 1.0, 0.3, 0.0)
    assert np.allclose(w, [formulas.leaf_weight(a, b, 1.0, 0.3) for a, b in zip(G, H)])
    s = formulas.leaf_score(G, H, 1.0)
    assert np.allclose(s, [9 / 3, 0.25 / 2, 0.0])  # H = 0: an empty side scores 0


def test_structure_score_shape_error():
    with pytest.raises(ValueError, match="one entry per leaf"):
        formulas.structure_score([1.0, 2.0], [1.0])


def test_trainer_root_scan_by_hand():
    """Five rows, one feature, squared error from base 0: the splits table by hand.

    g = y_hat - y = -y, h = 1, lambda = 1. G = -27, H = 5, parent score 729/6 = 121.5.
    """
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([1.0, 2.0, 3.0, 10.0, 11.0])
    m = tg.BoostingRegressor(
        n_estimators=1, max_depth=1, learning_rate=1.0, base_score=0.0, min_child_weight=0
    ).fit(X, y)
    splits = m.trace_.splits(1, 0).sort_values("threshold").reset_index(drop=True)
    # boundary after x=1: 1/2[1/2 + 676/5 - 121.5] = 7.1; after 2: 1/2[9/3 + 576/4 - 121.5] = 12.75
    # after 3: 17.25 (see above); after 4: 1/2[256/5 + 121/2 - 121.5] = -4.9
    assert np.allclose(splits["threshold"], [1.5, 2.5, 3.5, 4.5])
    assert np.allclose(splits["gain"], [7.1, 12.75, 17.25, -4.9])
    assert np.allclose(splits["G_L"], [-1, -3, -6, -16])
    assert splits["chosen"].tolist() == [False, False, True, False]
    nodes = m.trace_.nodes(1)
    # leaves: w* = 6/4 = 1.5 (x < 3.5) and 21/3 = 7
    assert np.allclose(nodes.loc[nodes.is_leaf, "weight"], [1.5, 7.0])
    assert np.allclose(m.predict(X), [1.5, 1.5, 1.5, 7.0, 7.0])
    inst = m.trace_.instances(1)
    assert np.allclose(inst["g"], -y) and np.allclose(inst["h"], 1.0)
