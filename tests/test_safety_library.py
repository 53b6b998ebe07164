"""Crafted files never reach a library's C++ code in teachgbt's process (issue 26, item 2).

Every crafted file is made here, from a model the library itself just wrote, and run
through the command line in a process of its own: it must end in one line naming the
file (and the tree and node), exit 2, never a signal, a hang or more than a few hundred
MB. The files used to crash XGBoost's reader (segfault, heap corruption) or to be read
otherwise than the library reads them. What the validator lets through, the library
reads in a child process (``teachgbt.io._library``): a crash there is a refusal too.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import numpy as np
import pandas as pd
import pytest
from safety_corpus import run_process

import teachgbt as tg
from teachgbt.core import ModelFileError

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

PEAK_MB = 500  # of the command and the library's child process


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("library")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "c"])
    y = (X["a"] + X["b"] > 0).astype(int)
    X.assign(y=y).to_csv(d / "d.csv", index=False)
    est = xgb.XGBClassifier(n_estimators=3, max_depth=3, n_jobs=1).fit(X, y)
    est.save_model(d / "x.json")
    est.save_model(d / "x.ubj")
    y3 = np.digitize(X["a"], [-0.5, 0.5])
    xgb.XGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(X, y3).save_model(d / "x3.json")
    lgbm = lgb.LGBMClassifier(n_estimators=3, num_leaves=4, verbose=-1, n_jobs=1).fit(X, y)
    lgbm.booster_.save_model(d / "l.txt")
    return d


def _tg(*argv, **kw):
    return run_process(["python", "-m", "teachgbt", *argv], **kw)


def _refused(result, path, *words):
    code, _, err, peak = result
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("note: ")]
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in (str(path), *words):
        assert w in lines[0], lines[0]
    assert peak < PEAK_MB, peak


def _model(d):
    return d["learner"]["gradient_booster"]["model"]


def _tree0(d):
    return _model(d)["trees"][0]


def _swap_children(d):
    t = _tree0(d)
    t["left_children"][0], t["right_children"][0] = t["right_children"][0], t["left_children"][0]


# name: (mutation of the XGBoost JSON, words the one line must hold)
XGB_CASES = {
    "tree_info 10**30": (lambda d: _model(d)["tree_info"].__setitem__(0, 10**30), "tree_info"),
    "tree_info -1": (lambda d: _model(d)["tree_info"].__setitem__(0, -1), "tree_info"),
    "tree_info inf": (lambda d: _model(d)["tree_info"].__setitem__(0, float("inf")), "tree_info"),
    "tree_info text": (lambda d: _model(d).__setitem__("tree_info", "abc"), "tree_info"),
    "iteration_indptr -1": (
        lambda d: _model(d)["iteration_indptr"].__setitem__(0, -1),
        "iteration_indptr",
    ),
    "parents -1": (lambda d: _tree0(d)["parents"].__setitem__(1, -1), "tree 0, node 1"),
    "parents huge": (lambda d: _tree0(d)["parents"].__setitem__(2, 10**9), "tree 0, node 2"),
    "categories_nodes on a numeric model": (
        lambda d: _tree0(d).__setitem__("categories_nodes", [1]),
        "categories_nodes",
    ),
    "default_left scalar": (lambda d: _tree0(d).__setitem__("default_left", 0), "default_left"),
    "loss_changes object": (lambda d: _tree0(d).__setitem__("loss_changes", {}), "loss_changes"),
    "num_parallel_tree inf": (
        lambda d: _model(d)["gbtree_model_param"].__setitem__("num_parallel_tree", "inf"),
        "num_parallel_tree",
    ),
    "num_target inf": (
        lambda d: d["learner"]["learner_model_param"].__setitem__("num_target", "inf"),
        "num_target",
    ),
    "size_leaf_vector inf": (
        lambda d: _tree0(d)["tree_param"].__setitem__("size_leaf_vector", "inf"),
        "size_leaf_vector",
    ),
    "num_trees text": (
        lambda d: _model(d)["gbtree_model_param"].__setitem__("num_trees", "x"),
        "num_trees",
    ),
    "num_nodes -1": (lambda d: _tree0(d)["tree_param"].__setitem__("num_nodes", "-1"), "num_nodes"),
    "no tree_param": (lambda d: _tree0(d).pop("tree_param"), "tree_param"),
    "right child not left + 1": (_swap_children, "tree 0, node 0"),
    "tree id out of order": (lambda d: _tree0(d).__setitem__("id", 2), "tree 0"),
    "num_deleted wrong": (
        lambda d: _tree0(d)["tree_param"].__setitem__("num_deleted", "2"),
        "num_deleted",
    ),
    "split_conditions null": (
        lambda d: _tree0(d)["split_conditions"].__setitem__(0, None),
        "split_conditions",
    ),
    "feature_types unknown": (
        lambda d: d["learner"].__setitem__("feature_types", ["float", "float", "x"]),
        "feature_types",
    ),
    "base_score 2 for a logistic": (
        lambda d: d["learner"]["learner_model_param"].__setitem__("base_score", "[2E0]"),
        "base_score",
    ),
}


@pytest.mark.parametrize("name", sorted(XGB_CASES))
def test_crafted_xgboost_files_are_refused_in_one_line(files, tmp_path, name):
    d = json.loads((files / "x.json").read_text())
    mutate, words = XGB_CASES[name]
    mutate(d)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    _refused(_tg("explain", path, "--tree", 1, cwd=tmp_path), path, words)


def test_a_multiclass_base_score_beyond_float32_is_refused(files, tmp_path):
    d = json.loads((files / "x3.json").read_text())
    d["learner"]["learner_model_param"]["base_score"] = "[1E308,0,0]"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    _refused(_tg("predict", path, files / "d.csv", cwd=tmp_path), path, "base_score", "float32")


def test_random_byte_flips_in_ubj_files_never_crash(files, tmp_path):
    """Each flipped file is refused in one line, or read and checked against XGBoost's own
    margins in its child process; one process reads them all, so a crash would end it."""
    data = (files / "x.ubj").read_bytes()
    rng = np.random.default_rng(26)
    paths = []
    for k in range(12):
        b = bytearray(data)
        b[int(rng.integers(len(b)))] = int(rng.integers(256))
        paths.append(tmp_path / f"flip{k}.ubj")
        paths[-1].write_bytes(bytes(b))
    script = (
        "import sys\nfrom teachgbt.cli import main\n"
        "for p in sys.argv[1:]:\n    print(p, main(['explain', p, '--tree', '1']), flush=True)\n"
    )
    code, out, err, peak = run_process(["python", "-c", script, *paths], cwd=tmp_path, timeout=600)
    assert code == 0, err[-2000:]
    codes = dict(line.split() for line in out.splitlines() if line.startswith(str(tmp_path)))
    assert len(codes) == len(paths) and set(codes.values()) <= {"0", "2"}, out[-2000:]
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    assert peak < PEAK_MB


def test_what_crashes_the_library_is_contained_in_its_child_process(files):
    """The child process is the last line: a file that makes XGBoost segfault (tree_info
    out of range), read there directly without teachgbt's checks, is a refusal."""
    from scipy.sparse import csr_matrix

    from teachgbt.io._library import library_margins

    # zeros stored as values (a CSR matrix leaves out what it does not hold: missing)
    rows = csr_matrix((np.zeros(6), np.tile([0, 1, 2], 2), [0, 3, 6]), shape=(2, 3))
    d = json.loads((files / "x.json").read_text())
    np.testing.assert_allclose(
        library_margins("xgboost", json.dumps(d).encode(), rows),
        xgb.Booster(model_file=str(files / "x.json")).predict(
            xgb.DMatrix(np.zeros((2, 3)), feature_names=["a", "b", "c"]), output_margin=True
        ),
        rtol=1e-6,
    )
    _model(d)["tree_info"][0] = 10**30
    with pytest.raises(ModelFileError, match="XGBoost could not read this file.*SIGSEGV"):
        library_margins("xgboost", json.dumps(d).encode(), rows)
    text = (files / "l.txt").read_text()
    bad = text.replace("tree_sizes=", "tree_sizes=99999999 ", 1)
    bad = bad.replace(bad.split("tree_sizes=")[1].split("\n")[0], "99999999 1 1", 1)
    with pytest.raises(ModelFileError, match="LightGBM could not read this file"):
        library_margins("lightgbm", bad.encode(), rows)


def test_valid_categorical_files_pass_the_validator(tmp_path):
    """The validator checks categories (shapes, segments, codes) without refusing a valid
    categorical model: it is read, and its margins are XGBoost's and LightGBM's own."""
    from teachgbt.io._ubjson import loads
    from teachgbt.io._validate import check_xgboost

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=400),
                      "c": pd.Categorical(rng.choice(list("uvwxyz"), 400))})  # fmt: skip
    y = ((X.a > 0) ^ X.c.isin(["u", "w"])).astype(int)
    est = xgb.XGBClassifier(n_estimators=2, max_depth=3, enable_categorical=True,
                            max_cat_to_onehot=1, n_jobs=1).fit(X, y)  # fmt: skip
    lgbm = lgb.LGBMClassifier(n_estimators=2, num_leaves=4, verbose=-1, min_data_per_group=5,
                              n_jobs=1).fit(X, y)  # fmt: skip
    lgbm.booster_.save_model(tmp_path / "c.txt")
    for name in ("c.json", "c.ubj", "c.txt"):
        if name != "c.txt":
            est.save_model(tmp_path / name)
            data = (tmp_path / name).read_bytes()
            d = loads(data) if name.endswith("ubj") else json.loads(data)
            assert any(1 in list(t["split_type"]) for t in _model(d)["trees"])
            check_xgboost(d["learner"])  # no refusal
        code, _, err, _ = _tg("explain", tmp_path / name, "--tree", 1, cwd=tmp_path)
        assert code == 0 and "differ" not in err and "could not" not in err, err


# ------------------------------------------------------------------ read once
def _feed_fifo(fifo, data):
    def feed():
        with open(fifo, "wb") as f:
            f.write(data)

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("source", ["x.json", "x.ubj", "l.txt"])
def test_a_model_is_read_once_from_a_fifo_a_pipe_or_standard_input(files, tmp_path, source):
    """A FIFO or a pipe can be read once: the model was opened twice (a hang, or
    "/dev/fd/63 is empty")."""
    expected = _tg("predict", files / source, files / "d.csv", cwd=tmp_path)
    assert expected[0] == 0, expected[2]
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)
    feeder = _feed_fifo(fifo, (files / source).read_bytes())
    got = _tg("predict", fifo, files / "d.csv", cwd=tmp_path, timeout=120)
    feeder.join(5)
    assert got[0] == 0 and got[1] == expected[1], got[2]
    command = (f"exec '{sys.executable}' -m teachgbt predict <(cat '{files / source}') "
               f"'{files / 'd.csv'}'")  # fmt: skip
    piped = run_process(["bash", "-c", command], cwd=tmp_path)
    assert piped[0] == 0 and piped[1] == expected[1], piped[2]
    stdin = _tg("predict", "-", files / "d.csv", cwd=tmp_path, stdin=(files / source).read_bytes())
    assert stdin[0] == 0 and stdin[1] == expected[1], stdin[2]


def test_a_csv_from_standard_input(files, tmp_path):
    expected = _tg("predict", files / "x.json", files / "d.csv", cwd=tmp_path)
    got = _tg("predict", files / "x.json", "-", cwd=tmp_path,
              stdin=(files / "d.csv").read_bytes())  # fmt: skip
    assert got[0] == 0 and got[1] == expected[1], got[2]


# ------------------------------------------------------------------ bounded work
def test_a_million_declared_features_need_no_million_columns(files, tmp_path):
    """num_feature = 1048576 in a small file: the check's probe rows were 4096 x 1M (34
    GB); only the features the trees split on get columns now."""
    d = json.loads((files / "x.json").read_text())
    d["learner"]["learner_model_param"]["num_feature"] = "1048576"
    d["learner"]["feature_names"] = d["learner"]["feature_types"] = []
    for t in _model(d)["trees"]:
        t["tree_param"]["num_feature"] = "1048576"
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(d))
    code, out, err, peak = _tg("explain", path, "--tree", 1, cwd=tmp_path)
    assert code == 0 and "differ" not in err, err
    assert peak < PEAK_MB, peak


def _heap_tree(n_leaves):
    """A LightGBM tree of ``n_leaves`` leaves as a heap: split i has children 2i+1 and
    2i+2, leaves past the last split; each split on feature 0 at its own threshold."""
    n_int = n_leaves - 1
    kids = np.arange(1, 2 * n_int + 1).reshape(-1, 2)
    kids = np.where(kids >= n_int, ~(kids - n_int), kids)

    def line(key, a):
        return f"{key}=" + " ".join(map(str, a))

    return "\n".join([
        "Tree=0", f"num_leaves={n_leaves}", "num_cat=0",
        line("split_feature", np.zeros(n_int, int)), line("split_gain", np.ones(n_int)),
        line("threshold", np.round(np.linspace(-3, 3, n_int), 6)),
        line("decision_type", np.full(n_int, 2)),
        line("left_child", kids[:, 0]), line("right_child", kids[:, 1]),
        line("leaf_value", np.round(np.linspace(-1, 1, n_leaves), 6)),
        line("leaf_weight", np.ones(n_leaves)), line("leaf_count", np.ones(n_leaves, int)),
        line("internal_value", np.zeros(n_int)), line("internal_weight", np.full(n_int, 2.0)),
        line("internal_count", np.full(n_int, 2)), "is_linear=0", "shrinkage=1", "", "",
    ])  # fmt: skip


def test_a_200k_leaf_lightgbm_tree_is_read_and_predicts_as_lightgbm(files, tmp_path):
    text = (files / "l.txt").read_text()
    head, _, rest = text.partition("Tree=0")
    head = "\n".join(ln for ln in head.splitlines() if not ln.startswith("tree_sizes=")) + "\n\n"
    path = tmp_path / "wide.txt"
    path.write_text(head + _heap_tree(200_000) + "end of trees" + rest.partition("end of trees")[2])
    rows = tmp_path / "rows.csv"
    pd.DataFrame({"a": [-2.5, 0.1, 2.9], "b": 0.0, "c": 0.0}).to_csv(rows, index=False)
    code, out, err, peak = _tg("predict", path, rows, cwd=tmp_path, timeout=300)
    assert code == 0, err
    theirs = lgb.Booster(model_file=str(path)).predict(
        np.array([[-2.5, 0, 0], [0.1, 0, 0], [2.9, 0, 0]]), raw_score=True
    )
    from io import StringIO

    np.testing.assert_allclose(pd.read_csv(StringIO(out))["margin"], theirs, rtol=1e-6)
    assert peak < PEAK_MB, peak


# ------------------------------------------------------------------ LightGBM text
def _lgb_case(text, how):
    if how == "concatenated":
        return text + text
    if how == "tree after end":
        block = text[text.index("Tree=0") : text.index("Tree=1")]
        return text.replace("end of trees", "end of trees\n\n" + block.replace("Tree=0", "Tree=3"))
    if how == "num_class -1":
        return text.replace("num_class=1", "num_class=-1", 1)
    if how == "trees out of order":
        return text.replace("Tree=1", "Tree=2", 1)
    if how == "tree_sizes wrong":
        sizes = text.split("tree_sizes=")[1].split("\n")[0]
        return text.replace(sizes, " ".join(str(int(v) + 1) for v in sizes.split()), 1)
    if how == "child out of range":
        line = next(ln for ln in text.splitlines() if ln.startswith("left_child="))
        n = len(line.partition("=")[2].split())
        return text.replace(line, "left_child=" + " ".join(["7"] * n), 1)
    if how == "missing type 3":
        line = next(ln for ln in text.splitlines() if ln.startswith("decision_type="))
        n = len(line.partition("=")[2].split())
        return text.replace(line, "decision_type=" + " ".join(["12"] * n), 1)
    raise AssertionError(how)


@pytest.mark.parametrize(
    "how, words",
    [
        ("concatenated", "second model"),
        ("tree after end", "Tree=3"),
        ("num_class -1", "num_class=-1"),
        ("trees out of order", "Tree=2"),
        ("tree_sizes wrong", "tree_sizes"),
        ("child out of range", "tree 0, split 0"),
        ("missing type 3", "decision_type"),
    ],
)
def test_crafted_lightgbm_texts_are_refused(files, tmp_path, how, words):
    """LightGBM reads only the first model of a file (margins were twice LightGBM's) and
    jumps by tree_sizes; children, decision types and counts are checked before use."""
    path = tmp_path / "bad.txt"
    path.write_text(_lgb_case((files / "l.txt").read_text(), how))
    _refused(_tg("predict", path, files / "d.csv", cwd=tmp_path), path, words)


def test_the_library_check_reads_the_file_itself(files, tmp_path):
    """The margins LightGBM's own reader gives for the file are what teachgbt is checked
    against (not a text rebuilt from teachgbt's parse): a file LightGBM reads as teachgbt
    does passes, with no note of a difference."""
    code, _, err, _ = _tg("explain", files / "l.txt", "--tree", 1, cwd=tmp_path)
    assert code == 0 and "differ" not in err, err
    m = tg.from_lightgbm(files / "l.txt")
    X = pd.read_csv(files / "d.csv").drop(columns="y")
    theirs = lgb.Booster(model_file=str(files / "l.txt")).predict(X.to_numpy(), raw_score=True)
    np.testing.assert_allclose(m.decision_function(X), theirs, rtol=1e-6)


def test_a_library_that_cannot_be_imported_leaves_the_check_out(files, tmp_path):
    """A broken XGBoost install is not the file's fault: the file is read with teachgbt's
    checks alone, and a note says the comparison could not be made."""
    (tmp_path / "xgboost.py").write_text("raise ImportError('broken here')\n")
    code, out, err, _ = _tg("explain", files / "x.json", "--tree", 1, cwd=tmp_path,
                            env={"PYTHONPATH": str(tmp_path)})  # fmt: skip
    assert code == 0, err
    assert "could not compare" in err and "broken here" in err, err
