"""``bench.sleep``'s labelled conversations: their shape, read from ``bench/data/sleep.jsonl``.

Every conversation, name, place and value is this project's own; nothing
comes from a benchmark or a dataset. Each conversation is said on Wednesday
21 October 2026 from 10:00 in Asia/Kolkata, one turn a minute, one episode a
turn, in a space of its own. Its labels are what a careful reader would
record: the states (entity, attribute, value, condition, still true or
replaced) and the events (date, what happened). A date label is the day
("2026-10-17"), the week ("week of 2026-10-12"), the month ("2026-09") or the
year ("2025") the phrase names ("two weeks ago" names a day: 14 days back);
"" is an event with no date. A ``junk`` turn is one no fact should come from
(a question, a request, a guess, a hypothetical, reported speech): a stored
fact citing it is junk.

``answers`` is what a 3B model answered to sleep's prompt for the conversation,
written once, errors included (each item's ``error`` says what is wrong with it,
and is not sent): a wrong ``about`` (the user, a place), paraphrased values,
missing or wrong citations, facts from questions and hypotheticals, dates it
computed itself, and now and then no JSON at all (``broken``: cut off, a Python
literal, prose), once or every time. Citations are written as the words of the
line (``"@moved to Pune"``); ``bench/sleep_llm.py`` numbers them against each prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cases import DATA, read_jsonl

USER = "user"
FILE = DATA / "sleep.jsonl"


@dataclass(frozen=True)
class Turn:
    role: str  # user, assistant or note
    text: str
    junk: bool = False  # no fact should come from it


@dataclass(frozen=True)
class Fact:
    """A labelled state."""

    entity: str
    attribute: str
    value: str
    condition: str = ""
    active: bool = True


@dataclass(frozen=True)
class Happening:
    """A labelled event."""

    date: str
    what: str


@dataclass(frozen=True)
class Answer:
    """One answer of the recorded model (``broken``: '', 'cut', 'python' or 'prose')."""

    states: tuple[dict[str, Any], ...] = ()
    events: tuple[dict[str, Any], ...] = ()
    user_name: str = ""
    broken: str = ""


@dataclass(frozen=True)
class Case:
    name: str
    topic: str
    turns: tuple[Turn, ...]
    states: tuple[Fact, ...] = ()
    events: tuple[Happening, ...] = ()
    answers: tuple[Answer, ...] = field(default_factory=tuple)


def _said(items: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The items as the model sends them: without the ``error`` note."""
    return tuple({k: v for k, v in item.items() if k != "error"} for item in items)


def _answer(record: dict[str, Any]) -> Answer:
    fields = {k: v for k, v in record.items() if k != "error"}
    states, events = fields.pop("states", []), fields.pop("events", [])
    return Answer(_said(states), _said(events), **fields)


def _case(record: dict[str, Any]) -> Case:
    return Case(
        **{
            **record,
            "turns": tuple(Turn(**t) for t in record["turns"]),
            "states": tuple(Fact(**s) for s in record.get("states", [])),
            "events": tuple(Happening(**e) for e in record.get("events", [])),
            "answers": tuple(_answer(a) for a in record["answers"]),
        }
    )


def load_cases(path: Path = FILE) -> tuple[Case, ...]:
    """Every labelled conversation, in the file's order; a malformed one fails, named."""
    cases = []
    for number, record in read_jsonl(path):
        try:
            cases.append(_case(record))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{path}:{number}: {e!r}") from e
    return tuple(cases)


CASES: tuple[Case, ...] = load_cases()
