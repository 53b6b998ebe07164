"""Names read from data are shown, never obeyed (issue 26, item 1): a feature, a class
label or a category named ``<script>alert(1)</script>`` or ``"><img src=x onerror=...>``
fires no dialog in any HTML teachgbt writes, opened in Chromium; a name holding a
terminal escape sequence is printed as ``\\x1b``, never raw."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from safety_corpus import run_cli

import teachgbt as tg
from teachgbt.teach.walkthrough.html import walkthrough_page
from teachgbt.utils import escape_html, printable

XSS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(2)>']
ESC = ["\x1b]0;pwned\x07", "\x1b[2J", "\x9b31m"]


@pytest.fixture(scope="module")
def injected():
    """A classifier whose feature names, class labels and one-hot categories are the
    injections, and a walkthrough of such data."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 2)), columns=XSS)
    X["c"] = np.where(rng.random(40) < 0.5, XSS[0], XSS[1])
    y = np.where(X[XSS[0]] > 0, XSS[0], XSS[1])
    Xn = tg.datasets.one_hot(X)
    clf = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(Xn, y)
    w = tg.walkthrough.walkthrough(
        X.rename(columns={XSS[0]: XSS[0] + "w"}).head(12), y[:12], n_estimators=1
    )
    return clf, Xn, y, w


def _pages(clf, X, y, w):
    d = tg.display
    return {
        "style(splits)": d.style(clf.trace_.splits(1, 0))._repr_html_(),
        "style(nodes)": d.style(clf.trace_.nodes(1))._repr_html_(),
        "style(to_frame)": d.style(clf.trees_[0].to_frame())._repr_html_(),
        "display.splits": d.splits(clf, 1, 0)._repr_html_(),
        "display.instances": d.instances(clf, 1)._repr_html_(),
        "display.epochs": d.epochs(clf)._repr_html_(),
        "explorer page": tg.explore(clf, X, y).html(),
        "explorer inline": tg.explore(clf, X, y)._repr_html_(),
        "walkthrough block": w._repr_html_(),
        "walkthrough page": walkthrough_page(w),
        "walkthrough explorer": tg.explore(w).html(),
        "diagram svg": clf.trees_[0].draw()._repr_mimebundle_()["image/svg+xml"],
    }


def test_no_view_holds_an_injected_tag_unescaped(injected):
    """Without a browser: no page holds the injected markup as markup (the explorer's
    payload is JSON inside a script element, where it is data, with ``<`` escaped)."""
    for name, page in _pages(*injected).items():
        assert "<script>alert" not in page, name
        assert "<img src=x" not in page, name


def test_the_styled_tables_show_the_names_as_text(injected):
    clf = injected[0]
    html = tg.display.style(clf.trace_.splits(1, 0))._repr_html_()
    assert escape_html(XSS[0]) in html
    assert escape_html(XSS[1])[len("&quot;") :] in html  # pandas writes " as &#34;


sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")
def test_no_dialog_fires_in_chromium(injected, tmp_path):
    pages = _pages(*injected)
    # the control: the same injection left raw does fire, so a zero below means something
    pages["control (raw)"] = f"<p>{XSS[0]}</p><p>{XSS[1]}</p>"
    fired = {}
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            for k, (name, text) in enumerate(pages.items()):
                path = tmp_path / f"p{k}.{'svg' if name == 'diagram svg' else 'html'}"
                path.write_text(text, encoding="utf-8")
                page = browser.new_page()
                got = []
                page.on("dialog", lambda dlg, got=got: (got.append(dlg.message), dlg.dismiss()))
                page.goto(f"file://{path}")
                page.wait_for_timeout(500)  # an onerror fires after the image fails
                fired[name] = len(got)
                page.close()
        finally:
            browser.close()
    assert fired.pop("control (raw)") == 2
    assert fired == dict.fromkeys(fired, 0), fired


def test_printable_shows_every_control_character():
    assert printable("a\x1b[2Jb\x07\x9b\x7f") == "a\\x1b[2Jb\\x07\\x9b\\x7f"
    assert printable("row\n\tnext") == "row\n\tnext"
    assert printable("bar\r", keep="\n\r") == "bar\r"
    assert printable("é ü 中") == "é ü 中"  # printable letters stay


@pytest.fixture
def escaped_csv(tmp_path):
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(60, 2)), columns=["x" + ESC[0], "z" + ESC[1]])
    X["k"] = np.where(rng.random(60) < 0.5, "u" + ESC[2], "v")
    X["y"] = np.where(X.iloc[:, 0] > 0, "yes" + ESC[0], "no")
    X.to_csv(tmp_path / "esc.csv", index=False)
    return tmp_path / "esc.csv"


def test_no_command_prints_a_raw_control_character(escaped_csv, tmp_path, capsys):
    model = tmp_path / "m.json"
    commands = [
        ["train", escaped_csv, "--target", "y", "--model", model, "--n-estimators", 2],
        ["explain", model, "--tree", 1],
        ["explain", model, "--data", escaped_csv, "--row", 0],
        ["draw", model, "--tree", 1, "--output", "-"],
        ["predict", model, escaped_csv],
        ["predict", model, escaped_csv, "--output", "-"],
        ["explain", model, "--data", escaped_csv, "--row", 10**6],  # an error message
    ]
    for argv in commands:
        code, out, err = run_cli(capsys, *argv)
        for text in (out, err):
            assert not any(c in text for c in "\x1b\x07\x9b\r"), (argv, text)
        if argv[0] != "explain" or "--row" not in argv or argv[-1] != 10**6:
            assert code == 0, err
    code, out, _ = run_cli(capsys, "explain", model, "--tree", 1)
    assert "x\\x1b]0;pwned\\x07" in out  # shown, so the reader sees what the name holds


def test_a_file_written_keeps_the_names_exactly(escaped_csv, tmp_path, capsys):
    """Only the terminal sees escapes: a prediction file keeps the labels as they are."""
    model = tmp_path / "m.json"
    run_cli(capsys, "train", escaped_csv, "--target", "y", "--model", model, "--n-estimators", 2)
    code, _, err = run_cli(capsys, "predict", model, escaped_csv, "--output", tmp_path / "p.csv")
    assert code == 0, err
    got = pd.read_csv(tmp_path / "p.csv")
    assert set(got["prediction"]) <= {"yes" + ESC[0], "no"}
