"""The tutorial's equations, one function each, in the tutorial's names.

Every trainer in teachgbt computes leaf weights, leaf scores and split gains
with these functions (the histogram trainer and XGBoost's float32 arithmetic
with vectorized and compiled twins that the tests check against them), so
this file is the single home of the math.

Names follow seed 000 (XGBoost's "Introduction to Boosted Trees"):

    g_i, h_i      first and second derivative of the loss at the old prediction
    G_j, H_j      their sums over the instances in leaf j
    reg_lambda    λ, the L2 penalty on leaf weights
    reg_alpha     α, the L1 penalty on leaf weights (XGBoost's extension)
    gamma         γ, the price of one more leaf

γ and λ here are the tutorials': ``split_gain`` is ½[…] − γ. The estimators'
``gamma`` is XGBoost's (a split stays when ``loss_chg`` ≥ gamma, no ½). Which
tutorial γ and λ a model's settings are is decided by the loss, not by the
seed: with XGBoost's ½(y − ŷ)² (g = ŷ − y, h = 1) or the logistic loss, γ is
``gamma / 2`` and λ is ``reg_lambda``, and the gain a trained tree records is
``tree_gain(loss_chg, gamma)`` = ½(loss_chg − gamma); with the (y − ŷ)² that
seeds 000 and 002 write (g = 2(ŷ − y), h = 2), g, h and λ double, ½[…] is
``loss_chg``, and γ is ``gamma`` with λ = 2·``reg_lambda``.

Where XGBoost's arithmetic differs from the clean math (the leaf score once
``max_delta_step`` is set, a leaf lighter than ``min_child_weight``), these
functions follow XGBoost 3.2 (``src/tree/param.h``, ``split_evaluator.h``),
because the trees must match it; each docstring says where.

All functions accept scalars or numpy arrays.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "soft_threshold",
    "leaf_weight",
    "leaf_score",
    "split_gain",
    "loss_chg",
    "tree_gain",
    "structure_score",
]


def soft_threshold(G, reg_alpha=0.0):
    """L1 soft threshold of a gradient sum: sign(G)·max(|G| − α, 0).

    With an L1 penalty α|w| the optimal weight uses the gradient sum shrunk
    towards zero by α (XGBoost's ``ThresholdL1``); with α = 0 it is G itself.
    """
    G = np.asarray(G, dtype=np.float64)
    if reg_alpha == 0.0:
        return G
    return np.sign(G) * np.maximum(np.abs(G) - reg_alpha, 0.0)


def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


def leaf_weight(G, H, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0, min_child_weight=0.0):
    """Optimal leaf weight  w* = −G / (H + λ)   (seed 000, "The Structure Score").

    With ``reg_alpha`` the gradient sum is soft-thresholded first; with
    ``max_delta_step`` > 0 the weight is clipped to ±max_delta_step. As in
    XGBoost, a leaf with H ≤ 0 or H < ``min_child_weight`` gets weight 0.
    """
    if type(G) is float and type(H) is float and H + reg_lambda != 0.0:  # one node
        return _leaf_weight_of_one(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight)
    G = soft_threshold(G, reg_alpha)
    H = np.asarray(H, dtype=np.float64)
    heavy = (H > 0) & (H >= min_child_weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(heavy, -G / (H + reg_lambda), 0.0)
    if max_delta_step > 0:
        w = np.clip(w, -max_delta_step, max_delta_step)
    return _scalar(w + 0.0)  # + 0.0 turns −0.0 (from G = 0) into 0.0 for display


def _leaf_weight_of_one(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight):
    """``leaf_weight`` of one leaf, G and H Python floats: the same IEEE double operations
    without numpy's arrays (a tree grows one node at a time; this is called per node)."""
    if not (H > 0 and H >= min_child_weight):
        return 0.0
    if reg_alpha != 0.0:  # soft_threshold
        G = ((G > 0) - (G < 0)) * max(abs(G) - reg_alpha, 0.0)
    w = -G / (H + reg_lambda)
    if max_delta_step > 0:
        w = min(max(w, -max_delta_step), max_delta_step)
    return w + 0.0


def leaf_score(G, H, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0, min_child_weight=0.0):
    """How much one leaf lowers the objective, doubled:  G² / (H + λ).

    This is the "score" of a leaf that the gain formula adds and subtracts:
    the objective of a leaf at its best weight is −½·G²/(H + λ) (seed 000);
    with ``reg_alpha`` G is soft-thresholded first. A leaf with H ≤ 0 scores 0.
    With ``max_delta_step`` > 0 the score is −(2·G·w + (H+λ)·w²) at the clipped
    ``leaf_weight`` w, and XGBoost leaves the L1 term out of it (α enters only
    through w), so with ``reg_alpha`` this score is not the objective's drop.
    """
    H = np.asarray(H, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if max_delta_step > 0:
            w = np.asarray(
                leaf_weight(G, H, reg_lambda, reg_alpha, max_delta_step, min_child_weight)
            )
            G = np.asarray(G, dtype=np.float64)
            s = -(2.0 * G * w + (H + reg_lambda) * (w * w))
        else:
            Gt = soft_threshold(G, reg_alpha)
            s = Gt * Gt / (H + reg_lambda)
    return _scalar(np.where(H > 0, s, 0.0))


def loss_chg(
    G_L, H_L, G_R, H_R, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0, min_child_weight=0.0
):
    """The loss reduction XGBoost reports for a split (its ``gain`` in a dump):

        loss_chg = G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)

    i.e. the tutorial's bracket without the ½ and without γ (each term a ``leaf_score``).
    """
    kw = dict(
        reg_lambda=reg_lambda,
        reg_alpha=reg_alpha,
        max_delta_step=max_delta_step,
        min_child_weight=min_child_weight,
    )
    G_L = np.asarray(G_L, dtype=np.float64)
    G_R = np.asarray(G_R, dtype=np.float64)
    H_L = np.asarray(H_L, dtype=np.float64)
    H_R = np.asarray(H_R, dtype=np.float64)
    parent = leaf_score(G_L + G_R, H_L + H_R, **kw)
    return _scalar(leaf_score(G_L, H_L, **kw) + leaf_score(G_R, H_R, **kw) - parent)


def split_gain(
    G_L,
    H_L,
    G_R,
    H_R,
    reg_lambda=1.0,
    gamma=0.0,
    reg_alpha=0.0,
    max_delta_step=0.0,
    min_child_weight=0.0,
):
    """The gain of a split, seed 000 ("Learn the tree structure"):

        Gain = ½ [ G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ) ] − γ

    the score of the new left leaf, plus the new right leaf, minus the leaf we
    would keep without splitting, less the price γ of the extra leaf.

    γ and λ are the tutorial's. For a model trained with XGBoost's ½(y − ŷ)² or the
    logistic loss, pass its ``gamma / 2`` and ``reg_lambda``: the gain is then
    ½(loss_chg − gamma), the ``gain`` a trained tree records (see :func:`tree_gain`).
    With the (y − ŷ)² loss (g and h doubled) pass ``gamma`` and 2·``reg_lambda``.
    """
    bracket = loss_chg(G_L, H_L, G_R, H_R, reg_lambda, reg_alpha, max_delta_step, min_child_weight)
    return _scalar(0.5 * np.asarray(bracket, dtype=np.float64) - gamma)


def tree_gain(loss_chg, gamma):
    """Seed 000's gain of a split with XGBoost's ``loss_chg``, for the model's ``gamma``:

        Gain = ½ (loss_chg − gamma)

    (with XGBoost's ½-loss or the logistic loss, the tutorial's γ is ``gamma / 2``).
    Its sign is what ``gamma`` decides: a split stays when loss_chg ≥ gamma, that is
    when Gain ≥ 0.
    """
    return _scalar(0.5 * (np.asarray(loss_chg, dtype=np.float64) - gamma))


def structure_score(G, H, reg_lambda=1.0, gamma=0.0, reg_alpha=0.0):
    """The structure score of a tree, seed 000 ("The Structure Score"):

        Obj* = −½ Σ_j G_j² / (H_j + λ) + γ·T

    G and H hold one entry per leaf; T is the number of leaves. The smaller
    the score, the better the tree structure. γ and λ are the tutorial's, which the
    loss decides (a model's ``gamma / 2`` with XGBoost's ½-loss or the logistic
    loss; see the module docstring).
    """
    G = np.atleast_1d(np.asarray(G, dtype=np.float64))
    H = np.atleast_1d(np.asarray(H, dtype=np.float64))
    if G.shape != H.shape:
        raise ValueError(
            f"G and H need one entry per leaf each; got {G.size} G values and {H.size} H values"
        )
    T = G.size
    return float(-0.5 * np.sum(leaf_score(G, H, reg_lambda, reg_alpha)) + gamma * T)
