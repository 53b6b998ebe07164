"""``teachgbt train --categorical native``: a CSV's text columns split into sets, the same
trees as the estimator grows on the same data as pandas categories, predictions by name."""

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.cli import build_parser, main
from teachgbt.io import load

COLOURS = ["red", "green", "blue", "yellow", "pink"]


@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(0)
    c = rng.choice(COLOURS, 200)
    x = rng.normal(size=200).round(2)
    df = pd.DataFrame({"colour": c, "x": x,
                       "y": (np.isin(c, ["red", "blue"]) ^ (x > 0.3)).astype(int)})  # fmt: skip
    df.loc[::17, "colour"] = None
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    return path, df


def test_help_names_the_choices_and_the_default():
    train = build_parser()._subparsers._group_actions[0].choices["train"]
    text = train.format_help()
    assert "--categorical {onehot,native}" in text
    assert "onehot (the default)" in " ".join(text.split())


def test_native_trains_the_trees_the_estimator_grows(csv, tmp_path, capsys):
    path, df = csv
    out = tmp_path / "m.json"
    args = ["train", str(path), "--target", "y", "--model", str(out), "--categorical", "native",
            "--tree-method", "hist", "--n-estimators", "4", "--max-depth", "3"]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "'colour' is split into sets of its 5 categories" in printed
    model = load(out)
    X = df.drop(columns="y").assign(colour=pd.Categorical(df["colour"], categories=sorted(COLOURS)))
    same = tg.BoostingClassifier(tree_method="hist", enable_categorical=True, n_estimators=4,
                                 max_depth=3).fit(X, df["y"])  # fmt: skip
    np.testing.assert_array_equal(model.decision_function(X), same.decision_function(X))
    assert any(tree.sets for tree in model.trees_)
    assert model.model_.categories == {0: sorted(COLOURS)}


def test_native_predicts_by_name_and_an_unseen_colour_goes_with_the_rest(csv, tmp_path, capsys):
    path, df = csv
    out = tmp_path / "m.json"
    main(["train", str(path), "--target", "y", "--model", str(out), "--categorical", "native",
          "--tree-method", "hist", "--n-estimators", "3"])  # fmt: skip
    new = df.drop(columns="y").head(6).copy()
    new.loc[0, "colour"] = "violet"
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    preds = tmp_path / "p.csv"
    assert main(["predict", str(out), str(new_path), "--output", str(preds)]) == 0
    got = pd.read_csv(preds)["margin"].to_numpy()
    model = load(out)
    frame = new.assign(colour=pd.Categorical(new["colour"], categories=[*COLOURS, "violet"]))
    np.testing.assert_allclose(got, model.decision_function(frame), rtol=1e-6)
    codes = model.model_.check_X(new)[0]
    assert codes[0, 0] == -1  # violet: a code no set holds
    capsys.readouterr()
    assert main(["explain", str(out), "--data", str(new_path), "--row", "0"]) == 0
    assert "colour = unseen ∈ {" in capsys.readouterr().out


def test_native_needs_the_hist_trainer(csv, tmp_path, capsys):
    path, _ = csv
    code = main(["train", str(path), "--target", "y", "--model", str(tmp_path / "m.json"),
                 "--categorical", "native"])  # fmt: skip
    assert code != 0
    err = capsys.readouterr().err
    assert "--tree-method hist" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.json").exists()


def test_onehot_stays_the_default(csv, tmp_path, capsys):
    _, df = csv
    path = tmp_path / "full.csv"  # one-hot columns need every row's category
    df.dropna().to_csv(path, index=False)
    out = tmp_path / "m.json"
    assert main(["train", str(path), "--target", "y", "--model", str(out),
                 "--n-estimators", "2"]) == 0  # fmt: skip
    assert "one-hot encoded the text column 'colour'" in capsys.readouterr().out
    assert not any(tree.sets for tree in load(out).trees_)
