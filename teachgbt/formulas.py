"""The tutorial's equations, one function each, in the tutorial's names.

Every trainer in teachgbt computes leaf weights and split gains with these
functions (the histogram trainer with vectorized twins that the tests check
against them), so this file is the single home of the math.

Names follow seed 000 (XGBoost's "Introduction to Boosted Trees"):

    g_i, h_i      first and second derivative of the loss at the old prediction
    G_j, H_j      their sums over the instances in leaf j
    reg_lambda    λ, the L2 penalty on leaf weights
    reg_alpha     α, the L1 penalty on leaf weights (XGBoost's extension)
    gamma         γ, the price of one more leaf

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


def leaf_weight(G, H, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0):
    """Optimal leaf weight  w* = −G / (H + λ)   (seed 000, "The Structure Score").

    With ``reg_alpha`` the gradient sum is soft-thresholded first; with
    ``max_delta_step`` > 0 the weight is clipped to ±max_delta_step, as in
    XGBoost. A leaf with no hessian (H + λ = 0) gets weight 0.
    """
    G = soft_threshold(G, reg_alpha)
    H = np.asarray(H, dtype=np.float64)
    denom = H + reg_lambda
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(denom > 0, -G / np.where(denom > 0, denom, 1.0), 0.0)
    if max_delta_step and max_delta_step > 0:
        w = np.clip(w, -max_delta_step, max_delta_step)
    return _scalar(w + 0.0)  # + 0.0 turns −0.0 (from G = 0) into 0.0 for display


def leaf_score(G, H, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0):
    """How much one leaf lowers the objective, doubled:  G² / (H + λ).

    This is the "score" of a leaf that the gain formula adds and subtracts:
    the objective of a leaf at its best weight is −½·G²/(H + λ) (seed 000).
    With ``max_delta_step`` the weight is clipped and the score becomes
    −(2·G·w + (H + λ)·w²) at that clipped w, as XGBoost computes it.
    A leaf with H ≤ 0 scores 0.
    """
    H = np.asarray(H, dtype=np.float64)
    denom = H + reg_lambda
    with np.errstate(divide="ignore", invalid="ignore"):
        if max_delta_step and max_delta_step > 0:
            w = np.asarray(leaf_weight(G, H, reg_lambda, reg_alpha, max_delta_step))
            s = -(2.0 * np.asarray(G, dtype=np.float64) * w + denom * w * w)
        else:
            Gt = soft_threshold(G, reg_alpha)
            s = Gt * Gt / denom
    empty = H <= 0
    if np.ndim(s) == 0:
        return 0.0 if empty else float(s)
    if empty.any():
        s = np.where(empty, 0.0, s)
    return s


def loss_chg(G_L, H_L, G_R, H_R, reg_lambda=1.0, reg_alpha=0.0, max_delta_step=0.0):
    """The loss reduction XGBoost reports for a split (its ``gain`` in a dump):

        loss_chg = G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ)

    i.e. the tutorial's bracket without the ½ and without γ.
    """
    kw = dict(reg_lambda=reg_lambda, reg_alpha=reg_alpha, max_delta_step=max_delta_step)
    G_L = np.asarray(G_L, dtype=np.float64)
    G_R = np.asarray(G_R, dtype=np.float64)
    H_L = np.asarray(H_L, dtype=np.float64)
    H_R = np.asarray(H_R, dtype=np.float64)
    parent = leaf_score(G_L + G_R, H_L + H_R, **kw)
    return _scalar(leaf_score(G_L, H_L, **kw) + leaf_score(G_R, H_R, **kw) - parent)


def split_gain(G_L, H_L, G_R, H_R, reg_lambda=1.0, gamma=0.0, reg_alpha=0.0, max_delta_step=0.0):
    """The gain of a split, seed 000 ("Learn the tree structure"):

        Gain = ½ [ G_L²/(H_L+λ) + G_R²/(H_R+λ) − (G_L+G_R)²/(H_L+H_R+λ) ] − γ

    the score of the new left leaf, plus the new right leaf, minus the leaf we
    would keep without splitting, less the price γ of the extra leaf.

    Note on γ: XGBoost decides whether to keep a split by comparing γ with
    ``loss_chg`` (the bracket, without the ½), not by the sign of this gain.
    teachgbt's trainers follow XGBoost so that their trees match it; see
    :func:`loss_chg`.
    """
    half = 0.5 * np.asarray(
        loss_chg(G_L, H_L, G_R, H_R, reg_lambda, reg_alpha, max_delta_step), dtype=np.float64
    )
    return _scalar(half - gamma)


def structure_score(G, H, reg_lambda=1.0, gamma=0.0, reg_alpha=0.0):
    """The structure score of a tree, seed 000 ("The Structure Score"):

        Obj* = −½ Σ_j G_j² / (H_j + λ) + γ·T

    G and H hold one entry per leaf; T is the number of leaves. The smaller
    the score, the better the tree structure.
    """
    G = np.atleast_1d(np.asarray(G, dtype=np.float64))
    H = np.atleast_1d(np.asarray(H, dtype=np.float64))
    if G.shape != H.shape:
        raise ValueError(
            f"G and H need one entry per leaf each; got {G.size} G values and {H.size} H values"
        )
    T = G.size
    return float(-0.5 * np.sum(leaf_score(G, H, reg_lambda, reg_alpha)) + gamma * T)
