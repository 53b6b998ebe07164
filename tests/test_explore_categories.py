"""Set splits in the explorer, in a real browser at 1280×720 and 1920×1080: a set split's
chart in its box has one bar per category (by name, long lists folded into "+k more"),
stacked by class, the set's (yes) above the others; the Node tab lists the set in full by
name and draws every category with its rows; a picked row's category is named on its path
and marked in the charts. Each count is worked out again here from the rows and the tree's
own routing (``Tree.node_mask``), for a model trained with ``enable_categorical=True`` on a
pandas category column and for a LightGBM model trained on one and imported."""

import shutil

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg

lgb = pytest.importorskip("lightgbm")
sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")

SIZES = [(1280, 720), (1920, 1080)]
COLOURS = ["red", "green", "blue", "yellow", "black", "white", "pink", "grey", "orange",
           "purple", "brown", "a very long colour name indeed"]  # fmt: skip
PALETTE = ["#4e79a7", "#f28e2b"]  # the page's colours of class 0 and class 1
CAT_ROWS = 8  # explorer.js: a box's chart folds a longer list into "+k more"


def _data(seed=0, n=500):
    rng = np.random.default_rng(seed)
    v = rng.choice(COLOURS, n)
    x = np.round(rng.normal(size=n), 1)
    effect = dict(zip(COLOURS, rng.normal(size=len(COLOURS)) * 2))
    y = (np.array([effect[c] for c in v]) + x + rng.normal(0, 0.5, n) > 0).astype(int)
    X = pd.DataFrame({"x": x, "colour": pd.Categorical(v, categories=COLOURS)})
    X.loc[rng.random(n) < 0.05, "colour"] = np.nan
    return X, y


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    X, y = _data()
    ours = tg.BoostingClassifier(tree_method="hist", enable_categorical=True, n_estimators=3,
                                 max_depth=3).fit(X, y)  # fmt: skip
    clf = lgb.LGBMClassifier(n_estimators=3, num_leaves=6, min_data_per_group=5, cat_smooth=1,
                             verbose=-1).fit(X, y)  # fmt: skip
    imported = tg.from_lightgbm(clf)
    np.testing.assert_allclose(imported.predict_proba(X), clf.predict_proba(X), rtol=1e-6)
    out = tmp_path_factory.mktemp("cats")
    pages = {}
    for name, model in (("trained", ours), ("lightgbm", imported)):
        pages[name] = (model, tg.explore(model, X, y).save(out / f"{name}.html"))
    return pages, X, y


def _open(browser, path, size):
    pg = browser.new_page(viewport={"width": size[0], "height": size[1]})
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.goto(f"file://{path}")
    pg.wait_for_selector("body[data-ready='1']", timeout=15_000)
    return pg, errors


def _expected(model, X, y, tree, node):
    """Per category at a set split: (side, rows, rows by class), from the rows' own routes."""
    X32 = model.model_.check_X(X)[0]
    at = tree.node_mask(X32, node)
    left = tree.node_mask(X32, int(tree.left[node]))
    codes = X32[:, tree.feature[node]]
    out = {}
    for r in np.flatnonzero(at):
        c = codes[r]
        label = "missing" if np.isnan(c) else COLOURS[int(c)]
        side = "yes" if left[r] else "no"
        _, n, by_class = out.get(label, (side, 0, [0, 0]))
        by_class[int(y[r])] += 1
        out[label] = (side, n + 1, by_class)
    return out


def _set_nodes(tree):
    return sorted(int(j) for j in tree.sets)


# the node boxes against the tree pane, in screen pixels (as test_explore_classroom's)
_OUTSIDE = """() => {
  const pane = document.getElementById('tree-box').getBoundingClientRect();
  return Array.from(document.querySelectorAll('g.node > rect')).filter(r => {
    const b = r.getBoundingClientRect();
    return b.left < pane.left - 0.5 || b.right > pane.right + 0.5 || b.top < pane.top - 0.5 ||
           b.bottom > pane.bottom + 0.5; }).map(r => r.parentNode.dataset.node);
}"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("which", ["trained", "lightgbm"])
def test_a_set_split_s_chart_has_a_named_bar_per_category(models, browser, which, size):
    pages, X, y = models
    model, path = pages[which]
    pg, errors = _open(browser, path, size)
    checked = 0
    for t in range(1, model.model_.n_rounds + 1):
        pg.click("#next")
        if t == 1:  # every node open (the depth stays chosen for the next rounds)
            pg.select_option("#depth-select", "all")
        tree = model.trees_[t - 1]
        assert pg.evaluate(_OUTSIDE) == []  # every box in the pane, the tall ones too
        for node in _set_nodes(tree):
            want = _expected(model, X, y, tree, node)
            # the box: its biggest categories by name, each on the side its rows took
            shown = pg.eval_on_selector_all(
                f"g.node[data-node='{node}'] text.cat-name",
                "ts => ts.map(t => [t.dataset.side, t.textContent, +t.dataset.n])",
            )
            assert len(shown) == min(len(want), CAT_ROWS)
            for side, label, n in shown:
                if label.startswith("+"):  # "+k more": the rest of its side, added up
                    k = int(label[1:].split()[0])
                    rest = [v[1] for v in want.values() if v[0] == side]
                    assert n == sum(sorted(rest)[:k])
                    continue
                full = [c for c in want if c == label or (label.endswith("…") and
                                                          c.startswith(label[:-1]))]  # fmt: skip
                assert len(full) == 1 and want[full[0]][:2] == (side, n), (label, want)
            # the Node tab: every category, by name, with its rows, stacked by class
            pg.click(f"g.node[data-node='{node}'] rect")
            bars = pg.eval_on_selector_all(
                "#cat-bars g[data-category]",
                "gs => gs.map(g => [g.dataset.category, g.dataset.side, +g.dataset.n, "
                "Array.from(g.querySelectorAll('rect')).map(r => r.getAttribute('fill'))])",
            )
            assert {b[0]: (b[1], b[2]) for b in bars} == {c: v[:2] for c, v in want.items()}
            for label, _, _, fills in bars:
                present = [PALETTE[k] for k, v in enumerate(want[label][2]) if v]
                assert fills == present
            # the set in full, by name; the others; where missing values go
            names = [tree.category_names[tree.feature[node]][c] for c in tree.sets[node]]
            yes = pg.text_content("#set-list li[data-side='yes']")
            assert yes.startswith("yes (left), in the set: " + ", ".join(names) + " (")
            others = [c for c in COLOURS if c not in names]
            assert pg.text_content("#set-list li[data-side='no']") == (
                f"no (right): {', '.join(others)} ({len(others)})"
            )
            side = "left (yes)" if tree.default_left[node] else "right (no)"
            assert pg.text_content("#set-list li[data-side='missing']").endswith(side)
            checked += 1
    assert checked >= 1
    pg.close()
    assert errors == []


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("which", ["trained", "lightgbm"])
def test_a_picked_row_s_category_is_named_and_marked(models, browser, which, size):
    pages, X, y = models
    model, path = pages[which]
    tree = model.trees_[0]
    node = _set_nodes(tree)[0]
    X32 = model.model_.check_X(X)[0]
    rows = np.flatnonzero(tree.node_mask(X32, node) & ~np.isnan(X32[:, tree.feature[node]]))
    r = int(rows[0])
    name = X["colour"].iloc[r]
    pg, errors = _open(browser, path, size)
    pg.click("#next")
    pg.fill("#row-input", str(r))
    pg.press("#row-input", "Enter")
    steps = pg.eval_on_selector_all("#row-path li", "ls => ls.map(l => l.textContent)")
    on_path = [s for s in steps if "colour ∈ {" in s]
    assert on_path and all(f"(colour = {X['colour'].iloc[r]})" in s for s in on_path)
    marked = pg.eval_on_selector_all(
        f"g.node[data-node='{node}'] text.cat-name.picked", "ts => ts.map(t => t.textContent)"
    )
    assert len(marked) == 1 and (name.startswith(marked[0].rstrip("…")) or marked[0][0] == "+")
    pg.click(f"g.node[data-node='{node}'] rect")
    assert pg.eval_on_selector_all(
        "#cat-bars g.picked", "gs => gs.map(g => g.dataset.category)"
    ) == [name]
    pg.close()
    assert errors == []
