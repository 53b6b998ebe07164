"""Explanations: the formulas with the model's own numbers, checked against the data."""

import numpy as np
import pytest

import teachgbt as tg
import teachgbt.explain as E
from teachgbt.teach.datasets import troll2_xy as troll2


@pytest.fixture(scope="module")
def troll(troll2_model):
    return troll2_model(reg_lambda=1.0)


def fmt(x):
    """Three decimals, trailing zeros dropped, as a learner would write them."""
    s = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def _round1_sums(m, X, y, node):
    """G, H of a node of tree 1 from the data: g = p0 − y, h = p0(1 − p0)."""
    p0 = 4 / 6
    rows = m.trees_[0].node_mask(X, node)
    g = p0 - y.to_numpy(float)
    return g[rows].sum(), np.full(6, p0 * (1 - p0))[rows].sum()


def test_leaf_fills_in_G_H_lambda(troll):
    m, X, y = troll
    tree = m.trees_[0]
    for leaf in tree.leaves:
        G, H = _round1_sums(m, X, y, leaf)
        w = -G / (H + 1.0)
        ex = E.leaf(m, 1, int(leaf))
        assert ex.value == pytest.approx(w, rel=1e-5)
        s = str(ex)
        # a negative G is put in brackets where it is substituted
        G_sub = f"({fmt(G)})" if G < 0 else fmt(G)
        assert f"= −{G_sub} / ({fmt(H)} + 1)" in s
        w_sub = f"({fmt(w)})" if w < 0 else fmt(w)
        assert f"η·w* = 0.8 × {w_sub} = {fmt(0.8 * w)}" in s
        assert "log-odds, not a probability" in s
        tex = ex._repr_latex_()
        assert tex.startswith("$$\\begin{aligned}") and "\\frac{" in tex


def test_split_gain_matches_the_data(troll):
    m, X, y = troll
    tree = m.trees_[0]
    G_L, H_L = _round1_sums(m, X, y, int(tree.left[0]))
    G_R, H_R = _round1_sums(m, X, y, int(tree.right[0]))
    lam = 1.0
    gain = 0.5 * (
        G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam) - (G_L + G_R) ** 2 / (H_L + H_R + lam)
    )
    ex = E.split(m, 1, 0)
    assert ex.value == pytest.approx(gain, rel=1e-5)
    assert ex.values["loss_chg"] == pytest.approx(2 * gain, rel=1e-5)
    s = str(ex)
    assert "favorite_color_red < 0.5" in s
    assert f"({fmt(G_L)})²/({fmt(H_L)} + 1)" in s  # G_L < 0: in brackets
    assert f"= {fmt(gain)}" in s
    assert "no ½, no γ" in s
    with pytest.raises(ValueError, match="is a leaf"):
        E.split(m, 1, int(tree.leaves[0]))
    with pytest.raises(ValueError, match="round t must be"):
        E.leaf(m, 3, 0)


def test_split_gain_subtracts_gamma():
    ex = E.split_gain_steps(-2.0, 1.0, 3.0, 2.0, reg_lambda=1.0, gamma=0.5)
    want = 0.5 * (4 / 2 + 9 / 3 - 1 / 4) - 0.5
    assert ex.value == pytest.approx(want)
    assert "½ [(-2)²/(1 + 1) + 3²/(2 + 1) − 1²/(3 + 1)] − 0.5" in str(ex)
    assert "½ [2 + 3 − 0.25] − 0.5" in str(ex)


def test_prediction_walks_base_score_and_every_leaf(troll):
    m, X, y = troll
    for i in range(6):
        ex = E.prediction(m, X.iloc[i])
        p = m.predict_proba(X.iloc[[i]])[0, 1]
        assert ex.value == pytest.approx(p, rel=1e-6)
        leaves = [t.value[t.apply(X.iloc[[i]])[0]] for t in m.trees_]
        margin = np.log(2.0) + sum(leaves)  # logit(4/6) = log 2
        assert ex.values["margin"] == pytest.approx(margin, rel=1e-5)
        s = str(ex)
        assert "logit(base_score) = log(0.667 / (1 − 0.667)) = 0.693" in s
        assert f"= {fmt(margin)}" in s and f"= {fmt(1 / (1 + np.exp(-margin)))}" in s
        assert s.count("→ leaf") == 2
    # a dict or a plain array work too; the DataFrame's column order does not matter
    row = X.iloc[0]
    assert E.prediction(m, dict(row)).value == pytest.approx(E.prediction(m, row).value)
    shuffled = X.iloc[[0]][list(reversed(X.columns))]
    assert E.prediction(m, shuffled).value == pytest.approx(E.prediction(m, row).value)
    assert "\\sigma" in E.prediction(m, row.to_numpy())._repr_latex_()
    with pytest.raises(ValueError, match="one instance at a time"):
        E.prediction(m, X)


def test_prediction_of_a_regressor_has_no_sigmoid():
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    y = np.array([1.0, 1.0, 5.0, 5.0])
    r = tg.BoostingRegressor(
        n_estimators=1, max_depth=1, learning_rate=0.5, reg_lambda=0.0, base_score=3.0
    ).fit(X, y)
    ex = E.prediction(r, X[0])
    # one split at 2.5; left leaf w* = −Σ(3 − 1)/2 = −2, value −1, prediction 3 − 1 = 2
    assert ex.value == pytest.approx(2.0)
    assert "σ" not in str(ex)
    assert "margin₀ = base_score = 3" in str(ex)


def test_structure_score_steps():
    ex = E.structure_score_steps([-1.0, 2.0], [1.0, 3.0], reg_lambda=1.0, gamma=0.5)
    assert ex.value == pytest.approx(-0.5 * (1 / 2 + 4 / 4) + 0.5 * 2)
    assert "−½ [(-1)²/(1 + 1) + 2²/(3 + 1)] + 0.5·2" in str(ex)


def test_latex_escapes_feature_names(troll):
    m, _, _ = troll
    tex = E.split(m, 1, 0)._repr_latex_()
    # MathJax shows \text{…} verbatim: an underscore leaves it and is escaped in math mode
    assert r"favorite}\_\text{color}\_\text{red" in tex and "favorite_color_red" not in tex


def test_gbdt_leaf_is_seed_004s_formula():
    X, y = troll2()
    g = tg.BoostingClassifier(algorithm="gbdt", n_estimators=2, learning_rate=0.8, max_depth=2).fit(
        X, y
    )
    tree = g.trees_[0]
    p0 = 4 / 6
    residual = y.to_numpy(float) - p0
    leaves = tree.apply(X)
    for leaf in tree.leaves:
        rows = leaves == leaf
        want = residual[rows].sum() / (p0 * (1 - p0) * rows.sum())  # Σ residual / Σ p(1 − p)
        ex = E.leaf(g, 1, int(leaf))
        assert ex.value == pytest.approx(want, rel=1e-9)
        assert "Σ residual / (Σ p(1−p) + λ)" in str(ex)
    ex = E.prediction(g, X.iloc[0])
    assert ex.value == pytest.approx(g.predict_proba(X.iloc[[0]])[0, 1], rel=1e-9)
    sp = E.split(g, 1, 0)
    assert "drop in the squared error" in str(sp)


def test_split_of_a_multiclass_tree_reads_its_round_and_class_from_the_trace():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_iris(return_X_y=True)
    model = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    tree = model.trees_[4]  # round 2, class 1
    assert (tree.round, tree.class_) == (2, 1)
    ex = E.split(model, 2, 0, class_=1)  # a round and a class, as the trace's tables
    assert str(ex).startswith("Tree 5 (round 2, class 1), node 0")
    chosen = model.trace_.splits(2, 0, class_=1).query("chosen").iloc[0]
    assert ex.values["G_L"] == pytest.approx(chosen["G_L"])
    assert ex.value == pytest.approx(tree.gain[0], rel=1e-5)


def test_prediction_of_a_multiclass_model_follows_one_class():
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_iris(return_X_y=True)
    model = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="3 classes.*pass class_="):
        E.prediction(model, X[60])
    ex = E.prediction(model, X[60], class_=1)
    # class 1's margin: its start margin plus the leaf of each round's class-1 tree
    leaves = [model.trace_.nodes(t, class_=1)["value"] for t in (1, 2, 3)]
    reached = [tree.apply(X[60:61].astype(np.float32))[0] for tree in model.trees_[1::3]]
    want = model.base_margin_[1] + sum(v[i] for v, i in zip(leaves, reached))
    assert ex.values["margin"] == pytest.approx(want, rel=1e-6)
    assert ex.values["margin"] == pytest.approx(model.decision_function(X[60:61])[0, 1])
    assert ex.value == pytest.approx(model.predict_proba(X[60:61])[0, 1])
    assert ex.values["rounds"] == [1, 2, 3]
    late = E.prediction(model, X[60], iteration_range=(1, 3), class_=1)  # rounds 2 and 3
    assert late.values["rounds"] == [2, 3]
    assert late.values["margin"] == pytest.approx(
        model.decision_function(X[60:61], iteration_range=(1, 3))[0, 1]
    )


def test_leaf_title_of_a_split_node_reads_in_order(troll):
    model, _, _ = troll
    assert (
        str(E.leaf(model, 1, 0))
        .splitlines()[0]
        .startswith("Tree 1, node 0 (a split; as a leaf it would weigh): n = 6 rows")
    )


def test_a_class_tree_says_its_round_and_class_and_not_log_odds():
    datasets = pytest.importorskip("sklearn.datasets")
    data = datasets.load_iris(as_frame=True)
    y = data.target.map(dict(enumerate(data.target_names)))
    model = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(data.data, y)
    text = str(E.leaf(model, 1, 3, class_=1))
    assert text.startswith("Tree 2 (round 1, class 1), leaf 3")
    assert "margin of class 'versicolor'" in text and "log-odds" not in text
    split = str(E.split(model, 1, 0, class_=1))
    assert split.startswith("Tree 2 (round 1, class 1), node 0: split")
    with pytest.raises(ValueError, match="3 classes.*pass class_="):
        E.leaf(model, 2, 3)  # a round, not a tree: which class's tree is not said
