"""The tutorial's equations, checked against numbers worked out by hand."""

from fractions import Fraction as Fr

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core import formulas


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


def test_max_delta_step_with_reg_alpha_by_hand():
    """XGBoost 3.2 scores a side at its clipped weight without the L1 term (formulas follows).

    G = -6, H = 3, lambda = 1, alpha = 2, max_delta_step = 0.7: w = clip(4/4) = 0.7;
    score = -(2 G w + (H + lambda) w^2) = 8.4 - 1.96 = 6.44 (with the L1 term, 2 alpha |w|
    less: 3.64).
    """
    kw = dict(reg_lambda=1.0, reg_alpha=2.0, max_delta_step=0.7)
    assert formulas.leaf_weight(-6.0, 3.0, **kw) == pytest.approx(0.7)
    assert formulas.leaf_score(-6.0, 3.0, **kw) == pytest.approx(6.44)
    # a weight that is not clipped (w = 1): still -(2 G w + (H + lambda) w^2) = 12 - 4 = 8,
    # not the soft-thresholded 16/4 = 4
    kw["max_delta_step"] = 5.0
    assert formulas.leaf_score(-6.0, 3.0, **kw) == pytest.approx(8.0)
    # without max_delta_step: the soft-thresholded G^2 / (H + lambda) = 16/4
    kw["max_delta_step"] = 0.0
    assert formulas.leaf_score(-6.0, 3.0, **kw) == pytest.approx(4.0)


def test_min_child_weight_zeroes_a_light_leaf():
    # H = 0.5 < min_child_weight = 1: XGBoost gives the leaf weight 0, so its clipped score is 0
    assert formulas.leaf_weight(-6.0, 0.5, 1.0, min_child_weight=1.0) == 0.0
    assert formulas.leaf_score(-6.0, 0.5, 1.0, max_delta_step=0.7, min_child_weight=1.0) == 0.0
    assert formulas.leaf_weight(-6.0, 1.0, 1.0, min_child_weight=1.0) == pytest.approx(3.0)


def test_tree_gain_is_split_gain_with_half_gamma():
    """The trees' gain ½(loss_chg − gamma) is seed 000's gain with γ = gamma / 2."""
    lc = formulas.loss_chg(-6, 3, -21, 2, reg_lambda=1.0)
    for gamma in (0.0, 2.0, 34.5, 50.0):
        assert formulas.tree_gain(lc, gamma) == pytest.approx(
            formulas.split_gain(-6, 3, -21, 2, reg_lambda=1.0, gamma=gamma / 2)
        )
    assert formulas.tree_gain(lc, 50.0) < 0 < formulas.tree_gain(lc, 2.0)


# ------------------------------------------------------------ twins of the formulas
# Every combination of the parameters that change the leaf math, zeros included.
TWIN_GRID = [
    dict(reg_lambda=lam, reg_alpha=alpha, max_delta_step=mds, min_child_weight=mcw)
    for lam in (0.0, 1.3)
    for alpha in (0.0, 0.5)
    for mds in (0.0, 0.7)
    for mcw in (0.0, 1.0)
]
# float32 arithmetic against float64: a few rounding steps of the largest term
F32_STEPS = 8 * float(np.finfo(np.float32).eps)


def twin_inputs():
    """G of both signs, zero and inside ±alpha; H zero, below and above min_child_weight."""
    rng = np.random.default_rng(7)
    G = np.concatenate([rng.normal(0, 10, 300), [0.0, 0.3, -0.3, 0.5, -0.5, 12.0, -12.0]])
    H = np.concatenate([rng.uniform(0, 3, 300), [0.0, 0.5, 0.99, 1.0, 1.01, 2.0, 0.0]])
    return G, H


def grid_id(kw):
    return "-".join(f"{k}={v}" for k, v in kw.items())


def score_scale(G, H, kw):
    """The size of the terms a side score is computed from (its float32 rounding scale)."""
    w = np.abs(formulas.leaf_weight(G, H, **kw))
    lam = kw["reg_lambda"]
    with np.errstate(divide="ignore", invalid="ignore"):
        plain = np.where(H + lam > 0, G * G / (H + lam), 0.0)
    return np.abs(G) * w + (H + lam) * w * w + plain


@pytest.mark.parametrize("kw", TWIN_GRID, ids=grid_id)
def test_grow_params_twin_is_formulas(kw):
    """GrowParams (every trainer's weights and scores) against formulas, float64 and float32."""
    from teachgbt.engine.grow import GrowParams

    G, H = twin_inputs()
    p64 = GrowParams(**kw, float32=False)
    np.testing.assert_array_equal(p64.side_score(G, H), formulas.leaf_score(G, H, **kw))
    np.testing.assert_array_equal(p64.leaf_weight(G, H), formulas.leaf_weight(G, H, **kw))
    p32 = GrowParams(**kw, float32=True)
    kw32 = p32.formula_params  # XGBoost's parameters are float32
    gap = np.abs(p32.side_score(G, H) - formulas.leaf_score(G, H, **kw32))
    assert np.all(gap <= F32_STEPS * score_scale(G, H, kw32))
    np.testing.assert_array_equal(
        p32.leaf_weight(G, H), np.float32(formulas.leaf_weight(G, H, **kw32))
    )


@pytest.mark.parametrize("kw", TWIN_GRID, ids=grid_id)
def test_compiled_twins_are_formulas(kw):
    """The numba kernels' weight and scores: float64 equal to formulas, float32 bit for bit
    the vectorized float32 twin (GrowParams.side_score)."""
    kernels = pytest.importorskip("teachgbt.engine._hist_numba")
    from teachgbt.engine.grow import GrowParams

    G, H = twin_inputs()
    args = (kw["reg_lambda"], kw["reg_alpha"], kw["max_delta_step"], kw["min_child_weight"])
    weight = [kernels._weight(a, b, *args) for a, b in zip(G, H)]
    np.testing.assert_array_equal(weight, formulas.leaf_weight(G, H, **kw))
    s64 = [kernels.side_score64(a, b, *args) for a, b in zip(G, H)]
    np.testing.assert_array_equal(s64, formulas.leaf_score(G, H, **kw))
    p32 = GrowParams(**kw, float32=True)
    args32 = tuple(p32.formula_params.values())
    s32 = np.array([kernels.side_score32(a, b, *args32) for a, b in zip(G, H)], dtype=np.float32)
    np.testing.assert_array_equal(s32, p32.side_score(G, H))


def test_leaf_weight_of_one_node_is_the_array_formula_bit_for_bit():
    """Python floats (a node's G and H, as the trainers pass them) take a path without numpy
    arrays: the same weight to the last bit and sign, with every penalty, on zeros, signed
    zeros, tiny and huge values, NaN and infinities."""
    import itertools

    rng = np.random.default_rng(0)
    Gs = [*(rng.normal(size=40) * 10), 0.0, -0.0, 1e-300, 1e300, -1e300, np.nan, np.inf, 0.5]
    Hs = [*(np.abs(rng.normal(size=15)) * 10), 0.0, -1.0, 1e-12, np.nan, np.inf, 1.0, 0.5]
    settings = itertools.product([0.0, 1.0, 0.1], [0.0, 0.5], [0.0, 0.7], [0.0, 1.0])
    for lam, alpha, mds, mcw in settings:
        with np.errstate(over="ignore"):
            array = formulas.leaf_weight(
                np.repeat(Gs, len(Hs)), np.tile(Hs, len(Gs)), lam, alpha, mds, mcw
            )
        one = [formulas.leaf_weight(float(G), float(H), lam, alpha, mds, mcw)
               for G in Gs for H in Hs]  # fmt: skip
        assert all(type(w) is float for w in one)
        np.testing.assert_array_equal(np.signbit(one), np.signbit(array))
        np.testing.assert_array_equal(one, array)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_computed_in_place_equals_the_plain_formula(dtype):
    """``losses.sigmoid`` works in one array (for memory); its numbers are those of
    1 / (1 + exp(−m)) written out, bit for bit, with ±inf, NaN and huge margins; a number
    gives a number, a column a column."""
    from teachgbt.core.losses import sigmoid

    rng = np.random.default_rng(5)
    m = (rng.normal(size=20_000) * 40).astype(dtype)
    m[:6] = [np.inf, -np.inf, np.nan, -800.0, 800.0, 0.0]
    one = dtype(1)
    with np.errstate(over="ignore"):
        plain = one / (one + np.exp(-m))
    np.testing.assert_array_equal(sigmoid(m), plain)
    column = m.reshape(-1, 2)[:, 1]  # a strided view
    np.testing.assert_array_equal(sigmoid(column), plain.reshape(-1, 2)[:, 1])
    assert sigmoid(m).dtype == dtype and np.ndim(sigmoid(dtype(2.0))) == 0
    assert sigmoid(2) == 1.0 / (1.0 + np.exp(-2.0))
