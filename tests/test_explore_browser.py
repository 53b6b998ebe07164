"""The explorer page in a real browser: the system Chromium, driven by Playwright.

Every request that is not file: or data: is aborted, so a page that needed the network
would fail here. Skipped when Chromium or Playwright is missing locally; .ci/run installs
both (Chromium from Debian's packages: no browser is ever downloaded by Playwright).
"""

import shutil

import numpy as np
import pytest

import teachgbt as tg
from teachgbt._format import format_number
from teachgbt.explore import page as explore_page

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


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
    for r, row in enumerate(_cells(pg, "epochs-table")):
        want = [format_number(ep[c][r], 4) if "index" not in c else str(ep[c][r]) for c in cols]
        assert row[3:] == want

    # click a node: its numbers and the formula of tg.explain
    pg.click("g.node[data-node='0'] rect")
    stats = dict(
        pg.eval_on_selector_all(
            "#node-stats tr", "rs => rs.map(r => [r.dataset.stat, r.cells[1].textContent])"
        )
    )
    tree = model.trees_[1]
    assert stats["n"] == str(tree.n[0]) and stats["gain"] == format_number(tree.gain[0], 4)
    # GBDT: the H the gain uses (counts) beside w*'s Σp(1−p), each named
    assert stats["H_gain"] == str(tree.n[0]) and stats["H"] == format_number(tree.H[0], 4)
    assert _text(pg, "#split-formula") == _plain(
        str(tg.explain.split(model, 2, 0)).replace(
            "XGBoost reports loss_chg", "loss_chg (XGBoost's measure, computed here)"
        )
    )
    assert _text(pg, "#leaf-formula") == _plain(tg.explain.leaf(model, 2, 0))
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
    margins = [c[2] for c in _cells(pg, "row-margins")]
    assert margins == [format_number(model.trace_.epochs()[f"ep_{k}_pre"][3], 4) for k in (0, 1, 2)]


def test_formatter_and_round_zero(open_page):
    pg = open_page(tg.explore(tg.walkthrough.troll2(compare=False)))
    xs = [0, -0.0, 1.5, -1.25, 0.125, 0.375, -0.03125, 2.5e-5, 123456.789, 1e-9, -7.0000001]
    for p in (0, 2, 3, 4):
        got = pg.evaluate(f"xs => xs.map(x => teachgbtExplorer.formatNumber(x, {p}))", xs)
        assert got == [format_number(x, p) for x in xs]
    assert pg.text_content("#round-label").startswith("Round 0 of 2")
    assert pg.is_disabled("#prev")
    assert "margin₀" in pg.text_content("#tree-svg") or "F0" in pg.text_content("#tree-svg")


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
