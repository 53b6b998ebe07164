"""The explorer as a teacher uses it (issue 29), in the system Chromium at 1280 × 720 and
1920 × 1080: breast-cancer trees of depth 3 and 5 fit their pane and stay readable, the
data sits in every node, A+ reaches the tree, tables fit, the tree saves as SVG and PNG,
and walkthrough.html needs no sideways scroll.

Skipped when Chromium or Playwright is missing (as tests/test_explore_browser.py).
"""

import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import teachgbt as tg

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")

SIZES = [(1280, 720), (1920, 1080)]
READABLE_PX = 9  # the smallest node text at 1280 px, for trees of depth <= 4


@pytest.fixture(scope="module")
def cancer():
    datasets = pytest.importorskip("sklearn.datasets")
    data = datasets.load_breast_cancer(as_frame=True)
    return data.data, data.target


@pytest.fixture(scope="module")
def pages(cancer, tmp_path_factory):
    """The explorer of breast-cancer models of depth 3, 4 and 5, saved once."""
    X, y = cancer
    out, models = {}, {}
    folder = tmp_path_factory.mktemp("cancer")
    for depth in (3, 4, 5):
        clf = tg.BoostingClassifier(n_estimators=20, max_depth=depth).fit(X, y)
        ex = tg.explore(clf, X, y, class_names=["malignant", "benign"])
        out[depth] = ex.save(folder / f"d{depth}.html")
        models[depth] = clf
    return out, models


@pytest.fixture
def open_page(browser):
    """open_page(path, size) -> the loaded page; fails on any console error."""
    opened, errors = [], []

    def open_(path, size):
        pg = browser.new_page(viewport={"width": size[0], "height": size[1]}, accept_downloads=True)
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"file://{path}")
        pg.wait_for_selector("body[data-ready='1']", timeout=15_000)
        opened.append(pg)
        return pg

    yield open_
    for pg in opened:
        pg.close()
    assert errors == [], errors


# every node box against the tree pane and the side panel, in screen pixels
_OUTSIDE = """() => {
  const pane = document.getElementById('tree-box').getBoundingClientRect();
  const panel = document.querySelector('aside').getBoundingClientRect();
  const boxes = Array.from(document.querySelectorAll('g.node > rect'));
  const out = boxes.filter(r => { const b = r.getBoundingClientRect();
    return b.left < pane.left - 0.5 || b.right > pane.right + 0.5 || b.top < pane.top - 0.5 ||
           b.bottom > pane.bottom + 0.5 || b.right > panel.left; });
  return [boxes.length, out.map(r => r.parentNode.dataset.node)];
}"""

# the smallest text of any node box, in screen pixels
_SMALLEST = """() => Math.min(...Array.from(document.querySelectorAll('g.node > text')).map(
  t => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a))"""


def _inside(pg):
    n, out = pg.evaluate(_OUTSIDE)
    assert n > 0 and out == [], f"{len(out)} of {n} node boxes outside the tree pane: {out}"
    return n


def _one_line(pg, selector):
    """The visible children of ``selector`` sit side by side: none on a second line."""
    centres = pg.eval_on_selector(
        selector,
        """el => Array.from(el.querySelectorAll(':scope > *, :scope > .controls > *'))
             .filter(c => c.offsetParent !== null && c.getBoundingClientRect().width > 0
                          && !c.classList.contains('controls') && !c.classList.contains('menu'))
             .map(c => { const b = c.getBoundingClientRect(); return [b.top, b.bottom]; })""",
    )
    tops = [t for t, _ in centres]
    shortest = min(b - t for t, b in centres)
    assert max(tops) - min(tops) < shortest, f"{selector} wraps: tops {sorted(set(tops))}"
    assert pg.eval_on_selector(selector, "e => e.scrollWidth <= e.clientWidth + 1"), selector


# ------------------------------------------------------------------ 1. the tree in view
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("depth", [3, 5])
def test_every_node_is_inside_the_tree_pane_after_opening_fit_and_a_picked_row(
    pages, open_page, size, depth
):
    paths, _ = pages
    pg = open_page(paths[depth], size)
    for _ in range(2):  # round 1's tree, then round 2's
        pg.click("#next")
        assert pg.eval_on_selector("#tree-svg", "s => s.querySelector('g.node') !== null")
        _inside(pg)
        pg.click("#fit")
        _inside(pg)
    # top-down: the root above its children
    root = pg.eval_on_selector("g.node[data-node='0'] > rect", "r => r.getBoundingClientRect().y")
    kids = pg.eval_on_selector_all("g.node:not([data-node='0']) > rect",
                                   "rs => rs.map(r => r.getBoundingClientRect().y)")  # fmt: skip
    assert all(k > root for k in kids)
    # a picked row: its path opens, and the whole tree (its root too) stays in view
    pg.fill("#row-input", "7")
    pg.press("#row-input", "Enter")
    _inside(pg)
    assert pg.locator("g.node[data-node='0'].on-path").count() == 1
    # every node open, then Fit: still every box in the pane
    pg.select_option("#depth-select", "all")
    pg.click("#fit")
    n = _inside(pg)
    tree = pages[1][depth].trees_[1]
    assert n == tree.n_nodes


@pytest.mark.parametrize("size", SIZES)
def test_trees_of_depth_up_to_4_open_whole_and_readable(pages, open_page, size):
    paths, models = pages
    for depth, page in paths.items():
        pg = open_page(page, size)
        for t in range(1, 21 if depth == 4 else 4):  # every tree of the depth-4 model
            pg.click("#next")
            tree = models[depth].trees_[t - 1]
            if tree.max_depth > 4:
                continue
            assert pg.locator("g.node").count() == tree.n_nodes  # nothing folded away
            assert pg.input_value("#depth-select") == "all"
            assert pg.evaluate(_SMALLEST) >= READABLE_PX, f"depth-{depth} model, tree {t}"


@pytest.mark.parametrize("size", SIZES)
def test_a_deep_tree_opens_folded_below_a_readable_depth(pages, open_page, size):
    paths, models = pages
    model = models[5]
    t = next(t for t in range(1, 21) if model.trees_[t - 1].max_depth == 5)
    pg = open_page(paths[5], size)
    for _ in range(t):
        pg.click("#next")
    tree = model.trees_[t - 1]
    shown = pg.locator("g.node").count()
    opened = int(pg.input_value("#depth-select"))
    assert shown < tree.n_nodes and 2 <= opened < 5
    assert pg.evaluate(_SMALLEST) >= READABLE_PX
    folded = pg.eval_on_selector_all(
        ".toggle", "ts => ts.filter(t => t.textContent[0] === '+').length"
    )
    assert folded >= 1
    # the expander opens one subtree; the depth control opens a level
    first = pg.eval_on_selector_all(
        ".toggle", "ts => ts.filter(t => t.textContent[0] === '+')[0].dataset.toggle"
    )
    pg.dispatch_event(f".toggle[data-toggle='{first}']", "click")
    assert pg.locator("g.node").count() > shown
    _inside(pg)
    pg.select_option("#depth-select", str(opened + 1) if opened + 1 < tree.max_depth else "all")
    assert pg.locator("g.node").count() > shown
    _inside(pg)


# ------------------------------------------------------------------ 2. data in every node
@pytest.mark.parametrize("size", SIZES)
def test_the_overview_puts_the_data_in_every_node(pages, open_page, size):
    paths, models = pages
    pg = open_page(paths[3], size)
    pg.click("#next")
    assert pg.is_checked("#overview")  # on by default for small trees
    splits = pg.locator("g.node.split").count()
    charted = pg.locator("g.node.split g.chart").count()
    assert charted >= 0.8 * splits
    # a split's bars count the rows that reached it, coloured by class
    tree = models[3].trees_[0]
    leaves = pg.locator("g.node.leaf").count()
    assert pg.locator("g.node.leaf g.chart").count() == leaves
    legend = pg.text_content("#legend")
    assert "malignant" in legend and "benign" in legend
    # edges as wide as the rows passing: the root's bigger child has the wider edge
    widths = {
        e: float(w)
        for e, w in pg.eval_on_selector_all(
            "path.edge", "es => es.map(e => [e.dataset.edge, e.getAttribute('stroke-width')])"
        )
    }
    a, b = int(tree.left[0]), int(tree.right[0])
    big, small = (a, b) if tree.n[a] > tree.n[b] else (b, a)
    assert widths[f"0-{big}"] > widths[f"0-{small}"]
    # the class names everywhere: the Rows table's y
    pg.click("#tab-rows")
    ys = pg.eval_on_selector_all(
        "#rows-table tbody tr td:nth-child(2)", "ts => ts.map(t => t.textContent)"
    )
    assert set(ys) == {"malignant", "benign"}
    # off: plain boxes, no charts
    pg.uncheck("#overview")
    assert pg.locator("g.chart").count() == 0


def test_the_split_chart_counts_the_rows_that_reached_the_node(pages, cancer, open_page):
    paths, models = pages
    X, y = cancer
    pg = open_page(paths[3], SIZES[0])
    pg.click("#next")
    tree = models[3].trees_[0]
    app = "teachgbtExplorer.app"
    counts = pg.evaluate(f"() => {app}.nodeRows(0).map(a => a.vals.length)")
    paths_ = [tree.path(x) for x in X.to_numpy(np.float32)]
    for j in range(tree.n_nodes):
        assert counts[j] == sum(j in p for p in paths_) == tree.n[j]


# ------------------------------------------------------------------ 3. projector mode
@pytest.mark.parametrize("size", SIZES)
def test_a_plus_grows_the_tree_s_text_and_nothing_wraps(pages, open_page, size):
    paths, _ = pages
    pg = open_page(paths[5], size)
    pg.click("#next")
    # the root's label on screen: its font size and its width (a box's height is hinted
    # to whole pixels)
    label = """() => { const t = document.querySelector("g.node[data-node='0'] text.l1");
      return [parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a,
              t.getBoundingClientRect().width]; }"""
    before = pg.evaluate(label)
    pg.click("#font-up")
    pg.click("#font-up")
    after = pg.evaluate(label)
    assert after[0] >= 1.25 * before[0] and after[1] >= 1.25 * before[1]
    pg.click("#font-up")
    for selector in ("header", "#toolbar", ".tabs"):
        _one_line(pg, selector)
    pg.click("#tab-about")  # every tab is still there, none cut
    right = pg.eval_on_selector(".tabs", "e => e.getBoundingClientRect().right")
    assert pg.eval_on_selector("#tab-about", "e => e.getBoundingClientRect().right") <= right
    # round 0's text wraps: nothing runs off its pane
    pg.click("#prev")
    assert pg.eval_on_selector("#start", "e => e.scrollWidth <= e.clientWidth + 1")
    assert "margin₀ = logit(base_score)" in pg.text_content("#start")


def test_in_a_notebook_s_frame_nothing_wraps_either(pages, browser):
    """JupyterLab's output area at 1280 px is about 980 px wide: the frame's bars keep one
    line there too, after three A+ presses (the toolbar wrapped "Open / all" before)."""
    from teachgbt.show.explorer import page

    paths, _ = pages
    frame_html = page.iframe(open(paths[5], encoding="utf-8").read())
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    pg.set_content(f"<div style='margin-left:240px;width:980px'>{frame_html}</div>")
    frame = pg.frames[1]
    frame.wait_for_selector("body[data-ready='1']")
    frame.click("#next")
    for _ in range(3):
        frame.click("#font-up")
    for selector in ("header", "#toolbar", ".tabs"):
        _one_line(frame, selector)
    pg.close()


# ------------------------------------------------------------------ 4. tables that fit
@pytest.mark.parametrize("size", SIZES)
def test_the_troll2_epochs_table_needs_no_sideways_scroll(open_page, tmp_path, size):
    w = tg.walkthrough.troll2(compare=False)
    pg = open_page(tg.explore(w).save(tmp_path / "t.html"), size)
    for _ in range(2):
        pg.click("#next")
        pg.click("#tab-epochs")
        assert pg.eval_on_selector("#panel", "e => e.scrollWidth <= e.clientWidth + 1")
        assert pg.eval_on_selector("#panel .scroll", "e => e.scrollWidth <= e.clientWidth + 1"), (
            "the epochs table scrolls sideways"
        )
    # one column per row of data, one row per quantity: seed 004's table, every column
    ep = w.model.trace_.epochs()
    for col in ("ep_1_pre", "ep_2_residual", "ep_2_leaf_output", "ep_2_prob"):
        cells = pg.eval_on_selector_all(
            f"#epochs-table tbody tr[data-col='{col}'] td", "ts => ts.map(t => t.textContent)"
        )
        digits = 3 if "leaf_output" in col else 4  # w* is a tree's number (data.DIGITS)
        assert cells == [tg.draw.format_number(v, digits) for v in ep[col]]


@pytest.mark.parametrize("size", SIZES)
def test_walkthrough_html_needs_no_sideways_scroll_and_its_legends_are_readable(
    browser, tmp_path, size
):
    from teachgbt.teach.walkthrough.html import walkthrough_page

    path = tmp_path / "walkthrough.html"
    path.write_text(walkthrough_page(tg.walkthrough.troll2()), encoding="utf-8")
    pg = browser.new_page(viewport={"width": size[0], "height": size[1]})
    pg.goto(f"file://{path}")
    assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    sizes = pg.eval_on_selector_all(
        "ul.tg-legend li", "ls => ls.map(l => parseFloat(getComputedStyle(l).fontSize))"
    )
    assert sizes and min(sizes) >= 12
    # the trees are drawn at their size (not shrunk to fit a legend)
    scale = pg.eval_on_selector_all(
        ".tg-tree img", "is => is.map(i => i.getBoundingClientRect().width / i.naturalWidth)"
    )
    assert min(scale) > 0.99
    pg.close()


# ------------------------------------------------------------------ 6. save the tree
@pytest.mark.parametrize("size", SIZES)
def test_save_the_tree_as_svg_and_png(pages, open_page, tmp_path, size):
    paths, models = pages
    pg = open_page(paths[3], size)
    pg.click("#next")
    for fmt in ("svg", "png"):
        pg.click("#more")
        with pg.expect_download() as dl:
            pg.click(f"#save-{fmt}")
        target = tmp_path / f"t.{fmt}"
        dl.value.save_as(target)
        assert dl.value.suggested_filename == f"tree-1.{fmt}"
        data = target.read_bytes()
        if fmt == "svg":
            root = ET.fromstring(data)
            texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
            assert "worst radius" in texts and "malignant" in texts
            assert "<style>" in data.decode()  # styled inline: it reads the same elsewhere
        else:
            assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


# ------------------------------------------------------------------ 5. one name per number
def test_an_imported_xgboost_model_explored_with_its_rows_knows_n(open_page, tmp_path):
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3)).astype(np.float32) * 40 + 60
    y = (X[:, 0] + rng.normal(size=150) * 20 > 60).astype(int)
    booster = xgb.XGBClassifier(n_estimators=2, max_depth=2).fit(X, y)
    model = tg.from_xgboost(booster.get_booster())
    pg = open_page(tg.explore(model, X, y).save(tmp_path / "x.html"), SIZES[0])
    pg.click("#next")
    pg.click("g.node[data-node='0'] > rect")
    seen = pg.inner_text("#app")
    assert "n = 150 rows (counted from the rows given)" in pg.text_content("#leaf-formula")
    pg.click("#tab-about")
    seen += pg.inner_text("#app")
    assert "unknown" not in seen and "(-1)" not in seen
    assert pg.text_content("g.node[data-node='0'] text.l2").startswith("n 150")


@pytest.mark.parametrize("size", SIZES)
def test_a_leaf_names_w_star_and_what_it_adds(open_page, tmp_path, size):
    w = tg.walkthrough.troll2(compare=False)
    model = w.model
    pg = open_page(tg.explore(w).save(tmp_path / "t.html"), size)
    pg.click("#next")
    tree = model.trees_[0]
    ep = model.trace_.epochs()
    fmt = tg.draw.format_number
    for j in np.flatnonzero(tree.is_leaf):
        lines = pg.eval_on_selector_all(
            f"g.node[data-node='{j}'] > text", "ts => ts.map(t => t.textContent)"
        )
        # w* is the walkthrough's leaf_output; η·w* what the leaf adds, each by its name
        output = ep.loc[ep["ep_1_leaf_index"] == j, "ep_1_leaf_output"].iloc[0]
        assert f"w* {fmt(output, 3)}" in lines
        value = fmt(tree.value[j], 3)
        assert f"η·w* {'+' if tree.value[j] > 0 else ''}{value}" in lines
    pg.fill("#row-input", "3")
    pg.press("#row-input", "Enter")
    leaf = int(ep["ep_1_leaf_index"][3])
    text = pg.text_content("#row-leaf")
    assert f"w* = {fmt(tree.weight[leaf], 4)} (leaf_output)" in text
    assert f"adds η·w* = 0.8 × {fmt(tree.weight[leaf], 4)} = {fmt(tree.value[leaf], 4)}" in text
    # the GBDT node panel: n is the gain's H, Σp(1−p) w*'s denominator
    pg.click("g.node[data-node='0'] > rect")
    names = pg.eval_on_selector_all("#node-stats th", "ts => ts.map(t => t.textContent)")
    assert "n (the gain's H)" in names and "Σp(1−p) (w*'s denominator)" in names


def test_rows_past_the_margins_the_page_carries_say_so(open_page, tmp_path, monkeypatch):
    from teachgbt.show.explorer import data as explore_data

    rng = np.random.default_rng(12)
    X = rng.normal(size=(60, 2))
    model = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X, X[:, 0] > 0)
    monkeypatch.setattr(explore_data, "MAX_MARGIN_VALUES", 4 * 25)
    pg = open_page(tg.explore(model).save(tmp_path / "m.html"), SIZES[0])
    pg.click("#next")
    pg.click("#tab-rows")
    rows = pg.eval_on_selector_all(
        "#rows-table tbody tr", "rs => rs.map(r => r.cells[r.cells.length - 1].textContent)"
    )
    p = model.predict_proba(X, iteration_range=(0, 1))[:, 1]
    assert rows[:25] == [tg.draw.format_number(v, 4) for v in p[:25]]
    assert set(rows[25:]) == {"—"}  # beyond the rows whose margins the page carries
    pg.fill("#row-input", "40")
    pg.press("#row-input", "Enter")
    assert "running margins of the first 25 rows only" in pg.text_content("#panel")
    assert pg.get_attribute("#row-path", "data-path")  # its path is still shown


def test_the_page_s_margins_are_the_model_s_in_float32(open_page, tmp_path):
    """A margin summed in float32 differs from the float64 sum: the page shows the model's."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(40, 2)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    model = tg.BoostingClassifier(n_estimators=6, max_depth=2, learning_rate=0.37).fit(X, y)
    pg = open_page(tg.explore(model).save(tmp_path / "m.html"), SIZES[0])
    got = pg.evaluate(
        "() => Array.from({length: 40}, (_, r) => teachgbtExplorer.app.margins(r)[6][0])"
    )
    np.testing.assert_array_equal(got, model.model_.margins_after(X, 6))


def test_thresholds_and_row_values_read_as_python_formats_them(open_page, tmp_path):
    from teachgbt.core.format import format_threshold

    w = tg.walkthrough.troll2(compare=False)
    pg = open_page(tg.explore(w).save(tmp_path / "t.html"), SIZES[0])
    values = [0.066259995, 16.11, 17.06, 0.1, 1e-5, 3.4e38, -2.5e-7, 123456789.0, 1e9, 7.0, -0.0]
    values += list(np.random.default_rng(0).normal(size=40) * 10.0 ** np.arange(-5, 15, 0.5))
    f32 = [float(np.float32(v)) for v in values]
    got = pg.evaluate("vs => vs.map(v => teachgbtExplorer.formatValue(v, true))", f32)
    assert got == [format_threshold(v) for v in f32]
    got64 = pg.evaluate("vs => vs.map(v => teachgbtExplorer.formatValue(v, false))", values)
    assert got64 == [format_threshold(v, "lightgbm") for v in values]


def test_the_in_page_svg_is_a_picture_of_the_open_tree(pages, open_page):
    paths, models = pages
    pg = open_page(paths[3], SIZES[1])
    pg.click("#next")
    svg = pg.evaluate("() => teachgbtExplorer.app.svgText()")
    root = ET.fromstring(svg.split("?>", 1)[1])
    nodes = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-node")]
    assert len(nodes) == models[3].trees_[0].n_nodes
    w, h = float(root.get("width")), float(root.get("height"))
    assert w > 100 and h > 100 and re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox"))


@pytest.mark.parametrize("objective", ["binary:logitraw", "binary:hinge"])
def test_the_epochs_table_reads_the_objective_s_link_as_the_trace_does(
    open_page, tmp_path, objective
):
    """σ of binary:logitraw's log-odds (its predict only omits σ); no probability at all for
    binary:hinge, whose margin is a score: every column as trace_.epochs() has it."""
    rng = np.random.default_rng(13)
    X = rng.normal(size=(7, 2))  # few rows: the table has one column per row
    y = np.array([0, 1, 1, 0, 1, 0, 1])
    model = tg.BoostingClassifier(objective=objective, n_estimators=2, max_depth=1).fit(X, y)
    pg = open_page(tg.explore(model).save(tmp_path / "o.html"), SIZES[0])
    pg.click("#next")
    pg.click("#next")
    pg.click("#tab-epochs")
    ep = model.trace_.epochs()
    shown = pg.eval_on_selector_all(
        "#epochs-table tbody tr",
        "rs => rs.map(r => r.dataset.col).filter(c => c.startsWith('ep_'))",
    )
    assert shown == [
        c for c in ep.columns if c.startswith(("ep_1_pre", "ep_1_prob")) or c.startswith("ep_2_")
    ]
    for col in shown:
        cells = pg.eval_on_selector_all(
            f"#epochs-table tbody tr[data-col='{col}'] td", "ts => ts.map(t => t.textContent)"
        )
        digits = 3 if "leaf_output" in col else 4  # w* is a tree's number (data.DIGITS)
        want = [str(v) if "index" in col else tg.draw.format_number(v, digits) for v in ep[col]]
        assert cells == want, col
