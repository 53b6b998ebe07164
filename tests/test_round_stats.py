"""A round's g and h: for a loss that works row by row they are computed a block of rows
at a time and laid out side by side (``XGBoostAlgorithm.round_stats``); they must be the
numbers ``grad_hess`` gives on every row at once, bit for bit, weighted or not."""

import numpy as np
import pytest

from teachgbt.core import losses
from teachgbt.engine import boosting
from teachgbt.engine.grow import GrowParams
from teachgbt.engine.hist import pack_stats

F32 = np.float32

LOSSES = {
    "reg:squarederror": {},
    "reg:squaredlogerror": {},
    "reg:pseudohubererror": {"huber_slope": 0.7},
    "reg:quantileerror": {"quantile_alpha": 0.3},
    "reg:absoluteerror": {},
    "count:poisson": {"max_delta_step": 0.7},
    "reg:gamma": {},
    "reg:tweedie": {"tweedie_variance_power": 1.4},
    "binary:logistic": {},
    "binary:logitraw": {},
    "binary:hinge": {},
}


def problem(objective, n=1003, seed=0):
    rng = np.random.default_rng(seed)
    margin = (rng.normal(size=n) * 2).astype(F32)
    margin[::50] = 1.0  # ties at the kinks (quantile and absolute error: y = margin; hinge)
    if objective.startswith("binary"):
        y = (rng.random(n) < 0.4).astype(np.float64)
    else:
        y = rng.gamma(2.0, 1.5, n)  # positive: every loss here accepts it
        y[::50] = margin[::50]
    return y, margin


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("objective", LOSSES)
def test_blockwise_g_h_are_grad_hess_bit_for_bit(monkeypatch, objective, weighted):
    monkeypatch.setattr(boosting, "BLOCK_ROWS", 64)  # many blocks and a short last one
    loss = losses.get_loss(objective, objective.startswith("binary"), **LOSSES[objective])
    assert loss.elementwise
    y, margin = problem(objective)
    w = np.random.default_rng(1).uniform(0.0, 3.0, len(y)) if weighted else None
    stats = boosting.XGBoostAlgorithm(loss, GrowParams()).round_stats(y, margin, w)
    g, h = loss.grad_hess(y, margin, dtype=F32)
    if weighted:
        g, h = g * w.astype(F32), h * w.astype(F32)
    assert stats["g"].dtype == F32 and stats["h"].dtype == F32
    np.testing.assert_array_equal(stats["g"], g)
    np.testing.assert_array_equal(stats["h"], h)
    # side by side already: the histogram trainer's packing keeps the very arrays
    packed = pack_stats(stats)
    assert packed["g"] is stats["g"] and packed["h"] is stats["h"]
    assert stats["g"].base is stats["h"].base is not None  # columns of one (n, 2) array


def test_blockwise_g_h_keep_the_hessian_error(monkeypatch):
    """A hessian that underflows to 0 in a late block is reported as on every row at once:
    the first such row and how many."""
    monkeypatch.setattr(boosting, "BLOCK_ROWS", 64)
    loss = losses.get_loss("count:poisson", False)
    y, margin = problem("count:poisson", n=500)
    margin[[300, 450]] = -1e4  # exp underflows: h = 0
    with pytest.raises(ValueError) as whole:
        losses.check_hessian(loss, loss.grad_hess(y, margin, dtype=F32)[1])
    with pytest.raises(ValueError) as blocks:
        boosting.XGBoostAlgorithm(loss, GrowParams()).round_stats(y, margin, None)
    assert str(blocks.value) == str(whole.value)
    assert "h[300]" in str(blocks.value) and "(2 of 500 rows)" in str(blocks.value)


def test_losses_that_are_not_row_by_row_keep_the_whole_array_path():
    """Softmax's g and h of a row need every class's margin; a custom objective may look at
    every row: neither is computed by blocks."""
    assert not losses.Softmax(3).elementwise
    assert not losses.CustomObjective(lambda y, m: (m - y, np.ones_like(m))).elementwise
