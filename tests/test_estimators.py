"""The estimators' scikit-learn conventions, trace tables and input checks."""

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.core.tree import NODE_COLUMNS
from teachgbt.engine.trace import INSTANCE_COLUMNS


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.5, 200) > 0).astype(int)
    return X, y


def test_fit_returns_self_and_params_roundtrip(data):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2)
    assert clf.fit(X, y) is clf
    params = clf.get_params()
    assert params["n_estimators"] == 3 and params["max_depth"] == 2
    assert params["reg_lambda"] is None  # None: the algorithm's own default
    clf.set_params(max_depth=3)
    assert clf.max_depth == 3


def test_sklearn_clone_and_cross_val_score(data):
    base = pytest.importorskip("sklearn.base")
    ms = pytest.importorskip("sklearn.model_selection")
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=5, max_depth=2, learning_rate=0.5)
    twin = base.clone(clf)
    assert twin.get_params() == clf.get_params() and not hasattr(twin, "trees_")
    scores = ms.cross_val_score(clf, X, y, cv=3)
    assert scores.shape == (3,) and scores.mean() > 0.7
    reg = tg.BoostingRegressor(n_estimators=5, max_depth=2)
    r2 = ms.cross_val_score(reg, X, X[:, 0] * 2 + X[:, 1], cv=3)
    assert r2.mean() > 0.5
    assert base.is_classifier(clf) and base.is_regressor(reg)


@pytest.mark.parametrize(
    "labels",
    [np.array([False, True]), np.array([0, 1]), np.array(["hates", "loves"])],
    ids=["bool", "01", "strings"],
)
def test_classes_of_any_kind(data, labels):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, labels[y])
    assert list(clf.classes_) == list(labels)
    pred = clf.predict(X)
    assert set(pred) <= set(labels)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2) and np.allclose(proba.sum(axis=1), 1.0)
    # the positive class is classes_[1]; decision_function is its log-odds
    assert np.allclose(proba[:, 1], 1 / (1 + np.exp(-clf.decision_function(X))))
    assert np.array_equal(pred == labels[1], proba[:, 1] > 0.5)


def test_dataframe_names_kept_and_reordered_columns_accepted(data):
    X, y = data
    df = pd.DataFrame(X, columns=["age", "height", "weight", "score"])
    before = df.copy()
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(df, y)
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is not touched
    assert list(clf.feature_names_in_) == list(df.columns)
    used = {f for t in clf.trees_ for f in t.to_frame()["feature"].dropna()}
    assert used <= set(df.columns)
    shuffled = df[["score", "weight", "age", "height"]]
    assert np.allclose(clf.decision_function(shuffled), clf.decision_function(df))
    with pytest.raises(ValueError, match=r"missing \['score'\]"):
        clf.predict(df.drop(columns="score").assign(other=1.0))


def test_trace_tables_have_contract_columns(data):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, y)
    ep = clf.trace_.epochs()
    expected = ["ep_0_pre", "ep_0_prob"] + [
        f"ep_{k}_{c}"
        for k in (1, 2, 3)
        for c in ("residual", "leaf_index", "leaf_output", "pre", "prob")
    ]
    assert list(ep.columns) == expected
    assert list(clf.trace_.instances(2).columns) == INSTANCE_COLUMNS
    assert list(clf.trace_.nodes(1).columns) == NODE_COLUMNS
    assert list(clf.trace_.splits(1, 0).columns) == [
        "feature", "threshold", "default_left", "G_L", "H_L", "G_R", "H_R", "gain", "chosen"
    ]  # fmt: skip
    # the last epoch is what the model predicts
    assert np.allclose(ep["ep_3_pre"], clf.decision_function(X), atol=1e-6)
    # pre_k = pre_(k-1) + eta * leaf_output
    eta = clf.params_.learning_rate
    assert np.allclose(ep["ep_2_pre"], ep["ep_1_pre"] + eta * ep["ep_2_leaf_output"], atol=1e-6)
    # residual = y - previous probability = -g
    inst = clf.trace_.instances(2)
    assert np.allclose(ep["ep_2_residual"], -inst["g"], atol=1e-6)
    assert np.allclose(inst["h"], inst["prob"] * (1 - inst["prob"]), atol=1e-6)


def test_trace_nodes_are_consistent_sums(data):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=3).fit(X, y)
    inst = clf.trace_.instances(2)
    nodes = clf.trace_.nodes(2)
    leaves = nodes[nodes.is_leaf]
    for _, leaf in leaves.iterrows():
        rows = inst[inst["leaf"] == leaf["node"]]
        assert leaf["n"] == len(rows)
        assert leaf["G"] == pytest.approx(rows["g"].sum(), abs=1e-9)
        assert leaf["H"] == pytest.approx(rows["h"].sum(), abs=1e-9)
        # w* = -G / (H + lambda)
        assert leaf["weight"] == pytest.approx(-leaf["G"] / (leaf["H"] + 1.0), rel=1e-6)
    # the chosen candidate at the root is the one with the largest gain
    sp = clf.trace_.splits(2, 0)
    assert sp.loc[sp["chosen"], "gain"].iloc[0] == pytest.approx(sp["gain"].max())
    # split gains in nodes() agree with the candidate table
    root = nodes.iloc[0]
    assert root["gain"] == pytest.approx(sp["gain"].max())
    assert root["loss_chg"] == pytest.approx(2 * root["gain"], rel=1e-5)


def test_custom_objective_matches_builtin_logistic(data):
    X, y = data

    def logistic(y, margin):
        p = 1 / (1 + np.exp(-margin))
        return p - y, p * (1 - p)

    builtin = tg.BoostingClassifier(n_estimators=4, max_depth=3, base_score=0.5).fit(X, y)
    custom = tg.BoostingRegressor(
        n_estimators=4, max_depth=3, objective=logistic, base_score=0.0
    ).fit(X, y)
    assert np.allclose(custom.decision_function(X), builtin.decision_function(X), atol=1e-5)


def test_custom_objective_bad_hessian(data):
    X, y = data

    def concave(y, margin):
        return margin - y, -np.ones_like(y)

    reg = tg.BoostingRegressor(n_estimators=1, objective=concave)
    with pytest.raises(ValueError, match="'concave'.*hessian that is not positive"):
        reg.fit(X, y)
    with pytest.raises(tg.NotFittedError):  # no half-fitted model is left behind
        reg.predict(X)


def test_subsample_and_colsample_are_reproducible(data):
    X, y = data
    kw = dict(n_estimators=4, max_depth=3, subsample=0.5, colsample_bytree=0.5, random_state=7)
    a = tg.BoostingClassifier(**kw).fit(X, y)
    b = tg.BoostingClassifier(**kw).fit(X, y)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    for t, tree in enumerate(a.trees_, 1):
        used = set(tree.feature[~tree.is_leaf])
        allowed = set(a.trace_._samples[t - 1]["features"])
        assert used <= allowed and len(allowed) == 2
        assert tree.n[0] == len(a.trace_._samples[t - 1]["rows"]) < len(X)


def test_pre_and_post_pruning(data):
    X, y = data
    post = tg.BoostingClassifier(n_estimators=3, max_depth=5, gamma=2.0).fit(X, y)
    pre = tg.BoostingClassifier(n_estimators=3, max_depth=5, gamma=2.0, pruning="pre").fit(X, y)
    for tree in post.trees_ + pre.trees_:
        assert (tree.loss_chg[~tree.is_leaf] >= 2.0).all() or tree.n_leaves == 1
    # post-pruning keeps a weak split when a split below it pays: never fewer nodes
    assert sum(t.n_nodes for t in post.trees_) >= sum(t.n_nodes for t in pre.trees_)


def test_max_leaves_best_first(data):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=0, max_leaves=5).fit(X, y)
    for tree in clf.trees_:
        assert tree.n_leaves == 5


def test_eval_set_and_early_stopping(data):
    X, y = data
    clf = tg.BoostingClassifier(
        n_estimators=200, max_depth=3, learning_rate=0.5, early_stopping_rounds=3
    )
    clf.fit(X[:150], y[:150], eval_set=[(X[150:], y[150:])])
    curve = clf.evals_result_["validation_0"]["logloss"]
    assert len(clf.trees_) < 200 and len(curve) == len(clf.trees_)
    assert clf.best_iteration_ == int(np.argmin(curve))
    assert len(clf.trees_) == clf.best_iteration_ + 1 + 3
    # prediction uses the best iteration, as XGBoost does
    best = clf.decision_function(X, iteration_range=(0, clf.best_iteration_ + 1))
    assert np.allclose(clf.decision_function(X), best)


def test_callback_can_stop(data):
    X, y = data
    seen = []

    def stop_at_three(model, t):
        seen.append(t)
        return t == 3

    clf = tg.BoostingClassifier(n_estimators=10, callbacks=[stop_at_three]).fit(X, y)
    assert seen == [1, 2, 3] and len(clf.trees_) == 3


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.empty((0, 3)), np.empty(0), "X is empty"),
        (np.ones((5, 2)), np.ones(4), "X has 5 rows but y has 4"),
        (np.ones((3, 2)), np.array([1.0, np.nan, 2.0]), r"y contains nan at row 1"),
        (np.ones((3, 2)), np.array([1.0, np.inf, 2.0]), r"y contains inf at row 1"),
        (np.array([[1.0, 2.0], [np.inf, 1.0]]), np.ones(2), "infinite value in column 0, row 1"),
        (np.ones(5), np.ones(5), "2-dimensional"),
    ],
)
def test_bad_regression_input(X, y, match):
    with pytest.raises(ValueError, match=match):
        tg.BoostingRegressor(n_estimators=1).fit(X, y)


@pytest.mark.parametrize("row", [32767, 32768, 70001])  # X is looked through in blocks
def test_infinite_value_past_the_first_block_of_rows(row):
    """Fit finds an inf (or a value too large for float32) in any block of rows, and names
    its row and column."""
    X = np.zeros((70002, 3))
    y = np.arange(70002) % 2
    X[row, 2] = -np.inf
    with pytest.raises(ValueError, match=rf"infinite value in column 2, row {row}"):
        tg.BoostingRegressor(n_estimators=1).fit(X, y)
    X[row, 2] = 1e39
    with pytest.raises(ValueError, match=rf"1e\+39 in column 2, row {row} is too large"):
        tg.BoostingRegressor(n_estimators=1).fit(X, y)


def test_non_numeric_column_suggests_one_hot():
    df = pd.DataFrame({"age": [10, 20, 30], "colour": ["red", "blue", "red"]})
    with pytest.raises(TypeError, match=r"'colour'.*one-hot"):
        tg.BoostingClassifier(n_estimators=1).fit(df, [0, 1, 0])


def test_inf_in_named_column():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, np.inf, 1.0]})
    with pytest.raises(ValueError, match=r"column 'b', row 1"):
        tg.BoostingRegressor(n_estimators=1).fit(df, [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "y, match",
    [
        (np.array([1, 1, 1, 1]), "at least two classes in y, got 1 class"),
        (np.array([0.5, 1.2, 3.3, 0.1]), "regression target"),
    ],
)
def test_classifier_target_checks(y, match):
    with pytest.raises(ValueError, match=match):
        tg.BoostingClassifier(n_estimators=1).fit(np.arange(8.0).reshape(4, 2), y)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(reg_lambda=-1), "reg_lambda must be >= 0"),
        (dict(reg_alpha=-0.1), "reg_alpha must be >= 0"),
        (dict(gamma=-2), "gamma must be >= 0"),
        (dict(min_child_weight=-1), "min_child_weight must be >= 0"),
        (dict(learning_rate=0), "learning_rate must be > 0"),
        (dict(learning_rate=-0.1), "learning_rate must be > 0"),
        (dict(max_depth=-1), "max_depth must be"),
        (dict(max_depth=None), "neither max_depth nor max_leaves"),
        (dict(max_bin=1), "max_bin must be"),
        (dict(max_bin=70000), "max_bin must be"),
        (dict(subsample=0), "subsample must be"),
        (dict(algorithm="lightgbm"), "algorithm='lightgbm'"),
        (dict(tree_method="approx"), "tree_method='approx'"),
        (dict(objective="multi:softmax"), "objective='multi:softmax' is not known"),
    ],
)
def test_bad_parameters(data, params, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        tg.BoostingClassifier(n_estimators=1, **params).fit(X, y)


def test_predict_checks(data):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=2)
    with pytest.raises(tg.NotFittedError, match="not fitted yet"):
        clf.predict(X)
    clf.fit(X, y)
    with pytest.raises(
        ValueError, match="X has 3 features, but BoostingClassifier is expecting 4 features"
    ):
        clf.predict(X[:, :3])
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval_set"):
        tg.BoostingClassifier(n_estimators=2, early_stopping_rounds=2).fit(X, y)


def test_trace_argument_checks(data):
    X, y = data
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="round t must be a whole number from 1 to 2"):
        clf.trace_.instances(0)
    with pytest.raises(ValueError, match="the tree of round 1 has nodes 0 to"):
        clf.trace_.splits(1, 99)


def test_save_and_load_predict_identically(data, tmp_path):
    X, y = data
    df = pd.DataFrame(X, columns=list("abcd"))
    clf = tg.BoostingClassifier(n_estimators=4, max_depth=3).fit(df, np.array(["no", "yes"])[y])
    path = tmp_path / "m.json"
    clf.save(path)
    back = tg.load(path)
    assert np.array_equal(back.decision_function(df), clf.decision_function(df))
    assert list(back.predict(df)) == list(clf.predict(df))
    assert list(back.feature_names_in_) == list("abcd")
    pd.testing.assert_frame_equal(back.trees_[1].to_frame(), clf.trees_[1].to_frame())


def test_load_rejects_other_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a teachgbt model file"):
        tg.load(p)
    p.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        tg.load(p)


def test_save_custom_objective_refused_without_partial_file(data, tmp_path):
    X, y = data
    reg = tg.BoostingRegressor(n_estimators=1, objective=lambda y, m: (m - y, np.ones_like(y)))
    reg.fit(X, y)
    with pytest.raises(ValueError, match="custom objective"):
        reg.save(tmp_path / "m.json")
    assert list(tmp_path.iterdir()) == []


def test_trace_notices_a_changed_training_array(data):
    X, y = data
    X32 = X.astype(np.float32)  # C-ordered float32: fit uses it as it is, without a copy
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X32, y)
    assert len(clf.trace_.instances(2)) == len(X)
    X32[:, 0] = 0.0
    with pytest.raises(ValueError, match="X was changed after fit"):
        clf.trace_.instances(1)


@pytest.mark.parametrize(
    "kw",
    [
        dict(max_depth=5, gamma=3.0),  # post-pruning hands leaf rows to their ancestor
        dict(max_depth=0, max_leaves=6),
        dict(max_depth=4, tree_method="hist"),
        dict(max_depth=3, algorithm="gbdt"),
    ],
    ids=["post-pruned", "best-first", "hist", "gbdt"],
)
def test_rows_leaves_from_growing_equal_routing(data, kw):
    """fit updates margins from the leaves rows ended in while growing; they must be the
    leaves Tree.apply routes the same rows to."""
    from teachgbt.core.losses import Logistic
    from teachgbt.engine.boosting import TREE_METHODS, XGBoostAlgorithm
    from teachgbt.engine.grow import grow_tree
    from teachgbt.engine.training import ALGORITHMS

    X, y = data
    X = X.copy()
    X[::7, 1] = np.nan
    est = tg.BoostingClassifier(**kw)
    X32 = X.astype(np.float32)
    params = est._train_params().grow_params()
    algo = ALGORITHMS[est.algorithm](Logistic(), params)
    assert isinstance(algo, XGBoostAlgorithm) or est.algorithm == "gbdt"
    stats = algo.round_stats(y.astype(float), algo.initial_margin(0.0, len(y)), None)
    method = TREE_METHODS[est.tree_method]
    splitter = method.splitter(method.prepare(X32, est.max_bin), stats, algo.scan_params())
    tree, rows, leaf = grow_tree(splitter, algo.params, 4, None, algo.leaf_stats(splitter, stats))
    assert sorted(rows) == list(range(len(X)))
    assert np.array_equal(leaf, tree.apply(X32)[rows])
    if "gamma" in kw:  # something was pruned: without gamma the same round grows more
        import dataclasses

        unpruned = dataclasses.replace(algo.params, gamma=0.0)
        full, _, _ = grow_tree(splitter, unpruned, 4, None, algo.leaf_stats(splitter, stats))
        assert full.n_nodes > tree.n_nodes
