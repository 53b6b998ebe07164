"""Inputs that used to be accepted and should not be, messages that say the real column,
row and fix, and trees of any depth (issue 22)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from safety_corpus import refused, run_cli  # noqa: E402

import teachgbt as tg


@pytest.fixture
def model(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).astype(int)
    path = tmp_path / "m.json"
    tg.BoostingClassifier(n_estimators=2, max_depth=2).fit(X, y).save(path)
    return path


# ------------------------------------------------------------------ CSV
def test_thousands_separators_are_refused_with_the_fix_then_read(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text('price,b,y\n"1,234",2,0\n"2,345",3,1\n"3,456",1,0\n"14,567",5,1\n')
    code, _, err = run_cli(capsys, "train", data, "--target", "y", "--model", tmp_path / "m.json")
    refused(code, err, "'price'", "1,234", "--thousands ,", "--decimal ,")
    assert not (tmp_path / "m.json").exists()
    code, out, err = run_cli(capsys, "train", data, "--target", "y", "--model", tmp_path / "m.json",
                          "--thousands", ",", "--n-estimators", "2")  # fmt: skip
    assert code == 0, err
    assert "one-hot" not in out and "2 features" in out  # price is one number column


def test_decimal_commas_read_with_decimal_and_sep(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("x;y\n0,5;1,5\n1,5;2,5\n2,5;3,5\n3,5;4,5\n")
    model = tmp_path / "m.json"
    argv = ["train", data, "--target", "y", "--model", model, "--n-estimators", "1",
            "--learning-rate", "1", "--max-depth", "1", "--reg-lambda", "0"]  # fmt: skip
    code, _, err = run_cli(capsys, *argv, "--sep", ";", "--decimal", ",")
    assert code == 0, err
    m = tg.load(model)
    # one split between 1.5 and 2.5 (numbers, not categories); the leaves are the means
    assert m.trees_[0].feature_names == ["x"]
    assert np.allclose(m.predict(pd.DataFrame({"x": [0.5, 3.5]})), [2.0, 4.0])
    code, _, err = run_cli(capsys, *argv, "--sep", ";")
    refused(code, err, "'x'", "--decimal ,")


def test_a_column_named_twice_is_refused(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("a,b,y,y\n1,2,0,0\n2,3,1,1\n3,1,0,0\n4,4,1,1\n")
    code, _, err = run_cli(capsys, "train", data, "--target", "y", "--model", tmp_path / "m.json")
    refused(code, err, "'y' twice")


def test_a_huge_cell_is_shown_cut(model, tmp_path, capsys):
    data = tmp_path / "d.csv"
    pd.DataFrame({"a": ["7" * 20 + "x" * 200_000, "1", "2"], "b": [1, 2, 3], "c": [1, 2, 3]}
                 ).to_csv(data, index=False)  # fmt: skip
    code, _, err = run_cli(capsys, "predict", model, data)
    refused(code, err, "column 'a', row 0", "...")
    assert len(err) < 400


def test_an_inf_is_named_by_its_column_and_row_of_the_file(model, tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("a,b,c\n1,2,3\n4,inf,6\n")
    code, _, err = run_cli(capsys, "explain", model, "--data", data, "--row", 1)
    refused(code, err, "column 'b', row 1")


# ------------------------------------------------------------------ NaN models
@pytest.mark.parametrize(
    "params, words",
    [
        (dict(learning_rate=float("inf")), "learning_rate=inf"),
        (dict(learning_rate=1e300), "learning_rate=1e+300"),
        (dict(base_score=float("nan")), "base_score=nan"),
        (dict(base_score=float("inf")), "base_score=inf"),
    ],
)
@pytest.mark.parametrize("Est", [tg.BoostingRegressor, tg.BoostingClassifier])
def test_parameters_that_make_nan_models_are_refused(Est, params, words):
    X = np.arange(20.0).reshape(-1, 1)
    y = (np.arange(20) > 9).astype(int)
    with pytest.raises(ValueError, match="would make the model predict NaN") as e:
        Est(n_estimators=2, **params).fit(X, y)
    assert words in str(e.value)


def test_a_target_beyond_float32_is_refused(tmp_path, capsys):
    X = np.arange(10.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="beyond float32's range") as e:
        tg.BoostingRegressor(n_estimators=2).fit(X, np.arange(10.0) * 1e38)
    assert "row 4" in str(e.value)  # the first of them: 4e38
    data = tmp_path / "d.csv"
    pd.DataFrame({"a": np.arange(10.0), "y": np.arange(10.0) * 1e38}).to_csv(data, index=False)
    code, _, err = run_cli(capsys, "train", data, "--target", "y", "--model", tmp_path / "m.json")
    refused(code, err, "beyond float32")
    code, _, err = run_cli(capsys, "train", data, "--target", "y", "--model", tmp_path / "m.json",
                        "--learning-rate", "inf")  # fmt: skip
    refused(code, err, "learning_rate=inf")


# ------------------------------------------------------------------ shown literally
def test_feature_names_are_shown_literally_not_as_mathtext(tmp_path):
    X = pd.DataFrame({"$\\frac{$": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 3.0, 1.0, 4.0]})
    y = np.array([0, 1, 0, 1])
    m = tg.BoostingClassifier(n_estimators=2, max_depth=1, min_child_weight=0).fit(X, y)
    m.trees_[0].draw(engine="matplotlib").save(tmp_path / "t.png")
    ax = tg.plot.importance(m)
    ax.figure.savefig(tmp_path / "imp.png")  # a mathtext parse error would raise here
    assert (tmp_path / "t.png").stat().st_size > 0
    ax = tg.plot.split_scan(m, 1, 0, "$\\frac{$")
    ax.figure.savefig(tmp_path / "scan.png")


# ------------------------------------------------------------------ deep trees
def _chain(depth):
    """A tree of ``depth`` levels: split k sends x < k to a leaf of value k, else deeper."""
    from teachgbt.core.tree import TreeBuilder

    b = TreeBuilder()
    node = b.add_node(-1, 0, 1, 0.0, 1.0, 0.0, 0.0)
    for k in range(depth):
        leaf = b.add_node(node, k + 1, 1, 0.0, 1.0, float(k), float(k))
        nxt = b.add_node(node, k + 1, 1, 0.0, 1.0, float(k + 1), float(k + 1))
        b.split(node, 0, float(k), True, leaf, nxt, 0.0, 0.0)
        node = nxt
    return b.build(1, ["x"])


def test_trees_of_any_depth_explain_print_and_refuse_pictures_clearly(tmp_path):
    tree = _chain(3000)
    m = tg.BoostingRegressor.from_trees([tree], base_score=0.0)
    x = pd.DataFrame({"x": [2999.5]})
    assert m.predict(x)[0] == 3000.0
    ex = tg.explain.prediction(m, x)
    assert "not computed for a tree 3000 levels deep" in str(ex)
    with pytest.raises(ValueError, match="3000 levels deep; TreeSHAP here follows trees up to"):
        tg.explain.contributions(m, x)
    path = tg.explain.contributions(m, x, method="path").iloc[0]
    assert path.sum() == pytest.approx(3000.0)  # bias + x's share: the margin
    assert len(str(tree).splitlines()) > 6000  # the text diagram: every node
    assert tree.to_dot().count("->") == 6000
    with pytest.raises(ValueError, match="3000 levels deep; pictures are drawn for trees up to"):
        tree.draw(engine="matplotlib").save(tmp_path / "t.png")
    m.save(tmp_path / "deep.json")
    assert tg.load(tmp_path / "deep.json").predict(x)[0] == 3000.0


# ------------------------------------------------------------------ issue 26: API sentences
_rng = np.random.default_rng(26)


@pytest.mark.parametrize(
    "fit, error, words",
    [
        (lambda: tg.BoostingRegressor().fit(pd.DataFrame(index=range(5)), np.ones(5)),
         ValueError, "no feature columns"),
        (lambda: tg.BoostingRegressor(n_estimators=3).fit(
            _rng.normal(size=(1000, 3)), 3e18 * _rng.random(1000)),
         ValueError, "overflow float32"),
        (lambda: tg.BoostingClassifier(n_estimators=2).fit(
            np.ones((20, 2)), np.arange(20) % 2, eval_set=[(np.ones((5, 2)), np.ones(7))]),
         ValueError, "eval_set[0] y has shape (7,)"),
        (lambda: tg.BoostingClassifier(n_estimators=2).fit(
            np.arange(20.0).reshape(-1, 1), np.array([1, "a"] * 10, dtype=object)),
         TypeError, "mix kinds"),
        (lambda: tg.BoostingRegressor(n_estimators=2).fit(
            pd.DataFrame(np.ones((20, 2)), columns=["a", "a"]), np.arange(20.0)),
         ValueError, "'a' twice"),
        (lambda: tg.walkthrough.walkthrough(
            pd.DataFrame({"a": list("xy") * 10, "a_x": np.arange(20.0)}), np.arange(20) % 2),
         ValueError, "'a_x' would be there twice"),
        (lambda: tg.BoostingClassifier.from_trees(
            tg.BoostingClassifier(n_estimators=1).fit(np.arange(20.0).reshape(-1, 1),
                                                       np.arange(20) % 2).trees_,
            base_score=0.5, classes=[0, 0]),
         ValueError, "0 twice"),
    ],
    ids=["no columns", "target 3e18", "eval y length", "mixed labels", "duplicate columns",
         "one-hot name clash", "classes twice"],
)  # fmt: skip
def test_api_mistakes_are_one_clear_sentence(fit, error, words):
    """Each used to end in raw Python words: 'X is a sparse matrix', 'min() arg is an empty
    sequence', a broadcast error, "'<' not supported", an AttributeError, or no error."""
    with pytest.raises(error) as e:
        fit()
    assert words in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_row_longer_than_the_header_is_refused_by_its_number(tmp_path, capsys):
    """pandas made the first field the index and trained on shifted columns (exit 0)."""
    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{i},{i % 7},{i % 2},{i % 5}\n" for i in range(60)))
    code, _, err = run_cli(capsys, "train", data, "--target", "y", "--model", tmp_path / "m.json")
    refused(code, err, str(data), "row 0 (line 2) has 4 fields", "3 columns")
    assert not (tmp_path / "m.json").exists()


def test_na_is_a_category_in_a_text_column_unless_na_values_says(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("c,a,y\n" + "".join(f"{['NA', 'b', 'c'][i % 3]},{i},{i % 2}\n"
                                        for i in range(60)))  # fmt: skip
    model = tmp_path / "m.json"
    code, out, err = run_cli(capsys, "train", data, "--target", "y", "--model", model,
                             "--n-estimators", 2)  # fmt: skip
    assert code == 0 and "c_NA, c_b, c_c" in out, err
    code, _, err = run_cli(capsys, "train", data, "--target", "y", "--model", model,
                           "--na-values", "NA")  # fmt: skip
    refused(code, err, "'c' is missing a value at row 0")
    numeric = tmp_path / "n.csv"  # in a numeric column NA stays a missing value
    numeric.write_text("a,y\n" + "".join(f"{'NA' if i == 3 else i},{i % 2}\n" for i in range(60)))
    code, out, err = run_cli(capsys, "train", numeric, "--target", "y", "--model", model,
                             "--n-estimators", 2)  # fmt: skip
    assert code == 0 and "one-hot" not in out, err
