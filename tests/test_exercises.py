"""tg.exercises: the lesson's numbers or a student's own, prompts without answers, the same
marking as tg.check, and the command that prints and writes the sheets."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import teachgbt as tg
from teachgbt.cli import main

SOLUTIONS = Path(__file__).resolve().parent / "lesson_solutions"
TUTORIAL_LESSONS = range(1, 11)
ALL_LESSONS = sorted(tg.exercises.LESSONS)


@pytest.fixture(autouse=True)
def not_strict(monkeypatch):
    monkeypatch.delenv(tg.check.STRICT_ENV, raising=False)


def numbers(sheet):
    return [ex for ex in sheet if ex.kind == "number"]


def shown(value):
    """The ways a prompt could give a number away."""
    return {f"{value:g}", f"{value:.2f}", f"{value:.3f}", f"{value:.4f}"}


@pytest.mark.parametrize("lesson", ALL_LESSONS)
def test_every_sheet_has_a_why_question_and_its_own_answers(lesson):
    shipped = tg.exercises.sheet(lesson)
    assert shipped.lesson == lesson and shipped.student is None
    assert sum(ex.kind == "choice" for ex in shipped) >= 1
    assert len(numbers(shipped)) >= (2 if lesson in TUTORIAL_LESSONS else 1)
    for ex in shipped:
        a = ex.answer
        assert ex.check(a).correct, (ex.id, a)
        wrong = ex.check("a" if a != "a" else "b") if ex.kind == "choice" else ex.check(a + 7.3)
        assert not wrong.correct
        if ex.kind == "number":
            # hint first: the value appears only with reveal=True
            assert "reveal=True" in str(wrong)
            if not float(a).is_integer():
                assert f"{a:.6g}" not in str(wrong)
            assert "; it is " not in str(wrong)
            assert "; it is " in str(ex.check(a + 7.3, reveal=True))
            if abs(a) >= 0.05 and not math.isclose(a, round(a)):
                assert not shown(a) & set(ex.prompt.replace("(", " ").replace(")", " ").split())


@pytest.mark.parametrize("lesson", TUTORIAL_LESSONS)
def test_students_get_their_own_numbers_the_same_every_time(lesson):
    ada, bob = tg.exercises.sheet(lesson, student="ada"), tg.exercises.sheet(lesson, "bob")
    again = tg.exercises.sheet(f"{lesson:02d}", student="ada")
    assert [ex.prompt for ex in ada] == [ex.prompt for ex in again]
    assert [ex.prompt for ex in numbers(ada)] != [ex.prompt for ex in numbers(bob)]
    for ex in ada:
        assert ex.check(ex.answer).correct


def test_the_shipped_sheets_are_the_lessons_exercises():
    """The lesson's answer variables are solved by the sheet's answers, in order."""
    names = {1: "my_square_loss", 4: "my_structure_score", 5: "my_gain", 7: "my_F0"}
    for lesson, first in names.items():
        path = next(SOLUTIONS.glob(f"{lesson:02d}_*.json"))
        solution = json.loads(path.read_text(encoding="utf-8"))[first]
        assert tg.exercises.sheet(lesson)[0].check(solution).correct


def test_lessons_by_name_and_bad_input():
    assert tg.exercises.sheet("tree_structure").lesson == 5
    assert tg.exercises.sheet("05_tree_structure.ipynb").lesson == 5
    with pytest.raises(ValueError, match="unknown lesson 99"):
        tg.exercises.sheet(99)
    with pytest.raises(ValueError, match="student: give an id"):
        tg.exercises.sheet(5, student="  ")
    with pytest.raises(KeyError, match="5.1"):
        tg.exercises.sheet(5)["9.9"]


def test_seed_004_slips_on_a_students_sheet():
    ex = tg.exercises.sheet(7, student="ada")[0]  # F0 of the student's own table
    p = 1 / (1 + np.exp(-ex.answer))
    assert "log-odds" in ex.check(p).slip


def test_the_command_prints_a_sheet_and_writes_a_class(tmp_path, capsys):
    assert main(["exercises", "5", "--student", "ada", "--key"]) == 0
    out = capsys.readouterr().out
    sheet = tg.exercises.sheet(5, "ada")
    assert sheet[0].prompt in out and f"5.1: {sheet[0].answer:.6g}" in out
    assert main(["exercises", "5", "--student", "ada"]) == 0
    assert "Answer key" not in capsys.readouterr().out
    assert main(["exercises", "tree_structure", "--class", "3", "--out", str(tmp_path)]) == 0
    files = sorted(p.name for p in tmp_path.iterdir() if p.name != ".teachgbt.json")
    assert files == ["lesson05-key.txt"] + [f"lesson05-student-{i}.txt" for i in (1, 2, 3)]
    one = (tmp_path / "lesson05-student-2.txt").read_text(encoding="utf-8")
    assert one.strip() == str(tg.exercises.sheet(5, "student-2"))
    assert "Answer key" not in one and "Answer key" in (tmp_path / "lesson05-key.txt").read_text()
    # the same command again rewrites its own sheets; a sheet the teacher changed is kept
    assert main(["exercises", "5", "--class", "3", "--out", str(tmp_path)]) == 0
    (tmp_path / "lesson05-student-2.txt").write_text("my notes\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["exercises", "5", "--class", "3", "--out", str(tmp_path)]) == 2
    assert "already holds lesson05-student-2.txt" in capsys.readouterr().err
    assert (tmp_path / "lesson05-student-2.txt").read_text(encoding="utf-8") == "my notes\n"
    assert main(["exercises", "5", "--class", "3"]) == 2
    assert "--out DIR" in capsys.readouterr().err


def _script(notebook):
    return "\n\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize("which", ["student", "solutions"])
def test_the_editions_of_a_lesson_run(which, tmp_path, capsys):
    import ast
    import os
    import subprocess
    import sys

    assert main(["exercises", "8", "--edition", which, "--out", str(tmp_path)]) == 0
    path = tmp_path / f"08_why_ensembles_{which}.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    script = _script(notebook)
    ast.parse(script)
    if which == "student":
        assert "assert " not in script and "my_vote_error = None  # ← your answer" in script
    else:  # a student's own numbers, each answered with the sheet's answer
        assert "= None  # ← your answer" not in script and "reveal=True" in script
        script = script.replace("STUDENT = None", 'STUDENT = "ada"', 1)
    (tmp_path / "run.py").write_text(script, encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg", tg.check.STRICT_ENV: "1" * (which == "solutions")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                         env.get("PYTHONPATH", "")])  # fmt: skip
    run = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    if which == "solutions":
        assert run.stderr.count("teachgbt.teach.check: accepted") == 4
    # written again over its own notebook; a notebook the teacher changed is kept
    assert main(["exercises", "8", "--edition", which, "--out", str(tmp_path)]) == 0
    path.write_text("{}", encoding="utf-8")
    capsys.readouterr()
    assert main(["exercises", "8", "--edition", which, "--out", str(tmp_path)]) == 2
    assert "already holds" in capsys.readouterr().err and path.read_text() == "{}"


def test_the_slips_issue_19_found_are_named_on_the_shipped_sheets():
    s = tg.exercises.sheet
    # 13.3: γ subtracted whole, ½·60.5002 − 0.5, was accepted
    assert "gamma subtracted whole" in s(13)["13.3"].check(0.5 * 60.5002 - 0.5).slip
    # 4.2: α forgotten, −(−4.5)/(2 + 1), was called "λ is missing"
    assert s(4)["4.2"].check(4.5 / 3).slip.startswith("α is missing")
    # 10.1: λ forgotten, ½[0/1.5 + 1/1.5 − 1/3], was called "the bracket without its ½"
    assert s(10)["10.1"].check(0.5 * (0 / 1.5 + 1 / 1.5 - 1 / 3)).slip.startswith("λ is missing")
    # seed 004's central confusion on lesson 7's sheet: F₀ given as the probability 4/6
    assert "log-odds" in s(7)["7.1"].check(4 / 6).slip
    assert "mean" in s(6)["6.1"].check(286).slip  # the sum of the sales for their mean


def test_the_slips_issue_28_found_are_named_on_the_shipped_sheets():
    s = tg.exercises.sheet
    # 4.2 (G = −4.5, H = 2, λ = 1, α = 1): |G| + α, once told "λ is missing"
    assert s(4)["4.2"].check((4.5 + 1) / 3).slip.startswith("α added")
    # 5.2 (model gamma 1 with the ½-loss, γ = 0.5): the model's gamma taken whole, and
    # XGBoost's loss_chg − gamma (bracket 3.585)
    r = s(5)["5.2"].check(0.5 * 3.585 - 1.0)
    assert "gamma subtracted whole" in r.slip and "twice" not in r.slip
    assert "loss_chg − gamma" in s(5)["5.2"].check(3.585 - 1.0).slip
    # 5.2's worked solution says where its γ comes from
    assert "γ = gamma / 2 = 0.5" in str(s(5)["5.2"].check(None, reveal=True))
    # 8.1 (five voters at 20 %): a percentage, and only the k = 3 term
    assert "percentage" in s(8)["8.1"].check(5.792).slip
    assert "only one term" in s(8)["8.1"].check(10 * 0.2**3 * 0.8**2).slip
    # 11.3: H without multi:softprob's 2 (rows share p = 2/9: H = 3 · 2/9 · 7/9)
    G = 1 * 2 / 9 + 2 * (2 / 9 - 1)
    assert "H without its 2" in s(11)["11.3"].check(-G / (3 * 2 / 9 * 7 / 9 + 1)).slip
    # signs: 1.2's loss, 3.4's and 5.3's margins, 7.3's leaf
    for ex_id in ("1.2", "7.3"):
        ex = s(int(ex_id.split(".")[0]))[ex_id]
        assert "the sign" in ex.check(-ex.answer).slip, ex_id
    assert s(3)["3.4"].check(0.5 - 0.3 * 1.5).slip.startswith("the sign")  # ŷ − η·w*
    assert s(5)["5.3"].check(0.4 - 0.3 * 0.7).slip.startswith("the sign")


def test_epoch_2_slips_on_lesson_7s_sheet():
    """7.4 (row 1's ep_2_prob): a stale p from epoch 1 was told "η applied twice", a start
    from F₀ "η missing"."""
    import numpy as np

    X, y = tg.datasets.troll2_xy()
    gbdt = tg.BoostingClassifier(algorithm="gbdt", n_estimators=2, learning_rate=0.8,
                                 max_depth=2).fit(X, y)  # fmt: skip
    ep = gbdt.trace_.epochs()
    alone = (ep["ep_2_leaf_index"] == ep.at[1, "ep_2_leaf_index"]).sum()
    assert alone == 1  # row 1 has tree 2's leaf to itself: its stale leaf is (1 − ⅔)/(⅔·⅓)
    stale = 1 / (1 + np.exp(-(ep.at[1, "ep_1_pre"] + 0.8 * (1 / 3) / (2 / 9))))
    from_f0 = 1 / (1 + np.exp(-(np.log(2) + 0.8 * ep.at[1, "ep_2_leaf_output"])))
    ex = tg.exercises.sheet(7)["7.4"]
    assert "ep_1_prob" in ex.check(stale).slip
    assert ex.check(from_f0).slip.startswith("started from F₀")


def _numbers(text):
    import re

    return {float(t.replace("−", "-")) for t in re.findall(r"(?<![\w.])[-−]?\d+(?:\.\d+)?", text)}


@pytest.mark.parametrize("lesson", ALL_LESSONS)
def test_the_not_answered_line_repeats_only_the_prompt(lesson):
    """Unanswered, a check repeats the exercise's question; it names no number the prompt
    does not (5.2 printed γ = 0.5, 10.1 the bin sums, 11.3 G and H: what the student is to
    work out)."""
    for student in (None, "ada"):
        for ex in tg.exercises.sheet(lesson, student=student):
            if ex.kind == "number":
                said = str(ex.check(None))
                assert "not answered yet" in said
                extra = _numbers(said) - _numbers(ex.prompt)
                assert not extra, (ex.id, extra, said)


def test_keys_print_rounded_values():
    from teachgbt.teach.exercises import rounded

    assert rounded(1.6653345369377348e-16) == "0" and rounded(-0.7499999999999998) == "-0.75"
    assert rounded(27.599970000000003) == "27.6" and rounded(0.0579200000001) == "0.05792"
    assert rounded(1234567.8) == "1234570" and rounded(-0.000123456789) == "-0.000123457"


def test_every_numeric_prompt_states_its_tolerance():
    for lesson in ALL_LESSONS:
        for ex in tg.exercises.sheet(lesson, student="bob"):
            if ex.kind == "number":
                assert "3 significant digits: right within 1%" in ex.prompt
                assert f"±{tg.check.FLOOR:g}" in ex.prompt


def test_the_right_why_option_is_not_given_away_by_its_length():
    """Over the lessons' why-questions the right option is the longest, the middle and the
    shortest about equally often (none in more than 40 % of them), and never as long as
    a wrong one: picking by length does no better than guessing."""
    from teachgbt.teach.exercises._losses import WHY
    from teachgbt.teach.exercises._why import QUESTIONS

    ranks = []
    for lesson, (_, choices, right, *_) in {**QUESTIONS, 14: WHY}.items():
        lengths = [len(c) for c in choices]
        mine = lengths[ord(right) - ord("a")]
        assert lengths.count(mine) == 1, f"lesson {lesson}: the right option ties a wrong one"
        ranks.append(sorted(lengths, reverse=True).index(mine))
    for rank in set(ranks):
        assert ranks.count(rank) <= 0.4 * len(ranks), (rank, ranks)
