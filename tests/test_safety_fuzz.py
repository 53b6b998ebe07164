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
