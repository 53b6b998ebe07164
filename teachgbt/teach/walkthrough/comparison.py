"""The comparison: the same data through Friedman GBDT and XGBoost-style boosting.

Both start from the same F0 and value a leaf by the same Newton step; they
differ only in how they rank splits (squared error of the residuals against
the second-order gain), so the rounds show where the trees agree and part.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...core import formulas
from ...core.format import split_rule
from .data import (
    fit,
    is_classification,
    prepare,
    settings,
)
from .text import (
    fmt,
    growth_text,
    table_text,
    wrap,
)

__all__ = ["Comparison", "compare", "compare_models"]

# XGBoost-style leaves are float32: leaf outputs this close count as the same
LEAF_RTOL, LEAF_ATOL = 1e-5, 1e-6
# h_i that differ by less than this (relative) count as equal
H_EQUAL_RTOL = 1e-6
# root candidates shown in the text of the first round where the trees part
CANDIDATES_SHOWN = 8


@dataclass
class Comparison:
    """The same data through Friedman GBDT and XGBoost-style boosting, round by round."""

    gbdt: object  # the fitted GBDT model
    xgboost: object  # the fitted XGBoost-style model
    classifier: bool
    rounds: pd.DataFrame  # one row per round: each tree's splits, whether they agree
    instances: pd.DataFrame  # per row, each algorithm's prediction after every round
    target: str = "y"

    def root_candidates(self, t):
        """Round t's root candidates, ranked by each algorithm's own criterion.

        ``squared_error_improvement``: GBDT's (drop in the sum of squared residuals);
        ``xgboost_loss_chg``: the second-order G_L²/H_L + G_R²/H_R − G²/H (λ = 0), at
        XGBoost's own margins.
        """
        g = self.gbdt.trace_.splits(t, 0)
        x = self.xgboost.trace_.splits(t, 0)
        key = ["feature", "threshold", "default_left"]
        xp = self.xgboost.params_
        g = g.assign(squared_error_improvement=_loss_chg(g, reg_lambda=0.0))
        x = x.assign(
            xgboost_loss_chg=_loss_chg(
                x,
                reg_lambda=xp.reg_lambda,
                reg_alpha=xp.reg_alpha,
                max_delta_step=xp.max_delta_step,
            ),
            threshold=x["threshold"].astype(np.float32).astype(float),
        )
        g = g.assign(threshold=g["threshold"].astype(np.float32).astype(float))
        df = (
            g[key + ["squared_error_improvement", "chosen"]]
            .rename(columns={"chosen": "gbdt_chosen"})
            .merge(
                x[key + ["xgboost_loss_chg", "chosen"]].rename(
                    columns={"chosen": "xgboost_chosen"}
                ),
                on=key,
                how="outer",
            )
        )
        df["gbdt_rank"] = df["squared_error_improvement"].rank(ascending=False, method="min")
        df["xgboost_rank"] = df["xgboost_loss_chg"].rank(ascending=False, method="min")
        df = df.sort_values(["gbdt_rank", "xgboost_rank"]).reset_index(drop=True)
        for c in ("gbdt_rank", "xgboost_rank"):
            df[c] = df[c].astype("Int64")
        return df[
            [
                "feature",
                "threshold",
                "squared_error_improvement",
                "gbdt_rank",
                "gbdt_chosen",
                "xgboost_loss_chg",
                "xgboost_rank",
                "xgboost_chosen",
            ]
        ]

    def tables(self):
        out = {"compare_rounds": self.rounds, "compare_instances": self.instances}
        first = self._first_parting()
        if first is not None:
            out[f"compare_root_candidates_{first}"] = self.root_candidates(first)
        return out

    def _first_parting(self):
        differ = self.rounds.loc[~self.rounds["same_tree"], "round"]
        return int(differ.iloc[0]) if len(differ) else None

    def text(self):
        g, x = self.gbdt, self.xgboost
        params = g.params_
        used = (
            f"lambda = {fmt(params.reg_lambda)}, "
            f"min_child_weight = {fmt(params.min_child_weight)}, "
            f"nu = {fmt(params.learning_rate)}, {growth_text(params)}"
        )
        lam = f" + {fmt(params.reg_lambda)}" if params.reg_lambda else ""
        lines = ["Side by side: Friedman GBDT and XGBoost-style boosting on the same data"]
        if self.classifier:
            lines += [
                wrap(
                    f"Both start from F0 = {fmt(g.base_margin_)} (XGBoost's base_score = "
                    f"{fmt(x.base_score_)}, the class prior) and use {used}."
                ),
                wrap(
                    "GBDT ranks splits by the squared error of the residuals: "
                    "G_L^2/n_L + G_R^2/n_R - G^2/n with G = -sum of residuals. XGBoost ranks "
                    "them by the second-order gain G_L^2/H_L + G_R^2/H_R - G^2/H, "
                    "H = sum of p(1-p). Both value a leaf at sum of residuals / (sum of "
                    f"p(1-p){lam}), XGBoost's -G/(H + lambda)."
                ),
            ]
        else:
            lines += [
                wrap(f"Both start from F0 = the mean of y = {fmt(g.base_margin_)} and use {used}."),
                wrap(
                    "For the squared error every h_i = 1, in every round: XGBoost's gain "
                    "G_L^2/H_L + G_R^2/H_R - G^2/H is then exactly GBDT's squared-error "
                    "improvement and -G/H is the mean residual, so the two grow the same "
                    "trees throughout (up to XGBoost's float32 rounding)."
                ),
            ]
        show = self.rounds.drop(columns=["h_min", "h_max"])
        lines += ["", table_text(show.set_index("round")), ""]
        first = self._first_parting()
        for _, r in self.rounds.iterrows():
            t = int(r["round"])
            if self.classifier and r["h_equal"]:
                why = (
                    f"every h_i = p(1-p) = {fmt(r['h_min'])}, so H = {fmt(r['h_min'])} x n "
                    "on each side of every split and the gain is the squared-error "
                    f"improvement divided by {fmt(r['h_min'])}: both rank splits alike"
                )
                if params.reg_lambda:
                    why = (
                        f"every h_i = p(1-p) = {fmt(r['h_min'])}; with lambda = 0 the gain "
                        "would be the squared-error improvement divided by that, but lambda = "
                        f"{fmt(params.reg_lambda)} is added to each H, so the two rankings can "
                        "differ"
                    )
            elif self.classifier:
                why = (
                    f"h_i = p(1-p) now ranges from {fmt(r['h_min'])} to "
                    f"{fmt(r['h_max'])}, so XGBoost weighs each row's residual by its "
                    "curvature while GBDT counts every row alike"
                )
            else:
                why = "every h_i = 1"
            if r["same_tree"]:
                verdict = (
                    "the same tree, with the same leaf outputs"
                    if r["same_leaf_outputs"]
                    else "the same splits"
                )
                if self.classifier and not r["h_equal"]:
                    verdict += "; the same split still wins here" if t != first else ""
            else:
                verdict = (
                    f"the trees part: GBDT splits on {r['gbdt_splits']}, XGBoost on "
                    f"{r['xgboost_splits']}"
                )
                if t != first:
                    verdict += " (their margins already differ)"
            lines.append(wrap(f"Round {t}: {why}; {verdict}."))
        if first is not None:
            cand = self.root_candidates(first)
            lines += [
                "",
                f"Round {first}, root candidates under each criterion (best first):",
                table_text(cand.head(CANDIDATES_SHOWN)),
            ]
        elif self.classifier:
            lines.append(
                wrap(
                    "On this data the trees never part; with more rounds or "
                    "other data they can, once the h_i differ."
                )
            )
        lines += [
            "",
            "Predictions after the last round:",
            table_text(self.instances.iloc[:, [0, -2, -1]]),
        ]
        return "\n".join(lines)

    def __str__(self):
        return self.text()

    def __repr__(self):
        differ = int((~self.rounds["same_tree"]).sum())
        return (
            f"<teachgbt Comparison: GBDT vs XGBoost-style, {len(self.rounds)} rounds, "
            f"{differ} with different trees; print() it>"
        )


def _loss_chg(table, **regularization):
    """XGBoost's loss_chg of every candidate in a ``splits`` table, from its sums: the
    criterion each algorithm ranks by (GBDT's h = 1 and no regularization make it the
    squared-error improvement)."""
    return formulas.loss_chg(
        table["G_L"], table["H_L"], table["G_R"], table["H_R"], **regularization
    )


def _splits_text(tree):
    if tree.n_leaves == 1:
        return "(no split)"
    return "; ".join(split_rule(tree, i) for i in range(tree.n_nodes) if not tree.is_leaf[i])


def _same_structure(a, b):
    if a.n_nodes != b.n_nodes:
        return False
    return bool(
        np.array_equal(a.feature, b.feature)
        and np.array_equal(a.left, b.left)
        and np.array_equal(a.right, b.right)
        and np.array_equal(
            a.threshold.astype(np.float32), b.threshold.astype(np.float32), equal_nan=True
        )
    )


def compare_models(gbdt, X, y, name, classifier, params):
    # the same settings as the GBDT (λ = 0 and min_child_weight = 0 unless asked otherwise),
    # so that only the split criterion differs
    gbdt_params = gbdt.params_
    xparams = dict(
        params,
        learning_rate=gbdt_params.learning_rate,
        reg_lambda=gbdt_params.reg_lambda,
        min_child_weight=gbdt_params.min_child_weight,
    )
    if classifier:
        xparams["base_score"] = gbdt.base_score_  # the class prior: F0 = log(odds) as GBDT's
    xgb = fit(X, y, classifier, "xgboost", xparams)
    rows = []
    inst = {name: y}
    gt, xt = gbdt.trace_, xgb.trace_
    gep, xep = gt.epochs(), xt.epochs()
    for t in range(1, gt.n_rounds + 1):
        a, b = gbdt.model_.tree(t), xgb.model_.tree(t)
        h = np.asarray(xt.instances(t)["h"])
        same = _same_structure(a, b)
        close = np.allclose(
            gep[f"ep_{t}_leaf_output"], xep[f"ep_{t}_leaf_output"], rtol=LEAF_RTOL, atol=LEAF_ATOL
        )
        rows.append(
            {
                "round": t,
                "gbdt_splits": _splits_text(a),
                "xgboost_splits": _splits_text(b),
                "same_tree": same,
                "same_leaf_outputs": same and bool(close),
                "h_equal": bool(np.ptp(h) <= H_EQUAL_RTOL * max(1.0, float(np.max(np.abs(h))))),
                "h_min": float(h.min()),
                "h_max": float(h.max()),
                "max_pre_gap": float(np.max(np.abs(gep[f"ep_{t}_pre"] - xep[f"ep_{t}_pre"]))),
            }
        )
    for t in range(0, gt.n_rounds + 1):
        inst[f"gbdt_ep_{t}_pre"] = gep[f"ep_{t}_pre"].to_numpy()
        inst[f"xgboost_ep_{t}_pre"] = xep[f"ep_{t}_pre"].to_numpy()
    instances = pd.DataFrame(inst, index=X.index)
    return Comparison(gbdt, xgb, classifier, pd.DataFrame(rows), instances, name)


def compare(
    X,
    y=None,
    *,
    target=None,
    classifier=None,
    n_estimators=2,
    learning_rate=0.8,
    max_depth=2,
    max_leaves=None,
    **params,
):
    """The same data through ``algorithm="gbdt"`` and ``algorithm="xgboost"``.

    XGBoost-style boosting gets ``base_score`` = the class prior (so both start
    from the same log(odds)), ``reg_lambda=0`` and ``min_child_weight=0`` (so
    its leaves are the same Newton step). Returns a :class:`Comparison`:
    ``.rounds`` (one row per round), ``.instances`` (each algorithm's
    prediction per row and round), ``.root_candidates(t)`` and ``print()``.
    """
    X, y, name, _ = prepare(X, y, target)
    if classifier is None:
        classifier = is_classification(y)
    params = settings(params, n_estimators, learning_rate, max_depth, max_leaves)
    model = fit(X, y, bool(classifier), "gbdt", params)
    return compare_models(model, X, y, name, bool(classifier), params)
