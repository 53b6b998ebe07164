"""The exact trainer's compiled twins (``engine._exact_numba``) against its numpy code:
the same trees bit for bit, the same node partitions; and the numpy code, which the
XGBoost parity tests no longer reach when numba is installed, against XGBoost itself.
"""

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core import formulas
from teachgbt.core.tree import _ARRAYS
from teachgbt.engine import exact as E
from teachgbt.engine.grow import GrowParams
from teachgbt.utils import _kernels as K

try:
    from teachgbt.engine import _exact_numba as KN
except ImportError:  # pragma: no cover - numba is optional
    KN = None

needs_numba = pytest.mark.skipif(KN is None, reason="numba is not installed")


def mixed_data(seed=0, n=3000, d=6, nan=0.1):
    """Continuous features and features with few values (many ties), some missing."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, ::2] = np.round(X[:, ::2] * 2) / 2
    X[:, 1] = np.round(X[:, 1], 3)
    Z = X.copy()
    X[rng.random((n, d)) < nan] = np.nan
    X[:, 4] = Z[:, 4]  # a feature never missing: backward scan only
    logit = Z[:, 0] - Z[:, 1] * Z[:, 2] + np.sin(2 * Z[:, 3]) + rng.normal(size=n)
    return X, logit, rng.uniform(0.3, 3.0, n)


CASES = {
    "default": dict(),
    "penalties": dict(reg_alpha=0.5, gamma=0.3, min_child_weight=3.0),
    "max_delta_step": dict(max_delta_step=0.7, reg_lambda=0.1),
    "sampled": dict(subsample=0.7, colsample_bytree=0.6, random_state=3),
    "best-first": dict(max_leaves=12, max_depth=0),
    "gbdt": dict(algorithm="gbdt", max_depth=4),
    "regression": dict(regressor=True, reg_lambda=0.0, min_child_weight=0.0),
    "multiclass": dict(classes=3, max_depth=4),
}


def fit(kw, sample_weight=None):
    kw = dict(kw)
    X, logit, w = mixed_data()
    if kw.pop("regressor", False):
        est, y = tg.BoostingRegressor, logit
    else:
        classes = kw.pop("classes", 2)
        est, y = tg.BoostingClassifier, np.digitize(logit, np.quantile(logit, [0.4, 0.7]))
        y = y if classes == 3 else (y > 0).astype(int)
    return est(n_estimators=4, verbose=False, **kw).fit(X, y, sample_weight=w)


@needs_numba
@pytest.mark.parametrize("threads", [False, True], ids=["one-thread", "shared"])
@pytest.mark.parametrize("kw", CASES.values(), ids=CASES.keys())
def test_numpy_and_numba_grow_identical_trees(monkeypatch, kw, threads):
    """Every node array of every tree, bit for bit: the numba twin finds the same splits
    (float32 near ties included) and sends the same rows down each side."""
    fits = {}
    for kernel in ("numpy", "numba"):
        monkeypatch.setattr(K, "KERNEL", kernel)
        # "shared": even small nodes are shared out between threads
        monkeypatch.setattr(KN, "PARALLEL_WORK", 0 if threads else 1 << 40)
        fits[kernel] = fit(kw)
    assert len(fits["numpy"].trees_) == len(fits["numba"].trees_)
    for a, b in zip(fits["numpy"].trees_, fits["numba"].trees_):
        assert a.n_nodes > 1
        for name in _ARRAYS:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        for name in a.extra:
            np.testing.assert_array_equal(a.extra[name], b.extra[name], err_msg=name)


@needs_numba
@pytest.mark.parametrize("threads", [False, True], ids=["one-thread", "shared"])
def test_compiled_partition_is_the_numpy_subset(monkeypatch, threads):
    monkeypatch.setattr(KN, "PARALLEL_WORK", 0 if threads else 1 << 40)
    X, _, _ = mixed_data(seed=4, n=500)
    cols = E.SortedColumns(X)
    rng = np.random.default_rng(5)
    g = rng.normal(size=len(X)).astype(np.float32)
    sp = E.ExactSplitter(cols, g, np.ones_like(g), GrowParams(), rows=np.arange(0, 500, 2))
    nd = sp.root()  # every other row: a node that does not start from the whole column
    go_left = rng.random(len(X)) < 0.4
    left_ids, left_values, right_ids, right_values, n_left = KN.partition(
        nd.idx, nd.values, go_left, nd.n_present
    )
    mask = go_left[nd.idx]
    for ids, values, n_present, side in (
        (left_ids, left_values, n_left, nd.subset(mask)),
        (right_ids, right_values, nd.n_present - n_left, nd.subset(~mask)),
    ):
        np.testing.assert_array_equal(ids, side.idx)
        np.testing.assert_array_equal(values, side.values)
        np.testing.assert_array_equal(n_present, side.n_present)
        assert ids.flags.c_contiguous and values.flags.c_contiguous


def test_kernel_choice(monkeypatch):
    X, _, _ = mixed_data(n=50)
    g = np.zeros(len(X), dtype=np.float32)
    monkeypatch.setattr(K, "KERNEL", "numpy")
    assert E.ExactSplitter(E.SortedColumns(X), g, g, GrowParams()).kernels is None
    if KN is not None:
        monkeypatch.setattr(K, "KERNEL", "numba")
        assert E.ExactSplitter(E.SortedColumns(X), g, g, GrowParams()).kernels is KN


@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=4, reg_lambda=1.0),
        dict(max_depth=5, reg_lambda=0.3, reg_alpha=1.5, min_child_weight=0.5),
        dict(max_depth=3, reg_lambda=1.0, max_delta_step=0.7),
    ],
    ids=["default", "penalties", "max_delta_step"],
)
def test_numpy_code_matches_xgboost_exact(monkeypatch, params):
    """The readable numpy scan, on ties and missing values, against XGBoost exact."""
    xgb = pytest.importorskip("xgboost")
    import xgb_compare

    monkeypatch.setattr(K, "KERNEL", "numpy")
    X, logit, w = mixed_data(seed=7, n=600)
    y = (logit > 0.2).astype(int)
    est, booster = xgb_compare.run_both(X, y, params, True, "exact", w, n_rounds=6)
    theirs = booster.predict(xgb.DMatrix(X, missing=np.nan), output_margin=True)
    np.testing.assert_allclose(est.decision_function(X), theirs, rtol=1e-5, atol=1e-5)
    for t, (tree, dump) in enumerate(zip(est.trees_, xgb_compare.xgb_trees(booster)), 1):
        diffs = xgb_compare.compare_tree(tree, dump, X=X)
        assert not diffs, f"tree {t}: {diffs[:3]}"


def mirrored_node(seed=1773, n=40):
    """A node whose splits come in tied pairs: g and h read the same backwards, so the
    split after q rows and the one after n − 2 − q rows have the same gain, but for
    rounding. With this seed the best pair differs in float64 by rounding alone and
    float32 rounds both to one value."""
    rng = np.random.default_rng(seed)
    half = (rng.normal(size=n // 2) * 10.0 ** rng.integers(-3, 3, n // 2)).astype(np.float32)
    hh = rng.uniform(0.1, 0.3, n // 2).astype(np.float32)
    X = np.arange(n, dtype=np.float32)[:, None]
    return X, np.concatenate([half, half[::-1]]), np.concatenate([hh, hh[::-1]])


@pytest.mark.parametrize("kernel", ["numpy", "numba"])
def test_float32_tie_goes_to_the_first_in_scan_order(monkeypatch, kernel):
    """Both kernels let XGBoost's float32 loss_chg rank candidates whose float64 ones are
    within rounding of the top: here the float64 top is the split after 14 rows, but in
    float32 it ties with the split after 26 rows, which the backward scan meets first."""
    if kernel == "numba" and KN is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(K, "KERNEL", kernel)
    X, g, h = mirrored_node()
    splitter = E.ExactSplitter(E.SortedColumns(X), g, h, GrowParams())
    nd = splitter.root()
    _, G, H = splitter.node_sums(nd)
    _, parts = splitter.scan(nd, slice(0, 1), G, H, H)
    back = parts[-2]  # the backward scan, position q: rows 0..q left
    kw = splitter.params.formula_params  # loss_chg as the scan ranks it, in float64
    lc64 = formulas.leaf_score(back.G_L, back.H_L, **kw)
    lc64 += formulas.leaf_score(G - back.G_L, H - back.H_L, **kw)
    lc64 -= formulas.leaf_score(G, H, **kw)
    lc64[~splitter._valid(back, H, H - back.H_L)] = -np.inf
    assert np.argmax(lc64[0]) == 13 and lc64[0, 13] > lc64[0, 25]
    cand = splitter.find_split(nd, G, H)
    assert cand.threshold == 25.5 and cand.default_left


@needs_numba
@pytest.mark.parametrize(
    "penalties",
    [(1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0), (0.3, 0.5, 0.0, 0.2), (0.1, 0.0, 0.7, 0.0)],
    ids=["default", "no-lambda", "alpha", "max_delta_step"],
)
def test_boundary_scores_are_loss_chg_bit_for_bit(penalties):
    """The scan's boundary scores (``_boundaries``: computed for every boundary and kept by
    a select, numpy's error model) equal the scalar ``loss_chg`` bit for bit, −inf where
    the values tie or a side's cover is too small, and 0 for a side with H <= 0 (here
    a right side whose hessians round away, and one left side of exactly 0)."""
    from teachgbt.engine._hist_numba import loss_chg

    lam, alpha, mds, mcw = penalties
    rng = np.random.default_rng(5)
    n = 400
    h = rng.uniform(0.05, 1.0, n)
    h[-3:] = 1e-300  # the last rows' h: H − H_L is 0 or below by rounding
    ch = np.cumsum(h)
    ch[0] = 0.0 if lam else ch[0]  # with λ = 0 a zero H would divide by zero: not a real sum
    cg = np.cumsum(rng.normal(size=n))
    cc = ch.copy()
    vals = np.sort(np.round(rng.normal(size=n + 1), 1)).astype(np.float32)  # many ties
    G, H = cg[-1] + 0.25, ch[-1]
    root = G * G / (H + lam)
    node = np.array([G, H, H, root, np.float32(root), lam, alpha, mds, mcw])
    for add in [(0.0, 0.0, 0.0), (0.25, 0.0, 0.0)]:
        out = np.full(2 * n, -np.inf)
        KN._boundaries(cg, ch, cc, vals, n, *add, node, out, n - 2, -1)
        for q in range(n - 1):
            GL, HL, CL = cg[q] + add[0], ch[q] + add[1], cc[q] + add[2]
            want = -np.inf
            if vals[q] != vals[q + 1] and CL >= mcw and H - CL >= mcw:
                want = loss_chg(GL, HL, G - GL, H - HL, root, lam, alpha, mds, mcw, False)
            got = out[n - 2 - q]
            assert np.float64(got).tobytes() == np.float64(want).tobytes(), (q, got, want)


@pytest.mark.parametrize("kernel", ["numpy", "numba"])
def test_children_at_max_depth_keep_only_their_rows(monkeypatch, kernel):
    """A split whose children are at max_depth (never scanned) gives them their rows in
    line 0's order only, the same rows and the same order as the full partition's line 0,
    so their sums are the same numbers; children above max_depth keep every feature."""
    if kernel == "numba" and KN is None:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(K, "KERNEL", kernel)
    X, logit, _ = mixed_data(seed=6, n=600)
    cols = E.SortedColumns(X)
    g = (1 / (1 + np.exp(-logit)) - (logit > 0)).astype(np.float32)
    h = np.full(len(X), 0.25, dtype=np.float32)
    kids = {}
    for max_depth in (1, 2):
        sp = E.ExactSplitter(cols, g, h, GrowParams(max_depth=max_depth))
        root = sp.root()
        cand = sp.find_split(root, *sp.node_sums(root)[1:])
        kids[max_depth] = (sp, sp.partition(root, cand))
    (leaf_sp, leaves), (full_sp, full) = kids[1], kids[2]
    for leaf, child in zip(leaves, full):
        assert leaf.depth == child.depth == 1
        assert leaf.idx.shape[0] == 1 and child.idx.shape[0] == X.shape[1]
        np.testing.assert_array_equal(leaf_sp.node_rows(leaf), full_sp.node_rows(child))
        assert leaf_sp.node_sums(leaf) == full_sp.node_sums(child)
