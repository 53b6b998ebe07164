"""Outputs that survive a shared notebook: opened untrusted, a notebook drops SVG and
strips frames and inline <svg> from HTML; what is left must still show something."""

import base64
import re
import sys
import types
import warnings

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.engine import callbacks
from teachgbt.show.explorer import page


@pytest.fixture(scope="module")
def troll():
    return tg.walkthrough.troll2(compare=False)


def test_diagrams_offer_png_beside_svg(troll):
    bundle = troll.model.trees_[0].draw(engine="matplotlib")._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert "<svg" in bundle["image/svg+xml"]
    only_png = (
        troll.model.trees_[0].draw(engine="matplotlib")._repr_mimebundle_(include={"image/png"})
    )
    assert set(only_png) == {"text/plain", "image/png"}


def _untrusted(out):
    """What a sanitizer leaves of HTML: no frames, no inline SVG, no scripts."""
    return re.sub(r"<(iframe|svg|script)\b.*?</\1>", "", out, flags=re.S)


def test_explorer_says_why_its_view_is_missing_when_the_frame_is_stripped(troll):
    out = tg.explore(troll)._repr_html_()
    left = _untrusted(out)
    # it says how to trust the notebook, and what to run instead
    assert "needs a trusted notebook" in left and "Trust Notebook" in left
    assert "jupyter trust" in left and "tg.explore(...) call of this cell" in left
    assert "MB and the notebook stores it" not in out  # a small explorer is not warned about


def test_explorer_over_a_megabyte_says_so_and_offers_save(troll, monkeypatch):
    monkeypatch.setattr(page, "LARGE_INLINE", 1000)
    out = tg.explore(troll)._repr_html_()
    assert re.search(r"This explorer is \d+\.\d MB .* explorer\.save\(", out)


def test_walkthrough_trees_are_images_not_inline_svg(troll):
    out = troll._repr_html_()
    assert "<svg" not in out
    assert len(re.findall(r'<img src="data:image/svg\+xml;base64,', _untrusted(out))) == 2


def _fit(verbose):
    X = np.random.default_rng(0).random((80, 3))
    return tg.BoostingClassifier(n_estimators=7, max_depth=2, verbose=verbose).fit(X, X[:, 0] > 0.5)


def test_progress_bar_leaves_one_summary_line(capsys):
    pytest.importorskip("tqdm")
    clf = _fit(True)
    out, err = capsys.readouterr()
    # on stdout: a notebook shows stderr as an error
    assert "trees in" not in err
    last = out.strip().splitlines()[-1]
    m = re.fullmatch(r"7 trees in \d+\.\d s, train logloss (\S+)", last)
    assert m, last
    p = clf.predict_proba(np.random.default_rng(0).random((80, 3)))[:, 1]
    y = np.random.default_rng(0).random((80, 3))[:, 0] > 0.5
    logloss = -np.mean(np.where(y, np.log(p), np.log(1 - p)))
    assert float(m.group(1)) == pytest.approx(logloss, rel=1e-3)


def test_progress_bar_in_a_kernel_without_ipywidgets_is_text_and_silent(monkeypatch):
    pytest.importorskip("tqdm")
    import importlib.util

    from tqdm.std import tqdm as text_bar

    class ZMQInteractiveShell:  # what ``get_ipython()`` is in a Jupyter kernel
        pass

    fake = types.SimpleNamespace(get_ipython=ZMQInteractiveShell)
    monkeypatch.setitem(sys.modules, "IPython", fake)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ipywidgets" else real(name)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert callbacks._tqdm_class() is text_bar


def _in_a_kernel(monkeypatch):
    """As in a Jupyter kernel without ipywidgets: tqdm's text bar."""
    import importlib.util

    class ZMQInteractiveShell:
        pass

    monkeypatch.setitem(
        sys.modules, "IPython", types.SimpleNamespace(get_ipython=ZMQInteractiveShell)
    )
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ipywidgets" else real(name)
    )


def test_in_a_notebook_a_long_fit_shows_progress_unasked_and_nothing_on_stderr(monkeypatch, capsys):
    pytest.importorskip("tqdm")
    _in_a_kernel(monkeypatch)
    monkeypatch.setattr(callbacks, "SHOW_AFTER", 0.0)  # every fit is "long"
    _fit(None)
    out, err = capsys.readouterr()
    assert err == ""  # a notebook shows stderr as an error
    assert "boosting" in out and re.search(r"7 trees in \d+\.\d s", out)
    # a fit shorter than SHOW_AFTER shows nothing at all
    monkeypatch.setattr(callbacks, "SHOW_AFTER", 3600.0)
    _fit(None)
    assert capsys.readouterr() == ("", "")
    _fit(False)
    assert capsys.readouterr() == ("", "")
