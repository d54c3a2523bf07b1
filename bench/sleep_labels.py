"""How ``bench.sleep``'s conversations are written: turns, labels, a 3B model's answers.

Every conversation, name, place and value here is this file's own; nothing
comes from a benchmark or a dataset. Each conversation is said on Wednesday
21 October 2026 from 10:00 in Asia/Kolkata, one turn a minute, one episode a
turn, in a space of its own. Its labels are what a careful reader would
record: the states (entity, attribute, value, condition, still true or
replaced) and the events (date, what happened). A date label is the day
("2026-10-17"), the week ("week of 2026-10-12"), the month ("2026-09") or the
year ("2025") the phrase names ("two weeks ago" names a day: 14 days back);
"" is an event with no date.

Turns are written one a line: ``u:`` the user, ``a:`` the assistant, ``n:`` a
note; ``u?:`` a user turn no fact should come from (a question, a request, a
guess, a hypothetical, reported speech): a stored fact citing it is junk.

``llm`` is what a 3B model answered to sleep's prompt for the conversation,
written once, errors included (each marked in a comment): a wrong ``about``
(the user, a place), paraphrased values, missing or wrong citations, facts
from questions and hypotheticals, dates it computed itself, and now and then
no JSON at all (``broken``: cut off, a Python literal, prose), once or every
time. Citations are written as the words of the line (``"@moved to Pune"``);
``bench/sleep_llm.py`` numbers them against each prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

USER = "user"


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


_ROLES = {"u": "user", "a": "assistant", "n": "note"}


def talk(text: str) -> tuple[Turn, ...]:
    turns = []
    for raw in text.strip().splitlines():
        head, _, said = raw.strip().partition(":")
        junk = head.endswith("?")
        turns.append(Turn(_ROLES[head.rstrip("?")], said.strip(), junk))
    return tuple(turns)


def S(attribute: str, value: str, who: str = USER, when: str = "", old: bool = False) -> Fact:
    return Fact(who, attribute, value, when, not old)


def E(date: str, what: str) -> Happening:
    return Happening(date, what)


def st(
    line: str | int | None,
    attribute: str,
    value: str,
    about: str = USER,
    condition: str = "",
    *,
    prohibited: bool = False,
    since: str = "",
    ended: bool = False,
) -> dict[str, Any]:
    item: dict[str, Any] = {"about": about, "attribute": attribute, "value": value}
    if line is not None:
        item["line"] = line
    if condition:
        item["condition"] = condition
    if prohibited:
        item["prohibited"] = True
    if since:
        item["since"] = since
    if ended:
        item["ended"] = True
    return item


def ev(
    line: str | int | None, what: str, when: str = "", who: Sequence[str] = (USER,)
) -> dict[str, Any]:
    item: dict[str, Any] = {"what": what, "when": when, "who": list(who)}
    if line is not None:
        item["line"] = line
    return item


def A(*items: dict[str, Any], name: str = "", broken: str = "") -> Answer:
    states = tuple(i for i in items if "what" not in i)
    events = tuple(i for i in items if "what" in i)
    return Answer(states, events, name, broken)


def case(
    name: str,
    topic: str,
    turns: str,
    states: Sequence[Fact] = (),
    events: Sequence[Happening] = (),
    llm: Sequence[Answer] = (),
) -> Case:
    return Case(name, topic, talk(turns), tuple(states), tuple(events), tuple(llm) or (A(),))


def once(answer: Answer, broken: str) -> tuple[Answer, Answer]:
    """The first answer broken, the retry whole."""
    return (Answer(answer.states, answer.events, answer.user_name, broken), answer)


def always(answer: Answer, broken: str) -> tuple[Answer]:
    return (Answer(answer.states, answer.events, answer.user_name, broken),)
