"""Seed 002's argument for ensembles: the majority vote of independent voters."""

from __future__ import annotations

import math

import numpy as np

from ._common import axes

__all__ = ["majority_vote_error", "vote_error"]


def majority_vote_error(p, n_voters):
    """P(a majority of ``n_voters`` independent voters is wrong), each wrong with probability p.

    Seed 002: C(3,2)·0.3²·0.7 + C(3,3)·0.3³ = 21.6 %. With an even number of
    voters a tie is settled by a coin, so it counts as half an error.
    """
    n = int(n_voters)
    if n < 1:
        raise ValueError(f"n_voters must be at least 1; got {n_voters!r}")
    p = np.asarray(p, dtype=np.float64)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("error rates p must lie in [0, 1]")
    total = np.zeros_like(p)
    for k in range(n // 2 + 1, n + 1):
        total = total + math.comb(n, k) * p**k * (1 - p) ** (n - k)
    if n % 2 == 0:
        k = n // 2
        total = total + 0.5 * math.comb(n, k) * p**k * (1 - p) ** (n - k)
    return float(total) if total.ndim == 0 else total


def vote_error(p, n_voters, ax=None):
    """Seed 002's argument for ensembles: the majority-vote error of independent voters against
    the individual error rate, one curve per number of voters, with the error at ``p`` marked
    (e.g. ``vote_error([0.3, 0.6], [3, 21])``: 21.6 %, 64.8 %, 2.6 %, 82.6 %)."""
    ps = np.atleast_1d(np.asarray(p, dtype=np.float64))
    ns = [int(n) for n in np.atleast_1d(n_voters)]
    ax = axes(ax)
    grid = np.linspace(0, 1, 201)
    ax.plot(grid, grid, color="grey", lw=1, ls="--", label="one voter")
    ax.axvline(0.5, color="grey", lw=0.6, ls=":")
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]
    for j, n in enumerate(ns):
        color = palette[j % len(palette)]
        ax.plot(grid, majority_vote_error(grid, n), color=color, lw=2, label=f"{n} voters")
        for pi in ps:
            e = majority_vote_error(pi, n)
            ax.plot([pi], [e], "o", color=color, ms=7, zorder=3)
            # on the side away from the curve's rise: left of it above, right of it below
            above = e >= pi
            ax.annotate(
                f"{100 * e:.1f} %",
                (pi, e),
                xytext=(-9, 4) if above else (9, -4),
                textcoords="offset points",
                fontsize="small",
                color=color,
                ha="right" if above else "left",
                va="bottom" if above else "top",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85),
                zorder=4,
            )
    ax.set_xlabel("error rate of each voter")
    ax.set_ylabel("error rate of the majority vote")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.06, 1.02)  # room for the labels of points near 0 %
    ax.set_title(
        "Majority vote of independent voters: better than one voter\n"
        "when each errs less than half the time, worse when more"
    )
    ax.legend(fontsize="small")
    return ax
