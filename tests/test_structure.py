"""The package's shape: no import cycles (imports inside functions count), no huge modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "teachgbt"
MAX_LINES = 520

# modules still over MAX_LINES; each is to be split. strict: the mark must go once it is.
KNOWN_LONG = {}


def _modules():
    """{dotted name: (path, is_package)} for every module of the package."""
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        mods[".".join(parts)] = (path, is_pkg)
    return mods


def _import_graph(mods):
    """{module: {imported module: line}}, counting imports anywhere in the file."""
    edges = {}
    for name, (path, is_pkg) in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_pkg else name.split(".")[:-1]
                    here = here[: len(here) - (node.level - 1)]
                    base = ".".join(here + ([node.module] if node.module else []))
                # `from X import a` imports the submodule X.a when there is one, else X
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in mods else base
                    for alias in node.names
                ]
            else:
                continue
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.setdefault(name, {}).setdefault(target, node.lineno)
    return edges


def _find_cycle(edges):
    """One import cycle as a list of modules, or None."""
    state = {}  # module -> "open" while on the DFS path, "done" after

    def visit(module, path):
        state[module] = "open"
        for target in edges.get(module, {}):
            if state.get(target) == "open":
                return path[path.index(target) :] + [target]
            if target not in state:
                found = visit(target, path + [target])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in edges:
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_import_graph_sees_imports_inside_functions():
    edges = _import_graph(_modules())
    assert "teachgbt.draw" in edges["teachgbt.tree"]  # `from . import draw` inside Tree.draw
    assert "teachgbt.engine.grow" in edges["teachgbt.engine.boosting"]


def test_no_import_cycles():
    mods = _modules()
    edges = _import_graph(mods)
    cycle = _find_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(
        f"{a} (line {edges[a][b]})" for a, b in zip(cycle, cycle[1:])
    )


def test_find_cycle_finds_one():
    assert _find_cycle({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b": 1}, "b": {"c": 1}}) is None


@pytest.mark.parametrize(
    "module",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_LONG[name]))
        if name in KNOWN_LONG
        else name
        for name in _modules()
    ],
)
def test_module_is_not_too_long(module):
    path, _ = _modules()[module]
    n_lines = len(path.read_text(encoding="utf-8").splitlines())
    assert n_lines <= MAX_LINES, f"{path.name} has {n_lines} lines; split it"


def test_every_subpackage_is_installed():
    """An editable install finds a subpackage pyproject does not list; a real one does not."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    subpackages = {name for name, (_, is_pkg) in _modules().items() if is_pkg}
    assert subpackages <= listed, f"add to pyproject's packages: {sorted(subpackages - listed)}"


# ------------------------------------------------------------------ layering
# what sits above the engine: the engine imports none of it (DESIGN.md §3)
ABOVE_ENGINE = {
    "estimators",
    "io",
    "explain",
    "plot",
    "check",
    "_check_core",
    "_check_epoch",
    "exercises",
    "explanation",
    "draw",
    "explore",
    "walkthrough",
    "cli",
}


def _imported_names(mods):
    """(importing module, source module, name, line) of every ``from X import name``."""
    out = []
    for name, (path, is_pkg) in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_pkg else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join(here + ([node.module] if node.module else []))
            for alias in node.names:
                out.append((name, base, alias.name, node.lineno))
    return out


def _private_imports(mods):
    """``from X import _name`` across modules, where ``X._name`` is not a module itself."""
    found = []
    for here, source, name, line in _imported_names(mods):
        if not source.startswith("teachgbt") or source == here:
            continue
        private = name.startswith("_") and not name.startswith("__")
        if private and f"{source}.{name}" not in mods:
            found.append(f"{here} (line {line}) imports {name} from {source}")
    return found


def _engine_imports_from_above(edges):
    return [
        f"{module} imports {target} (line {line})"
        for module, targets in edges.items()
        if module.startswith("teachgbt.engine")
        for target, line in targets.items()
        if target.split(".")[1] in ABOVE_ENGINE
    ]


def test_no_module_imports_another_module_s_private_names():
    mods = _modules()
    found = _private_imports(mods)
    assert not found, "share these publicly instead:\n" + "\n".join(found)


def test_the_engine_imports_nothing_above_it():
    found = _engine_imports_from_above(_import_graph(_modules()))
    assert not found, "the engine must not depend on what shows or wraps it:\n" + "\n".join(found)


def test_the_layering_checks_find_what_they_look_for(tmp_path):
    """Both checks on a made-up package: each finds its violation and nothing else."""
    pkg = tmp_path / "teachgbt"
    (pkg / "engine").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "_core.py": "def _helper(): pass\ndef helper(): pass\n",
        "user.py": "from ._core import _helper, helper\nfrom . import _core\n",
        "plot.py": "",
        "engine/__init__.py": "",
        "engine/loop.py": "def f():\n    from .. import plot\n",
    }
    for rel, text in files.items():
        (pkg / rel).write_text(text, encoding="utf-8")
    mods = {}
    for path in sorted(pkg.rglob("*.py")):
        parts = list(path.relative_to(tmp_path).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    assert _private_imports(mods) == ["teachgbt.user (line 1) imports _helper from teachgbt._core"]
    assert _engine_imports_from_above(_import_graph(mods)) == [
        "teachgbt.engine.loop imports teachgbt.plot (line 2)"
    ]
