"""Property-based fuzz of structurally mutated model files (issue 22): child indices,
parents, depths and features swapped, perturbed, pointed at other nodes or far out of
range, for every subcommand and ``tg.load``. Every run ends in seconds with either one
clear line and exit 2, or exit 0 and the predictions of an independent walk of the
mutated trees — never a crash, a hang or a wrong answer."""

from __future__ import annotations

import copy
import json
import math
import time

import numpy as np
import pandas as pd
import pytest

import teachgbt as tg
from teachgbt.cli import main
from teachgbt.io import to_dict

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

N_EXAMPLES = 40
ROWS = 20_000  # the compiled predict kernels start here
KEYS = ["left", "right", "parent", "feature", "depth"]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(ROWS, 3)), columns=["a", "b", "c"])
    y = (X["a"] - X["c"] > 0).astype(int)
    X.assign(y=y).to_csv(d / "big.csv", index=False)
    model = tg.BoostingClassifier(n_estimators=3, max_depth=3).fit(X.head(80), y.head(80))
    return d, to_dict(model), X.to_numpy(np.float32)


def _walk_margin(d, X):
    """The margin, by walking every tree node by node in plain Python (float32 compares,
    as XGBoost): the answer a mutated but valid file must give."""
    p = float(d["base_score"])
    margin = np.full(len(X), math.log(p / (1 - p)))
    for t in d["trees"]:
        thr = np.float32([np.nan if v is None else v for v in t["threshold"]])
        for r, x in enumerate(X):
            i = 0
            while t["feature"][i] >= 0:
                v = x[t["feature"][i]]
                left = t["default_left"][i] if np.isnan(v) else v < thr[i]
                i = t["left"][i] if left else t["right"][i]
            margin[r] += t["value"][i]
    return margin


def _mutate(d, draw_ops):
    for tree_k, key, node, how, value in draw_ops:
        t = d["trees"][tree_k % len(d["trees"])]
        n = len(t[key])
        i = node % n
        if how == "swap":
            j = value % n
            t[key][i], t[key][j] = t[key][j], t[key][i]
        elif how == "node":  # point at another node of the tree (cycles, self-links)
            t[key][i] = value % n
        elif how == "shift":
            t[key][i] += value
        else:  # far outside any range
            t[key][i] = value * 10**6


OPS = st.lists(
    st.tuples(
        st.integers(0, 2),
        st.sampled_from(KEYS),
        st.integers(0, 30),
        st.sampled_from(["swap", "node", "shift", "far"]),
        st.integers(-3, 3) | st.integers(-(10**4), 10**4),
    ),
    min_size=1,
    max_size=3,
)
COMMANDS = ["predict", "explain-tree", "explain-row", "draw", "explore", "load"]


@settings(max_examples=N_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(ops=OPS, command=st.sampled_from(COMMANDS))
def test_mutated_model_files_are_refused_or_answer_rightly(base, tmp_path, capsys, ops, command):
    d, good, X = base
    bad = copy.deepcopy(good)
    _mutate(bad, ops)
    path = tmp_path / "mut.json"
    path.write_text(json.dumps(bad))
    out = tmp_path / ("p.csv" if command == "predict" else "o.dot")
    if out.exists():
        out.unlink()
    start = time.perf_counter()
    if command == "load":
        try:
            model = tg.load(path)
        except ValueError as e:
            assert str(path) in str(e) and "\n" not in str(e)
        else:
            margin = model.decision_function(X)
            assert np.allclose(margin, _walk_margin(bad, X), atol=1e-5)
        return
    argv = {
        "predict": ["predict", path, d / "big.csv", "--output", out],
        "explain-tree": ["explain", path, "--tree", 1],
        "explain-row": ["explain", path, "--data", d / "big.csv", "--row", 5],
        "draw": ["draw", path, "--tree", 2, "--output", out],
        "explore": ["explore", path, "--output", tmp_path / "x.html"],
    }[command]
    code = main([str(a) for a in argv])
    _, err = capsys.readouterr()
    assert time.perf_counter() - start < 30
    assert "Traceback" not in err and code in (0, 2), err
    if code:
        assert len(err.strip().splitlines()) == 1 and str(path) in err, err
        assert not out.exists()
    elif command == "predict":
        got = pd.read_csv(out)["margin"].to_numpy()
        assert np.allclose(got, _walk_margin(bad, X), atol=1e-5)


# ------------------------------------------------------------------ other libraries' files
# issue 26: every field of an XGBoost JSON model and every line of a LightGBM text, set to
# values of every kind. Each file ends in one line and exit 2, or is read, and then its
# margins equal the library's own (the check runs the library in a child process, where a
# crash is a refusal). The command runs in this process: a crash would end the suite.
N_LIBRARY_EXAMPLES = 25


def _paths(d, prefix=()):
    """Every (container, key) of a JSON value, lists by their first two entries."""
    if isinstance(d, dict):
        for k, v in d.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d[:2]):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


JSON_VALUES = (
    st.integers(-3, 3)
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.none()
    | st.booleans()
    | st.lists(st.integers(-2, 5), max_size=4)
    | st.just({})
)


@pytest.fixture(scope="module")
def library_files(tmp_path_factory):
    xgb = pytest.importorskip("xgboost")
    lgb = pytest.importorskip("lightgbm")
    d = tmp_path_factory.mktemp("fuzz-libraries")
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    xgb.XGBClassifier(n_estimators=2, max_depth=2, n_jobs=1).fit(X, y).save_model(d / "x.json")
    lgb.LGBMClassifier(n_estimators=2, num_leaves=4, verbose=-1, n_jobs=1).fit(
        X, y
    ).booster_.save_model(d / "l.txt")
    return d, json.loads((d / "x.json").read_text()), (d / "l.txt").read_text()


def _one_line_or_agrees(path, capsys):
    start = time.perf_counter()
    code = main(["explain", str(path), "--tree", "1"])
    _, err = capsys.readouterr()
    assert time.perf_counter() - start < 120
    assert code in (0, 2) and "Traceback" not in err and "internal error" not in err, err
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("note: ")]
    if code:
        assert len(lines) == 1 and str(path) in lines[0], err
    else:
        assert "differ" not in err, err  # read as the library reads it


@settings(max_examples=N_LIBRARY_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data())
def test_mutated_xgboost_fields_are_refused_or_read_as_xgboost(library_files, tmp_path, capsys,
                                                               data):  # fmt: skip
    _, model, _ = library_files
    bad = copy.deepcopy(model)
    paths = sorted(_paths(bad), key=repr)
    for _ in range(data.draw(st.integers(1, 2))):
        where = data.draw(st.sampled_from(paths))
        node = bad
        try:
            for key in where[:-1]:
                node = node[key]
            node[where[-1]] = data.draw(JSON_VALUES)
        except (KeyError, IndexError, TypeError):
            pass  # an earlier change replaced the container
    path = tmp_path / "x.json"
    path.write_text(json.dumps(bad))
    _one_line_or_agrees(path, capsys)


LINE_EDITS = st.sampled_from(["value", "drop", "repeat", "swap", "token"])
TOKENS = st.sampled_from(["-1", "0", "7", "1e400", "nan", "x", "", "99999999999", "-2147483649",
                          "1.5", "inf", "Tree=0", "end of trees"])  # fmt: skip


@settings(max_examples=N_LIBRARY_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data())
def test_mutated_lightgbm_lines_are_refused_or_read_as_lightgbm(library_files, tmp_path, capsys,
                                                                data):  # fmt: skip
    _, _, text = library_files
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 2))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(LINE_EDITS)
        key, eq, values = lines[i].partition("=")
        if how == "value" and eq:
            lines[i] = f"{key}={' '.join(data.draw(st.lists(TOKENS, max_size=4)))}"
        elif how == "token" and eq and values.split():
            parts = values.split()
            parts[data.draw(st.integers(0, len(parts) - 1))] = data.draw(TOKENS)
            lines[i] = f"{key}={' '.join(parts)}"
        elif how == "drop":
            del lines[i]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "swap":
            j = data.draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    path = tmp_path / "l.txt"
    path.write_text("\n".join(lines) + "\n")
    _one_line_or_agrees(path, capsys)
