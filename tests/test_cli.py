"""The teachgbt command, used as a newcomer would: outputs, and one-line errors."""

import numpy as np
import pandas as pd
import pytest

from teachgbt.cli import main


@pytest.fixture
def csv(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    df["label"] = np.where(df["a"] + df["b"] > 0, "yes", "no")
    p = tmp_path / "train.csv"
    df.to_csv(p, index=False)
    return p, df


def test_walkthrough_prints_and_writes(tmp_path, capsys):
    assert main(["walkthrough", "troll2", "--out", str(tmp_path / "wt")]) == 0
    out = capsys.readouterr().out
    assert "log(odds) = log(4 / 2) = 0.693147" in out
    assert "1.893147" in out  # row 0's log-odds after epoch 1 (seed 004 with every digit)
    written = {p.name for p in (tmp_path / "wt").iterdir()}
    assert {"epochs.csv", "tree_1.svg", "tree_2.png", "model.png", "walkthrough.txt"} <= written
    epochs = pd.read_csv(tmp_path / "wt" / "epochs.csv", index_col=0)
    assert epochs.loc[0, "ep_1_pre"] == pytest.approx(np.log(2) + 0.8 * 1.5, rel=1e-5)  # 6 digits


def test_train_predict_draw_roundtrip(csv, tmp_path, capsys):
    path, df = csv
    model = tmp_path / "m.json"
    assert main(["train", str(path), "--target", "label", "--model", str(model),
                 "--n-estimators", "5", "--max-depth", "3"]) == 0  # fmt: skip
    assert "trained a classifier" in capsys.readouterr().out
    preds = tmp_path / "p.csv"
    assert main(["predict", str(model), str(path), "--output", str(preds)]) == 0
    got = pd.read_csv(preds)
    assert list(got.columns) == ["prediction", "prob_yes", "margin"]
    assert (got["prediction"] == df["label"]).mean() > 0.9
    svg = tmp_path / "t.svg"
    assert main(["draw", str(model), "--tree", "2", "--output", str(svg)]) == 0
    assert svg.read_text().lstrip().startswith(("<?xml", "<svg"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "nope.csv", "--target", "y", "--model", "m.json"], "nope.csv: no such file"),
        (["train", "{csv}", "--target", "zzz", "--model", "m.json"], "has no column 'zzz'"),
        (
            ["train", "{csv}", "--target", "label", "--model", "m.json", "--max-depth", "-2"],
            "max_depth must be",
        ),
        (["predict", "{csv}", "{csv}"], "not a model file teachgbt reads"),
    ],
)
def test_errors_are_one_line(csv, tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    path, _ = csv
    argv = [a.replace("{csv}", str(path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "m.json").exists()


def test_draw_bad_tree_and_extension_leave_nothing(csv, tmp_path, capsys):
    path, _ = csv
    model = tmp_path / "m.json"
    main(["train", str(path), "--target", "label", "--model", str(model), "--n-estimators", "2"])
    assert main(["draw", str(model), "--tree", "9", "--output", str(tmp_path / "t.svg")]) == 2
    assert "--tree must be from 1 to 2" in capsys.readouterr().err
    assert main(["draw", str(model), "--tree", "1", "--output", str(tmp_path / "t.gif")]) == 2
    assert ".gif" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "train.csv"]


def test_lessons_copies_and_keeps_existing_work(tmp_path, capsys):
    dest = tmp_path / "my lessons"
    assert main(["lessons", str(dest)]) == 0
    notebooks = sorted(p.name for p in dest.glob("*.ipynb"))
    assert notebooks and notebooks[0].startswith("01_")
    (dest / notebooks[0]).write_text("my edits")
    assert main(["lessons", str(dest)]) == 2
    assert "--force" in capsys.readouterr().err
    assert (dest / notebooks[0]).read_text() == "my edits"


def test_train_one_hot_encodes_text_columns_and_predict_matches(tmp_path, capsys):
    import teachgbt as tg

    data = tmp_path / "troll.csv"
    tg.datasets.troll2().to_csv(data, index=False)
    model = tmp_path / "m.json"
    argv = ["train", str(data), "--target", "love_troll2", "--model", str(model),
            "--algorithm", "gbdt", "--n-estimators", "2", "--learning-rate", "0.8",
            "--max-depth", "2"]  # fmt: skip
    assert main(argv) == 0
    assert "one-hot encoded the text column 'favorite_color'" in capsys.readouterr().out
    # two rows without the colour red still get a favorite_color_red column of zeros
    few = tmp_path / "few.csv"
    tg.datasets.troll2().iloc[:2].to_csv(few, index=False)
    assert main(["predict", str(model), str(few)]) == 0
    got = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    # seed 004 after two epochs: rows 0 and 1 end at log-odds 2.299020 and 1.621995
    assert np.allclose(got["margin"], [2.299020, 1.621995], atol=1e-6)
    odd = tmp_path / "odd.csv"
    tg.datasets.troll2().assign(favorite_color="purple").to_csv(odd, index=False)
    assert main(["predict", str(model), str(odd)]) == 2
    assert "favorite_color_purple" in capsys.readouterr().err


def test_train_on_three_classes_prints_multiclass_log_loss_and_accuracy(tmp_path, capsys):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.normal(size=(150, 3)), columns=["a", "b", "c"])
    df["fruit"] = np.array(["apple", "banana", "cherry"])[
        np.digitize(df["a"] - df["b"], [-0.5, 0.5])
    ]
    path, model = tmp_path / "fruit.csv", tmp_path / "m.json"
    df.to_csv(path, index=False)
    argv = ["train", str(path), "--target", "fruit", "--model", str(model), "--n-estimators", "4",
            "--max-depth", "2", "--eval-fraction", "0.2"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    fitted = __import__("teachgbt").load(model)
    held = np.sort(np.random.default_rng(0).permutation(len(df))[:30])  # the CLI's split
    for line, rows in (
        (next(ln for ln in out.splitlines() if ln.startswith("training:")), None),
        (next(ln for ln in out.splitlines() if ln.startswith("held out:")), held),
    ):
        part = df if rows is None else df.iloc[rows]
        if rows is None:
            part = df.drop(index=held)
        proba = fitted.predict_proba(part[["a", "b", "c"]])
        want_loss = metrics.log_loss(part["fruit"], proba, labels=fitted.classes_)
        want_acc = metrics.accuracy_score(part["fruit"], fitted.predict(part[["a", "b", "c"]]))
        assert f"log loss {want_loss:.4f}, accuracy {want_acc:.4f}" in line
        assert "AUC" not in line
