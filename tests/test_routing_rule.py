"""The routing rule: written once (teachgbt.core.routing), exactly each library's comparison,
saved with the tree, shown as the library writes it, the same in numpy and compiled."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.core import routing
from teachgbt.core.format import format_rule
from teachgbt.core.tree import Tree, TreeBuilder

PACKAGE = Path(tg.__file__).resolve().parent

# where a comparison with a threshold may be written: the rule, its compiled twin and the
# reference (which reads alone, so it keeps its own copy of XGBoost's rule); the
# histogram trainers (one machine, and a Dask worker's shard) say which *bins* go left (a
# bin's cut against t), not rows
RULE_HOMES = {"core/routing.py", "core/_tree_numba.py", "reference.py"}
BIN_TABLE = {"engine/hist.py", "dask/shard.py"}


def test_the_direction_rule_is_written_in_one_place():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in RULE_HOMES | BIN_TABLE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            if not any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops):
                continue
            text = ast.unparse(node)
            if "threshold" in text.lower():
                found.append(f"{rel}:{node.lineno}: {text}")
    assert not found, "threshold comparisons outside teachgbt.core.routing:\n" + "\n".join(found)


def _lightgbm_decision(x, t, missing_type, default_left):
    """LightGBM's NumericalDecision (tree.h), with the dense-row zero band of c_api.cpp,
    written out as LightGBM writes it, for one value."""
    zero = float(np.float32(1e-35))
    if not np.isnan(x) and abs(x) <= zero:
        x = 0.0
    if np.isnan(x) and missing_type != "nan":
        x = 0.0
    if (missing_type == "zero" and -zero <= x <= zero) or (missing_type == "nan" and np.isnan(x)):
        return default_left
    return x <= t


def _one_split(rule, t, default_left=True, **kw):
    b = TreeBuilder()
    root = b.add_node(-1, 0, 0, 0.0, 1.0, 0.0, 0.0)
    left = b.add_node(root, 1, 0, 0.0, 1.0, 1.0, 1.0)
    right = b.add_node(root, 1, 0, 0.0, 1.0, 2.0, 2.0)
    b.split(root, 0, t, default_left, left, right, 0.0, 0.0)
    tree = b.build(1)
    d = tree.to_dict()
    d.update(rule=rule, **kw)
    return Tree.from_dict(json.loads(json.dumps(d)))


def _around(t):
    t = np.float64(t)
    return np.array(
        [
            t,
            np.nextafter(t, -np.inf),
            np.nextafter(t, np.inf),
            t + 1e-9 * abs(t),
            t - 1e-9 * abs(t),
            t + 1e-7 * abs(t),
            float(np.float32(t)),
            float(np.nextafter(np.float32(t), np.float32(np.inf))),
            0.0,
            -0.0,
            1e-36,
            -1e-36,
            1e300,
            -1e300,
            np.nan,
        ]
    )


THRESHOLDS = [0.0, 1e-35, -1e-35, 0.3, -2.5, 16.795000000000002, 1e7 + 0.25, 1.6e9 + 0.5]


@pytest.mark.parametrize("t", THRESHOLDS)
def test_each_rule_is_its_librarys_comparison(t):
    x = _around(t).reshape(-1, 1)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    cases = {
        "xgboost": np.where(np.isnan(x32), True, x32 < np.float32(t))[:, 0],
        "sklearn-gb": np.where(np.isnan(x32), True, x32.astype(np.float64) <= t)[:, 0],
        "sklearn-hist": np.where(np.isnan(x), True, x <= t)[:, 0],
    }
    for rule, want in cases.items():
        tree = _one_split(rule, t)
        got = tree.apply(x) == tree.left[0]
        np.testing.assert_array_equal(got, want, err_msg=rule)
    for missing_type in ("none", "zero", "nan"):
        for default_left in (True, False):
            want = [_lightgbm_decision(v, t, missing_type, default_left) for v in x[:, 0]]
            # what the importer stores: NaN's direction, and 0 as missing for type Zero
            nan_left = (0.0 <= t) if missing_type == "none" else default_left
            zm = (0,) if missing_type == "zero" else ()
            tree = _one_split("lightgbm", t, nan_left, zero_missing=zm)
            got = tree.apply(x) == tree.left[0]
            np.testing.assert_array_equal(got, want, err_msg=f"{missing_type} {default_left}")


def test_missing_value_routes_as_nan():
    tree = _one_split("xgboost", 0.5, default_left=False, missing=-1.0)
    x = np.array([[-1.0], [0.0], [np.nan], [1.0]])
    np.testing.assert_array_equal(
        tree.apply(x), [tree.right[0], tree.left[0]] + [tree.right[0]] * 2
    )


@pytest.mark.parametrize("rule", sorted(routing.RULES))
def test_compiled_kernel_routes_as_numpy(rule, monkeypatch):
    rng = np.random.default_rng(0)
    t = 1e7 + 0.25
    x = t + rng.integers(-3, 4, size=(25_000, 1)) * 0.25
    x[rng.random(len(x)) < 0.05] = np.nan
    tree = _one_split(rule, t, default_left=False)
    compiled = tree.apply(x)
    monkeypatch.setattr(tg.utils.kernels, "KERNEL", "numpy")
    np.testing.assert_array_equal(compiled, tree.apply(x))


def test_rule_and_cover_are_saved_and_old_files_read_as_xgboost():
    tree = _one_split("lightgbm", 2.5, zero_missing=(0,))
    tree.cover[:] = [10.0, 4.0, 6.0]
    back = Tree.from_dict(json.loads(json.dumps(tree.to_dict())))
    assert (back.rule, back.zero_missing) == ("lightgbm", (0,))
    np.testing.assert_array_equal(back.cover, [10.0, 4.0, 6.0])
    old = tree.to_dict()
    for key in ("rule", "cover", "missing", "zero_missing"):
        del old[key]
    old_tree = Tree.from_dict(old)
    assert old_tree.rule == "xgboost"
    np.testing.assert_array_equal(old_tree.cover, old_tree.H)
    with pytest.raises(ValueError, match="rule 'lgbm' is not one of"):
        Tree.from_dict({**tree.to_dict(), "rule": "lgbm"})


def test_thresholds_shown_as_each_library_writes_them():
    assert format_rule("mean radius", 16.795, "lightgbm") == "mean radius ≤ 16.795"
    above = float(np.nextafter(16.795, np.inf))  # the float64 itself, not a float32 near it
    assert format_rule("a", above, "sklearn-hist") == f"a ≤ {above!r}"
    assert format_rule("a", float(np.float32(0.5) + np.float32(6e-8)), "xgboost") == (
        "a < 0.50000006"
    )
    assert format_rule("a", 0.5, "sklearn-gb") == "a ≤ 0.5"
