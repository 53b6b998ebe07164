"""Issue 28's "done when", measured by ``tests/course_audit.py`` over 32 students: a teacher
can grade by the checkers, the why-questions do not give themselves away, every student has
numbers of their own, and no lesson shows an exercise's answer before the exercise."""

import pytest
from course_audit import LESSONS, lesson_stats, probe, sheet_items, visible_answers

import teachgbt as tg

LESSON_NUMBERS = [int(p.name[:2]) for p in LESSONS]


@pytest.fixture(autouse=True)
def not_strict(monkeypatch):
    monkeypatch.delenv(tg.check.STRICT_ENV, raising=False)


@pytest.fixture(scope="module")
def stats():
    return {lesson: lesson_stats(lesson) for lesson in LESSON_NUMBERS}


@pytest.mark.parametrize("lesson", LESSON_NUMBERS)
def test_a_teacher_can_grade_by_the_checker(stats, lesson):
    """Over 32 students × every numeric exercise: no (exercise, student) pair accepts 3 % or
    10 % off, the other sign or 0; none rejects the value written to 3 or 4 significant
    digits; every usual slip (worked out by the audit, not the checker) is named."""
    s = stats[lesson]
    assert s["pairs"] == 32 * s["exercises"] > 0
    assert s["wrong_accepted"] == 0 and s["right_rejected"] == 0
    assert s["slips_named"] == s["slips"] > 0, s.get("unnamed")


@pytest.mark.parametrize("lesson", LESSON_NUMBERS)
def test_every_student_has_numbers_of_their_own(stats, lesson):
    s = stats[lesson]
    assert s["distinct_min"] >= 10, s["distinct"]
    assert s["zeros"] == 0 and s["key_noise"] == 0
    assert s["question_extras"] == 0  # the "not answered yet" line repeats only the prompt
    assert s["prompt_gives"] == 0  # no prompt holds its own answer


def test_why_questions_do_not_give_themselves_away(stats):
    why = sum(s["why"] for s in stats.values())
    longest = sum(s["why_right_longest"] for s in stats.values())
    letters = [sum(s.get(f"why_letter_{c}", 0) for s in stats.values()) for c in "abcd"]
    assert why == 32 * len(LESSON_NUMBERS)
    assert longest <= 0.4 * why  # the right option is the longest at most 40 % of the time
    assert max(letters) <= 0.5 * why  # no letter is right more than half the time
    assert all(s["why_unnamed"] == 0 for s in stats.values())  # every distractor is named


@pytest.mark.parametrize("lesson", LESSON_NUMBERS)
def test_the_shipped_sheets_grade_fairly_too(lesson):
    for item in sheet_items(lesson, None):
        if item.kind == "number":
            assert probe(item) == ([], []), item.id


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_no_answer_is_shown_before_its_exercise(path):
    """The lesson run unanswered: nothing shown up to an exercise's check (text, outputs,
    figures' text, the "not answered yet" line) holds its answer, its magnitude, or a
    number one step from it, in any form that would be accepted."""
    assert visible_answers(path) == []
