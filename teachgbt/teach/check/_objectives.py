"""Checkers for losses other than the square and the logistic one (lesson 14, "Any loss").

* ``objective_gradient``: g or h of one row for any trainable objective, as XGBoost computes
  them (``teachgbt.core.losses``): Poisson's h with its e^max_delta_step, the quantile's
  1 − α / −α, the absolute error's stand-in h = 1;
* ``refreshed_leaf``: an absolute-error or quantile leaf after XGBoost's refresh, η × the
  α-quantile of the leaf's residuals y − ŷ;
* ``clipped_leaf``: η·w* with |w*| capped at ``max_delta_step`` (count:poisson's 0.7).
"""

from __future__ import annotations

import numpy as np

from ...core.losses import get_loss, xgboost_quantile
from ...explain import bracketed
from ._core import div, fmt, fmt_list, result, worked

__all__ = ["objective_gradient", "refreshed_leaf", "clipped_leaf"]

# g and h of each objective: (formula, the formula with y, ŷ and the parameters filled in)
_FORMULAS = {
    "reg:squarederror": (
        ("ŷ − y", "{m} − {y}"),
        ("1", "1"),
    ),
    "reg:absoluteerror": (
        ("sign(ŷ − y)", "sign({m} − {y})"),
        ("1 (a stand-in: the true h is 0)", "1"),
    ),
    "reg:quantileerror": (
        ("1 − α if ŷ ≥ y, else −α", "{quantile}"),
        ("1 (a stand-in: the true h is 0)", "1"),
    ),
    "count:poisson": (
        ("e^ŷ − y", "e^{m} − {y}"),
        ("e^(ŷ + max_delta_step)", "e^({m} + {mds})"),
    ),
    "reg:gamma": (
        ("1 − y·e^−ŷ", "1 − {y}·e^−{m}"),
        ("y·e^−ŷ", "{y}·e^−{m}"),
    ),
}


def objective_gradient(answer, objective, y, margin, order=1, tol=None, reveal=False, **params):
    """Check g (``order=1``) or h (``order=2``) of one row with label ``y`` at the margin ŷ
    for ``objective`` (XGBoost's name; ``params``: ``huber_slope``, ``quantile_alpha``,
    ``max_delta_step``)."""
    if objective not in _FORMULAS:
        raise ValueError(f"objective must be one of {sorted(_FORMULAS)}; got {objective!r}")
    if order not in (1, 2):
        raise ValueError(f"order must be 1 (g) or 2 (h); got {order!r}")
    loss = get_loss(objective, False, **params)
    y, m = float(y), float(margin)
    g, h = (float(v[0]) for v in loss.grad_hess(np.array([y]), np.array([m])))
    exact = g if order == 1 else h
    what = "g" if order == 1 else "h"
    slips = [(-g, "the sign: g = ∂l/∂ŷ, so it points away from y (y − ŷ is −g).")] if g else []
    if objective == "count:poisson":
        mds = loss.max_delta_step
        slips += [
            (m - y, "g uses the prediction e^ŷ, not the margin ŷ: g = e^ŷ − y."),
            (np.exp(m), "h = e^(ŷ + max_delta_step): XGBoost inflates Poisson's h by e^0.7."),
            (np.exp(m) * mds, "e^(ŷ + max_delta_step) is a product e^ŷ·e^0.7, not e^ŷ·0.7."),
        ]
    if objective in ("reg:absoluteerror", "reg:quantileerror") and order == 2:
        slips.append(
            (0.0, "the true h is 0, but XGBoost uses 1 per row (then refreshes the leaf).")
        )
    if objective == "reg:quantileerror" and order == 1:
        a = loss.quantile_alpha
        slips.append((-a if g > 0 else 1 - a, "α and 1 − α swapped: below y, g = −α."))
    formula, filled = _FORMULAS[objective][order - 1]
    a = getattr(loss, "quantile_alpha", 0.5)
    quantile = f"1 − {fmt(a)} (ŷ ≥ y)" if m >= y else f"−{fmt(a)} (ŷ < y)"
    mds = getattr(loss, "max_delta_step", 0.0)
    filled = filled.format(m=bracketed(m, 3), y=bracketed(y, 3), quantile=quantile, mds=fmt(mds))
    sol = worked(f"{what} of {objective}", [(what, formula), ("", filled), ("", fmt(exact))], exact)
    q = f"work out {what} of {objective} for y = {fmt(y)} at the margin ŷ = {fmt(m)}"
    q += "".join(f", {k} = {fmt(v)}" for k, v in params.items())
    return result(what, answer, exact, tol, sol, q, slips, reveal=reveal)


def refreshed_leaf(answer, residuals, learning_rate, quantile_alpha=0.5, tol=None, reveal=False):
    """Check a refreshed leaf: η × the α-quantile of its rows' residuals y − ŷ (the median
    for the absolute error), as XGBoost's hist sets it after growing the tree."""
    r = np.asarray(residuals, dtype=np.float64)
    eta, a = float(learning_rate), float(quantile_alpha)
    q = xgboost_quantile(r, a)
    exact = eta * q
    newton = -float(np.sum(np.sign(-r))) / (len(r) + 1.0)  # −G/(H+λ), g = sign(ŷ − y), λ = 1
    slips = [
        (q, "the learning rate is missing: the leaf adds η × the quantile."),
        (eta * float(np.mean(r)), "that is the mean residual (the squared error's leaf)."),
        (eta * newton, "that is −G/(H+λ) with h = 1: the Newton step the refresh replaces."),
    ]
    sol = worked(
        "A refreshed leaf",
        [("q", f"the {fmt(a)}-quantile of {fmt_list(np.sort(r))} = {fmt(q)}"),
         ("η·q", f"{fmt(eta)} × {bracketed(q, 3)} = {fmt(exact)}")],
        exact,
    )  # fmt: skip
    question = (
        f"work out the refreshed leaf value η·q for the residuals y − ŷ = {fmt_list(r)} of the "
        f"leaf's rows, α = {fmt(a)}, η = {fmt(eta)}"
    )
    return result("η·q", answer, exact, tol, sol, question, slips, reveal=reveal)


def clipped_leaf(answer, G, H, reg_lambda, max_delta_step, learning_rate, tol=None, reveal=False):
    """Check η·w* where w* = −G/(H+λ) is first capped at ±max_delta_step (XGBoost's
    max_delta_step; count:poisson's default 0.7)."""
    G, H, lam, mds, eta = (float(v) for v in (G, H, reg_lambda, max_delta_step, learning_rate))
    w = div(-G, H + lam)
    capped = float(np.clip(w, -mds, mds)) if mds > 0 else w
    exact = eta * capped
    slips = [
        (eta * w, "the cap is missing: |w*| may be at most max_delta_step before η."),
        (capped, "the learning rate is missing: the leaf adds η·w*."),
        (float(np.clip(eta * w, -mds, mds)), "the cap applies to w*, before η, not to η·w*."),
    ]
    sol = worked(
        "A capped leaf",
        [("w*", f"−G/(H+λ) = −{bracketed(G, 3)} / ({fmt(H)} + {fmt(lam)}) = {fmt(w)}"),
         ("", f"capped at ±{fmt(mds)}: {fmt(capped)}"),
         ("η·w*", f"{fmt(eta)} × {bracketed(capped, 3)} = {fmt(exact)}")],
        exact,
    )  # fmt: skip
    question = (
        f"work out the leaf value η·w* for G = {fmt(G)}, H = {fmt(H)}, λ = {fmt(lam)}, "
        f"max_delta_step = {fmt(mds)}, η = {fmt(eta)}"
    )
    return result("η·w*", answer, exact, tol, sol, question, slips, reveal=reveal)
