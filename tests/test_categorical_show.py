"""Set splits explained and drawn: the sorted categories of ``tg.explain.split`` worked out
again by hand from the trace's g and h, one row per candidate set in ``trace_.splits``, the
diagrams, text trees, plots and the explorer (in a browser) showing ``colour ∈ {…}``."""

import re
import shutil

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.core import formulas
from teachgbt.core.format import format_number

COLOURS = ["red", "green", "blue", "yellow", "black", "white", "pink", "grey"]


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    effect = dict(zip(COLOURS, [3, -1, 0.5, -2, 2, 1, 0, -3]))
    v = rng.choice(COLOURS, 300)
    x = np.round(rng.normal(size=300), 1)
    y = np.array([effect[c] for c in v]) + x + rng.normal(0, 0.3, 300)
    X = pd.DataFrame({"x": x, "colour": pd.Categorical(v, categories=COLOURS)})
    X.loc[rng.random(300) < 0.1, "colour"] = np.nan
    model = tg.BoostingRegressor(tree_method="hist", enable_categorical=True, n_estimators=3,
                                 max_depth=3, reg_lambda=2.0).fit(X, y)  # fmt: skip
    return model, X, y


def _by_hand(model, X, t, node):
    """Per category at ``node``: G and H added up from the trace's g and h (not the trainer's
    histograms), and the sorted order of w* = −G/(H+λ) (stable: code order on ties)."""
    inst = model.trace_.instances(t)
    tree = model.trees_[t - 1]
    rows = tree.node_mask(model.trace_.X, node, inst["leaf"].to_numpy())
    codes = model.trace_.X[:, 1]
    lam = model.params_.reg_lambda
    G = np.array([inst["g"][rows & (codes == c)].sum() for c in range(len(COLOURS))])
    H = np.array([inst["h"][rows & (codes == c)].sum() for c in range(len(COLOURS))])
    w = np.asarray(formulas.leaf_weight(G, H, lam, min_child_weight=1.0), dtype=np.float32)
    missing = rows & np.isnan(codes)
    return G, H, np.argsort(w, kind="stable"), (inst["g"][missing].sum(), inst["h"][missing].sum())


def test_explain_split_shows_the_sorted_categories_and_every_cut(fitted):
    model, X, _ = fitted
    tree = model.trees_[0]
    assert 0 in tree.sets
    text = str(tg.explain.split(model, 1, 0))
    G, H, order, (Gm, Hm) = _by_hand(model, X, 1, 0)
    lam = model.params_.reg_lambda
    lines = [ln.strip() for ln in text.splitlines()]
    rows = [ln for ln in lines if re.match(r"^[a-z]+: ", ln) and "→" in ln][1:]  # after the head
    assert [r.split(":")[0] for r in rows] == [COLOURS[c] for c in order]
    G_all, H_all = G.sum() + Gm, H.sum() + Hm
    for k, r in enumerate(rows):
        c = order[k]
        assert f"{format_number(G[c], 3)}, {format_number(H[c], 3)}, " in r
        if k == len(rows) - 1:
            break  # no cut after the last category
        GL, HL = G[order[: k + 1]].sum(), H[order[: k + 1]].sum()
        out = formulas.split_gain(GL, HL, G_all - GL, H_all - HL, lam)
        inside = formulas.split_gain(GL + Gm, HL + Hm, G_all - GL - Gm, H_all - HL - Hm, lam)
        assert r.endswith(f"→  {format_number(out, 3)} | {format_number(inside, 3)}"), r
    chosen = "{" + ", ".join(tree.set_labels(0)) + "}"
    assert f"chosen: {chosen}" in text and f"split colour ∈ {chosen}" in text


def test_splits_table_lists_every_candidate_set_with_its_gain(fitted):
    model, X, _ = fitted
    table = model.trace_.splits(1, 0)
    sets = table[table["categories"].notna()]
    assert (sets["feature"] == "colour").all() and sets["threshold"].isna().all()
    chosen = table[table["chosen"]]
    assert len(chosen) == 1
    assert tuple(chosen["categories"].iloc[0]) == tuple(model.trees_[0].set_labels(0))
    assert chosen["gain"].iloc[0] == pytest.approx(model.trees_[0].gain[0], rel=1e-5)
    lam = model.params_.reg_lambda
    expect = formulas.split_gain(sets["G_L"], sets["H_L"], sets["G_R"], sets["H_R"], lam)
    np.testing.assert_allclose(sets["gain"], expect, rtol=1e-9)
    # each set once per side of the missing values; both scans of the partition are listed
    assert not sets.duplicated(subset=["categories", "default_left"]).any()
    assert set(sets["default_left"]) == {False, True}
    assert sets["gain"].max() == pytest.approx(chosen["gain"].iloc[0])


def test_diagrams_and_text_trees_show_the_set_long_ones_shortened(fitted):
    model, _, _ = fitted
    tree = model.trees_[0]
    text = str(tree)
    assert "colour ∈ {" in text
    assert "the categories listed go left (yes)" in text
    long = [i for i in tree.sets if len(tree.sets[i]) > 4]
    dot = tree.to_dot()
    for i in long:
        whole = "colour ∈ {" + ", ".join(tree.set_labels(i)) + "}"
        assert f'tooltip="{whole}"' in dot
        assert f"… {len(tree.sets[i])} in all}}" in dot
    assert long, "the test needs a long set"
    frame = tree.to_frame()
    assert frame.loc[0, "categories"] == tuple(tree.set_labels(0))


def test_split_scan_plots_the_sorted_categories(fitted):
    model, _, _ = fitted
    ax = tg.plot.split_scan(model, 1, 0, "colour")
    labels = [t.get_text() for t in ax.get_xticklabels()]
    table = model.trace_.category_stats(1, 0)
    assert labels == list(table["category"])
    assert any("chosen" in h.get_label() for h in ax.get_lines())


def test_prediction_path_names_the_category(fitted):
    model, X, _ = fitted
    row = X[X["colour"].notna()].iloc[0]
    text = str(tg.explain.prediction(model, row))
    assert f"colour = {row['colour']} ∈ {{" in text
    missing = X[X["colour"].isna()].iloc[0]
    assert "colour = missing ∈ {" in str(tg.explain.prediction(model, missing))


def test_explorer_data_carries_sets_names_and_candidate_sets(fitted):
    from teachgbt.show.explorer import data as explorer_data

    model, X, y = fitted
    d = explorer_data.build(model, X, y)
    tree = model.trees_[0]
    t0 = d["trees"][0]
    assert t0["rule"][0].startswith("colour ∈ {") and t0["threshold"][0] is None
    assert t0["exact_rule"][0] == "colour ∈ {" + ", ".join(tree.set_labels(0)) + "}"
    assert d["categories"] == {"1": COLOURS}
    assert t0["sets"]["0"] == tree.sets[0].tolist()
    chosen = [r for r in t0["splits"]["0"]["rows"] if r[-1]]
    assert chosen and chosen[0][1].startswith("{")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")
def test_the_explorer_page_shows_a_rows_category_on_its_path(fitted, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    model, X, y = fitted
    path = tg.explore(model, X, y).save(tmp_path / "x.html")
    r = int(np.flatnonzero(X["colour"].notna())[0])
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"file://{path}")
        page.wait_for_selector("body[data-ready='1']", timeout=10_000)
        page.click("#next")
        page.fill("#row-input", str(r))
        page.press("#row-input", "Enter")
        steps = page.eval_on_selector_all("#row-path li", "ls => ls.map(l => l.textContent)")
        helper = page.evaluate(
            "[teachgbtExplorer.valueText({categories: {1: ['a', 'b']}}, 1, 1),"
            " teachgbtExplorer.valueText({categories: {1: ['a', 'b']}}, 1, 5),"
            " teachgbtExplorer.valueText({categories: {}}, 0, null)]"
        )
        browser.close()
    assert errors == []
    assert helper == ["b", "unseen (5)", "missing"]
    first = model.trees_[0].path(model.model_.check_X(X.iloc[[r]])[0][0])
    assert steps[0].startswith("colour ∈ {")
    assert f"(colour = {X['colour'].iloc[r]})" in steps[0]
    assert len(steps) == len(first)  # the splits on the path, then the leaf
