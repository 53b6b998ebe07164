"""The course: answers checked, exercise sheets, the Troll 2 walkthrough, the tutorials' data.

check/         tg.check: a learner's answer against the formula, with the slip named
exercises/     a sheet of exercises per lesson and student, with the teacher's key
walkthrough/   seed 004 epoch by epoch: data, tables, text, files, the XGBoost comparison
datasets.py    the tutorials' small tables (Troll 2, ice cream, the family)
"""

from . import check, datasets, exercises, walkthrough

__all__ = ["check", "datasets", "exercises", "walkthrough"]
