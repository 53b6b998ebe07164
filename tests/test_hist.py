"""The histogram trainer (tree_method="hist"): agreement with the exact trainer, the numpy
and numba kernels, binning and histograms, traces of hist models, bad input. None of it
needs XGBoost (its parity tests are test_hist_xgboost.py; eval sets, early stopping and
callbacks test_callbacks.py)."""

import os
import sys

import numpy as np
import pandas as pd
import pytest
from hist_data import KERNELS, few_values

import teachgbt as tg
from teachgbt.engine import hist as H
from teachgbt.engine.grow import GrowParams
from teachgbt.utils import kernels as K


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
    # the compiled histograms and partitions on one thread, and threaded however small
    for k, threads_from in (("numpy", None), ("numba", 1 << 62), ("numba", 0)):
        monkeypatch.setattr(K, "KERNEL", k)
        if threads_from is not None:
            monkeypatch.setattr(H, "PARALLEL_HISTOGRAM", threads_from)
            monkeypatch.setattr(H, "PARALLEL_PARTITION", threads_from)
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


@pytest.mark.parametrize(
    "kw",
    [
        dict(max_depth=3),  # the last level's rows are never moved: their values written
        dict(max_depth=4, reg_alpha=0.5, min_child_weight=3.0),  # some leaves settle early
        dict(max_depth=5, gamma=2.0, pruning="post"),  # pruned: written from the final tree
        dict(max_depth=0, max_leaves=7),  # best-first
        dict(max_depth=3, algorithm="gbdt"),  # leaf values from leaf_stats
        dict(max_depth=1),  # one split: the root's children written at once
        dict(max_depth=3, gamma=1e9, pruning="post"),  # everything pruned: one leaf
    ],
    ids=["depth3", "early-leaves", "post-pruned", "best-first", "gbdt", "stump", "one-leaf"],
)
@pytest.mark.parametrize(
    "kernel, threads_from",
    [("numpy", None)] + ([("numba", None), ("numba", 0)] if "numba" in KERNELS else []),
    ids=["numpy", "numba", "numba-threaded"][: 1 + 2 * ("numba" in KERNELS)],
)
def test_written_steps_equal_the_rows_leaves(monkeypatch, kw, kernel, threads_from):
    """``grow_tree(out=...)`` (what a round without subsample or leaf refresh does) grows
    the same tree as the (rows, leaf) path, and writes each row the value of the leaf
    ``Tree.apply`` routes it to, for every node size and both kernels."""
    from teachgbt.core.losses import Logistic
    from teachgbt.engine.boosting import TREE_METHODS
    from teachgbt.engine.grow import grow_tree
    from teachgbt.engine.training import ALGORITHMS

    monkeypatch.setattr(K, "KERNEL", kernel)
    if threads_from is not None:
        monkeypatch.setattr(H, "PARALLEL_PARTITION", threads_from)
    X, y, _ = few_values(seed=4, n=3000, d=5, levels=9, nan=0.1)
    X32 = X.astype(np.float32)
    est = tg.BoostingClassifier(tree_method="hist", **kw)
    params = est._train_params().grow_params()
    algo = ALGORITHMS[est.algorithm](Logistic(), params)
    margin = algo.initial_margin(0.0, len(y))
    stats = algo.round_stats(y, margin, None)
    method = TREE_METHODS["hist"]
    data = method.prepare(X32, 64)
    grown = {}
    for writes in (False, True):
        splitter = method.splitter(data, method.pack(stats), algo.scan_params())
        out = np.full(len(y), np.nan, dtype=algo.dtype) if writes else None
        leaf_stats = algo.leaf_stats(splitter, stats)
        grown[writes] = grow_tree(splitter, algo.params, X.shape[1], None, leaf_stats, out=out)
        grown[writes] += (out,)
    tree, rows, leaf, _ = grown[False]
    written, none_rows, none_leaf, out = grown[True]
    assert none_rows is None and none_leaf is None
    for name in ("feature", "threshold", "default_left", "n", "G", "H", "value", "left"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(written, name), err_msg=name)
    expected = np.empty(len(y), dtype=algo.dtype)
    expected[rows] = tree.value[leaf]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(out, tree.value[tree.apply(X32)].astype(algo.dtype))


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
@pytest.mark.parametrize("kw", [dict(max_depth=5), dict(max_depth=0, max_leaves=24)])
def test_siblings_subtracted_from_parents_anywhere(monkeypatch, kw):
    """The compiled scan subtracts each sibling's histogram from its parent's where the
    parents lie (at most two arrays: the level before's children and siblings); parents
    it cannot find so (copied into one array then) give the same trees as numpy's."""
    X, y, _ = few_values(seed=6, n=6000, d=5, levels=40, nan=0.1)
    fits = {}
    for case in ("numpy", "numba", "numba, parents copied"):
        monkeypatch.setattr(K, "KERNEL", case.split(",")[0])
        if case.endswith("copied"):
            children = H.HistSplitter._children

            def lose_parent_slots(self, *args, children=children, **kwargs):
                kids = children(self, *args, **kwargs)
                for kid in kids:
                    kid.parent_slot = None
                return kids

            monkeypatch.setattr(H.HistSplitter, "_children", lose_parent_slots)
        est = tg.BoostingRegressor(tree_method="hist", n_estimators=4, max_bin=32, **kw)
        fits[case] = est.fit(X, y + np.nan_to_num(X[:, 0])).trees_
    for case in ("numba", "numba, parents copied"):
        for a, b in zip(fits["numpy"], fits[case], strict=True):
            for name in ("feature", "threshold", "default_left", "n", "G", "H", "value"):
                np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=case)


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
def test_row_space_is_reused_between_trees_and_let_go_after_fit(monkeypatch):
    """A fit's trees on every row grow in one set of row arrays, taken in turn from the
    data; the fit lets it go at its end, and a space whose merge stopped midway (marks
    left in it) is not handed to the next tree."""
    monkeypatch.setattr(K, "KERNEL", "numba")
    borrowed = []
    borrow = H.RowSpace.borrow

    def counting(cls, data, index, kernels):
        borrowed.append(borrow(data, index, kernels))
        return borrowed[-1]

    monkeypatch.setattr(H.RowSpace, "borrow", classmethod(counting))
    X, y, _ = few_values(seed=2, n=5000, d=4, levels=30, nan=0.1)
    est = tg.BoostingClassifier(tree_method="hist", n_estimators=4, max_depth=4).fit(X, y)
    assert len(borrowed) == 4 and all(b is borrowed[0] for b in borrowed)
    data = est.model_.trace._data
    assert data.row_space is None  # let go when the fit ended
    space = borrow(data, np.int32, H.numba_kernels())
    space.clean = False
    space.give_back(data)
    assert data.row_space is None
    space.clean = True
    space.give_back(data)
    assert data.row_space is space


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


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
def test_compiled_apply_matches_the_readable_one(monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30_000, 5)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(size=len(X))
    est = tg.BoostingRegressor(tree_method="hist", n_estimators=3, max_depth=6).fit(X, y)
    tree = est.trees_[2]
    monkeypatch.setattr(K, "KERNEL", "numba")  # (under "auto" it may be compiling)
    fast = tree.apply(X)  # the compiled kernel (>= 20 000 rows)
    monkeypatch.setattr(K, "KERNEL", "numpy")
    slow = tree.apply(X)
    np.testing.assert_array_equal(fast, slow)
    for i in range(0, len(X), 5000):
        assert tree.path(X[i])[-1] == fast[i]
    # the compiled sum over all trees (rows go through every tree at once) adds the
    # same float32 numbers in the same order as the readable tree-by-tree loop
    monkeypatch.setattr(K, "KERNEL", "numba")
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
    node_of = np.full(n, N.NO_NODE, np.uint16)
    room = len(order) + N.MERGE_PARTS  # the merge's arrays leave a spare place a part
    merged = N._merge_span(order, starts, stops, room - N.MERGE_PARTS)[0] >= 0
    assert merged == (n_nodes == 24)  # the case meant to be merged is
    for build in (N.build_histograms, N.build_histograms_serial):
        hist, n_missing = build(
            bins, order, stats, starts, stops, features, W, W - 1, count_missing,
            node_of, np.empty(room, order.dtype), np.empty(room, np.uint16),
        )  # fmt: skip
        assert (node_of == N.NO_NODE).all()  # the marks are put back
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


@pytest.mark.parametrize("cover", [False, True], ids=["g-h", "g-h-cover"])
def test_packed_statistics_are_read_in_place_and_grow_the_same_nodes(kernel, cover):
    """``pack_stats`` lays g, h (and the cover statistic) side by side in one array; the
    splitter then reads that array instead of copying it, and finds the same sums, splits
    and histograms as from separate arrays. Columns that are not one packed array (a
    slice of another, another dtype) are copied as before."""
    X, y, _ = few_values(seed=8, n=300, nan=0.2)
    data = H.HistData(X.astype(np.float32))
    rng = np.random.default_rng(0)
    stats = {
        "g": rng.normal(size=len(X)).astype(np.float32),
        "h": rng.uniform(0.1, 1, len(X)).astype(np.float32),
        "h_cover": rng.uniform(0.1, 1, len(X)).astype(np.float32) if cover else None,
    }
    packed = H.pack_stats(stats)
    assert packed["g"].base is packed["h"].base
    for k in ("g", "h", "h_cover"):
        if stats[k] is not None:
            np.testing.assert_array_equal(packed[k], stats[k])
    roots = []
    for s in (stats, packed):
        sp = H.HistSplitter(data, s["g"], s["h"], GrowParams(), h_cover=s["h_cover"])
        root = sp.root()
        cand = sp.find_split(root, *sp.node_sums(root)[1:])
        roots.append((root, cand, sp.partition(root, cand)))
    assert np.shares_memory(roots[1][0].stats, packed["g"])  # read in place
    assert not np.shares_memory(roots[0][0].stats, stats["g"])  # copied
    (r0, c0, kids0), (r1, c1, kids1) = roots
    assert r0.sums == r1.sums and (c0.feature, c0.threshold, c0.gain) == (
        c1.feature,
        c1.threshold,
        c1.gain,
    )
    np.testing.assert_array_equal(r0.hist, r1.hist)
    for a, b in zip(kids0, kids1):
        np.testing.assert_array_equal(a.rows, b.rows)
    # not a packed array: a strided slice of a wider one, or float64 columns
    wide = np.stack([stats["g"], stats["h"], stats["g"]], axis=1)
    g64, h64 = (np.asarray(packed[k], dtype=np.float64) for k in ("g", "h"))
    for g, h in ((wide[:, 0], wide[:, 1]), (g64, h64)):
        root = H.HistSplitter(data, g, h, GrowParams()).root()
        assert not np.shares_memory(root.stats, g)
        np.testing.assert_array_equal(root.stats, np.stack([g, h], axis=1))


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
        info = est.trace_._samples[t - 1]
        assert tree.n[0] == len(info["rows"])
        used = set(tree.feature[~tree.is_leaf].tolist())
        assert used <= set(info["features"].tolist())
        assert est.trace_.splits(t, 0)["feature"].isin([f"f{j}" for j in info["features"]]).all()


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


def test_unknown_kernel_name(monkeypatch):
    monkeypatch.setattr(K, "KERNEL", "fortran")
    with pytest.raises(ValueError, match="use 'auto', 'numpy' or 'numba'"):
        H.numba_kernels()


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
        "    2, np.zeros(8, bool), np.full(500, N.NO_NODE, np.uint16),\n"
        "    np.empty(498, np.int32), np.empty(498, np.uint16))\n"
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


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
def test_n_jobs_sets_the_threads_and_not_the_trees(monkeypatch, tree_method):
    """``n_jobs`` (scikit-learn's meaning) is how many threads the compiled kernels share
    fit and predict between; one thread and two grow the same trees bit for bit."""
    pytest.importorskip("numba")
    monkeypatch.setattr(K, "KERNEL", "numba")
    X, y, _ = few_values(seed=3, n=30_000, nan=0.1)
    used = []
    share = K.share

    def counting_share(kernel, args, n, threads=None):
        used.append(min(K.n_threads() if threads is None else threads, n))
        return share(kernel, args, n, threads)

    monkeypatch.setattr(K, "share", counting_share)
    fits = {}
    for n_jobs in (1, 2):
        used.clear()
        est = tg.BoostingClassifier(tree_method=tree_method, n_estimators=3, n_jobs=n_jobs)
        fits[n_jobs] = est.fit(X, y).decision_function(X)
        assert max(used) == n_jobs
    np.testing.assert_array_equal(fits[1], fits[2])
    with K.threads(-1):
        assert K.n_threads() == (os.cpu_count() or 1)
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            tg.BoostingRegressor(n_jobs=bad).fit(X[:50], y[:50])


def test_binning_threads_find_the_serial_cuts_and_codes(monkeypatch):
    """The columns' extremes found by several threads (each a share of the rows) are those
    one thread finds, and so are the cut points and codes, on sampled data with missing
    values, an all-missing column, an infinite value, few distinct values (looked up in
    blocks of rows) and a categorical column."""
    from teachgbt.engine import binning
    from teachgbt.utils import kernels

    rng = np.random.default_rng(4)
    X = rng.normal(size=(6000, 6)).astype(np.float32)
    X[rng.random(6000) < 0.1, 0] = np.nan
    X[:, 1] = np.nan
    X[17, 2] = np.inf
    X[:, 3] = np.round(X[:, 3])
    X[:, 4] = rng.integers(0, 5, 6000)
    made = {}
    for cells in (1 << 62, 0):  # one thread; threads from any size on
        monkeypatch.setattr(binning, "PARALLEL_EXTREMES", cells)
        monkeypatch.setattr(binning._all_among, "__defaults__", (1000,) if cells else (1 << 16,))
        with kernels.threads(2):
            made[cells] = binning.HistData(X, max_bin=32, sample_rows=2500, categorical=[4])
    one, many = made[1 << 62], made[0]
    for name in ("cuts", "min_val", "n_bins", "has_missing", "exact_cuts", "bins"):
        np.testing.assert_array_equal(getattr(one, name), getattr(many, name), err_msg=name)


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
def test_merge_counts_each_parts_rows():
    """The merge cuts the row ids into parts, one a thread, and first counts each part's
    rows of every node by binary search: the counts a direct comparison gives, with empty
    nodes, empty parts and bounds at the ends."""
    from teachgbt.engine import _hist_numba as N

    rng = np.random.default_rng(0)
    for _ in range(200):
        n, k = int(rng.integers(1, 3000)), int(rng.integers(1, 9))
        node = rng.integers(0, k + 1, n)
        parts = [np.flatnonzero(node == s).astype(np.int32) for s in range(k)]
        stops = np.cumsum([len(p) for p in parts]).astype(np.intp)
        starts = stops - np.array([len(p) for p in parts])
        bounds = np.sort(rng.integers(0, n + 1, int(rng.integers(2, 6)))).astype(np.int64)
        count = np.zeros(len(bounds) - 1, dtype=np.int64)
        N._part_counts(np.concatenate(parts), starts, stops, bounds, count)
        rows = np.concatenate(parts)
        expected = [np.count_nonzero((rows >= a) & (rows < b)) for a, b in zip(bounds, bounds[1:])]
        np.testing.assert_array_equal(count, expected)


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
@pytest.mark.parametrize("n_stats", [2, 3])
@pytest.mark.parametrize("d", [1, 2, 3, 5, 28])
def test_root_histogram_adds_up_the_column_sums(n_stats, d):
    """The root's G and H, added up while its histogram is swept (or by ``column_sums``
    where the sweep cannot: one feature a thread, a third statistic): the float64 sums in
    row order, bit for bit, on one thread and two, over every row and over a sample; and
    its histograms, bincount's bit for bit (every row of the data is swept without looking
    the rows up)."""
    from teachgbt.engine import _hist_numba as N

    rng = np.random.default_rng(d)
    n, W = 70_000, 9  # more rows than one block of the sweep
    bins = rng.integers(0, W, size=(d, n)).astype(np.uint8)
    stats = (rng.normal(size=(n, n_stats)) * 1e3).astype(np.float32)
    work = (np.full(n, N.NO_NODE, np.uint16), np.empty(n, np.int32), np.empty(n, np.uint16))
    for order in (np.arange(n, dtype=np.int32), np.flatnonzero(rng.random(n) < 0.6)):
        order = order.astype(np.int32)
        expected = N.column_sums(stats, order)
        for build in (N.build_histograms, N.build_histograms_serial):
            sums = np.empty(n_stats)
            hist, _ = build(
                bins, order, stats, np.array([0]), np.array([len(order)]), np.arange(d), W,
                W - 1, np.zeros(d, bool), *work, sums=sums,
            )  # fmt: skip
            np.testing.assert_array_equal(sums, expected)
            # and the histograms, every row's swept without looking it up: bincount's
            for j in range(d):
                for q in range(n_stats):
                    weights = stats[order, q].astype(np.float64)
                    np.testing.assert_array_equal(
                        hist[0, j, :, q], np.bincount(bins[j, order], weights, minlength=W)
                    )


@pytest.mark.skipif("numba" not in KERNELS, reason="numba is not installed")
def test_partition_runs_cut_at_the_node_boundary_nearest_an_even_share():
    """A level's nodes are shared out in runs of whole nodes; each cut lies at the boundary
    nearest its share of the rows (a first node of 710 rows of 1000 is one thread's run,
    not the whole level the other's), and the runs cover every node once, in order."""
    from teachgbt.engine import _hist_numba as N

    def runs(sizes, threads):
        stops = np.cumsum(sizes)
        return N._runs(stops - np.array(sizes), stops, threads)[0].tolist()

    assert runs([710, 290], 2) == [0, 1, 2]
    assert runs([100, 100, 100, 700], 2) == [0, 3, 4]
    assert runs([300, 300, 300], 3) == [0, 1, 2, 3]
    rng = np.random.default_rng(0)
    for _ in range(300):
        sizes = rng.integers(0, 1000, int(rng.integers(1, 40))).tolist()
        threads = int(rng.integers(2, 5))
        bounds = runs(sizes, threads)
        assert bounds[0] == 0 and bounds[-1] == len(sizes) and bounds == sorted(bounds)
        rows = np.concatenate([[0], np.cumsum(sizes)])
        for p, cut in enumerate(bounds[1:-1], start=1):
            target = rows[-1] * p / min(threads, len(sizes))
            assert abs(rows[cut] - target) <= np.abs(rows - target).min() or cut == bounds[p - 1]
