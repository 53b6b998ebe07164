"""The answer checker accepts two-decimal hand arithmetic and rejects the usual mistakes."""

import pytest

import teachgbt.check as C


def test_leaf_weight_accepts_hand_answers_and_rejects_mistakes():
    G, H, lam = -4 / 3, 8 / 9, 1.0
    exact = -G / (H + lam)  # 0.70588...
    hand = round(-round(G, 2) / round(round(H, 2) + lam, 2), 2)  # -(-1.33)/1.89 = 0.70
    for answer in (exact, round(exact, 2), hand):
        r = C.leaf_weight(answer, G=G, H=H, reg_lambda=lam)
        assert r.correct and bool(r), answer
    for wrong in (-exact, -G / H, 0.72):  # sign, forgot λ, an arithmetic slip
        r = C.leaf_weight(wrong, G=G, H=H, reg_lambda=lam)
        assert not r.correct, wrong
        assert "not quite" in str(r) and "−(-1.333) / (0.889 + 1)" in str(r)
    r = C.leaf_weight(0.71, G=G, H=H, reg_lambda=lam)
    assert r.expected == pytest.approx(exact)
    assert str(r).startswith("✓ correct: w* = 0.71")
    assert "\\frac{(-1.333)}{0.889 + 1}" in r._repr_latex_()


def test_leaf_weight_with_alpha():
    # L1: G is shrunk towards 0 by α before dividing
    r = C.leaf_weight(-0.5, G=2.0, H=1.0, reg_lambda=1.0, reg_alpha=1.0)
    assert r.correct and r.expected == pytest.approx(-(2.0 - 1.0) / 2.0)
    assert not C.leaf_weight(-1.0, G=2.0, H=1.0, reg_lambda=1.0, reg_alpha=1.0).correct


def test_split_gain_rejects_a_missing_half_or_gamma():
    G_L, H_L, G_R, H_R, lam, gamma = -2 / 3, 10 / 9, 2 / 3, 2 / 9, 1.0, 0.1
    bracket = G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam) - (G_L + G_R) ** 2 / (H_L + H_R + lam)
    exact = 0.5 * bracket - gamma
    kw = dict(G_L=G_L, H_L=H_L, G_R=G_R, H_R=H_R, reg_lambda=lam, gamma=gamma)
    assert C.split_gain(round(exact, 2), **kw).correct
    assert not C.split_gain(round(bracket - gamma, 2), **kw).correct  # forgot ½
    assert not C.split_gain(round(0.5 * bracket, 2), **kw).correct  # forgot γ
    assert not C.split_gain(round(bracket, 2), **kw).correct  # reported loss_chg


def test_structure_score():
    G, H, lam, gamma = [-1.0, 1 / 3, 2 / 3], [2 / 3, 4 / 9, 2 / 9], 0.0, 0.0
    exact = -0.5 * sum(g * g / (h + lam) for g, h in zip(G, H)) + gamma * 3
    assert C.structure_score(round(exact, 2), G=G, H=H, reg_lambda=lam).correct
    assert not C.structure_score(-exact, G=G, H=H, reg_lambda=lam).correct
    assert not C.structure_score(round(exact, 2) + 0.1, G=G, H=H, reg_lambda=lam).correct
    with pytest.raises(ValueError, match="one entry per leaf"):
        C.structure_score(0.0, G=[1.0, 2.0], H=[1.0])


def test_tolerance_can_be_chosen_and_answers_must_be_numbers():
    assert not C.leaf_weight(0.71, G=-4 / 3, H=8 / 9, reg_lambda=1.0, tol=1e-4).correct
    assert C.leaf_weight("0.706", G=-4 / 3, H=8 / 9, reg_lambda=1.0).correct
    with pytest.raises(TypeError, match="must be a number"):
        C.leaf_weight("about 0.7", G=-4 / 3, H=8 / 9)
    with pytest.raises(ValueError, match="NaN"):
        C.leaf_weight(float("nan"), G=-4 / 3, H=8 / 9)


@pytest.fixture(scope="module", params=["xgboost", "gbdt"])
def troll(request, troll2_model):
    return troll2_model(request.param)[0]


# seed 004 (and DESIGN §5), row 0 — worked with two decimals as the tutorial does
SEED_004_ROW0 = {
    "ep_0_pre": 0.69,  # log(4/2)
    "ep_0_prob": 0.67,
    "ep_1_residual": 0.33,
    "ep_1_leaf_output": 1.5,  # Σ residual / Σ p(1 − p), unrounded
    "ep_1_pre": 1.89,  # 0.69 + 0.8 × 1.5
    "ep_1_prob": 0.87,
}


def test_troll2_epoch_values(troll):
    for column, answer in SEED_004_ROW0.items():
        r = C.epoch(answer, troll, column, 0)
        assert r.correct, (column, str(r))
    assert "log(4/2)" in str(C.epoch(0.69, troll, "ep_0_pre", 0))
    # the video's rounded leaf output 1.4 is not what the formula gives
    wrong = C.epoch(1.4, troll, "ep_1_leaf_output", 0)
    assert not wrong.correct and "= 1.5" in str(wrong)
    assert not C.epoch(0.67, troll, "ep_1_residual", 0).correct  # y − p, not p
    leaf = int(troll.trace_.epochs().at[0, "ep_1_leaf_index"])
    assert C.epoch(leaf, troll, "ep_1_leaf_index", 0).correct
    assert not C.epoch(leaf + 1, troll, "ep_1_leaf_index", 0).correct
    assert "favorite_color_red < 0.5? yes" in str(C.epoch(leaf, troll, "ep_1_leaf_index", 0))
    # round 2 from the table's own round-1 values, rounded to two decimals by hand
    ep = troll.trace_.epochs()
    r1, out2 = ep.at[0, "ep_1_pre"], ep.at[0, "ep_2_leaf_output"]
    assert C.epoch(round(round(r1, 2) + 0.8 * round(out2, 2), 2), troll, "ep_2_pre", 0).correct
    with pytest.raises(ValueError, match="unknown column 'ep_9_pre'"):
        C.epoch(0.0, troll, "ep_9_pre", 0)
    with pytest.raises(ValueError, match="row must be from 0 to 5"):
        C.epoch(0.0, troll, "ep_0_pre", 6)
