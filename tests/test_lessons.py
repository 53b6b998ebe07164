"""The lessons: every exercise's solution is accepted, and the notebooks match their sources.

nbmake runs every shipped notebook top to bottom with its answers left ``None`` (the checks
then only state the questions). This file proves the other half: with the solutions filled
in, every check accepts.

How it works. An exercise in ``lessons/NN_name.py`` is a line

    my_gain = None  # ← your answer

followed, somewhere below, by a ``tg.check.…(my_gain, …)`` call. Its solution lives in
``tests/lesson_solutions/NN_name.json``, ``{"my_gain": 17.25, ...}``: one number per answer
variable, worked by hand from the formulas (never copied from the checker's output). The
test replaces each answer line with the solution, runs the lesson as a script in a
subprocess with ``TEACHGBT_CHECK_STRICT=1`` (``tg.check`` then raises on a missing or wrong
answer and reports each accepted one on stderr) and ``MPLBACKEND=Agg``, and fails unless it
exits cleanly with at least one accepted check per answer. A lesson with exercises and no
solutions file fails, and so does a solutions file naming a variable the lesson lacks.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.py"))
SOLUTIONS = Path(__file__).resolve().parent / "lesson_solutions"
ANSWER = re.compile(r"^(?P<name>[A-Za-z_]\w*) = None  # ← your answer\s*$", re.MULTILINE)
STRICT_ENV = "TEACHGBT_CHECK_STRICT"  # teachgbt.teach.check.STRICT_ENV
ACCEPTED = "teachgbt.teach.check: accepted "
RUN_BUDGET_S = 300


def _ids(paths):
    return [p.stem for p in paths]


@pytest.mark.parametrize("lesson", LESSONS, ids=_ids(LESSONS))
def test_every_exercise_is_solved_by_its_solution(lesson, tmp_path):
    source = lesson.read_text(encoding="utf-8")
    answers = ANSWER.findall(source)
    if not answers:
        pytest.skip("no exercises")
    path = SOLUTIONS / f"{lesson.stem}.json"
    assert path.exists(), f"{lesson.name} has exercises {answers} but no {path.name}"
    solutions = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(solutions) == sorted(set(answers)), (
        f"{path.name} must give exactly the answers {sorted(set(answers))}"
    )
    solved = ANSWER.sub(
        lambda m: f"{m['name']} = {solutions[m['name']]!r}  # ← solution from {path.name}",
        source,
    )
    script = tmp_path / lesson.name
    script.write_text(solved, encoding="utf-8")
    env = {**os.environ, STRICT_ENV: "1", "MPLBACKEND": "Agg"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=lesson.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_BUDGET_S,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    accepted = run.stderr.count(ACCEPTED)
    assert accepted >= len(answers), f"only {accepted} of {len(answers)} answers were checked"


def test_the_strict_switch_is_the_one_the_checker_reads():
    import teachgbt.teach.check

    assert teachgbt.teach.check.STRICT_ENV == STRICT_ENV


@pytest.mark.parametrize("lesson", LESSONS, ids=_ids(LESSONS))
def test_notebook_matches_its_source_and_has_no_outputs(lesson):
    jupytext = pytest.importorskip("jupytext")
    nb_path = lesson.with_suffix(".ipynb")
    assert nb_path.exists(), f"run: jupytext --to ipynb --update {lesson.name}"
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    src = jupytext.read(lesson)
    ours = [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]
    theirs = [(c.cell_type, c.source) for c in src.cells]
    assert ours == theirs, f"{nb_path.name} is stale: jupytext --to ipynb --update {lesson.name}"
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


@pytest.mark.parametrize("lesson", LESSONS, ids=_ids(LESSONS))
def test_lessons_use_only_the_public_package(lesson):
    source = lesson.read_text(encoding="utf-8")
    private = re.findall(r"(?:teachgbt|tg)(?:\.\w+)*?\.(?:_\w+|engine)\b", source)
    assert not private, f"{lesson.name} reaches into private modules: {sorted(set(private))}"


def test_the_conventions_card_is_the_lessons_first_page():
    card = ROOT / "docs" / "conventions.md"
    assert (ROOT / "lessons" / "00_conventions.md").read_text(encoding="utf-8") == card.read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("lesson", LESSONS, ids=_ids(LESSONS))
def test_every_lesson_takes_a_students_sheet_and_asks_why(lesson):
    """STUDENT at the top picks the student's sheet; every answer is marked by the sheet."""
    source = lesson.read_text(encoding="utf-8")
    number = int(lesson.stem[:2])
    assert re.search(r"^STUDENT = None$", source, re.MULTILINE)
    assert f"tg.exercises.sheet({number}, student=STUDENT)" in source
    checks = re.findall(r'^sheet\["[0-9.]+"\]\.check\((\w+)\)$', source, re.MULTILINE)
    assert sorted(checks) == sorted(ANSWER.findall(source))
    assert "my_why" in checks
    assert "tg.check." not in source  # one way to mark: the sheet, which calls tg.check
