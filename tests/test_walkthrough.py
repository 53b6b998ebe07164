"""The seed 004 walkthrough: its tables, its text, the GBDT/XGBoost comparison, CSV output."""

import re

import numpy as np
import pandas as pd
import pytest

import teachgbt.teach.datasets as datasets
import teachgbt.teach.walkthrough as wt

ensemble = pytest.importorskip("sklearn.ensemble")


@pytest.fixture(scope="module")
def troll():
    return wt.troll2()


@pytest.fixture(scope="module")
def ice():
    return wt.ice_cream()


# ------------------------------------------------------------------ Troll 2, classifier
def test_troll2_tables(troll):
    names = list(troll.tables())
    assert names[:2] == ["data", "start"]
    for k in (1, 2):
        for part in ("residuals", "nodes", "leaves", "update"):
            assert f"epoch_{k}_{part}" in names
    assert "epochs" in names and "compare_rounds" in names
    ep = troll.epochs
    assert ep.columns[0] == "love_troll2"
    pd.testing.assert_frame_equal(ep.drop(columns="love_troll2"), troll.model.trace_.epochs())


def test_troll2_start_is_the_log_odds(troll):
    s = troll.start.set_index("quantity")["value"]
    assert (s["positives"], s["negatives"]) == (4, 2)
    assert s["F0"] == pytest.approx(np.log(4 / 2))
    assert s["p0"] == pytest.approx(4 / 6)


def test_troll2_leaf_formulas_are_filled_in(troll):
    leaves = troll.rounds[0].leaves.set_index("leaf")
    young = leaves[leaves["rows"] == "0, 4, 5"].iloc[0]
    assert young["formula"] == (
        "(0.333333 + 0.333333 + 0.333333) / (0.222222 + 0.222222 + 0.222222) = 1 / 0.666667 = 1.5"
    )
    red = leaves[leaves["rows"] == "3"].iloc[0]
    assert red["formula"] == "-0.666667 / 0.222222 = -3"
    old = leaves[leaves["rows"] == "1, 2"].iloc[0]
    assert (
        old["formula"]
        == "(0.333333 - 0.666667) / (0.222222 + 0.222222) = -0.333333 / 0.444444 = -0.75"
    )
    # each leaf's output is its residual sum over its Σp(1−p), from the epoch table
    ep = troll.epochs
    for k, e in enumerate(troll.rounds, start=1):
        p = ep[f"ep_{k - 1}_prob"]
        for _, leaf in e.leaves.iterrows():
            rows = ep[f"ep_{k}_leaf_index"] == leaf["leaf"]
            r = ep.loc[rows, f"ep_{k}_residual"]
            assert leaf["residual_sum"] == pytest.approx(r.sum())
            assert leaf["p(1-p)_sum"] == pytest.approx((p * (1 - p))[rows].sum())
            assert leaf["leaf_output"] == pytest.approx(r.sum() / (p * (1 - p))[rows].sum())


def test_troll2_update_is_previous_plus_learning_rate_times_leaf(troll):
    for k, e in enumerate(troll.rounds, start=1):
        u = e.update
        np.testing.assert_allclose(
            u[f"ep_{k}_pre"], u[f"ep_{k - 1}_pre"] + 0.8 * u[f"ep_{k}_leaf_output"]
        )
        np.testing.assert_allclose(u[f"ep_{k}_prob"], 1 / (1 + np.exp(-u[f"ep_{k}_pre"])))
        assert list(e.residuals.columns[-1:]) == [f"ep_{k}_residual"]


def test_troll2_text_follows_the_tutorial(troll):
    text = str(troll)
    assert text == troll.text()
    order = [
        "Step 1: initial prediction F0 = log(odds)",
        "F0 = log(odds) = log(4 / 2) = 0.693147",
        "Why the log(odds)",
        "Epoch 1",
        "(A) residual = observed - predicted probability",
        "(B) a regression tree f1(x)",
        "node 0: favorite_color_red < 0.5 ?  n=6, gain 0.266667",
        "(C) leaf output = sum of residuals / (sum of p(1 - p))",
        "(D) F1(x) = F0(x) + η * f1(x), η = 0.8",
        "e.g. row 0: 0.693147 + 0.8 x 1.5 = 1.893147",
        "Epoch 2",
        "Result: every epoch side by side",
        "1.4, -1 and -3.3",
        "Side by side: Friedman GBDT and XGBoost-style boosting",
    ]
    positions = [text.find(s) for s in order]
    assert -1 not in positions, [s for s, p in zip(order, positions, strict=True) if p < 0]
    assert positions == sorted(positions)
    assert "favorite_color' is text" in text


def test_save_writes_every_table_as_csv(troll, tmp_path):
    paths = troll.save(tmp_path / "tables_only", pictures=False)
    assert {f"{n}.csv" for n in troll.tables()} | {"walkthrough.txt"} == {p.name for p in paths}
    paths = troll.save(tmp_path / "out")
    names = {p.name for p in paths}
    pictures = {"tree_1.svg", "tree_1.png", "tree_2.svg", "tree_2.png", "model.png",
                "probabilities.png", "residuals.png", "walkthrough.html",
                "explorer.html"}  # fmt: skip
    assert {f"{n}.csv" for n in troll.tables()} | {"walkthrough.txt"} | pictures == names
    png = (tmp_path / "out" / "tree_1.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    back = pd.read_csv(tmp_path / "out" / "epochs.csv", index_col=0)
    np.testing.assert_allclose(back["ep_2_pre"], troll.epochs["ep_2_pre"], rtol=1e-5)
    assert (tmp_path / "out" / "walkthrough.txt").read_text(encoding="utf-8").startswith("GBDT")
    page = (tmp_path / "out" / "walkthrough.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "(A) Residuals" in page
    assert "teachgbtExplorer" in (tmp_path / "out" / "explorer.html").read_text(encoding="utf-8")


def test_csvs_are_rounded_for_reading(troll, tmp_path):
    troll.save(tmp_path / "r", pictures=False)
    nodes = (tmp_path / "r" / "epoch_1_nodes.csv").read_text(encoding="utf-8")
    for noise in ("99999999", "00000001", "e-16", "e-17", "-0,", "-0\n"):
        assert noise not in nodes
    # every number within the precision of the DataFrame's
    for name, df in troll.tables().items():
        back = pd.read_csv(tmp_path / "r" / f"{name}.csv", index_col=0)
        for col in df.select_dtypes("float").columns:
            if col == "threshold":
                continue
            scale = np.nanmax(np.abs(df[col].to_numpy())) or 1.0
            np.testing.assert_allclose(back[col], df[col], rtol=5e-6, atol=scale * 1e-12)
    troll.save(tmp_path / "p3", pictures=False, precision=3)
    epochs = pd.read_csv(tmp_path / "p3" / "epochs.csv", index_col=0)
    assert epochs["ep_0_pre"].iloc[0] == 0.693  # log(4/2) to 3 significant digits
    with pytest.raises(ValueError, match="precision must be a whole number"):
        troll.save(tmp_path / "p0", pictures=False, precision=0)


def test_html_and_repr(troll):
    assert "<table" in troll._repr_html_()
    assert repr(troll).startswith("<teachgbt Walkthrough: GBDT classifier, 6 instances, 2 epochs")


# ------------------------------------------------------------------ side by side
def test_troll2_comparison_agrees_in_round_1_and_parts_in_round_2(troll):
    c = troll.comparison
    assert c.xgboost.base_score_ == pytest.approx(4 / 6)
    assert (c.xgboost.params_.reg_lambda, c.xgboost.params_.min_child_weight) == (0.0, 0.0)
    r = c.rounds.set_index("round")
    assert r.loc[1, "same_tree"] and r.loc[1, "same_leaf_outputs"] and r.loc[1, "h_equal"]
    assert not r.loc[2, "same_tree"] and not r.loc[2, "h_equal"]
    assert r.loc[1, "max_pre_gap"] < 1e-6  # XGBoost-style keeps float32 margins
    text = c.text()
    assert "Round 1: every h_i = p(1-p) = 0.222222" in text
    assert "Round 2: h_i = p(1-p) now ranges from" in text and "the trees part" in text


def test_root_candidates_rank_by_each_criterion(troll):
    c = troll.comparison
    # round 1: every h = 2/9, so XGBoost's loss_chg is the squared-error improvement / (2/9)
    first = c.root_candidates(1)
    np.testing.assert_allclose(
        first["xgboost_loss_chg"], first["squared_error_improvement"] / (2 / 9), rtol=1e-5
    )
    assert first["gbdt_rank"].tolist() == first["xgboost_rank"].tolist()
    # round 2: the criteria disagree on the best root split
    second = c.root_candidates(2)
    g = second[second["gbdt_chosen"]].iloc[0]
    x = second[second["xgboost_chosen"]].iloc[0]
    assert (g["feature"], g["threshold"]) == ("age", 65.5)
    assert (x["feature"], x["threshold"]) == ("favorite_color_green", 0.5)
    assert g["squared_error_improvement"] == pytest.approx(c.gbdt.trees_[1].loss_chg[0])
    assert x["xgboost_loss_chg"] == pytest.approx(c.xgboost.trees_[1].loss_chg[0], rel=1e-6)
    # computed by hand from the residuals and p(1 − p) after epoch 1
    ep = c.gbdt.trace_.epochs()
    r, p = ep["ep_2_residual"].to_numpy(), ep["ep_1_prob"].to_numpy()
    left = datasets.troll2()["age"].to_numpy() < 65.5

    def sse(v):
        return ((v - v.mean()) ** 2).sum()

    assert g["squared_error_improvement"] == pytest.approx(sse(r) - sse(r[left]) - sse(r[~left]))
    h = p * (1 - p)
    green = datasets.troll2()["favorite_color"].to_numpy() != "green"
    second_order = (
        r[green].sum() ** 2 / h[green].sum()
        + r[~green].sum() ** 2 / h[~green].sum()
        - r.sum() ** 2 / h.sum()
    )
    assert x["xgboost_loss_chg"] == pytest.approx(second_order, rel=1e-5)


def test_compare_function_matches_walkthrough(troll):
    c = wt.troll2_compare()
    pd.testing.assert_frame_equal(c.rounds, troll.comparison.rounds)
    assert "2 rounds, 1 with different trees" in repr(c)


# ------------------------------------------------------------------ regression
def test_regression_walkthrough_matches_sklearn(ice):
    X, y = datasets.ice_cream_xy()
    sk = ensemble.GradientBoostingRegressor(
        n_estimators=2, learning_rate=0.8, max_depth=2, random_state=0
    ).fit(X, y)
    ep = ice.epochs
    assert ep.columns[0] == "ice_creams_sold" and "ep_0_prob" not in ep.columns
    np.testing.assert_allclose(ep["ep_0_pre"], y.mean())
    for k, stage in enumerate(sk.staged_predict(X), start=1):
        np.testing.assert_allclose(ep[f"ep_{k}_pre"], stage, rtol=0, atol=1e-6)
    start = ice.start.set_index("quantity")["value"]
    assert start["F0"] == pytest.approx(286 / 8)


def test_regression_leaves_are_mean_residuals(ice):
    leaves = ice.rounds[0].leaves
    cold = leaves[leaves["rows"] == "0, 4, 6"].iloc[0]
    assert cold["formula"] == "(-23.75 - 15.75 - 18.75) / 3 = -58.25 / 3 = -19.416667"
    single = leaves[leaves["n"] == 1].iloc[0]
    assert single["formula"].count("=") == 1  # one row: nothing to add up
    ep = ice.epochs
    for _, leaf in leaves.iterrows():
        rows = ep["ep_1_leaf_index"] == leaf["leaf"]
        assert leaf["leaf_output"] == pytest.approx(ep.loc[rows, "ep_1_residual"].mean())
    text = ice.text()
    assert "F0 = sum of y / n = 286 / 8 = 35.75" in text
    assert "(C) leaf output = sum of residuals / n: the mean residual" in text


def test_regression_comparison_agrees_every_round(ice):
    rounds = ice.comparison.rounds
    assert rounds["same_tree"].all() and rounds["same_leaf_outputs"].all()
    assert rounds["h_equal"].all()
    assert "every h_i = 1" in ice.comparison.text()


# ------------------------------------------------------------------ any small dataset
def test_walkthrough_of_a_frame_with_a_target_column_encodes_text():
    df = datasets.troll2()
    w = wt.walkthrough(df, target="love_troll2", compare=False)
    assert w.encoded == {
        "favorite_color": ["favorite_color_blue", "favorite_color_green", "favorite_color_red"]
    }
    assert w.comparison is None and "compare_rounds" not in w.tables()
    pd.testing.assert_frame_equal(w.epochs, wt.troll2(compare=False).epochs)


def test_walkthrough_of_arrays_decides_the_task_from_y():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    w = wt.walkthrough(X, (X[:, 0] > 0).astype(int), compare=False)
    assert w.classifier and w.target == "y" and list(w.data.columns) == ["f0", "f1", "y"]
    r = wt.walkthrough(X, X[:, 0] * 3.0, compare=False, max_depth=1)
    assert not r.classifier
    big_leaf = r.rounds[0].leaves.sort_values("n").iloc[-1]
    assert big_leaf["n"] > wt.FORMULA_MAX_TERMS
    assert big_leaf["formula"].startswith("sum of residuals / n = ")


def test_reg_lambda_shows_in_the_formula():
    w = wt.troll2(reg_lambda=1.0, compare=False)
    leaves = w.rounds[0].leaves
    young = leaves[leaves["rows"] == "0, 4, 5"].iloc[0]
    assert young["formula"].endswith("/ (0.222222 + 0.222222 + 0.222222 + 1) = 1 / 1.666667 = 0.6")


def test_walkthrough_errors_say_what_is_wrong():
    df = datasets.troll2()
    with pytest.raises(ValueError, match="target='loves' is not a column of X"):
        wt.walkthrough(df, target="loves")
    with pytest.raises(ValueError, match="give the target"):
        wt.walkthrough(df)
    with pytest.raises(ValueError, match="X has 6 rows but y has 5"):
        wt.walkthrough(df.drop(columns="love_troll2"), [True, False, True, False, True])


# ------------------------------------------------------------------ Jupyter
@pytest.mark.parametrize("name", ["troll", "ice"])
def test_html_has_the_steps_tables_and_trees_inline(name, request):
    w = request.getfixturevalue(name)
    page = w._repr_html_()
    for k in (1, 2):
        assert f'id="tg-epoch-{k}"' in page
        for step in ("(A) Residuals", "(B) A regression tree", "(C) Each leaf", "(D) Update"):
            assert f"<h4>{step}" in page
    # one tree per epoch, as an image of its SVG (an untrusted notebook strips inline <svg>)
    assert page.count('<img src="data:image/svg+xml;base64,') == 2 and "<svg" not in page
    assert (
        len(re.findall(r"<table[^>]*tg-table", page)) >= 2 + 3 * 2 + 1
    )  # data, F0; (A), (C), (D); result
    assert "Step 1: initial prediction F0" in page and "Result: every epoch" in page
    # the plain text stays available, folded away, and str() is still the text
    assert "the whole walkthrough as plain text" in page and str(w) == w.text()
    assert "<table" not in str(w)


def test_html_loads_nothing_from_elsewhere(troll):
    page = troll._repr_html_().lower()
    for external in ("<script", "<link", "@import", "<!doctype", "<?xml", "url("):
        assert external not in page
    # the only sources are the trees' pictures, inline as data: URIs
    sources = [s.split(",")[0] for s in re.findall(r'src="([^"]*)"', page)]
    assert sources == ["data:image/svg+xml;base64"] * 2
    assert "href=" not in page.replace('xlink:href="#', "").replace('href="#', "")


def test_html_shows_the_numbers_of_the_tutorial(troll):
    page = troll._repr_html_()
    assert "F0 = log(odds) = log(4 / 2) = 0.693147" in page
    assert "e.g. row 0: 0.693147 + 0.8 × 1.5 = 1.893147" in page
    assert "1 / 0.666667 = 1.5" in page  # the leaf formula, filled in
    assert "1.4, -1 and -3.3" in page


def test_cli_passes_precision_to_save(tmp_path, monkeypatch, capsys):
    from teachgbt import cli
    from teachgbt.teach.walkthrough.tables import Walkthrough

    seen = {}
    monkeypatch.setattr(
        Walkthrough,
        "save",
        lambda self, out, precision=6, force=False: seen.update(p=precision) or [],
    )
    argv = ["walkthrough", "troll2", "--out", str(tmp_path / "o"), "--precision", "3"]
    assert cli.main(argv) in (0, None)
    assert seen == {"p": 3}
