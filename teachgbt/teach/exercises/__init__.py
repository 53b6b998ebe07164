"""A sheet of exercises for every student: the lesson's own numbers, or fresh ones.

    sheet = tg.exercises.sheet(5, student="ada")     # lesson 5 (or "tree_structure")
    print(sheet)                                     # the prompts: inputs, never answers
    sheet["5.1"].check(1.79)                         # the same diagnosis as tg.check
    sheet["5.1"].check(1.79, reveal=True)            # ... with the value and the solution
    sheet["5.1"].answer                              # for the teacher
    print(sheet.key())                               # every answer, for the teacher

``student=None`` gives the numbers the lesson ships with; any other id (a name, a number)
gives numbers drawn from it, the same every time, different from student to student, and
drawn again until each exercise is fair to grade (its answer not near 0, no named slip and
no number of its prompt within the tolerance). A numeric prompt states the tolerance: 3
significant digits, right within 1 % and never closer than ±0.0001. Every lesson also has a
"why" question: a multiple choice, marked by ``tg.check.choice``, whose wrong options are
misconceptions named when chosen.
From the command line: ``teachgbt exercises 5 --student ada [--key]``,
``teachgbt exercises 5 --class 30 --out sheets/``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...core.format import format_number
from ..check import FLOOR, RELATIVE, asked, quietly
from . import (
    _editions,
    _losses,
    _models,
    _numbers,
    _why,
)

__all__ = ["Exercise", "Sheet", "sheet", "write_class", "write_edition", "LESSONS"]

MAX_CLASS = 1000  # sheets one --class call writes
MAX_DRAWS = 50  # a student's numbers are drawn again (at most this often) until clear
NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?")

LESSONS = {
    1: "supervised_learning",
    2: "tree_ensembles",
    3: "additive_training",
    4: "structure_score",
    5: "tree_structure",
    6: "gbdt_regression",
    7: "troll2_gbdt",
    8: "why_ensembles",
    9: "xgboost_vs_gbdt",
    10: "full_size_data",
    11: "multiclass",
    12: "contributions",
    13: "open_any_model",
    14: "any_loss",
    15: "categories",
}
_BUILDERS = {**_numbers.BUILDERS, **_models.BUILDERS, **_losses.BUILDERS}


@dataclass
class Exercise:
    """One exercise: ``prompt`` (its inputs), ``answer`` (for the teacher) and ``check``.

    Unanswered, the check repeats the prompt's question (its last line), never the
    checker's own question, which would name the numbers the student is to work out."""

    id: str
    prompt: str
    run: Callable = field(repr=False)  # (value, reveal) -> a tg.check result
    kind: str = "number"  # or "choice"
    slips: tuple = ()  # (value, message) pairs of this exercise's own slips
    notes: tuple = ()  # added to the worked solution

    def check(self, value, reveal=False):
        """Mark ``value``: the slip or a hint when it is wrong; ``reveal=True`` adds the
        right value and the worked solution."""
        question = self.prompt.strip().splitlines()[-1]
        with asked(question, self.slips, self.notes):
            return self.run(value, reveal)

    @property
    def answer(self):
        with quietly():
            r = self.check(None, True)
        return r.right[1] if self.kind == "choice" else r.expected

    def __str__(self):
        return f"Exercise {self.id}. {self.prompt}"

    def __repr__(self):
        return str(self)


class Sheet(list):
    """The exercises of one lesson for one student; ``sheet["5.2"]`` or ``sheet[1]``."""

    def __init__(self, lesson, student, exercises):
        super().__init__(exercises)
        self.lesson, self.student = lesson, student

    def __getitem__(self, key):
        if isinstance(key, str):
            for ex in self:
                if ex.id == key:
                    return ex
            raise KeyError(f"lesson {self.lesson} has exercises {[e.id for e in self]}")
        return super().__getitem__(key)

    def title(self):
        who = "the lesson's own numbers" if self.student is None else f"student {self.student}"
        return f"Lesson {self.lesson} ({LESSONS[self.lesson]}): exercises for {who}"

    def __str__(self):
        return "\n\n".join([self.title()] + [str(ex) for ex in self])

    def __repr__(self):
        return str(self)

    def solutions(self):
        """Every exercise with its answer and worked solution, for the teacher."""
        with quietly():
            return "\n\n".join(f"{ex}\n{ex.check(None, reveal=True)}" for ex in self)

    def key(self):
        """The answers, for the teacher: numbers to 6 significant digits, written out
        without float noise (never ``1.66533e-16`` for 0)."""
        rows = [f"Answer key. {self.title()}"]
        for ex in self:
            a = ex.answer
            rows.append(f"{ex.id}: {a if isinstance(a, str) else rounded(a)}")
        return "\n".join(rows)


def rounded(x):
    """``x`` to 6 significant digits, as a plain decimal (float noise below 1e-12 is 0)."""
    x = float(f"{float(x):.6g}") if abs(float(x)) >= 1e-12 else 0.0
    digits = max(0, 6 - 1 - int(np.floor(np.log10(abs(x))))) if x else 0
    return format_number(x, digits)


def lesson_number(lesson):
    """A lesson's number from its number or its name (``5``, ``"5"``, ``"tree_structure"``,
    ``"05_tree_structure"``)."""
    if isinstance(lesson, (int, np.integer)) and not isinstance(lesson, bool):
        if int(lesson) in LESSONS:
            return int(lesson)
    elif isinstance(lesson, str):
        text = lesson.strip().lower().removesuffix(".ipynb").removesuffix(".py")
        head = text.split("_", 1)[0]
        if head.isdigit() and int(head) in LESSONS:
            return int(head)
        for k, name in LESSONS.items():
            if text == name:
                return k
    raise ValueError(
        f"unknown lesson {lesson!r}: give a lesson's number ({', '.join(map(str, LESSONS))}) "
        f"or a name such as {LESSONS[5]!r}"
    )


def student_rng(lesson, student):
    """The student's own random numbers for a lesson: the same id always draws the same."""
    digest = hashlib.sha256(f"teachgbt lesson {lesson} student {student}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def sheet(lesson, student=None):
    """Lesson ``lesson``'s exercises: its own numbers (``student=None``) or the student's."""
    k = lesson_number(lesson)
    if student is not None and not str(student).strip():
        raise ValueError("student: give an id (a name or a number), or None for the lesson's")
    rng = None if student is None else student_rng(k, str(student).strip())
    for _ in range(MAX_DRAWS):
        found = _BUILDERS[k](rng)
        if rng is None or all(clear(*f) for f in found if f[2] == "number"):
            break
    found.append(_why.question(k, rng))
    return Sheet(k, None if student is None else str(student).strip(), [
        Exercise(f"{k}.{i}", *made) for i, made in enumerate(found, 1)
    ])  # fmt: skip


def clear(prompt, run, kind, slips, notes):
    """Whether an exercise is fair to grade: its answer is not near 0; no named slip lies so
    near it that the tolerance had to shrink below 1 % (then 3 significant digits could not
    tell the answer from the slip); and no number of its prompt, copied, would pass."""
    with quietly(), asked(None, slips, notes):
        r = run(None, True)
    a = abs(r.expected)
    if a < _numbers.SMALLEST or r.tolerance < max(RELATIVE * a, FLOOR) * (1 - 1e-9):
        return False
    given = (abs(float(t.replace("−", "-"))) for t in NUMBER.findall(prompt))
    return all(abs(g - a) > r.tolerance for g in given)


def write_class(lesson, n_students, folder, force=False):
    """One sheet per student (ids ``student-01`` … ``student-N``) and the teacher's key, as
    text files in ``folder``; files already there are kept unless ``force``, and nothing
    is written through a link out of the folder (``FolderWriter``)."""
    from ...utils import FolderWriter

    k = lesson_number(lesson)
    if isinstance(n_students, bool) or not isinstance(n_students, (int, np.integer)):
        raise TypeError(f"the number of students must be a whole number; got {n_students!r}")
    if not 1 <= n_students <= MAX_CLASS:
        raise ValueError(f"the number of students must be from 1 to {MAX_CLASS}")
    width = len(str(n_students))
    ids = [f"student-{i:0{width}d}" for i in range(1, n_students + 1)]
    stem = f"lesson{k:02d}"
    files = {f"{stem}-{s}.txt": str(sheet(k, s)) for s in ids}
    files[f"{stem}-key.txt"] = "\n\n".join(sheet(k, s).key() for s in ids)
    writer = FolderWriter(folder, force=force)
    writer.check(list(files))  # the user's files there are kept: nothing is written
    return [writer.write(n, lambda f, t=text: f.write(t + "\n")) for n, text in files.items()]


def write_edition(lesson, which, folder, force=False):
    """Lesson ``lesson``'s notebook as the ``"student"`` edition (no teacher's asserts) or the
    ``"solutions"`` edition (the shipped answers filled in, every check revealed), written
    into ``folder``; a notebook already there is kept unless ``force``, and nothing is
    written through a link out of the folder (``FolderWriter``)."""
    from ...utils import FolderWriter

    k = lesson_number(lesson)
    name, notebook = _editions.lesson_notebook(k)
    made = _editions.edition(notebook, which)
    text = json.dumps(made, indent=1, ensure_ascii=False) + "\n"
    writer = FolderWriter(folder, force=force)
    return writer.write(name.replace(".ipynb", f"_{which}.ipynb"), lambda f: f.write(text))


def command(args):
    """``teachgbt exercises LESSON [--student ID] [--key] [--class N --out DIR]
    [--edition student|solutions --out DIR]``."""
    if getattr(args, "edition", None) is not None:
        if args.out is None:
            raise ValueError("--edition writes a notebook: give the folder with --out DIR")
        print(f"wrote {write_edition(args.lesson, args.edition, args.out, force=args.force)}")
        return
    if args.class_size is not None:
        if args.out is None:
            raise ValueError("--class N writes files: give the folder with --out DIR")
        written = write_class(args.lesson, args.class_size, args.out, force=args.force)
        print(f"wrote {len(written) - 1} sheets and the key to {args.out}/")
        return
    one = sheet(args.lesson, args.student)
    print(one)
    if args.key:
        print("\n" + one.key())
    if args.solutions:
        print("\n" + one.solutions())
