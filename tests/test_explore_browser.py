"""The explorer page in a real browser: the system Chromium, driven by Playwright.

Every request that is not file: or data: is aborted, so a page that needed the network
would fail here. Skipped when Chromium or Playwright is missing locally; .ci/run installs
both (Chromium from Debian's packages: no browser is ever downloaded by Playwright).
"""

import shutil

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core.format import exact_threshold, format_number, format_threshold, split_rule
from teachgbt.show.explorer import page as explore_page
from teachgbt.show.explorer.data import DIGITS

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")


@pytest.fixture
def open_page(browser, tmp_path):
    """open_page(explorer) -> the loaded page; fails the test on any console error or on
    any request that would leave the file."""
    pages, errors, blocked = [], [], []

    def open_(ex, name="x.html"):
        path = ex.save(tmp_path / name)
        pg = browser.new_page(viewport={"width": 1280, "height": 720})
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))

        def route(r):
            if r.request.url.startswith(("file:", "data:")):
                return r.continue_()
            blocked.append(r.request.url)
            return r.abort()

        pg.route("**/*", route)
        pg.goto(f"file://{path}")
        pg.wait_for_selector("body[data-ready='1']", timeout=10_000)
        pages.append(pg)
        return pg

    yield open_
    for pg in pages:
        pg.close()
    assert errors == [], errors
    assert blocked == [], blocked


def _cells(pg, table):
    return pg.eval_on_selector_all(
        f"#{table} tbody tr",
        "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))",
    )


def _text(pg, sel):
    """A formula block's text with each line's indentation dropped (the page indents in CSS)."""
    return pg.eval_on_selector_all(f"{sel} .fl", "ls => ls.map(l => l.textContent).join('\\n')")


def _plain(text):
    return "\n".join(line.strip() for line in str(text).splitlines())


def test_troll2_step_click_and_pick(open_page):
    w = tg.walkthrough.troll2(compare=False)
    model, X = w.model, w.data.drop(columns=w.target)
    pg = open_page(tg.explore(w))
    assert pg.text_content("#round-label").startswith("Round 0 of 2")  # opens at the base score
    pg.click("#next")
    assert pg.text_content("#round-label") == "Round 1 of 2: after Tree 1"

    # the numbers on the page are the trace's: g, h tree 1 was grown from, margin after it
    pg.click("#tab-rows")
    inst, ep = model.trace_.instances(1), model.trace_.epochs()
    for r, row in enumerate(_cells(pg, "rows-table")):
        label = str(model.classes_[int(inst["y"][r])])
        want = [str(r), label, format_number(inst["y"][r], 4)]
        want += [format_number(inst[c][r], 4) for c in ("g", "h")] + [str(inst["leaf"][r])]
        want += [format_number(ep[c][r], 4) for c in ("ep_1_pre", "ep_1_prob")]
        assert row == want

    # Next, then the epoch table of round 2 against trace_.epochs()
    pg.click("#next")
    assert pg.text_content("#round-label").startswith("Round 2 of 2")
    pg.click("#tab-epochs")
    ep = model.trace_.epochs()
    cols = ["ep_1_pre", "ep_1_prob", "ep_2_residual", "ep_2_leaf_index", "ep_2_leaf_output",
            "ep_2_pre", "ep_2_prob"]  # fmt: skip
    # six rows of data: one column each, one row per quantity
    for c in cols:
        got = pg.eval_on_selector_all(
            f"#epochs-table tbody tr[data-col='{c}'] td", "ts => ts.map(t => t.textContent)"
        )
        digits = DIGITS["tree" if "leaf_output" in c else "row"]  # w* is a tree's number
        assert got == [format_number(v, digits) if "index" not in c else str(v) for v in ep[c]]

    # click a node: its numbers and the formula of tg.explain
    pg.click("g.node[data-node='0'] rect")
    stats = dict(
        pg.eval_on_selector_all(
            "#node-stats tr", "rs => rs.map(r => [r.dataset.stat, r.cells[1].textContent])"
        )
    )
    tree = model.trees_[1]
    tree_digits = DIGITS["tree"]
    assert stats["n"] == str(tree.n[0]) and stats["gain"] == format_number(
        tree.gain[0], tree_digits
    )
    # GBDT: the H the gain uses (counts) beside w*'s Σp(1−p), each named
    assert stats["H_gain"] == str(tree.n[0])
    assert stats["H"] == format_number(tree.H[0], tree_digits)
    assert _text(pg, "#split-formula") == _plain(
        str(tg.explain.split(model, 2, 0, DIGITS["tree"])).replace(
            "XGBoost reports loss_chg", "loss_chg (XGBoost's measure, computed here)"
        )
    )
    assert _text(pg, "#leaf-formula") == _plain(tg.explain.leaf(model, 2, 0, DIGITS["tree"]))
    chosen = pg.eval_on_selector_all("#split-table tr.chosen", "rs => rs.length")
    assert chosen == 1

    # the arrow keys step back; pick a row: its path in the tree is tree.path(x)
    pg.keyboard.press("ArrowLeft")
    assert pg.text_content("#round-label").startswith("Round 1 of 2")
    for r in (0, 3):
        pg.fill("#row-input", str(r))
        pg.press("#row-input", "Enter")
        marked = pg.eval_on_selector_all(
            "g.node.on-path", "ns => ns.map(n => +n.dataset.node).sort((a, b) => a - b)"
        )
        assert marked == sorted(model.trees_[0].path(X.iloc[r].to_numpy(float)))
        assert pg.get_attribute("#row-path", "data-path") == ",".join(
            map(str, model.trees_[0].path(X.iloc[r].to_numpy(float)))
        )
    margins = [c[3] for c in _cells(pg, "row-margins")]
    assert margins == [format_number(model.trace_.epochs()[f"ep_{k}_pre"][3], 4) for k in (0, 1, 2)]


def test_formatter_and_round_zero(open_page):
    pg = open_page(tg.explore(tg.walkthrough.troll2(compare=False)))
    xs = [0, -0.0, 1.5, -1.25, 0.125, 0.375, -0.03125, 2.5e-5, 123456.789, 1e-9, -7.0000001]
    for p in (0, 2, 3, 4):
        got = pg.evaluate(f"xs => xs.map(x => teachgbtExplorer.formatNumber(x, {p}))", xs)
        assert got == [format_number(x, p) for x in xs]
    assert pg.text_content("#round-label").startswith("Round 0 of 2")
    assert pg.is_disabled("#prev")
    assert "margin₀" in pg.text_content("#start") and "F0" in pg.text_content("#start")


def test_compressed_multiclass_model_without_trace(open_page, monkeypatch):
    monkeypatch.setattr(explore_page, "COMPRESS_ABOVE", 1000)  # exercise the gzip path
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 3))
    y = np.array(["a", "b", "c"])[np.argmax(X @ rng.normal(size=(3, 3)), axis=1)]
    fitted = tg.BoostingClassifier(n_estimators=3, max_depth=5).fit(X, y)
    model = tg.BoostingClassifier.from_trees(
        fitted.trees_, base_score=fitted.base_margin_, classes=fitted.classes_
    )
    pg = open_page(tg.explore(model, X, y))
    assert pg.is_visible("#class-select")
    pg.select_option("#class-select", "2")
    pg.click("#next")
    pg.click("#next")  # round 2, class c's tree
    pg.fill("#row-input", "7")
    pg.press("#row-input", "Enter")
    tree = model.trees_[1 * 3 + 2]
    assert pg.get_attribute("#row-path", "data-path") == ",".join(map(str, tree.path(X[7])))
    pg.click("#tab-about")
    assert "no g/h tables" in pg.text_content("#panel")
    pg.click("#tab-rows")
    head = pg.eval_on_selector_all("#rows-table th", "hs => hs.map(h => h.textContent)")
    assert "g" not in head and "prob" in head
    # round 2 is after the trees of round 2; y is the label, the one-vs-rest 0/1 beside it
    assert head == ["row", "y", "1[y=c]", "leaf", "margin", "prob"]
    probs = model.predict_proba(X[:5], iteration_range=(0, 2))[:, 2]
    rows = _cells(pg, "rows-table")[:5]
    assert [r[5] for r in rows] == [format_number(p, 4) for p in probs]
    assert [r[1] for r in rows] == list(y[:5])
    assert [r[2] for r in rows] == [str(int(v == "c")) for v in y[:5]]


# ------------------------------------------------- one meaning per number, projector mode
def test_rows_and_row_tabs_show_the_same_margin_for_the_same_round(open_page):
    w = tg.walkthrough.troll2(compare=False)
    pg = open_page(tg.explore(w))
    ep = w.model.trace_.epochs()
    pg.fill("#row-input", "3")
    pg.press("#row-input", "Enter")
    for t in (0, 1, 2):
        row_tab = pg.text_content(f"#row-margins tr[data-round='{t}'] td:nth-child(4)")
        pg.click("#tab-rows")
        head = pg.eval_on_selector_all("#rows-table th", "hs => hs.map(h => h.textContent)")
        rows_tab = _cells(pg, "rows-table")[3][head.index("margin")]
        assert rows_tab == row_tab == format_number(ep[f"ep_{t}_pre"][3], 4)
        pg.click("#tab-row")
        if t < 2:
            pg.click("#next")
    # at 1280 × 720 the Rows table shows every column, the probability last, unscrolled
    pg.click("#tab-rows")
    table = pg.locator("#rows-table").bounding_box()
    assert table["x"] + table["width"] <= 1280


def _float_model(n=300):
    rng = np.random.default_rng(7)
    X = (rng.normal(size=(n, 3)) * [30, 0.01, 5] + [100, 0.1, 0]).astype(np.float32)
    y = (X[:, 0] + 3000 * X[:, 1] + rng.normal(size=n) * 20 > 400).astype(int)
    return tg.BoostingClassifier(n_estimators=3, max_depth=3).fit(X, y), X, y


def test_thresholds_read_the_same_in_box_panel_and_path_and_boxes_fit_them(open_page):
    model, X, y = _float_model()
    pg = open_page(tg.explore(model))
    pg.click("#next")
    tree = model.trees_[0]
    pg.click("g.node[data-node='0'] rect")
    box = pg.text_content("g.node[data-node='0'] text.l1")
    panel = pg.text_content("#panel .rule")
    assert panel.startswith("split: " + box)
    assert panel == "split: " + split_rule(tree, 0)  # the one formatter's rule
    # the threshold as stored, to the last digit, on hover
    exact = exact_threshold(tree.threshold[0], tree.rule)
    assert pg.get_attribute("#panel .rule", "title") == f"the float32 {exact} exactly"
    pg.fill("#row-input", "5")
    pg.press("#row-input", "Enter")
    first_step = pg.text_content("#row-path li")
    assert first_step.startswith(box + "?")
    # every text inside its box: no rule is ever cut
    over = pg.eval_on_selector_all(
        "g.node",
        """gs => gs.filter(g => {
             const w = +g.querySelector('rect').getAttribute('width');
             return Array.from(g.querySelectorAll(':scope > text'))
               .some(t => t.getComputedTextLength() > w - 8); }).length""",
    )
    assert over == 0


def test_the_data_in_a_node(open_page):
    model, X, y = _float_model()
    pg = open_page(tg.explore(model))
    pg.click("#next")
    tree = model.trees_[0]
    pg.click("g.node[data-node='1'] rect")
    # the bars add up to the rows that reached the node, each class separately
    titles = pg.eval_on_selector_all(
        "#node-data svg rect title", "ts => ts.map(t => t.textContent)"
    )
    reached = np.array([1 in tree.path(x) for x in X])
    for k in (0, 1):
        shown = sum(int(t.split()[0]) for t in titles if t.endswith(f"class {k}"))
        assert shown == int((reached & (y == k)).sum())
    assert pg.locator("#node-data line.threshold").count() == 1
    r = int(np.flatnonzero(reached)[0])
    pg.fill("#row-input", str(r))
    pg.press("#row-input", "Enter")
    pg.click("#tab-node")
    pg.click("g.node[data-node='1'] rect")
    f = tree.feature[1]
    assert pg.text_content("#node-data .pickvalue") == f"row {r}: {format_threshold(X[r, f])}"
    leaf = int(np.flatnonzero(tree.is_leaf)[0])
    pg.click(f"g.node[data-node='{leaf}'] rect")
    assert "their y" in pg.text_content("#node-data h3")


def test_projector_sizes_and_a_narrow_frame(browser, tmp_path):
    path = tg.explore(tg.walkthrough.troll2(compare=False)).save(tmp_path / "p.html")
    pg = browser.new_page(viewport={"width": 1920, "height": 1080})
    pg.goto(f"file://{path}")
    pg.wait_for_selector("body[data-ready='1']")
    assert pg.eval_on_selector("aside", "a => a.getBoundingClientRect().width") > 600
    size = "e => parseFloat(getComputedStyle(e).fontSize)"
    before = pg.eval_on_selector("#panel", size)
    assert before > 16  # a larger default on a large screen
    pg.click("#font-up")
    assert pg.eval_on_selector("#panel", size) > before
    pg.set_viewport_size({"width": 800, "height": 700})
    tree_bottom = pg.eval_on_selector("#tree-area", "e => e.getBoundingClientRect().bottom")
    assert pg.eval_on_selector("aside", "e => e.getBoundingClientRect().top") >= tree_bottom - 1
    pg.close()


def test_in_a_notebook_frame_the_wheel_scrolls_and_ctrl_wheel_zooms(browser):
    model, X, y = _float_model()
    ex = tg.explore(model)
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    pg.set_content("<p>notebook</p>" + ex._repr_html_() + "<div style='height:2000px'></div>")
    frame = pg.frames[1]
    frame.wait_for_selector("body[data-ready='1']")
    frame.click("#next")
    wheel = """ctrl => { const v = teachgbtExplorer.app.view.s;
        document.getElementById('tree-svg').dispatchEvent(new WheelEvent('wheel',
          {deltaY: -100, ctrlKey: ctrl, bubbles: true, cancelable: true}));
        return teachgbtExplorer.app.view.s / v; }"""
    assert frame.evaluate(wheel, False) == 1  # the notebook scrolls instead
    assert frame.evaluate(wheel, True) > 1
    pg.close()
