"""The labelled conversations of ``bench.sleep``, and a 3B model's recorded answers to them.

How they are written: ``bench/sleep_labels.py``; the conversations, by theme, in
``bench/sleep_cases_*.py``. Every conversation, name, place and value is this
project's own.
"""

from __future__ import annotations

from bench import (
    sleep_cases_chatter,
    sleep_cases_habits,
    sleep_cases_people,
    sleep_cases_persons,
    sleep_cases_rules,
)
from bench.sleep_labels import USER, Answer, Case, Fact, Happening

__all__ = ["CASES", "USER", "Answer", "Case", "Fact", "Happening"]

CASES: tuple[Case, ...] = (
    *sleep_cases_people.CASES,
    *sleep_cases_habits.CASES,
    *sleep_cases_rules.CASES,
    *sleep_cases_persons.CASES,
    *sleep_cases_chatter.CASES,
)
