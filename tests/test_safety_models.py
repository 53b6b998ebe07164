"""Crafted and corrupted model files: every one ends in one line naming the file, the
tree, the node and what is wrong, a non-zero exit, in seconds — never a signal, a hang,
a MemoryError or a silently wrong answer (issue 22)."""

from __future__ import annotations

import copy
import json
import time

import numpy as np
import pandas as pd
import pytest
from safety_corpus import CASES, ubjson_bomb  # noqa: E402

import teachgbt as tg
from teachgbt.cli import main
from teachgbt.io import from_dict, to_dict

ROWS = 25_000  # enough rows for the compiled predict kernels (20k and up)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    d = tmp_path_factory.mktemp("crafted")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(ROWS, 3)), columns=["a", "b", "c"])
    y = (X["a"] + X["b"] > 0).astype(int)
    X.assign(y=y).to_csv(d / "big.csv", index=False)
    model = tg.BoostingClassifier(n_estimators=3, max_depth=2).fit(X.head(60), y.head(60))
    model.save(d / "m.json")
    return d, to_dict(model)


def _crafted(base, name):
    d, good = base
    bad = copy.deepcopy(good)
    mutate, words = CASES[name]
    mutate(bad)
    path = d / f"{name.replace(' ', '_').replace('*', '')}.json"
    path.write_text(json.dumps(bad))
    return path, words


def _one_line(code, err, *words):
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("note: ")]
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_crafted_teachgbt_files_are_refused_by_every_command(base, name, capsys, tmp_path):
    path, words = _crafted(base, name)
    d, _ = base
    commands = [
        ["predict", path, d / "big.csv", "--output", tmp_path / "p.csv"],
        ["explain", path, "--tree", 1],
        ["explain", path, "--data", d / "big.csv", "--row", 0],
        ["draw", path, "--tree", 1, "--output", tmp_path / "t.dot"],
        ["explore", path, "--output", tmp_path / "x.html"],
    ]
    for argv in commands:
        start = time.perf_counter()
        code = main([str(a) for a in argv])
        _, err = capsys.readouterr()
        assert time.perf_counter() - start < 10
        _one_line(code, err, str(path), words)
        if "tree" in words or "node" in err:
            assert "tree 1" in err or "best_iteration" in err or "n_features" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_crafted_dicts_are_refused_by_load(base, name, tmp_path):
    path, words = _crafted(base, name)
    with pytest.raises(ValueError, match=None) as e:
        tg.load(path)
    assert words in str(e.value) and str(path) in str(e.value)
    with pytest.raises(ValueError):
        from_dict(json.loads(path.read_text()))


def test_the_valid_model_still_loads_and_predicts_alike(base):
    d, good = base
    X = pd.read_csv(d / "big.csv").drop(columns="y")
    m = tg.load(d / "m.json")
    assert np.array_equal(m.decision_function(X), from_dict(good).decision_function(X))


def test_ubjson_count_beyond_the_file_fails_at_once(tmp_path, capsys):
    path = tmp_path / "bomb.ubj"
    path.write_bytes(ubjson_bomb())
    assert len(path.read_bytes()) == 20
    start = time.perf_counter()
    code = main(["explain", str(path), "--tree", "1"])
    _, err = capsys.readouterr()
    assert time.perf_counter() - start < 2
    _one_line(code, err, str(path), "count")


def test_json_nested_too_deep_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "teachgbt-model", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code = main(["explain", str(path), "--tree", "1"])
    _one_line(code, capsys.readouterr()[1], str(path), "nested")


def test_dev_zero_as_a_model_is_refused_at_once(tmp_path, capsys):
    import os

    fifo = tmp_path / "zeros"
    os.mkfifo(fifo)
    import threading

    def feed():  # an endless stream of zero bytes, as /dev/zero gives
        try:
            with open(fifo, "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
        except (BrokenPipeError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    start = time.perf_counter()
    code = main(["explain", str(fifo), "--tree", "1"])
    _one_line(code, capsys.readouterr()[1], str(fifo))
    assert time.perf_counter() - start < 5


def _xgb_dict(tmp_path):
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    est = xgb.XGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(X, y)
    est.save_model(tmp_path / "x.json")
    return json.loads((tmp_path / "x.json").read_text())


@pytest.mark.parametrize(
    "how, words",
    [
        ("num_class", "number of classes"),
        ("cycle", "cycle"),
        ("feature", "feature"),
        ("child", "child"),
        ("leaf_nan", "leaf value"),
    ],
)
def test_crafted_xgboost_files_are_one_line(tmp_path, capsys, how, words):
    d = _xgb_dict(tmp_path)
    t = d["learner"]["gradient_booster"]["model"]["trees"][0]
    if how == "num_class":
        d["learner"]["learner_model_param"]["num_class"] = "1000000000"
        d["learner"]["objective"]["name"] = "multi:softprob"
    elif how == "cycle":
        c = t["left_children"][0]
        t["left_children"][c], t["right_children"][c], t["split_indices"][c] = 0, 0, 0
    elif how == "feature":
        t["split_indices"][0] = 10**9
    elif how == "child":
        t["right_children"][0] = -5
    else:
        leaf = t["left_children"].index(-1)
        t["split_conditions"][leaf] = float("nan")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    start = time.perf_counter()
    code = main(["explain", str(path), "--tree", "1"])
    _one_line(code, capsys.readouterr()[1], str(path), words)
    assert time.perf_counter() - start < 5


def test_lightgbm_cycle_is_one_line_not_out_of_memory(tmp_path, capsys):
    lgb = pytest.importorskip("lightgbm")
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    est = lgb.LGBMClassifier(n_estimators=2, num_leaves=4, verbose=-1, n_jobs=1).fit(X, y)
    text = est.booster_.model_to_string()
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("left_child="))
    kids = lines[i].split("=")[1].split()
    kids[1] = "0"  # node 1's left child is the root: a cycle
    lines[i] = "left_child=" + " ".join(kids)
    path = tmp_path / "cycle.txt"
    path.write_text("\n".join(lines) + "\n")
    start = time.perf_counter()
    code = main(["explain", str(path), "--tree", "1"])
    _one_line(code, capsys.readouterr()[1], str(path), "tree 0", "node 1")
    assert time.perf_counter() - start < 5
