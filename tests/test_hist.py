"""The histogram trainer (tree_method="hist"): XGBoost parity, agreement with the exact
trainer, the numpy and numba kernels, traces of hist models, fitting options, bad input.

Parity tests run XGBoost in the same test. Features have at most ``max_bin``
distinct values, so both libraries use every distinct value as a cut point
and must grow the same trees.
"""

import sys

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.engine import hist as H
from teachgbt.engine.grow import GrowParams
from teachgbt.utils import _kernels as K

xgb = pytest.importorskip("xgboost")
import xgb_compare  # noqa: E402
from xgb_compare import PAIR_VALUES, compare_tree, pair_cases, resolve_case, xgb_trees  # noqa: E402

N_ROUNDS = 8
# the pairwise grid: small data and few rounds, so that its many cases stay quick
PAIR_ROWS, PAIR_ROUNDS = 200, 4
MARGIN_TOL = 1e-5

try:
    import numba  # noqa: F401

    KERNELS = ["numpy", "numba"]
except ImportError:  # pragma: no cover - numba is optional
    KERNELS = ["numpy"]


@pytest.fixture(params=KERNELS)
def kernel(request, monkeypatch):
    """Run a test with each kernel (numpy always; numba when installed)."""
    monkeypatch.setattr(K, "KERNEL", request.param)
    return request.param


# ------------------------------------------------------------------ data
def few_values(seed=0, n=400, d=6, levels=6, nan=0.0):
    """Features with few distinct values (rounded), a logit, and optional missing values."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, d)).astype(float) / 2
    logit = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * (X[:, 3] > 1) + rng.normal(0, 1, n)
    y = (logit > 0.6).astype(float)
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    return X, y, logit


# ------------------------------------------------------------------ XGBoost parity
def xgb_params(params, objective):
    return xgb_compare.xgb_params(params, objective, "hist")


def run_both(X, y, params, classifier, sample_weight=None, n_rounds=N_ROUNDS):
    return xgb_compare.run_both(X, y, params, classifier, "hist", sample_weight, n_rounds)


def assert_same(est, booster, X):
    """Margins within 1e-5 (relative to large margins: both sides hold them in float32) and
    the same splits, thresholds, default directions and leaves."""
    theirs = booster.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True)
    ours = est.decision_function(X)
    gap = np.max(np.abs(ours - theirs) / np.maximum(1.0, np.abs(theirs)))
    assert gap < MARGIN_TOL, f"margins differ by {gap}"
    for t, (tree, dump) in enumerate(zip(est.trees_, xgb_trees(booster)), 1):
        diffs = compare_tree(tree, dump)
        assert not diffs, f"tree {t}: {diffs[:3]}"
    return gap


GRID = [
    dict(max_depth=3),
    dict(max_depth=6, reg_lambda=0.1, min_child_weight=0.0, learning_rate=0.5),
    dict(
        max_depth=4,
        reg_lambda=5.0,
        reg_alpha=0.5,
        gamma=0.5,
        min_child_weight=2.0,
        learning_rate=0.1,
    ),
    dict(max_depth=2, gamma=2.0, learning_rate=1.0, base_score=0.5),
    dict(max_depth=5, reg_lambda=0.3, reg_alpha=1.5, min_child_weight=0.5),
    dict(max_depth=6, reg_lambda=2.0, gamma=5.0, min_child_weight=3.0, learning_rate=0.2),
    dict(max_depth=4, max_delta_step=0.7),
]


@pytest.mark.parametrize("params", GRID, ids=[f"grid{i}" for i in range(len(GRID))])
@pytest.mark.parametrize("nan", [0.0, 0.2], ids=["dense", "nan"])
def test_classifier_matches_xgboost_hist(params, nan):
    X, y, _ = few_values(seed=1, nan=nan)
    est, booster = run_both(X, y, params, classifier=True)
    assert_same(est, booster, X)


@pytest.mark.parametrize("params", GRID[:4], ids=[f"grid{i}" for i in range(4)])
@pytest.mark.parametrize("nan", [0.0, 0.2], ids=["dense", "nan"])
def test_regressor_matches_xgboost_hist(params, nan):
    X, _, logit = few_values(seed=2, nan=nan)
    est, booster = run_both(X, logit, params, classifier=False)
    assert_same(est, booster, X)


@pytest.mark.parametrize("classifier", [True, False], ids=["clf", "reg"])
@pytest.mark.parametrize("case", pair_cases(list(PAIR_VALUES)))
def test_parameter_pairs_match_xgboost_hist(case, classifier):
    """Every pair of parameters, two values each, on ties and 20 % missing values; every
    feature has 6 distinct values (<= max_bin), so both libraries cut at each of them."""
    X, y, logit = few_values(seed=21, n=PAIR_ROWS, d=5, nan=0.2)
    params, sample_weight = resolve_case(case, classifier, len(X))
    target = y if classifier else logit
    est, booster = run_both(X, target, params, classifier, sample_weight, n_rounds=PAIR_ROUNDS)
    assert_same(est, booster, X)


def awkward_columns(seed=0, n=600):
    """40 distinct values per feature, plus a constant, an all-missing and a 0/NaN column."""
    X, y, logit = few_values(seed, n=n, d=4, levels=40, nan=0.15)
    rng = np.random.default_rng(seed + 100)
    extra = np.column_stack(
        [
            np.full(n, 2.0),
            np.full(n, np.nan),
            np.where(rng.random(n) < 0.3, np.nan, 1.0),
        ]
    )
    return np.column_stack([X, extra]), y, logit


@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=4, max_bin=40),  # exactly max_bin distinct values
        dict(max_depth=0, max_leaves=12),  # best-first (XGBoost lossguide)
        dict(max_depth=5, min_child_weight=0.0),
    ],
    ids=["max_bin=distinct", "lossguide", "mcw0"],
)
@pytest.mark.parametrize("classifier", [True, False], ids=["clf", "reg"])
def test_matches_xgboost_with_weights_and_odd_columns(kernel, params, classifier):
    X, y, logit = awkward_columns()
    sample_weight = np.random.default_rng(3).uniform(0.2, 3.0, len(X))
    target = y if classifier else logit
    est, booster = run_both(X, target, params, classifier, sample_weight=sample_weight)
    assert_same(est, booster, X)


def test_matches_xgboost_with_more_than_256_bins():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 300, size=(1500, 3)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.sin(np.nan_to_num(X[:, 0]) / 50) + rng.normal(0, 0.3, len(X))
    est, booster = run_both(X, y, dict(max_depth=5, max_bin=512), classifier=False)
    assert est.trace_._data.bins.dtype == np.uint16
    assert_same(est, booster, X)


def test_thresholds_are_data_values_compared_in_float32():
    """Hist thresholds are cut points (data values): 0.8 in float64 is below float32(0.8)."""
    X = np.array([[0.2], [0.5], [0.8], [0.8], [1.1], [1.4]] * 10)
    y = np.array([0, 0, 1, 1, 1, 1] * 10, dtype=float)
    est, booster = run_both(X, y, dict(max_depth=1, min_child_weight=0.0), classifier=False)
    assert_same(est, booster, X)
    assert est.trees_[0].threshold[0] == float(np.float32(0.8))


# ------------------------------------------------------------------ hist vs exact
def same_partitions(a, b, X):
    """Every tree of a and b groups the rows of X into the same leaves."""
    for t1, t2 in zip(a.trees_, b.trees_):
        l1, l2 = t1.apply(X), t2.apply(X)
        pairs = set(zip(l1.tolist(), l2.tolist()))
        if not len(pairs) == len(set(l1.tolist())) == len(set(l2.tolist())):
            return False
    return True


@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=4),
        dict(max_depth=3, reg_lambda=0.3, min_child_weight=2.0, reg_alpha=0.2, gamma=0.3),
        dict(max_leaves=10, max_depth=0),
    ],
    ids=["depth4", "regularized", "best-first"],
)
@pytest.mark.parametrize("nan", [0.0, 0.15], ids=["dense", "nan"])
def test_hist_and_exact_make_the_same_partitions(params, nan):
    """Random weights break exact ties, where the two scans may pick different twins."""
    X, y, logit = few_values(seed=5, n=500, d=5, levels=7, nan=nan)
    sample_weight = np.random.default_rng(6).uniform(0.5, 1.5, len(X))
    for Est, target in [(tg.BoostingClassifier, y), (tg.BoostingRegressor, logit)]:
        kw = dict(n_estimators=6, **params)
        a = Est(tree_method="exact", pruning="pre", **kw).fit(X, target, sample_weight)
        b = Est(tree_method="hist", **kw).fit(X, target, sample_weight)
        assert same_partitions(a, b, X)
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-5)


def test_gbdt_hist_and_exact_make_the_same_partitions():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 9, size=(400, 4)).astype(float)
    y = X[:, 0] * 0.7 - X[:, 1] + rng.normal(0, 1, len(X))
    a = tg.BoostingRegressor(
        algorithm="gbdt", tree_method="exact", n_estimators=5, max_depth=3
    ).fit(X, y)
    b = tg.BoostingRegressor(algorithm="gbdt", tree_method="hist", n_estimators=5, max_depth=3).fit(
        X, y
    )
    assert same_partitions(a, b, X)
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-9)


# ------------------------------------------------------------------ kernels
@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(subsample=0.7, colsample_bytree=0.6, random_state=3),
        dict(max_leaves=20, max_depth=0, reg_alpha=0.3, gamma=0.5),
        dict(max_delta_step=0.5, min_child_weight=5.0),
        dict(algorithm="gbdt", max_depth=3),
    ],
    ids=["default", "sampled", "best-first", "max_delta_step", "gbdt"],
)
def test_numpy_and_numba_grow_identical_trees(monkeypatch, kw):
    rng = np.random.default_rng(1)
    n, d = 20_000, 6
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, 3] = np.round(X[:, 3], 1)
    X[rng.random((n, d)) < 0.1] = np.nan
    Z = np.nan_to_num(X)
    y = (Z[:, 0] + Z[:, 1] * Z[:, 2] + rng.normal(size=n) > 0).astype(float)
    sample_weight = rng.uniform(0.5, 2, n)
    fits = {}
    # the compiled histograms on one thread, and threaded for every node however small
    for k, threads_from in (("numpy", None), ("numba", 1 << 62), ("numba", 0)):
        monkeypatch.setattr(K, "KERNEL", k)
        if threads_from is not None:
            monkeypatch.setattr(H, "PARALLEL_HISTOGRAM", threads_from)
        fits[k, threads_from] = tg.BoostingClassifier(
            tree_method="hist", n_estimators=5, max_bin=64, **kw
        ).fit(X, y, sample_weight=sample_weight)
    reference = fits["numpy", None]
    columns = ("feature", "threshold", "default_left", "n", "G", "H", "value", "loss_chg")
    for key in (("numba", 1 << 62), ("numba", 0)):
        for a, b in zip(reference.trees_, fits[key].trees_, strict=True):
            for name in columns:
                np.testing.assert_array_equal(
                    getattr(a, name), getattr(b, name), err_msg=f"{name} ({key})"
                )


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
def test_numba_and_numpy_binning_agree(monkeypatch):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5000, 4)).astype(np.float32)
    X[:, 1] = np.round(X[:, 1])
    X[rng.random(X.shape) < 0.05] = np.nan
    monkeypatch.setattr(K, "KERNEL", "numpy")
    a = H.HistData(X, max_bin=32)
    monkeypatch.setattr(K, "KERNEL", "numba")
    b = H.HistData(X, max_bin=32)
    np.testing.assert_array_equal(a.bins, b.bins)


def test_compiled_apply_matches_the_readable_one(monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30_000, 5)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(size=len(X))
    est = tg.BoostingRegressor(tree_method="hist", n_estimators=3, max_depth=6).fit(X, y)
    tree = est.trees_[2]
    fast = tree.apply(X)  # the compiled kernel when numba is installed (>= 20 000 rows)
    monkeypatch.setattr(K, "KERNEL", "numpy")
    slow = tree.apply(X)
    np.testing.assert_array_equal(fast, slow)
    for i in range(0, len(X), 5000):
        assert tree.path(X[i])[-1] == fast[i]
    # the compiled sum over all trees (rows go through every tree at once) adds the
    # same float32 numbers in the same order as the readable tree-by-tree loop
    monkeypatch.setattr(K, "KERNEL", "auto")
    clf = tg.BoostingClassifier(tree_method="hist", n_estimators=5, max_depth=4)
    clf.fit(X, y > 0)
    fast = clf.decision_function(X)
    monkeypatch.setattr(K, "KERNEL", "numpy")
    np.testing.assert_array_equal(fast, clf.decision_function(X))


# ------------------------------------------------------------------ the pieces
def test_binning_uses_distinct_values_then_quantiles(kernel):
    rng = np.random.default_rng(0)
    few = rng.integers(0, 5, 1000).astype(np.float32)
    many = rng.normal(size=1000).astype(np.float32)
    X = np.column_stack([few, many])
    X[::10, 0] = np.nan
    data = H.HistData(X, max_bin=16)
    np.testing.assert_array_equal(data.feature_cuts(0)[:-1], [1, 2, 3, 4])
    assert data.feature_cuts(0)[-1] == np.float32(4 + (4 + 1e-5))
    assert data.min_val[0] == np.float32(0 - (0 + 1e-5))
    assert list(data.exact_cuts) == [True, False]
    assert 8 <= data.n_bins[1] <= 16
    assert data.bins.dtype == np.uint8
    # bin c holds cut[c-1] <= x < cut[c]; NaN has the last code
    for f in range(2):
        cuts = data.feature_cuts(f)
        codes = data.bins[f].astype(int)
        x = X[:, f]
        present = ~np.isnan(x)
        assert np.all(codes[~present] == data.missing_code)
        c = codes[present]
        assert np.all(x[present] < cuts[c])
        assert np.all((c == 0) | (x[present] >= cuts[np.maximum(c - 1, 0)]))


def test_binning_a_sample_still_sees_rare_values():
    """Cut points come from a sample on large data; a value the sample missed is still cut."""
    x = np.zeros(5000, dtype=np.float32)
    x[1234] = 7.0  # one rare value
    data = H.HistData(x[:, None], max_bin=8, sample_rows=100)
    assert data.exact_cuts[0]
    np.testing.assert_array_equal(data.feature_cuts(0)[:-1], [7.0])


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
@pytest.mark.parametrize("n_stats", [2, 3])
@pytest.mark.parametrize("n_nodes", [1, 2, 24])
def test_compiled_histograms_of_many_small_nodes_equal_bincount(n_stats, n_nodes):
    """Many small nodes spread over the rows (24) are swept together in row order, a few
    large ones (1, 2) node by node: either way every bin's sums are bincount's, bit for bit,
    threaded or not, with missing values counted per node."""
    from teachgbt.engine import _hist_numba as N

    rng = np.random.default_rng(n_nodes)
    n, d, W = 5000, 7, 17
    bins = rng.integers(0, W, size=(d, n)).astype(np.uint8)  # code W − 1: missing
    stats = rng.normal(size=(n, n_stats)).astype(np.float32)
    # the nodes: disjoint, each sorted, laid out in `order` in shuffled node order
    node = rng.integers(0, 2 * n_nodes, n)  # about half the rows belong to no node
    parts = [np.flatnonzero(node == s).astype(np.int32) for s in range(n_nodes)]
    layout = rng.permutation(n_nodes)
    order = np.concatenate([parts[s] for s in layout])
    starts, stops = np.zeros(n_nodes, np.intp), np.zeros(n_nodes, np.intp)
    at = 0
    for s in layout:
        starts[s], stops[s] = at, at + len(parts[s])
        at += len(parts[s])
    features = np.array([0, 2, 3, 4, 5, 6], dtype=np.intp)
    count_missing = np.array([True, False, True, True, False, True])
    node_of = np.full(n, -1, np.int32)
    for build in (N.build_histograms, N.build_histograms_serial):
        hist, n_missing = build(
            bins, order, stats, starts, stops, features, W, W - 1, count_missing,
            np.empty_like(stats), node_of, np.empty_like(order), np.empty(n, np.int32),
        )  # fmt: skip
        assert (node_of == -1).all()  # the marks are put back
        for s in range(n_nodes):
            rows = parts[s]
            for j, f in enumerate(features):
                codes = bins[f, rows]
                for q in range(n_stats):
                    expected = np.bincount(codes, weights=stats[rows, q], minlength=W)
                    np.testing.assert_array_equal(hist[s, j, :, q], expected)
                missing = np.count_nonzero(codes == W - 1) if count_missing[j] else 0
                assert n_missing[s, j] == missing


def test_subtraction_trick_gives_the_directly_built_histogram(kernel):
    X, y, _ = few_values(seed=8, n=300, nan=0.2)
    data = H.HistData(X.astype(np.float32))
    g = np.random.default_rng(0).normal(size=len(X)).astype(np.float32)
    h = np.random.default_rng(1).uniform(0.1, 1, len(X)).astype(np.float32)
    sp = H.HistSplitter(data, g, h, GrowParams())
    root = sp.root()
    _, G, Hs = sp.node_sums(root)
    cand = sp.find_split(root, G, Hs)
    left, right = sp.partition(root, cand)
    assert left.hist is None and right.hist is None  # owed until a child is scanned
    sp.find_split(left, *sp.node_sums(left)[1:])  # builds the smaller one, subtracts the other
    for child in (left, right):
        _, G_child, H_child = sp.node_sums(child)
        assert G_child == pytest.approx(g[child.rows].sum(dtype=np.float64), abs=1e-9)
        assert H_child == pytest.approx(h[child.rows].sum(dtype=np.float64), abs=1e-9)
        np.testing.assert_array_equal(child.rows, np.sort(child.rows))
        np.testing.assert_array_equal(child.stats[child.rows, 0], g[child.rows])  # by row id
        keep = np.zeros(len(X), dtype=bool)
        keep[child.rows] = True
        direct = H.HistSplitter(data, g, h, GrowParams()).root(keep=keep)
        np.testing.assert_allclose(child.hist, direct.hist, atol=1e-12)
        np.testing.assert_array_equal(child.n_missing, direct.n_missing)
    # the partition follows Tree.apply's rule: x < threshold, missing by default_left
    x = X[:, cand.feature].astype(np.float32)
    goes_left = np.where(np.isnan(x), cand.default_left, x < np.float32(cand.threshold))
    np.testing.assert_array_equal(np.sort(left.rows), np.flatnonzero(goes_left))


# ------------------------------------------------------------------ traces and trees
def test_trace_tables_of_a_hist_model(kernel):
    X, y, _ = few_values(seed=9, n=500, nan=0.1)
    names = [f"x{j}" for j in range(X.shape[1])]
    df = pd.DataFrame(X, columns=names)
    est = tg.BoostingClassifier(tree_method="hist", n_estimators=3, max_depth=3).fit(df, y)
    tr = est.trace_
    tree = est.trees_[1]
    nodes = tr.nodes(2)
    assert len(nodes) == tree.n_nodes
    for node in np.flatnonzero(~tree.is_leaf):
        s = tr.splits(2, int(node))
        assert list(s.columns) == [
            "feature",
            "threshold",
            "default_left",
            "G_L",
            "H_L",
            "G_R",
            "H_R",
            "gain",
            "chosen",
        ]
        chosen = s[s["chosen"]]
        assert len(chosen) == 1
        row = chosen.iloc[0]
        assert row["feature"] == names[tree.feature[node]]
        assert row["G_L"] + row["G_R"] == pytest.approx(tree.G[node], abs=1e-9)
        assert row["gain"] == pytest.approx(s["gain"].max(), abs=1e-9)
        assert row["gain"] == pytest.approx(tree.gain[node], rel=1e-6)
        assert row["H_L"] == pytest.approx(tree.H[tree.left[node]], abs=1e-9)
    ep = tr.epochs()
    assert ep.shape == (len(X), 2 + 5 * 3)
    np.testing.assert_allclose(ep["ep_3_pre"], est.decision_function(df), atol=1e-6)
    inst = tr.instances(2)
    assert (inst["leaf"].to_numpy() == tree.apply(X)).all()


def test_pruning_post_and_pre(kernel):
    X, _, logit = few_values(seed=10, n=400, levels=8)
    kw = dict(tree_method="hist", n_estimators=3, max_depth=5, gamma=3.0)
    pre = tg.BoostingRegressor(pruning="pre", **kw).fit(X, logit)
    post = tg.BoostingRegressor(pruning="post", **kw).fit(X, logit)
    default = tg.BoostingRegressor(**kw).fit(X, logit)
    for a, b in zip(pre.trees_, default.trees_):  # hist resolves pruning=None to "pre"
        np.testing.assert_array_equal(a.feature, b.feature)
    for t in pre.trees_:  # pre-stop: every split made has loss_chg >= gamma
        assert np.all(t.loss_chg[~t.is_leaf] >= 3.0)
    for t in post.trees_:  # post-prune: a split with two leaf children has loss_chg >= gamma
        for i in np.flatnonzero(~t.is_leaf):
            if t.is_leaf[t.left[i]] and t.is_leaf[t.right[i]]:
                assert t.loss_chg[i] >= 3.0


def test_subsample_and_colsample_are_used(kernel):
    X, y, _ = few_values(seed=11, n=600)
    est = tg.BoostingClassifier(
        tree_method="hist", n_estimators=4, subsample=0.5, colsample_bytree=0.5, random_state=0
    ).fit(X, y)
    for t, tree in enumerate(est.trees_, 1):
        info = est.trace_._rounds[t - 1]
        assert tree.n[0] == len(info["rows"])
        used = set(tree.feature[~tree.is_leaf].tolist())
        assert used <= set(info["features"].tolist())
        assert est.trace_.splits(t, 0)["feature"].isin([f"f{j}" for j in info["features"]]).all()


# ------------------------------------------------------------------ fitting options
def test_early_stopping_follows_xgboost():
    X, y, _ = few_values(seed=12, n=700, d=5, levels=8)
    Xt, yt, Xv, yv = X[:450], y[:450], X[450:], y[450:]
    kw = dict(tree_method="hist", n_estimators=60, max_depth=3, learning_rate=0.3)
    theirs = xgb.XGBClassifier(early_stopping_rounds=5, n_jobs=1, **kw)
    theirs.fit(Xt, yt, eval_set=[(Xv, yv)], verbose=False)
    ours = tg.BoostingClassifier(early_stopping_rounds=5, **kw).fit(Xt, yt, eval_set=[(Xv, yv)])
    assert ours.best_iteration_ == theirs.best_iteration
    assert len(ours.trees_) == len(theirs.get_booster().get_dump())
    np.testing.assert_allclose(
        ours.evals_result_["validation_0"]["logloss"],
        theirs.evals_result()["validation_0"]["logloss"],
        atol=1e-6,
    )
    # predictions use the best iteration, as XGBoost's do
    np.testing.assert_allclose(ours.predict_proba(Xv), theirs.predict_proba(Xv), atol=1e-6)


def test_eval_set_without_early_stopping_records_every_round():
    X, _, logit = few_values(seed=13, n=300)
    est = tg.BoostingRegressor(tree_method="hist", n_estimators=7).fit(
        X, logit, eval_set=[(X[:100], logit[:100]), (X[100:], logit[100:])]
    )
    assert set(est.evals_result_) == {"validation_0", "validation_1"}
    assert len(est.evals_result_["validation_1"]["rmse"]) == 7
    assert est.best_iteration_ is None


def test_callback_can_stop_training():
    X, y, _ = few_values(seed=14, n=200)
    seen = []

    def stop_after_three(model, t):
        seen.append((t, len(model.trees_)))
        return t >= 3

    est = tg.BoostingClassifier(
        tree_method="hist", n_estimators=10, callbacks=[stop_after_three]
    ).fit(X, y)
    assert len(est.trees_) == 3
    assert seen == [(1, 1), (2, 2), (3, 3)]


def test_progress_bar_quiet_unless_asked(capsys, monkeypatch):
    pytest.importorskip("tqdm")
    X, y, _ = few_values(seed=15, n=200)
    tg.BoostingClassifier(tree_method="hist", n_estimators=5).fit(X, y)  # stderr is no terminal
    tg.BoostingClassifier(tree_method="hist", n_estimators=5, verbose=False).fit(X, y)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    tg.BoostingClassifier(tree_method="hist", n_estimators=5, verbose=False).fit(X, y)
    assert capsys.readouterr().err == ""
    tg.BoostingClassifier(tree_method="hist", n_estimators=5, verbose=True).fit(X, y)
    assert "boosting" in capsys.readouterr().err


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("max_bin", [1, 0, 65536, 2.5, "256"])
def test_max_bin_out_of_range(max_bin):
    X, y, _ = few_values(n=50)
    with pytest.raises(ValueError, match="max_bin must be a whole number in 2..65535"):
        tg.BoostingClassifier(tree_method="hist", max_bin=max_bin).fit(X, y)


def test_eval_set_with_other_features():
    X, y, _ = few_values(n=80, d=4)
    X = X[:, :3]
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    other = df.rename(columns={"c": "z"})
    with pytest.raises(ValueError, match=r"eval_set\[0\] has other features .* missing \['c'\]"):
        tg.BoostingClassifier(tree_method="hist").fit(df, y, eval_set=[(other, y)])
    with pytest.raises(ValueError, match=r"eval_set\[0\] has 2 features but the training data"):
        tg.BoostingClassifier(tree_method="hist").fit(X, y, eval_set=[(X[:, :2], y)])


def test_early_stopping_needs_an_eval_set():
    X, y, _ = few_values(n=80)
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval_set"):
        tg.BoostingClassifier(tree_method="hist", early_stopping_rounds=3).fit(X, y)


def test_unknown_kernel_name(monkeypatch):
    monkeypatch.setattr(K, "KERNEL", "fortran")
    with pytest.raises(ValueError, match="use 'auto', 'numpy' or 'numba'"):
        H.numba_kernels()


def test_plots_diagrams_explanations_and_files_work_on_hist_models(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, logit = few_values(seed=16, n=300, d=4, nan=0.1)
    clf = tg.BoostingClassifier(tree_method="hist", n_estimators=4, max_depth=3)
    clf.fit(X, y, eval_set=[(X, y)])
    for ax in (
        tg.plot.loss_curve(clf),
        tg.plot.split_scan(clf, 1, 0, int(clf.trees_[0].feature[0])),
        tg.plot.probabilities(clf),
        tg.plot.importance(clf),
        clf.trees_[0].plot(),
    ):
        assert ax is not None
    assert clf.trees_[0].to_dot().startswith("digraph")
    assert "Gain" in str(tg.explain.split(clf, 1, 0))
    assert "w*" in str(tg.explain.leaf(clf, 1, int(clf.trees_[0].left[0])))
    clf.save(tmp_path / "m.json")
    np.testing.assert_array_equal(
        tg.load(tmp_path / "m.json").predict_proba(X), clf.predict_proba(X)
    )
    x1 = X[:, :1]
    reg = tg.BoostingRegressor(tree_method="hist", n_estimators=3).fit(x1, np.nan_to_num(logit))
    assert tg.plot.staircase(reg, x1, np.nan_to_num(logit)) is not None
    plt.close("all")


def test_splits_table_lists_each_partition_once_like_exact():
    """With few distinct values hist and exact evaluate the same partitions; the hist table
    lists each once (no empty side, no repeat from a bin empty in the node)."""
    X, y, _ = few_values(seed=11, n=300)
    kw = dict(n_estimators=2, max_depth=3, reg_lambda=0.5, min_child_weight=0.0)
    hist = tg.BoostingClassifier(tree_method="hist", **kw).fit(X, y)
    exact = tg.BoostingClassifier(tree_method="exact", **kw).fit(X, y)
    for t, node in [(1, 0), (2, 0), (2, 1)]:
        h = hist.trace_.splits(t, node)
        e = exact.trace_.splits(t, node)
        key = ["feature", "G_L", "H_L"]
        assert len(h) == len(e)
        pd.testing.assert_frame_equal(
            h[key].round(9).sort_values(key).reset_index(drop=True),
            e[key].round(9).sort_values(key).reset_index(drop=True),
        )
        assert h["chosen"].sum() == 1 and (h["H_L"] > 0).all() and (h["H_R"] > 0).all()


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
def test_threaded_and_one_thread_histograms_run_the_one_cached_kernel(tmp_path):
    """Threads are Python threads running one compiled kernel, never numba's
    ``parallel=True`` (numba's disk cache tells compilations apart by name and bytecode,
    not by ``parallel``: a threaded and a one-thread compilation of one function once
    shared an entry, and a fresh process could build every histogram on one thread).
    A one-thread call compiles the sweep; a threaded call in the next process loads that
    same code from the cache and gives the same sums."""
    import subprocess

    from teachgbt.core import _tree_numba
    from teachgbt.engine import _exact_numba, _hist_numba

    for module in (_hist_numba, _exact_numba, _tree_numba):
        for name, kernel in vars(module).items():
            if hasattr(kernel, "targetoptions"):  # a numba dispatcher
                assert not kernel.targetoptions.get("parallel"), f"{module.__name__}.{name}"
    script = (
        "import sys, numpy as np\n"
        "from teachgbt.engine import _hist_numba as N\n"
        "rng = np.random.default_rng(0)\n"
        "bins = rng.integers(0, 3, size=(8, 500)).astype(np.uint8)\n"
        "order = np.arange(10, 500, dtype=np.int32)\n"
        "stats = rng.normal(size=(500, 2)).astype(np.float32)\n"
        "build = N.build_histograms_serial if sys.argv[1] == '1' else N.build_histograms\n"
        "hist, _ = build(bins, order, stats, np.array([0]), np.array([490]), np.arange(8), 3,\n"
        "    2, np.zeros(8, bool), np.empty((500, 2), np.float32), np.full(500, -1, np.int32),\n"
        "    np.empty(490, np.int32), np.empty(490, np.int32))\n"
        "print(sum(N._sweep_features.stats.cache_hits.values()), hist.sum().hex())\n"
    )
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_NUM_THREADS": "2"}
    runs = [
        subprocess.run([sys.executable, "-c", script, k], env=env, capture_output=True, text=True)
        for k in ("1", "2")
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
    (hits_1, sums_1), (hits_2, sums_2) = (run.stdout.split() for run in runs)
    assert (hits_1, hits_2) == ("0", "1")
    assert sums_1 == sums_2


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
def test_compiled_prediction_routes_and_sums_as_numpy(monkeypatch):
    """Tree.apply and the margins of many trees, compiled (from 20,000 rows on) and in
    numpy: the same leaves and the same float32 margins, bit for bit, with missing
    values going both ways and values equal to a threshold."""
    rng = np.random.default_rng(5)
    n = 30_000
    X = rng.normal(size=(n, 5)).astype(np.float32)
    X[:, 2] = np.round(X[:, 2])  # values that equal a threshold
    X[rng.random(X.shape) < 0.15] = np.nan
    y = (np.nan_to_num(X[:, 0]) - np.isnan(X[:, 1]) + rng.normal(size=n) > 0).astype(float)
    model = tg.BoostingClassifier(tree_method="hist", n_estimators=12, max_depth=5).fit(X, y)
    assert {bool(v) for t in model.trees_ for v in t.default_left[~t.is_leaf]} == {True, False}
    got = {}
    for k in ("numpy", "numba"):
        monkeypatch.setattr(K, "KERNEL", k)
        got[k] = (model.decision_function(X), [t.apply(X) for t in model.trees_])
    np.testing.assert_array_equal(got["numpy"][0], got["numba"][0])
    for a, b in zip(got["numpy"][1], got["numba"][1], strict=True):
        np.testing.assert_array_equal(a, b)
