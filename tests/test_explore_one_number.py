"""One number under one name reads the same everywhere on one explorer page: every number
that shows in two places — a node's box, the Node tab, its formulas (tg.explain's text), the
Rows, Row and Epochs tabs and round 0 — is read off the page in each and compared, at
1280×720 and 1920×1080, and against the model's own number formatted in Python (a tree's
numbers to 3 decimals, as explain and the diagrams; a row's to 4). The breast-cancer model of
depth 5 is the one whose leaf read −1.744 in its box and −1.7445 in the Row tab."""

import re
import shutil

import pytest

import teachgbt as tg
from teachgbt.core.format import format_number
from teachgbt.show.explorer.data import DIGITS

sync_api = pytest.importorskip("playwright.sync_api")
datasets = pytest.importorskip("sklearn.datasets")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")

SIZES = [(1280, 720), (1920, 1080)]
TREE, ROW = DIGITS["tree"], DIGITS["row"]
NUMBER = r"(-?\d+(?:\.\d+)?(?:e[+-]\d+)?)"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    data = datasets.load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.map({0: "malignant", 1: "benign"})
    model = tg.BoostingClassifier(n_estimators=3, max_depth=5).fit(X, y)
    path = tg.explore(model, X, y).save(tmp_path_factory.mktemp("one") / "cancer.html")
    return model, X, path


def _box(pg, node):
    return pg.eval_on_selector_all(
        f"g.node[data-node='{node}'] > text", "ts => ts.map(t => t.textContent)"
    )


def _stats(pg):
    return dict(
        pg.eval_on_selector_all(
            "#node-stats tr", "rs => rs.map(r => [r.dataset.stat, r.cells[1].textContent])"
        )
    )


def _after(lines, prefix):
    """The number after ``prefix`` in the line that starts with it."""
    line = next(t for t in lines if t.startswith(prefix))
    return line[len(prefix) :].strip().lstrip("+")


def _lines(pg, sel):
    """A formula block of tg.explain's text, one string per line."""
    return pg.eval_on_selector_all(f"{sel} .fl", "ls => ls.map(l => l.textContent.trim())")


def _cell(pg, table, row, col):
    return pg.text_content(f"#{table} tbody tr[data-row='{row}'] td[data-col='{col}']")


@pytest.mark.parametrize("size", SIZES)
def test_every_number_in_two_places_reads_the_same(page, browser, size):
    model, X, path = page
    pg = browser.new_page(viewport={"width": size[0], "height": size[1]})
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(f"file://{path}")
    pg.wait_for_selector("body[data-ready='1']", timeout=15_000)
    trace = model.trace_
    ep = trace.epochs()

    # round 0: the start margin and probability, in its text and in the tables
    start = pg.eval_on_selector_all("#start p.start-line", "ps => ps.map(p => p.textContent)")
    m0 = re.search(r"margin₀ = .* = " + NUMBER + r"$", next(t for t in start if "margin₀" in t))
    p0 = re.search(r"p₀ = σ\(margin₀\) = " + NUMBER, next(t for t in start if "p₀" in t))
    pg.click("#tab-rows")
    want = format_number(ep["ep_0_pre"][0], ROW)
    assert m0.group(1) == _cell(pg, "rows-table", 0, "margin") == want
    want = format_number(ep["ep_0_prob"][0], ROW)
    assert p0.group(1) == _cell(pg, "rows-table", 0, "prob") == want

    for t in range(1, model.model_.n_rounds + 1):
        pg.click("#next")
        if t == 1:
            pg.select_option("#depth-select", "all")
        tree = model.trees_[t - 1]
        for j in range(tree.n_nodes):
            box = _box(pg, j)
            pg.click(f"g.node[data-node='{j}'] rect", force=True)
            stats = _stats(pg)
            assert stats["n"] == str(tree.n[j])
            if tree.is_leaf[j]:
                w, v = format_number(tree.weight[j], TREE), format_number(tree.value[j], TREE)
                assert _after(box, "w*") == stats["w*"] == w
                assert _after(box, "η·w*") == stats["η·w*"] == v
                lines = _lines(pg, "#leaf-formula")
                assert f"= {w}" in lines  # the last step of w* = −G/(H+λ)
                assert f"η·w* = 0.3 × {w if tree.weight[j] >= 0 else f'({w})'} = {v}" in lines
            else:
                gain = format_number(tree.gain[j], TREE)
                assert box[-1] == f"n {tree.n[j]} · gain {gain}" and stats["gain"] == gain
                lines = _lines(pg, "#split-formula")
                assert f"= {gain}" in lines  # the last step of the gain's formula
                G_L, H_L = tree.G[tree.left[j]], tree.H[tree.left[j]]
                left = f"left: G_L = {format_number(G_L, TREE)}, H_L = {format_number(H_L, TREE)};"
                assert any(t.startswith(left) for t in lines)
            assert stats["G"] == format_number(tree.G[j], TREE)
            assert stats["H"] == format_number(tree.H[j], TREE)

        # a row: its leaf in the box, the Row tab (path and table), the Rows and Epochs tabs
        for r in (7, 100):
            pg.fill("#row-input", str(r))
            pg.press("#row-input", "Enter")
            leaf = int(ep[f"ep_{t}_leaf_index"][r])
            box = _box(pg, leaf)
            w, v = _after(box, "w*"), _after(box, "η·w*")
            leaf_line = pg.text_content("#row-leaf")
            assert leaf_line.startswith(f"leaf {leaf}: w* = {w} (leaf_output)")
            assert leaf_line.endswith(f"= {v}")
            cells = pg.eval_on_selector_all(
                f"#row-margins tr[data-round='{t}'] td", "ts => ts.map(t => t.textContent)"
            )
            assert cells[1:3] == [w, v]
            margin, prob = cells[3], cells[4]
            assert margin == format_number(ep[f"ep_{t}_pre"][r], ROW)
            assert prob == format_number(ep[f"ep_{t}_prob"][r], ROW)
            pg.click("#tab-rows")
            assert _cell(pg, "rows-table", r, "margin") == margin
            assert _cell(pg, "rows-table", r, "prob") == prob
            pg.click("#tab-epochs")
            assert _cell(pg, "epochs-table", r, f"ep_{t}_leaf_output") == w
            assert _cell(pg, "epochs-table", r, f"ep_{t}_pre") == margin
            assert _cell(pg, "epochs-table", r, f"ep_{t}_prob") == prob
            residual = float(_cell(pg, "epochs-table", r, f"ep_{t}_residual"))
            assert residual == pytest.approx(ep[f"ep_{t}_residual"][r], abs=0.5e-4)
        pg.click("#clear-row")
    pg.close()
    assert errors == []
