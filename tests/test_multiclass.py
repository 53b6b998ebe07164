"""K ≥ 3 classes: softmax against XGBoost's multi:softprob and scikit-learn's multinomial GBDT."""

import json
import re

import numpy as np
import pytest

import teachgbt as tg

xgb = pytest.importorskip("xgboost")
ensemble = pytest.importorskip("sklearn.ensemble")
from xgb_compare import compare_tree, xgb_params, xgb_trees  # noqa: E402

N_CLASSES = 4
N_ROUNDS = 6
MARGIN_ATOL = 1e-5


def make_data(seed, n=250, missing=0.15):
    """Features with ties (two decimals) and missing values; four unbalanced classes that
    depend on the features. n ≤ 256 keeps every feature within max_bin distinct values,
    so XGBoost hist and teachgbt hist cut at the same values."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 5)), 2)
    z = np.column_stack([X[:, 0], X[:, 1] - X[:, 2], 0.5 * X[:, 3] ** 2, np.zeros(n)])
    p = np.exp(2 * z) / np.exp(2 * z).sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    X[rng.random(X.shape) < missing] = np.nan
    return X, y


def fit_both(X, y, w, tree_method, **params):
    p = dict(n_estimators=N_ROUNDS, tree_method=tree_method, **params)
    ours = tg.BoostingClassifier(**p).fit(X, y, sample_weight=w)
    native = xgb_params(p, "multi:softprob", tree_method)
    native["num_class"] = len(np.unique(y))
    booster = xgb.train(native, xgb.DMatrix(X, y, weight=w), num_boost_round=N_ROUNDS)
    return ours, booster


# pairs of parameters, varied together: (max_depth, reg_lambda), (gamma, min_child_weight),
# (learning_rate, weights), (reg_alpha, max_delta_step), (max_leaves, learning_rate)
PAIRS = [
    (dict(max_depth=2, reg_lambda=0.5), False),
    (dict(max_depth=5, reg_lambda=5.0), False),
    (dict(max_depth=4, gamma=0.4, min_child_weight=2.0), False),
    (dict(max_depth=3, gamma=2.0, min_child_weight=0.3), True),
    (dict(max_depth=3, learning_rate=0.1), True),
    (dict(max_depth=3, learning_rate=0.8), False),
    (dict(max_depth=3, max_delta_step=0.7, learning_rate=0.6), False),
    (dict(max_depth=3, reg_alpha=1.0), True),
    (dict(max_depth=4, reg_alpha=0.5, max_delta_step=0.7), True),
    (dict(max_depth=4, max_leaves=6, learning_rate=0.5), True),  # hist only: lossguide
]


@pytest.mark.parametrize("tree_method", ["exact", "hist"])
@pytest.mark.parametrize("params, weighted", PAIRS, ids=lambda v: str(v))
def test_matches_xgboost_softprob(tree_method, params, weighted):
    if params.get("max_leaves") and tree_method == "exact":
        pytest.skip("XGBoost's exact tree method grows depth-wise only (no max_leaves)")
    X, y = make_data(3)
    w = np.random.default_rng(7).uniform(0.2, 3.0, len(y)) if weighted else None
    ours, booster = fit_both(X, y, w, tree_method, **params)
    dm = xgb.DMatrix(X)
    margin = booster.predict(dm, output_margin=True)
    np.testing.assert_allclose(ours.decision_function(X), margin, rtol=0, atol=MARGIN_ATOL)
    np.testing.assert_allclose(ours.predict_proba(X), booster.predict(dm), rtol=0, atol=1e-5)
    theirs = xgb_trees(booster)
    assert len(ours.trees_) == len(theirs) == N_ROUNDS * N_CLASSES
    for i, (tree, other) in enumerate(zip(ours.trees_, theirs)):
        assert (tree.round, tree.class_) == (i // N_CLASSES + 1, i % N_CLASSES)
        assert compare_tree(tree, other, leaf_atol=1e-5, X=X) == [], f"tree {i}"


def test_default_base_score_is_xgboosts_centred_log_priors():
    X, y = make_data(5)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    for weights in (None, w):
        ours, booster = fit_both(X, y, weights, "exact", max_depth=2)
        config = json.loads(booster.save_config())
        theirs = json.loads(config["learner"]["learner_model_param"]["base_score"])
        np.testing.assert_allclose(ours.base_score_, theirs, rtol=0, atol=1e-6)
        assert ours.base_margin_ == pytest.approx(ours.base_score_)
        # they are margins: the centred log of the (weighted) class priors
        prior = np.bincount(y, weights=weights) / (len(y) if weights is None else w.sum())
        np.testing.assert_allclose(
            ours.base_score_, np.log(prior) - np.log(prior).mean(), rtol=0, atol=1e-4
        )
    given = tg.BoostingClassifier(n_estimators=2, max_depth=2, base_score=0.5).fit(X, y)
    booster = xgb.train(
        {"objective": "multi:softprob", "num_class": 4, "max_depth": 2, "base_score": 0.5},
        xgb.DMatrix(X, y),
        num_boost_round=2,
    )
    np.testing.assert_allclose(
        given.decision_function(X), booster.predict(xgb.DMatrix(X), output_margin=True), atol=1e-5
    )


def test_gradients_and_hessians_are_xgboosts():
    X, y = make_data(6, n=120)
    ours, booster = fit_both(X, y, None, "exact", max_depth=2)
    config = json.loads(booster.save_config())
    base = json.loads(config["learner"]["learner_model_param"]["base_score"])
    for t in (1, 3):
        if t == 1:  # XGBoost reads iteration_range=(0, 0) as every tree
            margin = np.tile(np.float32(base), (len(y), 1))
        else:
            margin = booster.predict(
                xgb.DMatrix(X), output_margin=True, iteration_range=(0, t - 1)
            ).astype(np.float32)
        p = np.exp(margin) / np.exp(margin).sum(axis=1, keepdims=True)
        for k in range(N_CLASSES):
            inst = ours.trace_.instances(t, class_=k)
            np.testing.assert_allclose(inst["margin"], margin[:, k], atol=1e-5)
            np.testing.assert_allclose(inst["g"], p[:, k] - (y == k), atol=1e-5)
            h = np.maximum(2 * p[:, k] * (1 - p[:, k]), 1e-16)
            np.testing.assert_allclose(inst["h"], h, atol=1e-5)
            nodes = ours.trace_.nodes(t, class_=k)
            assert nodes.loc[0, "G"] == pytest.approx(inst["g"].sum(), abs=1e-4)


def gbdt_pair(X, y, w, random_state, **params):
    sk = ensemble.GradientBoostingClassifier(random_state=random_state, **params)
    return sk.fit(X, y, sample_weight=w)


@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=2, learning_rate=0.5),
        dict(max_depth=4, learning_rate=0.1),
        dict(max_depth=None, max_leaf_nodes=5, learning_rate=1.0),
    ],
    ids=["depth2", "depth4", "leaves5"],
)
def test_gbdt_matches_sklearn_multinomial(params):
    rng = np.random.default_rng(11)
    n = 200
    X = rng.normal(size=(n, 4))
    labels = np.array(["setosa", "versicolor", "virginica", "other"])
    y = labels[(X[:, 0] + rng.normal(0, 1, n) > 0) + 2 * (X[:, 1] * X[:, 2] > 0)]
    w = rng.uniform(0.5, 2.0, n)  # continuous weights break the ties of round 1
    sk = gbdt_pair(X, y, w, 0, n_estimators=N_ROUNDS, **params)
    other = gbdt_pair(X, y, w, 1, n_estimators=N_ROUNDS, **params)
    np.testing.assert_allclose(other.decision_function(X), sk.decision_function(X), atol=1e-12)
    ours = tg.BoostingClassifier(
        algorithm="gbdt",
        n_estimators=N_ROUNDS,
        max_depth=params["max_depth"] or 0,
        max_leaves=params.get("max_leaf_nodes"),
        learning_rate=params["learning_rate"],
    ).fit(X, y, sample_weight=w)
    assert list(ours.classes_) == list(sk.classes_)
    for t, staged in enumerate(sk.staged_decision_function(X), start=1):
        np.testing.assert_allclose(
            ours.decision_function(X, iteration_range=(0, t)), staged, rtol=0, atol=1e-10
        )
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), rtol=0, atol=1e-10)
    assert np.array_equal(ours.predict(X), sk.predict(X))
    # each tree's leaves are scikit-learn's: (K−1)/K · Σ residual / Σ p(1−p)
    X32 = X.astype(np.float32)
    for tree in ours.trees_:
        sk_tree = sk.estimators_[tree.round - 1, tree.class_]
        sk_leaf = sk_tree.tree_.value[sk_tree.apply(X32)].ravel()
        np.testing.assert_allclose(tree.weight[tree.apply(X32)], sk_leaf, rtol=1e-9, atol=1e-9)
    # the start is scikit-learn's: the centred log of the weighted class priors
    prior = np.array([w[y == c].sum() for c in sk.classes_]) / w.sum()
    np.testing.assert_allclose(ours.base_margin_, np.log(prior) - np.log(prior).mean(), atol=1e-12)


def test_gbdt_unweighted_untied_data_matches_sklearn():
    rng = np.random.default_rng(2)
    n = 150
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] + rng.normal(0, 0.5, n) > 0.3) + (X[:, 2] > 1)
    p = dict(n_estimators=3, max_depth=2, learning_rate=0.5)
    sk = [gbdt_pair(X, y, None, rs, **p).decision_function(X) for rs in range(4)]
    for other in sk[1:]:  # no deciding ties: every feature order gives the same model
        np.testing.assert_allclose(other, sk[0], atol=1e-12)
    ours = tg.BoostingClassifier(algorithm="gbdt", **p).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), sk[0], rtol=0, atol=1e-10)


@pytest.fixture
def three():
    X, y = make_data(8, n=120)
    labels = np.array(["ant", "bee", "cat", "dog"])[y]
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2, learning_rate=0.5).fit(X, labels)
    return X, labels, clf


def test_shapes_labels_and_argmax(three):
    X, labels, clf = three
    assert list(clf.classes_) == ["ant", "bee", "cat", "dog"]
    margin, proba = clf.decision_function(X), clf.predict_proba(X)
    assert margin.shape == proba.shape == (len(X), 4)
    e = np.exp(margin - margin.max(axis=1, keepdims=True))
    np.testing.assert_allclose(proba, e / e.sum(axis=1, keepdims=True), atol=1e-12)
    assert np.array_equal(clf.predict(X), clf.classes_[proba.argmax(axis=1)])
    for flag in (np.array([True, False]), np.array([3, 7, 9])):  # bools, ints
        y = flag[np.arange(len(X)) % len(flag)]
        fitted = tg.BoostingClassifier(n_estimators=1, max_depth=1).fit(X, y)
        assert fitted.predict_proba(X).shape == (len(X), len(flag))
        assert set(fitted.predict(X)) <= set(flag.tolist())
    binary = tg.BoostingClassifier(n_estimators=1, max_depth=1).fit(X, labels == "ant")
    assert binary.decision_function(X).shape == (len(X),)


def test_trace_tables_need_a_class(three):
    X, labels, clf = three
    tr = clf.trace_
    assert tr.n_rounds == 3 and len(clf.trees_) == 12
    for call in (lambda: tr.nodes(1), lambda: tr.instances(1), lambda: tr.epochs()):
        with pytest.raises(ValueError, match=r"4 classes.*class_= one of 0 \('ant'\)"):
            call()
    with pytest.raises(ValueError, match="class_ must be one of"):
        tr.splits(1, 0, class_=4)
    y = labels == "cat"
    ep = tr.epochs(class_=2)
    inst = tr.instances(2, class_=2)
    start = clf.model_.link(clf.model_.margins_after(np.asarray(X, dtype=np.float32), 0))
    np.testing.assert_allclose(ep["ep_0_prob"], start[:, 2])
    np.testing.assert_allclose(ep["ep_3_prob"], clf.predict_proba(X)[:, 2], atol=1e-6)
    np.testing.assert_allclose(ep["ep_3_pre"], clf.decision_function(X)[:, 2], atol=1e-6)
    np.testing.assert_allclose(ep["ep_2_residual"], y - ep["ep_1_prob"], atol=1e-12)
    np.testing.assert_allclose(inst["g"], -ep["ep_2_residual"], atol=1e-6)
    assert np.array_equal(inst["y"], y.astype(float))
    tree = clf.trees_[1 * 4 + 2]  # round 2, class 2
    assert np.array_equal(inst["leaf"], tree.apply(X))
    assert tr.nodes(2, class_=2).equals(tree.to_frame())
    splits = tr.splits(2, 0, class_=2)
    chosen = splits[splits["chosen"]].iloc[0]
    assert chosen["G_L"] + chosen["G_R"] == pytest.approx(inst["g"].sum(), abs=1e-4)


def test_save_load_and_draw(three, tmp_path):
    X, labels, clf = three
    clf.save(tmp_path / "m.json")
    back = tg.load(tmp_path / "m.json")
    assert np.array_equal(back.predict_proba(X), clf.predict_proba(X))
    assert np.array_equal(back.predict(X), clf.predict(X))
    assert [(t.round, t.class_) for t in back.trees_] == [
        (r, k) for r in (1, 2, 3) for k in range(4)
    ]
    dot = clf.trees_[6].to_dot()
    assert "round 2, class 2: adds to the margin of class 2" in dot
    assert str(clf.trees_[6]).startswith("round 2, class 2")
    # rounds are rounds: round 2 is its 4 trees (tree numbers 5 to 8), one per class
    model_dot = tg.draw.draw_model(clf, rounds=[2]).source
    clusters = [int(c) for c in re.findall(r"subgraph cluster_(\d+)", model_dot)]
    assert clusters == [5, 6, 7, 8]
    assert "tree 7: round 2, class cat (classes_[2]" in model_dot
    assert "ant: " in model_dot  # round 0 lists each class' starting margin
    one = tg.draw.draw_model(clf, rounds=2, class_=2).source
    assert re.findall(r"subgraph cluster_(\d+)", one) == ["7"]
    with pytest.raises(ValueError, match=r"rounds must be from 1 to 3 \(the model has 3 rounds"):
        tg.draw.draw_model(clf, rounds=[7])
    clf.trees_[6].draw(engine="matplotlib").save(tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 0


def test_plots(three):
    import matplotlib

    matplotlib.use("Agg")
    X, labels, clf = three
    ax = tg.plot.probabilities(clf)
    assert [t.get_text() for t in ax.get_legend().get_texts()][1].startswith("y = ant: p(ant)")
    ax = tg.plot.probabilities(clf, class_=1)
    assert ax.get_title() == "Probability of class bee, epoch by epoch"
    ax = tg.plot.loss_curve(clf)
    assert ax.get_ylabel() == "mlogloss"
    train = ax.get_lines()[0].get_ydata()
    y = np.searchsorted(clf.classes_, labels)
    last = -np.log(clf.predict_proba(X)[np.arange(len(y)), y]).mean()
    assert train[-1] == pytest.approx(last, rel=1e-6)
    with pytest.raises(ValueError, match="K >= 3"):
        tg.plot.residuals(clf)


def test_cli_train_and_predict(three, tmp_path):
    import pandas as pd

    from teachgbt.cli import main

    X, labels, clf = three
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(kind=labels)
    df.to_csv(tmp_path / "d.csv", index=False)
    args = ["train", str(tmp_path / "d.csv"), "--target", "kind", "--model"]
    assert main([*args, str(tmp_path / "m.json"), "--n-estimators", "3", "--max-depth", "2",
                 "--learning-rate", "0.5"]) == 0  # fmt: skip
    assert main(["predict", str(tmp_path / "m.json"), str(tmp_path / "d.csv"), "--output",
                 str(tmp_path / "p.csv")]) == 0  # fmt: skip
    out = pd.read_csv(tmp_path / "p.csv")
    assert list(out["prediction"]) == list(clf.predict(df.drop(columns="kind")))
    np.testing.assert_allclose(out[[f"prob_{c}" for c in clf.classes_]], clf.predict_proba(X))
    np.testing.assert_allclose(out["margin_dog"], clf.decision_function(X)[:, 3], atol=1e-6)


def test_class_tables_take_labels_of_object_dtype(three):
    X, labels, _ = three
    objects = labels.astype(object)  # as a pandas column of strings holds them: Python str
    clf = tg.BoostingClassifier(n_estimators=1, max_depth=1).fit(X, objects)
    assert clf.trace_.instances(1, class_=1)["y"].sum() == np.sum(labels == "bee")
    with pytest.raises(ValueError, match=r"class_= one of 0 \('ant'\)"):
        clf.trace_.nodes(1)
