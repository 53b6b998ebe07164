"""Tree diagrams: the label builder, exact DOT text, Graphviz and matplotlib renderers."""

import os
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import teachgbt as tg  # noqa: E402
import teachgbt.show.display  # noqa: E402
import teachgbt.show.draw  # noqa: E402
from teachgbt.core.tree import Tree  # noqa: E402
from teachgbt.show.draw import format_number, format_threshold  # noqa: E402
from teachgbt.show.draw.layout import layout_tree  # noqa: E402
from teachgbt.show.draw.mpl import box_size  # noqa: E402

HAS_DOT = teachgbt.show.draw.graphviz_available()


@pytest.fixture(scope="module")
def troll(troll2_model):
    return troll2_model()


@pytest.fixture(scope="module")
def deep():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "income": rng.normal(50, 15, 400),
            "age": rng.integers(18, 80, 400) * 1.0,
            "tenure_years": rng.exponential(3, 400),
        }
    )
    y = np.sin(X["income"] / 8) + 0.02 * X["age"] + rng.normal(0, 0.3, 400)
    return tg.BoostingRegressor(n_estimators=1, max_depth=6).fit(X, y)


def small_tree():
    """Root `age < 16.5`, missing right; two leaves. Numbers chosen by hand."""
    arrays = {
        "left": [1, -1, -1], "right": [2, -1, -1], "parent": [-1, 0, 0],
        "feature": [1, -1, -1], "threshold": [16.5, np.nan, np.nan],
        "default_left": [False, True, True], "depth": [0, 1, 1], "n": [6, 2, 4],
        "G": [0.5, -1.5, 2.0], "H": [1.5, 0.5, 1.0], "weight": [-0.2, 1.0, -1.0],
        "value": [-0.06, 0.3, -0.3], "gain": [0.7, np.nan, np.nan],
        "loss_chg": [1.4, np.nan, np.nan],
    }  # fmt: skip
    return Tree(arrays, 2, ["popcorn", "age"], learning_rate=0.3)


EXPECTED_DOT = r"""digraph Tree {
graph [ordering="out", fontname="Helvetica", labelloc="b", labeljust="l"] ;
node [shape=box, style="rounded,filled", fillcolor="white", fontname="Helvetica"] ;
edge [fontname="Helvetica"] ;
0 [label="#0  age < 16.5\nn = 6\nG = 0.5, H = 1.5\ngain = 0.7, loss_chg = 1.4"] ;
1 [label="leaf 1, n = 2\nG = -1.5, H = 0.5\nw* = 1, η·w* = 0.3", fillcolor="#dbe9f6"] ;
2 [label="leaf 2, n = 4\nG = 2, H = 1\nw* = -1, η·w* = -0.3", fillcolor="#fde3cc"] ;
0 -> 1 [label="yes"] ;
0 -> 2 [label="no, missing"] ;
label="\lfor the rows reaching a node: n = how many, G = Σg, H = Σh (XGBoost's cover)\lgain = ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] − gamma/2; loss_chg = XGBoost's gain (no ½, no gamma)\lw* = −G/(H+λ), the walkthrough's leaf_output; η·w* = what the leaf adds to the margin (η = 0.3)\l" ;
}
"""  # noqa: E501


def test_exact_dot_text_of_a_small_tree():
    assert small_tree().to_dot() == EXPECTED_DOT


def test_dot_options_choose_fields_precision_and_highlight():
    t = small_tree()
    dot = t.to_dot(fields=["n", "cover"], precision=1, node_ids=False, legend=False, missing=False)
    assert '0 [label="age < 16.5\\nn = 6, H = 1.5"] ;' in dot
    assert (
        "G =" not in dot
        and "gain" not in dot
        and "missing" not in dot
        and "rows reaching" not in dot
    )
    hot = t.to_dot(highlight=[np.nan, 20.0])  # age 20 ≥ 16.5: root → leaf 2
    lines = {ln.split(" ")[0]: ln for ln in hot.splitlines() if ln[:1].isdigit() and "->" not in ln}
    assert "penwidth" in lines["0"] and "penwidth" in lines["2"] and "penwidth" not in lines["1"]
    assert "penwidth" in next(ln for ln in hot.splitlines() if ln.startswith("0 -> 2"))
    with pytest.raises(ValueError, match="unknown field 'bogus'"):
        t.to_dot(fields=["bogus"])
    with pytest.raises(ValueError, match="precision"):
        t.to_dot(precision=-1)


def test_threshold_is_the_shortest_decimal_that_round_trips_float32():
    # no "0.5" for a float32 that is not 0.5
    x = np.nextafter(np.float32(0.5), np.float32(1))
    assert format_threshold(x) == "0.50000006"
    assert format_threshold(np.float32(16.5)) == "16.5"
    rng = np.random.default_rng(1)
    values = np.concatenate(
        [rng.normal(0, 100, 300), rng.normal(0, 1e-6, 50), rng.normal(0, 1e12, 50)]
    ).astype(np.float32)
    for v in values:
        s = format_threshold(v)
        assert np.float32(float(s)) == v, (v, s)
        # no shorter %g representation reads back as v
        digits = next(d for d in range(1, 10) if np.float32(float(f"{v:.{d}g}")) == v)
        mantissa = s.lower().split("e")[0].replace("-", "").replace(".", "").strip("0")
        assert len(mantissa) <= digits, (v, s, digits)


def test_format_number_drops_trailing_zeros_and_negative_zero():
    assert format_number(1.5000, 3) == "1.5"
    assert format_number(-7e-8, 3) == "0"
    assert format_number(2.0, 3) == "2"
    assert format_number(-0.6666666, 3) == "-0.667"


def test_troll2_labels_hold_the_numbers_of_the_data(troll):
    m, X, y = troll
    tree = m.trees_[0]
    # independent: round 1 of seed 004 starts at p0 = 4/6, g = p0 − y, h = p0(1 − p0)
    p0 = 4 / 6
    g = p0 - y.to_numpy(float)
    h = np.full(6, p0 * (1 - p0))
    leaves = tree.apply(X)
    text = teachgbt.show.draw.text(tree, proba=True)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        G, H = g[rows].sum(), h[rows].sum()
        w = -G / (H + 0.0)
        assert f"leaf {leaf}, n = {rows.sum()}" in text
        assert f"G = {format_number(G, 3)}, H = {format_number(H, 3)}" in text
        assert f"w* = {format_number(w, 3)}, η·w* = {format_number(0.8 * w, 3)}" in text
    # σ of one leaf's step is nobody's probability: no leaf shows one
    assert "σ(" not in text
    # seed 004's leaf outputs, unrounded (DESIGN §5): 1.5, −0.75, −3
    assert {format_number(tree.weight[i], 3) for i in tree.leaves} == {"1.5", "-0.75", "-3"}
    assert "favorite_color_red < 0.5" in text  # names from the DataFrame


def test_str_is_a_text_tree_with_the_same_fields(troll):
    m, X, _ = troll
    tree = m.trees_[0]
    s = str(tree)
    assert s.splitlines()[0].startswith("#0  favorite_color_red < 0.5")
    assert "├── yes, missing: " in s and "└── no: leaf 2" in s
    marked = teachgbt.show.draw.text(tree, highlight=X.iloc[3])  # row 3 is the red one
    hot = [ln for ln in marked.splitlines() if "▶" in ln]
    assert len(hot) == 2
    assert hot[0].startswith("▶ #0") and "no: ▶ leaf 2" in hot[1]


def _check_png(path):
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def _check_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")


def _check_pdf(path):
    with open(path, "rb") as f:
        assert f.read(5) == b"%PDF-"


@pytest.mark.skipif(not HAS_DOT, reason="the Graphviz dot binary is not installed")
def test_draw_with_graphviz_saves_every_format(troll, tmp_path):
    m, X, _ = troll
    d = m.trees_[0].draw(highlight=X.iloc[0])
    assert d.backend == "graphviz"
    for ext, check in [(".png", _check_png), (".svg", _check_svg), (".pdf", _check_pdf)]:
        out = d.save(tmp_path / f"t{ext}")
        check(out)
    d.save(tmp_path / "t.dot")
    assert (tmp_path / "t.dot").read_text() == m.trees_[0].to_dot(highlight=X.iloc[0])
    svg = d.svg()
    assert "favorite_color_red &lt; 0.5" in svg  # Graphviz escapes "<"
    bundle = m.trees_[0]._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml")
    assert sorted(os.listdir(tmp_path)) == ["t.dot", "t.pdf", "t.png", "t.svg"]


def test_without_graphviz_on_path_matplotlib_draws(troll, tmp_path, monkeypatch):
    m, _, _ = troll
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert not teachgbt.show.draw.graphviz_available()
    d = m.trees_[0].draw()
    assert d.backend == "matplotlib"
    _check_png(d.save(tmp_path / "t.png"))
    _check_svg(d.save(tmp_path / "t.svg"))
    _check_pdf(d.save(tmp_path / "t.pdf"))
    assert "favorite_color_red" in (tmp_path / "t.svg").read_text()  # text kept as text
    assert "image/svg+xml" in d._repr_mimebundle_()
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        m.trees_[0].draw(engine="graphviz").save(tmp_path / "g.png")
    assert not (tmp_path / "g.png").exists()


def test_bad_extension_and_failed_render_leave_no_file(troll, tmp_path, monkeypatch):
    m, _, _ = troll
    d = m.trees_[0].draw(engine="matplotlib")
    with pytest.raises(ValueError, match=r"\.dot, \.pdf, \.png, \.svg"):
        d.save(tmp_path / "t.jpg")
    (tmp_path / "keep.png").write_bytes(b"old")

    def broken(self, fmt, look):
        raise OSError("disk full")

    monkeypatch.setattr(teachgbt.show.draw.Diagram, "_matplotlib", broken)
    with pytest.raises(OSError, match="disk full"):
        d.save(tmp_path / "keep.png")
    assert (tmp_path / "keep.png").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["keep.png"]
    with pytest.raises(ValueError, match="engine="):
        m.trees_[0].draw(engine="bogus")


def test_plot_draws_the_same_labels_on_the_given_axes(troll):
    m, _, _ = troll
    tree = m.trees_[0]
    fig, ax = plt.subplots(figsize=(4, 3))
    try:
        out = tree.plot(ax=ax)
        assert out is ax
        texts = {t.get_text() for t in ax.texts}
        for i in range(tree.n_nodes):
            lab = teachgbt.show.draw.node_label(tree, i, teachgbt.show.draw.LabelOptions.make())
            assert set(lab.text_lines) <= texts
        assert {"yes, missing", "no"} <= texts
        # squeezed into a small Axes the fonts shrink below their natural 9 pt
        assert max(t.get_fontsize() for t in ax.texts) < 9
    finally:
        plt.close(fig)
    ax2 = tree.plot()
    try:
        assert max(t.get_fontsize() for t in ax2.texts) == pytest.approx(9)
    finally:
        plt.close(ax2.figure)


def test_depth6_layout_never_overlaps(deep):
    tree = deep.trees_[0]
    assert tree.max_depth == 6
    opts = teachgbt.show.draw.LabelOptions.make()
    sizes = np.array(
        [
            box_size(teachgbt.show.draw.node_label(tree, i, opts).text_lines, 9.0)
            for i in range(tree.n_nodes)
        ]
    )
    lay = layout_tree(tree, sizes[:, 0], sizes[:, 1], hgap=10.0, vgap=30.0)
    for d in range(tree.max_depth + 1):
        ids = np.flatnonzero(tree.depth == d)
        ids = ids[np.argsort(lay.x[ids])]
        right = lay.x[ids] + lay.w[ids] / 2
        left = lay.x[ids] + 0.0 - lay.w[ids] / 2
        assert np.all(left[1:] >= right[:-1] + 10.0 - 1e-9), d
        # a parent sits centred over its children
    inner = np.flatnonzero(tree.feature >= 0)
    mid = (lay.x[tree.left[inner]] + lay.x[tree.right[inner]]) / 2
    np.testing.assert_allclose(lay.x[inner], mid)
    assert (lay.x - lay.w / 2).min() == pytest.approx(0.0)
    assert (lay.x + lay.w / 2).max() == pytest.approx(lay.width)


def test_model_view_shows_round0_and_chosen_rounds(troll, tmp_path):
    m, X, _ = troll
    d = teachgbt.show.draw.draw_model(m, rounds=[1, 2], highlight=X.iloc[0], engine="matplotlib")
    src = d.source
    assert "base_score = 0.667 (a probability)" in src
    assert "margin = logit(0.667) = 0.693" in src
    assert "subgraph cluster_1" in src and "subgraph cluster_2" in src
    # a leaf's step is log-odds, not a probability: σ appears only in round 0's link
    assert "objective binary:logistic: p = σ(margin)" in src
    assert [ln for ln in src.split("\n") if "σ(" in ln] == [
        ln for ln in src.split("\n") if "round0" in ln and "objective" in ln
    ]
    _check_png(d.save(tmp_path / "m.png"))
    ax = teachgbt.show.draw.plot_model(m, rounds=2)
    try:
        texts = [t.get_text() for t in ax.texts]
        assert any(t.startswith("round 0") for t in texts)
        assert "round 2: tree 2 (η = 0.8)" in texts
        assert not any(t.startswith("round 1:") for t in texts)
    finally:
        plt.close(ax.figure)
    with pytest.raises(ValueError, match="rounds must be from 1 to 2"):
        teachgbt.show.draw.draw_model(m, rounds=[3])


def test_regressor_model_view_has_no_probabilities():
    X = np.arange(8, dtype=float).reshape(-1, 1)
    r = tg.BoostingRegressor(n_estimators=1, max_depth=1, base_score=0.5).fit(X, X[:, 0])
    src = teachgbt.show.draw.draw_model(r).source
    assert "base_score = margin = 0.5" in src and "σ(" not in src


def test_trace_tables_display(troll):
    m, _, _ = troll
    t = teachgbt.show.display.splits(m, 1, 0)
    text = repr(t)
    chosen_line = next(ln for ln in text.splitlines() if "◀ chosen" in ln)
    assert "favorite_color_red" in chosen_line and text.count("◀ chosen") == 1
    html = t._repr_html_()
    assert "background-color: #fff2a8" in html
    nodes = repr(teachgbt.show.display.nodes(m, 1))
    assert "38" in nodes and "0.6667" in nodes  # threshold exact, statistics rounded
    with pytest.raises(TypeError, match="DataFrame"):
        teachgbt.show.display.style([1, 2])


def test_gbdt_trees_draw_with_their_own_legend(troll, tmp_path):
    _, X, y = troll
    g = tg.BoostingClassifier(algorithm="gbdt", n_estimators=2, learning_rate=0.8, max_depth=2).fit(
        X, y
    )
    tree = g.trees_[0]
    text = teachgbt.show.draw.text(tree)
    # the gain's H is n (h = 1 per row); w*'s denominator is Σp(1−p): each by its own name
    assert "n = how many (the gain's H: h = 1 per row), G = −Σ residual, Σp(1−p)" in text
    assert "H = " not in text and f"Σp(1−p) = {format_number(tree.H[0], 3)}" in text
    # seed 004: leaf outputs Σ residual / Σ p(1 − p) = 1.5, −0.75, −3
    assert {format_number(tree.weight[i], 3) for i in tree.leaves} == {"1.5", "-0.75", "-3"}
    _check_png(teachgbt.show.draw.draw_model(g, engine="matplotlib").save(tmp_path / "g.png"))


# ------------------------------------------------------------------ slides
def _png(data):
    import io

    from PIL import Image

    return Image.open(io.BytesIO(data)).convert("RGBA")


def _luminance(rgb):
    """WCAG relative luminance of an sRGB colour."""
    lin = [(c / 255) / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a, b):
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _rgb(colour):
    return tuple(int(255 * c) for c in matplotlib.colors.to_rgb(colour))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_theme_keeps_text_and_edges_readable_on_its_background(theme):
    from teachgbt.show.draw.theme import THEMES

    c = THEMES[theme]
    bg = _rgb(c["background"])
    for role in ("muted", "edge_text"):  # the legend, the edge labels: WCAG's 4.5 for text
        assert _contrast(_rgb(c[role]), bg) >= 4.5, role
    assert _contrast(_rgb(c["edge"]), bg) >= 3  # lines: WCAG's 3 for graphics
    for fill in ("box", "leaf_pos", "leaf_neg"):
        assert _contrast(_rgb(c["text"]), _rgb(c[fill])) >= 4.5, fill


@pytest.mark.parametrize("engine", ["graphviz", "matplotlib"])
def test_slides_high_dpi_transparent_and_dark(troll, engine):
    if engine == "graphviz" and not HAS_DOT:
        pytest.skip("no Graphviz")
    d = troll[0].trees_[0].draw(engine=engine)
    plain = _png(d.render("png"))
    sharp = _png(d.render("png", dpi=300))
    assert sharp.width >= 2.5 * plain.width and sharp.height >= 2.5 * plain.height
    # the default: an opaque white background
    assert plain.getpixel((0, 0)) == (255, 255, 255, 255)
    # transparent: no background, and the drawing (boxes, edges, legend) is all still there
    clear = _png(d.render("png", transparent=True))
    assert clear.getpixel((0, 0))[3] == 0
    alpha = np.asarray(clear)[:, :, 3]
    assert (alpha == 0).mean() > 0.3 and (alpha == 255).mean() > 0.05
    legend_rows = alpha[int(0.85 * clear.height) :]  # the legend sits under the tree
    assert (legend_rows > 0).any()
    # dark: a dark background with light text on it
    dark = np.asarray(_png(d.render("png", theme="dark")))[:, :, :3]
    lum = dark.mean(axis=2)
    assert lum[0, 0] < 40 and (lum > 200).mean() > 0.005
    legend_lum = lum[int(0.85 * dark.shape[0]) :]
    assert (legend_lum > 150).any()  # the legend is light on dark, not lost
    # the same options through save; a bad one is refused before anything is written
    with pytest.raises(ValueError, match="theme='blue'"):
        d.render("png", theme="blue")
    with pytest.raises(ValueError, match="dpi must be a number from 10 to 1200"):
        d.render("png", dpi=0)


def test_dark_dot_text_says_its_colours_and_the_plain_one_is_unchanged(troll, tmp_path):
    d = troll[0].trees_[0].draw()
    assert d.dot() == d.source and "bgcolor" not in d.source
    dark = d.dot(theme="dark", transparent=True, dpi=300)
    assert 'bgcolor="transparent"' in dark and "dpi=300" in dark and 'fontcolor="#eef2f6"' in dark
    out = d.save(tmp_path / "t.dot", theme="dark")
    assert 'bgcolor="#161b22"' in open(out, encoding="utf-8").read()
    with pytest.raises(ValueError, match="theme="):
        d.save(tmp_path / "u.png", theme="blue")
    assert not (tmp_path / "u.png").exists()


def test_cli_draw_for_slides(troll, tmp_path, capsys):
    from teachgbt import cli

    model = troll[0]
    model.save(tmp_path / "m.json")
    png = tmp_path / "t.png"
    argv = ["draw", str(tmp_path / "m.json"), "--tree", "1", "--output"]
    assert cli.main([*argv, str(png), "--dpi", "300", "--transparent", "--theme", "dark"]) == 0
    img = _png(png.read_bytes())
    assert img.getpixel((0, 0))[3] == 0
    assert img.width >= 2.5 * _png(model.trees_[0].draw().render("png")).width
    capsys.readouterr()
    assert cli.main([*argv, "-", "--theme", "dark"]) == 0
    assert 'bgcolor="#161b22"' in capsys.readouterr().out
    assert cli.main([*argv, str(tmp_path / "u.png"), "--dpi", "5000"]) != 0
    assert "--dpi must be from 10 to 1200" in capsys.readouterr().err
    assert not (tmp_path / "u.png").exists()


def test_a_splits_table_shows_the_best_20_and_says_how_to_see_all():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    m = tg.BoostingClassifier(n_estimators=1, max_depth=1).fit(X, y)
    every = m.trace_.splits(1, 0)
    assert len(every) > 1000
    t = teachgbt.show.display.splits(m, 1, 0)
    assert len(t.frame) <= 21 and t.frame["chosen"].sum() == 1
    assert list(t.frame["gain"][:20]) == sorted(every["gain"], reverse=True)[:20]
    html = t._repr_html_()
    assert html.count("<tr") <= 50 and f"best of {len(every)} candidate splits" in html
    assert "tg.display.splits(model, 1, 0, top=None)" in html and "top=None" in repr(t)
    assert len(teachgbt.show.display.splits(m, 1, 0, top=None).frame) == len(every)
