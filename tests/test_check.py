"""The answer checker accepts 3 significant digits, rejects 3 % off, and names the usual
mistakes."""

import numpy as np
import pytest

import teachgbt.teach.check as C


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
        # hint first: neither the value nor the worked solution until reveal=True
        assert "not quite" in str(r) and "0.706" not in str(r) and "0.889 + 1" not in str(r)
        assert r._repr_latex_() is None
        shown = C.leaf_weight(wrong, G=G, H=H, reg_lambda=lam, reveal=True)
        assert "0.705882" in str(shown) and "−(-1.333) / (0.889 + 1)" in str(shown)
        assert "0.889 + 1" in shown._repr_latex_()
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
    assert C.split_gain(float(f"{exact:.3g}"), **kw).correct
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


# seed 004 (and DESIGN §5), row 0 — the tutorial's two decimals, or 3 significant digits
SEED_004_ROW0 = {
    "ep_0_pre": 0.69,  # log(4/2)
    "ep_0_prob": 0.67,
    "ep_1_residual": 0.333,  # 1 − 2/3 (the tutorial's 0.33 is 1 % off)
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
    assert not wrong.correct and "1.5" not in str(wrong)
    assert "= 1.5" in str(C.epoch(1.4, troll, "ep_1_leaf_output", 0, reveal=True))
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


# ------------------------------------------------------------ exercises in the lessons
def test_an_unanswered_exercise_states_the_question_and_does_not_fail(monkeypatch):
    monkeypatch.delenv(C.STRICT_ENV, raising=False)
    r = C.leaf_weight(None, G=-4 / 3, H=8 / 9, reg_lambda=1.0)
    assert not r.answered and not r.correct
    assert "work out w* = −G/(H+λ) for G = -1.333, H = 0.889, λ = 1" in str(r)
    assert "not answered yet" in str(r) and "0.706" not in str(r)  # no solution given away
    assert r._repr_latex_() is None


def test_strict_mode_raises_on_a_missing_or_wrong_answer(monkeypatch, capsys):
    monkeypatch.setenv(C.STRICT_ENV, "1")
    with pytest.raises(C.CheckFailed, match="not answered yet"):
        C.leaf_weight(None, G=-4 / 3, H=8 / 9)
    with pytest.raises(C.CheckFailed, match="not quite"):
        C.leaf_weight(-0.71, G=-4 / 3, H=8 / 9)
    assert C.leaf_weight(0.71, G=-4 / 3, H=8 / 9).correct
    assert "teachgbt.teach.check: accepted w* = 0.71" in capsys.readouterr().err


SLIPS = [
    # (result of a wrong answer, the words its feedback must contain)
    (C.split_gain(34.5, G_L=-6, H_L=3, G_R=-21, H_R=2), "XGBoost's loss_chg"),
    (C.split_gain(0.5 * (12 + 220.5 - 145.8), G_L=-6, H_L=3, G_R=-21, H_R=2), "λ is missing"),
    (C.split_gain(17.25, G_L=-6, H_L=3, G_R=-21, H_R=2, gamma=1), "γ is missing"),
    (C.split_gain(15.25, G_L=-6, H_L=3, G_R=-21, H_R=2, gamma=1), "gamma / 2"),
    (C.leaf_weight(1.5, G=-1.5, H=1.0, reg_lambda=1.0), "λ is missing"),
    (C.leaf_weight(-0.75, G=-1.5, H=1.0, reg_lambda=1.0), "the sign"),
    (C.leaf_weight(0.75, G=-1.5, H=1.0, reg_lambda=1.0, reg_alpha=0.5), "α is missing"),
    (C.structure_score(-4.255, G=[-2, -0.1, 3], H=[1, 1, 3]), "the ½ is missing"),
    (C.gradient(0.33, y=1, margin=0.6931, loss="logistic"), "y − p is the residual"),
    (C.gradient(-0.3, y=1, margin=0.6931, loss="logistic"), "0.7"),
    (C.gradient(0.21, y=1, margin=0.6931, loss="logistic", order=2), "0.7"),
    (C.gradient(-4.0, y=3, margin=1, loss="squared"), "tutorials' (y − ŷ)²"),
    (C.gradient(2.0, y=3, margin=1, loss="squared"), "residual"),
    (C.gradient(2.0, y=3, margin=1, loss="squared", order=2), "tutorials' (y − ŷ)²"),
    # the slips issue 19 found misnamed or accepted
    (C.leaf_weight(4 / 3, G=-4.0, H=2.0, reg_lambda=1.0, reg_alpha=1.0), "α is missing"),
    (C.split_gain(4 / 3, G_L=1, H_L=0.75, G_R=-1, H_R=0.75), "λ is missing"),
    (C.recovered(29.7501, "gain", loss_chg=60.5002, gamma=0.5), "gamma subtracted whole"),
    (C.loss(np.log10(2), y=[1], y_hat=[0.0], kind="logistic"), "log base 10"),
    (C.margin_update(0.5 + 0.09 * 2, margin=0.5, weight=2, learning_rate=0.3), "applied twice"),
    (C.margin_update(2.5, margin=0.5, weight=2, learning_rate=0.3), "learning rate is missing"),
    (C.loss(2 / 3, y=[1, 0, 1], y_hat=[1, 1, 0]), "mean"),
    (C.loss(1.0, y=[1, 0, 1], y_hat=[1, 1, 0]), "½"),
    (C.complexity(8.01, w=[2, 0.1, -1], gamma=1), "½ in front of λ"),
    (C.complexity(2.505, w=[2, 0.1, -1], gamma=1), "γT is missing"),
]


@pytest.mark.parametrize("result, words", SLIPS)
def test_wrong_answers_get_feedback_on_the_likely_slip(result, words):
    assert not result.correct and result.slip and words in result.slip, (result.slip, words)
    assert words in str(result)
    value = f"{result.expected:.6g}".rstrip("0")
    assert "reveal=True" in str(result) and f"it is {value}" not in str(result)


def test_a_wrong_answer_with_no_named_slip_gets_a_hint():
    r = C.leaf_weight(0.2, G=-4 / 3, H=8 / 9, reg_lambda=1.0)
    assert r.slip is None and "Hint: work it again from w* = −G / (H + λ)" in str(r)
    r = C.leaf_weight(None, G=-4 / 3, H=8 / 9, reg_lambda=1.0, reveal=True)
    assert "the answer: w* = 0.705882" in str(r) and r._repr_latex_()


def test_a_slip_is_never_inside_the_tolerance():
    # 13.3: γ subtracted whole is 0.25 from the exact value, well inside 1 % of 30
    assert not C.recovered(29.7501, "gain", loss_chg=60.5002, gamma=0.5).correct
    assert C.recovered(30.0, "gain", loss_chg=60.5002, gamma=0.5).correct


def test_slips_with_one_number_are_named_together():
    r = C.leaf_weight(1.0, G=-3.0, H=2.0, reg_lambda=1.0, reg_alpha=1.0)
    assert "λ is missing" in r.slip and "α is missing" in r.slip


def test_choice_questions_hint_first_and_reveal_on_request(monkeypatch):
    monkeypatch.delenv(C.STRICT_ENV, raising=False)
    kw = dict(question="Why?", choices=["one", "two"], right="b", why="because two")
    assert C.choice("b", **kw).correct and "because two" in str(C.choice("b", **kw))
    wrong = C.choice("a", slips={"a": "one is too few"}, **kw)
    assert not wrong.correct and "one is too few" in str(wrong) and "(b)" not in str(wrong)
    assert "(b) two" in str(C.choice("a", reveal=True, **kw))
    assert "(a) one" in str(C.choice(None, **kw)) and "(b) two" in str(C.choice(None, **kw))
    with pytest.raises(ValueError, match="one letter"):
        C.choice("z", **kw)


def test_new_checkers_accept_the_right_numbers():
    import teachgbt as tg

    assert C.loss(2.0, y=[1, 0, 1], y_hat=[1, 1, 0]).correct
    assert C.loss(0.13 + 0.31 + 0.97, y=[1, 0, 1], y_hat=[2, -1, -0.5], kind="logistic").correct
    assert C.complexity(5.505, w=[2, 0.1, -1], gamma=1).correct
    assert C.gradient(-2 / 3 + 0.3333, y=1, margin=0.6931, loss="logistic").correct
    assert C.gradient(2 / 9, y=1, margin=0.6931, loss="logistic", order=2).correct
    assert C.margin_update(1.1, margin=0.5, weight=2, learning_rate=0.3).correct
    t1 = tg.Tree.from_rules(("age < 15", ("is_male < 0.5", 0.1, 2.0), -1.0), ["age", "is_male"])
    t2 = tg.Tree.from_rules(("is_male < 0.5", -0.9, 0.9), ["age", "is_male"])
    assert C.prediction(2.9, [t1, t2], [10, 1]).correct
    r = C.prediction(1.45, [t1, t2], [10, 1])
    assert not r.correct and "average" in r.slip
    assert "first tree alone" in C.prediction(2.0, [t1, t2], [10, 1]).slip
    with pytest.raises(ValueError, match="kind must be"):
        C.loss(0.0, [1], [1], kind="hinge")


def test_troll2_slips(troll):
    assert "0.7" in C.epoch(1.4, troll, "ep_1_leaf_output", 0).slip
    assert "the sign" in C.epoch(-0.33, troll, "ep_1_residual", 0).slip
    assert "0.7" in C.epoch(0.3, troll, "ep_1_residual", 0).slip
    ep = troll.trace_.epochs()
    twice = ep.at[0, "ep_0_pre"] + 0.64 * ep.at[0, "ep_1_leaf_output"]
    assert "applied twice" in C.epoch(twice, troll, "ep_1_pre", 0).slip
    # seed 004's central confusion, both ways, and the leaf output's slips
    assert "log-odds" in C.epoch(4 / 6, troll, "ep_0_pre", 0).slip
    assert "base 10" in C.epoch(np.log10(2), troll, "ep_0_pre", 0).slip
    assert "the log-odds" in C.epoch(ep.at[0, "ep_1_pre"], troll, "ep_1_prob", 0).slip
    assert "probability" in C.epoch(ep.at[0, "ep_1_prob"], troll, "ep_1_pre", 0).slip
    out = ep.at[0, "ep_1_leaf_output"]
    assert "before the learning rate" in C.epoch(0.8 * out, troll, "ep_1_leaf_output", 0).slip
    rows = ep["ep_1_leaf_index"] == ep.at[0, "ep_1_leaf_index"]
    res = ep.loc[rows, "ep_1_residual"]
    assert "Σ p(1 − p)" in C.epoch(res.sum(), troll, "ep_1_leaf_output", 0).slip
    assert "mean residual" in C.epoch(res.mean(), troll, "ep_1_leaf_output", 0).slip


def test_a_gbdt_regressors_leaf_is_the_mean_residual():
    import teachgbt as tg

    X, y = tg.datasets.ice_cream_xy()
    m = tg.BoostingRegressor(algorithm="gbdt", n_estimators=1, max_depth=1, learning_rate=0.8)
    m.fit(X, y)
    ep = m.trace_.epochs()
    rows = ep["ep_1_leaf_index"] == ep.at[0, "ep_1_leaf_index"]
    mean = float(np.mean(y[rows.to_numpy()] - np.mean(y)))
    r = C.epoch(mean, m, "ep_1_leaf_output", 0, reveal=True)
    assert r.correct and "mean residual = Σ residual / n" in str(r) and "p(1" not in str(r)
    assert "mean" in C.epoch(mean * rows.sum(), m, "ep_1_leaf_output", 0).slip
    assert "mean" in C.epoch(float(np.sum(y)), m, "ep_0_pre", 0).slip


def test_latex_has_no_escape_inside_text():
    import re

    tex = C.split_gain(1.0, G_L=1, H_L=0.75, G_R=-1, H_R=0.75, reveal=True)._repr_latex_()
    inside = re.findall(r"\\text\{([^{}]*)\}", tex)
    assert inside and not any("\\" in t for t in inside), inside


def test_softmax_probability_and_its_slips():
    F = [1.0, 0.0, -1.0]
    exact = np.e / (np.e + 1 + np.exp(-1))  # 0.665
    assert C.softmax_probability(float(f"{exact:.3g}"), F, 0).correct
    assert C.softmax_probability(exact, [f + 5 for f in F], 0).correct  # a shift changes nothing
    for wrong, slip in ((0.73, "σ(F_k)"), (1 / 3, "1/K"), (np.e / (1 + np.exp(-1)), "own term")):
        r = C.softmax_probability(wrong, F, 0)
        assert not r.correct and slip in r.slip, wrong
    with pytest.raises(ValueError, match="class_ must be a class index from 0 to 2"):
        C.softmax_probability(0.5, F, 3)


def test_softmax_gradient_and_hessian_are_xgboosts():
    F, y, k = [0.33, 0.04, -0.37], 2, 2
    p = np.exp(F[k]) / np.exp(F).sum()
    assert C.gradient(float(f"{p - 1:.3g}"), y, F, loss="softmax", class_=k).correct
    assert C.gradient(float(f"{p:.3g}"), 0, F, loss="softmax", class_=k).correct  # y_k = 0
    h = C.gradient(float(f"{p * (1 - p):.3g}"), y, F, loss="softmax", order=2, class_=k)
    assert not h.correct and "XGBoost doubles it" in h.slip
    h2 = float(f"{2 * p * (1 - p):.3g}")
    assert C.gradient(h2, y, F, loss="softmax", order=2, class_=k).correct
    sig = 1 / (1 + np.exp(-F[k]))
    assert "not σ(F_k)" in C.gradient(sig - 1, y, F, loss="softmax", class_=k).slip
    assert "y − p" in C.gradient(1 - p, y, F, loss="softmax", class_=k).slip


def test_vote_error_is_the_binomial_sum_with_ties_as_half():
    from teachgbt.show.plot import majority_vote_error

    assert C.vote_error(0.216, 0.3, 3).correct and C.vote_error(0.0264, 0.3, 21).correct
    for n in (1, 2, 4, 5, 10, 21):
        for p in (0.1, 0.45, 0.6):
            assert C.vote_error(None, p, n).expected == pytest.approx(majority_vote_error(p, n))
    early = C.vote_error(1 - 0.7**3, 0.3, 3)  # from ⌊n/2⌋ = 1 instead of 2
    assert not early.correct and "one too early" in early.slip
    assert "half" in C.vote_error(0.0837, 0.3, 4).slip  # the tie left out
    assert "C(n, k)" in C.vote_error(0.3**2 * 0.7 + 0.3**3, 0.3, 3).slip
    with pytest.raises(ValueError, match="whole number"):
        C.vote_error(0.1, 0.3, 2.5)


@pytest.fixture(scope="module")
def ice_cream_tree():
    """One depth-2 tree on two features, squared error, λ = 0: covers are row counts."""
    import pandas as pd

    import teachgbt as tg

    X = pd.DataFrame({"sunny": [0, 0, 0, 1, 1, 1, 1, 1], "weekend": [0, 1, 1, 0, 0, 1, 1, 1]})
    y = np.array([10, 20, 24, 30, 34, 50, 56, 62.0])
    params = dict(n_estimators=1, max_depth=2, learning_rate=1.0, reg_lambda=0, base_score=0)
    return X, tg.BoostingRegressor(**params).fit(X, y)


def test_contribution_worked_by_hand(ice_cream_tree):
    import teachgbt as tg

    X, model = ice_cream_tree
    # leaves 10 (1 row), 22 (2), 32 (2), 56 (3); E[root] = 35.75, E[not sunny] = 18,
    # E[sunny] = 46.4; the cloudy weekday: v({weekend}) = (3·10 + 5·32)/8 = 23.75
    shap = 0.5 * (18 - 35.75) + 0.5 * (10 - 23.75)  # -15.75
    assert C.contribution(shap, model, X.iloc[[0]], "sunny").correct
    assert C.contribution(32 - 46.4, model, X.iloc[3], "weekend", method="path").correct
    saabas = C.contribution(18 - 35.75, model, X.iloc[0], "sunny")
    assert not saabas.correct and "path (Saabas)" in saabas.slip
    assert "sign" in C.contribution(15.75, model, X.iloc[0], "sunny").slip
    both = tg.explain.contributions(model, X)
    for row in range(len(X)):
        for f in ("sunny", "weekend"):
            assert C.contribution(None, model, X.iloc[row], f).expected == pytest.approx(
                both.at[row, f]
            )
    with pytest.raises(ValueError, match="unknown feature 'rain'"):
        C.contribution(1.0, model, X.iloc[0], "rain")
    with pytest.raises(ValueError, match="round t must be a whole number from 1 to 1"):
        C.contribution(1.0, model, X.iloc[0], "sunny", t=2)


def test_contribution_takes_a_round_and_a_class():
    """t is a round: with three classes, class_ picks the class's tree of round t, and the
    rounds' contributions add up to the model's (SHAP is additive over trees)."""
    import teachgbt as tg

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(120, 3)), 1)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    model = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y)
    x = X[[5]]
    whole = tg.explain.contributions(model, x, class_=2).iloc[0]
    for j in range(3):
        per_round = [
            C.contribution(None, model, x, f"f{j}", t, class_=2).expected for t in (1, 2, 3)
        ]
        assert sum(per_round) == pytest.approx(whole[f"f{j}"], abs=1e-6)
    res = C.contribution(None, model, x, "f0", 2, class_=1, reveal=True)
    assert "round 2's tree of class 1" in str(res)
    with pytest.raises(ValueError, match="pass class_="):
        C.contribution(None, model, x, "f0", 2)


def test_recovered_from_a_stored_model():
    assert C.recovered(0.5, "weight", value=0.15, learning_rate=0.3).correct
    assert "divide by η" in C.recovered(0.045, "weight", value=0.15, learning_rate=0.3).slip
    assert C.recovered(-2.0, "G", weight=0.5, H=3.0, reg_lambda=1.0).correct
    assert "λ is missing" in C.recovered(-1.5, "G", weight=0.5, H=3.0, reg_lambda=1.0).slip
    assert "sign" in C.recovered(2.0, "G", weight=0.5, H=3.0, reg_lambda=1.0).slip
    assert C.recovered(1.0, "gain", loss_chg=3.0, gamma=1.0).correct
    assert "gamma / 2" in C.recovered(0.5, "gain", loss_chg=3.0, gamma=1.0).slip
    assert "½ is missing" in C.recovered(2.0, "gain", loss_chg=3.0, gamma=1.0).slip
    with pytest.raises(ValueError, match="needs loss_chg=, gamma="):
        C.recovered(1.0, "gain", loss_chg=3.0)


# ------------------------------------------------------------ issue 28: a checker to grade by
@pytest.mark.parametrize("exact", [0.00625, 0.0579, 0.07, 0.2014, 1.7925, 40.4333, 1234.5])
def test_three_significant_digits_pass_and_three_percent_off_does_not(exact):
    """The tolerance is 1 % of the value (at least ±FLOOR): written to 3 or 4 significant
    digits an answer is right; 3 % or 10 % off, the other sign, or 0 it is wrong."""
    kw = dict(loss_chg=2 * exact, gamma=0.0)  # a checker whose answer is ``exact``
    assert C.recovered(None, "gain", **kw).expected == pytest.approx(exact)
    for written in (float(f"{exact:.3g}"), float(f"{exact:.4g}")):
        assert C.recovered(written, "gain", **kw).correct, written
    for wrong in (exact * 1.03, exact * 0.97, exact * 1.1, exact * 0.9, -exact, 0.0):
        assert not C.recovered(wrong, "gain", **kw).correct, wrong
    assert C.recovered(None, "gain", **kw).tolerance == max(C.RELATIVE * exact, C.FLOOR)


def test_near_zero_the_floor_is_the_yardstick():
    r = C.margin_update(None, margin=0.1, weight=-1.0, learning_rate=0.1)  # exactly 0
    assert abs(r.expected) < 1e-12 and r.tolerance == C.FLOOR
    assert C.margin_update(0.00005, margin=0.1, weight=-1.0, learning_rate=0.1).correct
    assert not C.margin_update(0.0003, margin=0.1, weight=-1.0, learning_rate=0.1).correct


def test_the_sign_of_a_gain_is_the_pruning_decision():
    # a split whose gain is −0.00625: pruned. 0 and a small positive gain are wrong
    kw = dict(G_L=-1.0, H_L=1.0, G_R=-1.0, H_R=1.0, reg_lambda=1.0)  # ½[½ + ½ − 4/3] = −1/6
    kw["gamma"] = -1 / 6 + 0.00625  # γ < 0 only to land the gain on −0.00625
    exact = C.split_gain(None, **kw).expected
    assert exact == pytest.approx(-0.00625)
    assert C.split_gain(-0.00625, **kw).correct and C.split_gain(-0.0062, **kw).correct
    for wrong in (0.0, 0.003, 0.00625, -0.0066):
        assert not C.split_gain(wrong, **kw).correct, wrong
    assert "pruning removes" in C.split_gain(0.00625, **kw).slip
    # recovered gains too: ½(loss_chg − gamma) below 0 is a pruned split
    assert not C.recovered(0.00005, "gain", loss_chg=1.0, gamma=1.00002).correct


def test_the_wrong_answers_issue_28_found_accepted_are_rejected_and_named():
    # 1.2's logistic loss 0.2014 (y = 1 at ŷ = 1.5): 0.2075 is 3 % off
    assert not C.loss(0.2075, y=[1], y_hat=[1.5], kind="logistic").correct
    # 8.1: five voters at 20 %: only the k = 3 term, 0.0512, for 0.0579
    r = C.vote_error(0.0512, 0.2, 5)
    assert not r.correct and "only one term" in r.slip
    assert "percentage" in C.vote_error(5.79, 0.2, 5).slip
    # 5.3's 0.07 (η·w* = 0.1 × 0.7): neither 0.06 nor 0.079; −0.02 is not −0.03
    for wrong in (0.06, 0.079):
        assert not C.margin_update(wrong, margin=0.0, weight=0.7, learning_rate=0.1).correct
    assert not C.margin_update(-0.02, margin=0.0, weight=-0.3, learning_rate=0.1).correct
    # 6.4: 40.4 for 40.4333 was rejected by an absolute tolerance
    r = C.margin_update(40.4, margin=35.75, weight=(40.4333 - 35.75) / 0.8, learning_rate=0.8)
    assert r.correct and r.expected == pytest.approx(40.4333)


NEW_SLIPS = [
    # 4.2: |G| + α for |G| − α was told "λ is missing"
    (C.leaf_weight(-(4.5 + 1) / 3, G=4.5, H=2.0, reg_lambda=1.0, reg_alpha=1.0), "α added"),
    # 5.2: the model's gamma subtracted once (½·bracket − 2γ) was told "γ subtracted twice"
    (C.split_gain(0.5 * 3.585 - 1.0, G_L=-2.1, H_L=2, G_R=3, H_R=3, gamma=0.5), "whole"),
    # 5.2: XGBoost's loss_chg − gamma got a generic hint
    (C.split_gain(3.585 - 1.0, G_L=-2.1, H_L=2, G_R=3, H_R=3, gamma=0.5), "loss_chg − gamma"),
    # sign errors got a generic hint (1.2, 3.4, 5.3, 7.3)
    (C.loss(-0.2014, y=[1], y_hat=[1.5], kind="logistic"), "the sign"),
    (C.margin_update(0.05, margin=0.5, weight=1.5, learning_rate=0.3), "the sign"),
    (C.split_gain(-1.7925, G_L=-2.1, H_L=2, G_R=3, H_R=3), "the sign"),
]


@pytest.mark.parametrize("result, words", NEW_SLIPS)
def test_the_slips_issue_28_found_are_named(result, words):
    assert not result.correct and result.slip and words in result.slip, (result.slip, words)
    assert "twice" not in result.slip


def test_epoch_2_slips_a_stale_probability_and_a_start_from_F0(troll):
    """7.4 told a stale p "η applied twice" and a start from F₀ "η missing"."""
    ep = troll.trace_.epochs()
    eta, row = 0.8, 1
    rows = (ep["ep_2_leaf_index"] == ep.at[row, "ep_2_leaf_index"]).to_numpy()
    y = troll.trace_.instances(2)["y"].to_numpy()[rows]
    p0 = ep["ep_0_prob"].to_numpy()[rows]
    lam = 0.0 if troll.algorithm == "gbdt" else troll.params_.reg_lambda
    stale = np.sum(y - p0) / (np.sum(p0 * (1 - p0)) + lam)
    sigmoid = 1 / (1 + np.exp(-(ep.at[row, "ep_1_pre"] + eta * stale)))
    r = C.epoch(sigmoid, troll, "ep_2_prob", row)
    assert not r.correct and "ep_1_prob" in r.slip, r.slip
    from_f0 = 1 / (1 + np.exp(-(ep.at[row, "ep_0_pre"] + eta * ep.at[row, "ep_2_leaf_output"])))
    r = C.epoch(from_f0, troll, "ep_2_prob", row)
    assert not r.correct and "started from F₀" in r.slip, r.slip
    out = ep.at[2, "ep_1_leaf_output"]
    assert "the sign" in C.epoch(-out, troll, "ep_1_leaf_output", 2).slip


def test_a_new_sample_through_every_tree_to_its_probability(troll):
    import pandas as pd

    ep = troll.trace_.epochs()
    f0 = float(ep.at[0, "ep_0_pre"])
    new = pd.DataFrame({"like_popcorn": [True], "age": [70], "favorite_color_blue": [0.0],
                        "favorite_color_green": [0.0], "favorite_color_red": [1.0]})  # fmt: skip
    margin = f0 + sum(float(t.predict(new)[0]) for t in troll.trees_)
    p = 1 / (1 + np.exp(-margin))
    assert p == pytest.approx(troll.predict_proba(new)[0, 1])
    kw = dict(base_score=f0, link="logistic")
    r = C.prediction(float(f"{p:.3g}"), troll.trees_, new, reveal=True, **kw)
    assert r.correct and "leaf" in str(r) and "σ(ŷ)" in str(r)
    assert "log-odds" in C.prediction(margin, troll.trees_, new, **kw).slip
    no_eta = f0 + sum(float(t.weight[t.apply(new)[0]]) for t in troll.trees_)
    r = C.prediction(1 / (1 + np.exp(-no_eta)), troll.trees_, new, **kw)
    assert "learning rate is missing" in r.slip
    with pytest.raises(ValueError, match="link must be"):
        C.prediction(0.5, troll.trees_, new, link="probit")


def test_an_exercise_poses_its_own_question_slips_and_notes(monkeypatch):
    monkeypatch.delenv(C.STRICT_ENV, raising=False)
    with C.asked("The gain of the split printed above?", [(9.0, "nine: a slip of its own")],
                 ["γ = gamma / 2 = 0.5"]):  # fmt: skip
        unanswered = C.split_gain(None, G_L=-2.1, H_L=2, G_R=3, H_R=3, gamma=0.5)
        slipped = C.split_gain(9.0, G_L=-2.1, H_L=2, G_R=3, H_R=3, gamma=0.5)
        shown = C.split_gain(None, G_L=-2.1, H_L=2, G_R=3, H_R=3, gamma=0.5, reveal=True)
    # the question line names the exercise's inputs only, not the γ it asks to work out
    assert "The gain of the split printed above?" in str(unanswered)
    assert "γ = 0.5" not in str(unanswered) and "G_L" not in str(unanswered)
    assert slipped.slip == "nine: a slip of its own"
    assert "γ = gamma / 2 = 0.5" in str(shown)
    assert "γ = 0.5" in str(C.split_gain(None, G_L=-2.1, H_L=2, G_R=3, H_R=3, gamma=0.5))
