"""Two editions of a lesson notebook for a class: the student's, without the teacher's
``assert`` lines, and the teacher's solutions, with every shipped answer filled in and its
worked solution revealed."""

from __future__ import annotations

import ast
import copy
import json
import re
from importlib import resources
from pathlib import Path

ANSWER = re.compile(r"^(?P<name>\w+) = None  # ← your answer$", re.MULTILINE)
CHECK = re.compile(r'^sheet\["(?P<id>[0-9.]+)"\]\.check\((?P<name>\w+)\)$', re.MULTILINE)
EDITIONS = ("student", "solutions")


def lesson_notebook(number):
    """The shipped notebook of lesson ``number`` (installed, or in a source checkout)."""
    try:
        folder = resources.files("teachgbt.lessons")
    except ModuleNotFoundError:  # an editable install of a source checkout
        folder = Path(__file__).resolve().parents[3] / "lessons"
    for entry in folder.iterdir():
        if entry.name.startswith(f"{number:02d}_") and entry.name.endswith(".ipynb"):
            return entry.name, json.loads(entry.read_text(encoding="utf-8"))
    raise FileNotFoundError(f"no notebook for lesson {number} in this installation")


def without_asserts(source):
    """``source`` without its ``assert`` statements (the teacher's checks); a block left
    empty keeps a ``pass``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magics: leave it as it is
        return source
    lines = source.split("\n")
    drop, keep_pass = set(), {}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list) or not body:
                continue
            asserts = [s for s in body if isinstance(s, ast.Assert)]
            for s in asserts:
                drop.update(range(s.lineno, s.end_lineno + 1))
            if asserts and len(asserts) == len(body) and not isinstance(node, ast.Module):
                keep_pass[body[0].lineno] = " " * body[0].col_offset + "pass"
    out = [keep_pass.get(i, ln) for i, ln in enumerate(lines, 1) if i not in drop or i in keep_pass]
    return "\n".join(out).strip("\n")


def with_solutions(source):
    """``source`` with each answer line set to the shipped answer and each check revealed."""
    ids = {m["name"]: m["id"] for m in CHECK.finditer(source)}

    def answer(m):
        name = m["name"]
        if name not in ids:
            return m.group(0)
        return f'{name} = sheet["{ids[name]}"].answer  # the shipped answer'

    source = ANSWER.sub(answer, source)
    return CHECK.sub(lambda m: f'sheet["{m["id"]}"].check({m["name"]}, reveal=True)', source)


def edition(notebook, which):
    """A copy of ``notebook`` (its JSON) as the ``which`` edition."""
    if which not in EDITIONS:
        raise ValueError(f"edition must be one of {list(EDITIONS)}; got {which!r}")
    change = without_asserts if which == "student" else with_solutions
    out = copy.deepcopy(notebook)
    cells = []
    for cell in out["cells"]:
        if cell["cell_type"] == "code":
            source = change("".join(cell["source"]))
            if not source.strip():
                continue
            cell["source"] = source.splitlines(keepends=True)
        cells.append(cell)
    out["cells"] = cells
    return out
