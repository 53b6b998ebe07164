"""The explorer's data and page, without a browser (tests/test_explore_browser.py drives one)."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt import cli
from teachgbt.show.explorer import data as explore_data
from teachgbt.show.explorer import page
from teachgbt.show.explorer.data import DIGITS


def _payload(html):
    m = re.search(r'<script id="tg-data" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_troll2_page_is_one_self_contained_file(tmp_path):
    w = tg.walkthrough.troll2(compare=False)
    path = tg.explore(w).save(tmp_path / "troll2.html")
    html = open(path, encoding="utf-8").read()
    # script, style and data inline; nothing fetched: no src/href, no URL but the SVG namespace
    assert "<script src" not in html and "<link" not in html
    urls = set(re.findall(r"https?://[^\s\"')]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert "default-src 'none'" in html  # the page may not ask the network for anything
    d = _payload(html)
    assert d["rounds"] == 2 and d["K"] == 1 and d["classifier"]
    assert d["rows"]["index"] == [str(i) for i in w.data.index]


def test_node_numbers_and_formulas_are_the_model_s():
    model = tg.walkthrough.troll2(compare=False).model
    d = explore_data.build(model)
    for t, tree in enumerate(model.trees_, start=1):
        td = d["trees"][t - 1]
        np.testing.assert_allclose(td["G"], tree.G, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(td["H"], tree.H, rtol=1e-8)
        for node in range(tree.n_nodes):
            assert td["leaf_text"][node] == str(tg.explain.leaf(model, t, node, DIGITS["tree"]))
            if not tree.is_leaf[node]:
                # a GBDT model's loss_chg is not a number XGBoost reported: not said to be
                text = str(tg.explain.split(model, t, node, DIGITS["tree"]))
                assert "XGBoost reports" in text and "XGBoost reports" not in td["split_text"][node]
                assert td["split_text"][node] == text.replace(
                    "XGBoost reports loss_chg", "loss_chg (XGBoost's measure, computed here)"
                )
                table = model.trace_.splits(t, node)
                shown = td["splits"][str(node)]
                assert shown["total"] == len(table)
                gains = [r[7] for r in shown["rows"]]
                assert gains == sorted(gains, reverse=True)
                assert sum(r[8] for r in shown["rows"]) == 1  # the chosen split is marked


def test_the_fast_split_text_of_xgboost_trees_is_tg_explain_s(troll2_model):
    model, X, y = troll2_model("xgboost", reg_lambda=1.0, max_depth=3)
    d = explore_data.build(model)
    for t, tree in enumerate(model.trees_, start=1):
        for node in np.flatnonzero(~tree.is_leaf):
            assert d["trees"][t - 1]["split_text"][node] == str(
                tg.explain.split(model, t, node, DIGITS["tree"])
            )


def test_g_and_h_are_the_trace_s_and_tables_are_limited(troll2_model):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    y = (X["a"] + rng.normal(size=300) > 0).astype(int)
    model = tg.BoostingClassifier(n_estimators=3, max_depth=5).fit(X, y)
    d = explore_data.build(model, table_rows=50, max_split_tables=7, split_rows=4)
    assert d["rows"]["table_rows"] == 50 and d["rows"]["n"] == 300
    for t in (1, 3):
        inst = model.trace_.instances(t)
        np.testing.assert_allclose(d["rows"]["g"][0][t - 1], inst["g"][:50], rtol=1e-6)
        np.testing.assert_allclose(d["rows"]["h"][0][t - 1], inst["h"][:50], rtol=1e-6)
    tables = [tab for td in d["trees"] for tab in td["splits"].values()]
    assert len(tables) <= 7 and all(len(tab["rows"]) <= 5 for tab in tables)
    assert any("first 50 of 300 rows" in s for s in d["limits"])


def test_a_model_from_trees_has_no_trace_and_says_so():
    model, X, y = tg.walkthrough.troll2(compare=False).model, *tg.datasets.troll2_xy()
    bare = tg.BoostingClassifier.from_trees(
        model.trees_, base_score=model.base_score_, classes=model.classes_
    )
    d = explore_data.build(bare, X, y)
    assert not d["has_trace"] and d["rows"]["g"] is None
    assert any("no g/h tables" in n for n in d["notes"])
    assert d["trees"][0]["splits"] == {}
    assert explore_data.build(bare)["rows"] is None


def test_multiclass_trees_know_their_class():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 2))
    y = np.array(["a", "b", "c"])[np.argmax(X @ rng.normal(size=(2, 3)), axis=1)]
    model = tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y)
    d = explore_data.build(model)
    assert d["K"] == 3 and d["classes"] == ["a", "b", "c"]
    assert [(t["round"], t["class"]) for t in d["trees"]][:4] == [(1, 0), (1, 1), (1, 2), (2, 0)]
    inst = model.trace_.instances(2, class_=1)
    np.testing.assert_allclose(d["rows"]["g"][1][1], inst["g"], rtol=1e-6)


def test_explore_refuses_what_it_cannot_show():
    with pytest.raises(TypeError, match="fitted BoostingClassifier"):
        tg.explore("not a model")
    with pytest.raises(tg.NotFittedError):
        tg.explore(tg.BoostingClassifier())
    with pytest.raises(ValueError, match="brings its own data"):
        tg.explore(tg.walkthrough.troll2(compare=False), X=np.zeros((1, 6)))


def test_large_payloads_are_compressed_and_safe_inside_a_script(monkeypatch):
    monkeypatch.setattr(page, "COMPRESS_ABOVE", 10)
    html = page.render({"title": "</script><b>", "notes": ["</script>"]})
    assert _payload(html).keys() == {"gzip"}
    assert "</script><b>" not in html.split("<body>")[1].split("<script>")[0]


def test_inline_view_is_an_iframe_with_the_page():
    ex = tg.explore(tg.walkthrough.troll2(compare=False))
    out = ex._repr_html_()
    assert "<iframe srcdoc=" in out and "&lt;script" in out
    assert "2 trees, 6 rows" in repr(ex)


def test_cli_explore_and_walkthrough_html(tmp_path, capsys):
    model = tg.walkthrough.troll2(compare=False).model
    model.save(tmp_path / "m.json")
    data = tg.datasets.troll2()
    data.to_csv(tmp_path / "troll2.csv", index=False)
    out = tmp_path / "x.html"
    target = "love_troll2"
    assert cli.main(["explore", str(tmp_path / "m.json"), "--data", str(tmp_path / "troll2.csv"),
                     "--target", target, "--output", str(out)]) == 0  # fmt: skip
    d = _payload(out.read_text(encoding="utf-8"))
    assert d["rows"]["n"] == len(data) and not d["has_trace"]
    assert cli.main(["walkthrough", "troll2", "--html", str(tmp_path / "w.html")]) == 0
    assert _payload((tmp_path / "w.html").read_text(encoding="utf-8"))["has_trace"]
    assert "wrote the explorer" in capsys.readouterr().out
