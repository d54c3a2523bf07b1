"""Where recall's and search's states and events come from, each read by index.

A recall names its sources (the rules, a holder's states, states naming a
query word, states drawn from the sentences its search found) and gets their
states in one statement, each source newest first within its bound; events by
word or citation; states and events by id; and where the chain of states that
replaced a closed one ends. A search gets the active states and events that
name its words or stand for the sentences it found. Sources and words are
values, never SQL: the statements are built here.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass
from typing import NamedTuple

from orma_proxy.facts.events import EVENTS, EVENTS_WITH_TIMES, Event, event_from
from orma_proxy.facts.rules import CARRIED_SQL
from orma_proxy.facts.states import STATES, STATES_WITH_TIMES, State, state_from
from orma_proxy.store import Connection, Row

__all__ = [
    "Citing",
    "HeldBy",
    "Naming",
    "Rules",
    "StateMatch",
    "StateSource",
    "Successor",
    "TimedEvent",
    "TimedState",
    "active_states",
    "events_by_id",
    "events_matching",
    "gather_events",
    "gather_states",
    "states_matching",
    "successors",
]

# Longest replacement chain followed (a guard: chains are acyclic by construction).
_MAX_CHAIN = 64
# A state's value, attribute or holder contains a word.
_NAMES_WORD = "s.value LIKE ? OR s.attribute LIKE ? OR e.name LIKE ?"


def _marks(values: Sized) -> str:
    """One ``?`` per value, for ``IN (...)``."""
    return ",".join("?" * len(values))


@dataclass(frozen=True)
class TimedState:
    """A state with when it was said and last said again: what a recall history needs."""

    state: State
    stated_at: float
    rehearsed_at: float | None


@dataclass(frozen=True)
class TimedEvent:
    """An event with when its line was said."""

    event: Event
    said_at: float


@dataclass(frozen=True)
class Rules:
    """The active rules (``is_rule``) and their alternatives (``is_alternative``)."""


@dataclass(frozen=True)
class HeldBy:
    """The active states of the entity named ``entity``, at most ``limit``."""

    entity: str
    limit: int


@dataclass(frozen=True)
class Naming:
    """States whose value, attribute or holder contains one of ``words`` (word characters,
    so no LIKE escaping), at most ``limit``: active ones, or those closed since
    ``closed_since`` when given (not every state the space ever held)."""

    words: tuple[str, ...]
    limit: int
    closed_since: float | None = None


@dataclass(frozen=True)
class Citing:
    """The states drawn from these sentences, active or closed, of any age."""

    sentence_ids: tuple[int, ...]


StateSource = Rules | HeldBy | Naming | Citing


class _Part(NamedTuple):
    """A source as SQL: a WHERE test, its values, and an optional bound."""

    test: str
    values: Sequence[object]
    limit: int | None = None
    # False when the test's own column is the selective one (a state's sentence):
    # without statistics SQLite prefers the space's index and reads every state of it.
    by_space: bool = True


def _part(source: StateSource) -> _Part | None:
    """The part a source reads; None when it can find nothing (no words, no sentences)."""
    match source:
        case Rules():
            return _Part(f"s.active = 1 AND {CARRIED_SQL}", [])
        case HeldBy(entity, limit):
            return _Part("s.active = 1 AND e.name = ?", [entity], limit)
        case Naming(words, limit, closed_since) if words:
            likes = " OR ".join([_NAMES_WORD] * len(words))
            values = [f"%{w}%" for w in words for _ in range(3)]
            if closed_since is None:
                return _Part(f"s.active = 1 AND ({likes})", values, limit)
            closed = f"s.active = 0 AND s.valid_to >= ? AND ({likes})"
            return _Part(closed, [closed_since, *values], limit)
        case Citing(sentence_ids) if sentence_ids:
            cited = f"s.sentence_id IN ({_marks(sentence_ids)})"
            return _Part(cited, [*sentence_ids], by_space=False)
    return None


def states_statement(space: str, sources: Sequence[StateSource]) -> tuple[str, list[object]]:
    """The statement ``gather_states`` runs and its values ("" when no source can find any).

    Public for the tests that read its query plans.
    """
    selects, args = [], []
    for part in filter(None, map(_part, sources)):
        bound = "" if part.limit is None else f" LIMIT {int(part.limit)}"
        space_test = "s.space = ?" if part.by_space else "+s.space = ?"  # "+": not by its index
        selects.append(
            f"SELECT * FROM ({STATES_WITH_TIMES.sql}WHERE {space_test} AND {part.test} "
            f"ORDER BY coalesce(s.rehearsed_at, s.stated_at) DESC, s.id DESC{bound})"
        )
        args += [space, *part.values]
    # UNION ALL: a state two sources return comes twice (the caller keeps one).
    return " UNION ALL ".join(selects), args


def gather_states(conn: Connection, space: str, sources: Sequence[StateSource]) -> list[TimedState]:
    """The states of every source, in one statement: source by source, each newest first."""
    sql, args = states_statement(space, sources)
    if not sql:
        return []
    return [_timed_state(r) for r in STATES_WITH_TIMES.all_named(conn.execute(sql, args))]


def active_states(conn: Connection, space: str, ids: Sequence[int]) -> list[TimedState]:
    """These states of ``space`` that are active and not rules or their alternatives.

    A rule and its alternative are carried anyway.
    """
    if not ids:
        return []
    sql = STATES_WITH_TIMES.sql + (
        f"WHERE s.space = ? AND s.active = 1 AND NOT {CARRIED_SQL} AND s.id IN ({_marks(ids)})"
    )
    return [_timed_state(r) for r in STATES_WITH_TIMES.all_named(conn.execute(sql, (space, *ids)))]


def events_by_id(conn: Connection, space: str, ids: Sequence[int]) -> list[TimedEvent]:
    """These events of ``space``."""
    if not ids:
        return []
    sql = EVENTS_WITH_TIMES.sql + f"WHERE v.space = ? AND v.id IN ({_marks(ids)})"
    return [_timed_event(r) for r in EVENTS_WITH_TIMES.all_named(conn.execute(sql, (space, *ids)))]


def _event_tests(
    words: Sequence[str], sentence_ids: Sequence[int]
) -> tuple[list[str], list[object]]:
    """WHERE tests, to OR together, for events drawn from these sentences or naming a word."""
    tests: list[str] = []
    args: list[object] = []
    if sentence_ids:
        tests.append(f"v.sentence_id IN ({_marks(sentence_ids)})")
        args += sentence_ids
    for word in words:  # word characters: LIKE needs no escaping
        tests.append("v.what LIKE ? OR v.who LIKE ?")
        args += [f"%{word}%", f"%{word}%"]
    return tests, args


def gather_events(
    conn: Connection,
    space: str,
    words: Sequence[str],
    sentence_ids: Sequence[int],
    limit: int,
) -> list[TimedEvent]:
    """Events drawn from these sentences first, then the newest naming a word, at most ``limit``."""
    tests, args = _event_tests(words, sentence_ids)
    where = " OR ".join(tests) or "FALSE"
    order = "v.id DESC"
    if sentence_ids:
        order = f"v.sentence_id IN ({_marks(sentence_ids)}) DESC, " + order
    sql = EVENTS_WITH_TIMES.sql + f"WHERE v.space = ? AND ({where}) ORDER BY {order} LIMIT ?"
    rows = conn.execute(sql, [space, *args, *sentence_ids, limit])
    return [_timed_event(r) for r in EVENTS_WITH_TIMES.all_named(rows)]


def _timed_state(row: Row) -> TimedState:
    rehearsed_at = row["rehearsed_at"]
    return TimedState(
        state_from(row),
        float(row["stated_at"]),
        None if rehearsed_at is None else float(rehearsed_at),
    )


def _timed_event(row: Row) -> TimedEvent:
    return TimedEvent(event_from(row), float(row["said_at"]))


@dataclass(frozen=True)
class Successor:
    """Where the chain of states that replaced a closed state ends."""

    sentence_id: int  # the line the closed state was drawn from
    head_id: int
    value: str
    active: bool  # the chain ends in an active state (not one merely ended)


def successors(conn: Connection, space: str, sentence_ids: Sequence[int]) -> dict[int, Successor]:
    """For each closed state drawn from these sentences, the end of its replacement chain."""
    if not sentence_ids:
        return {}
    rows = conn.execute(
        "WITH RECURSIVE chain (origin, sentence_id, next, id, value, active, depth) AS ("
        "SELECT id, sentence_id, superseded_by, id, value, active, 0 FROM states "
        f"WHERE +space = ? AND active = 0 AND sentence_id IN ({_marks(sentence_ids)}) "
        "UNION ALL SELECT c.origin, c.sentence_id, n.superseded_by, n.id, n.value, n.active, "
        "c.depth + 1 FROM chain c JOIN states n ON n.id = c.next WHERE c.depth < ?) "
        "SELECT origin, sentence_id, id, value, active FROM chain WHERE next IS NULL",
        (space, *sentence_ids, _MAX_CHAIN),
    ).fetchall()
    return {
        int(origin): Successor(int(line), int(head), str(value), bool(active) and head != origin)
        for origin, line, head, value, active in rows
    }


class StateMatch(NamedTuple):
    """An active state a search matched: the fields it is scored on, and its row.

    LIKE only narrows, so a search may match thousands; building a State costs
    more than scoring one, so only the best become States (``state``).
    """

    entity: str
    attribute: str
    value: str
    condition: str
    head: bool  # the active end of a replacement chain from a found sentence
    row: Row

    def state(self) -> State:
        return state_from(self.row)


def states_matching(
    conn: Connection, space: str, words: Sequence[str], sentence_ids: Sequence[int]
) -> list[StateMatch]:
    """Active states of ``space`` naming a word (value, attribute, condition or holder), or
    at the active end of a replacement chain from one of these sentences."""
    # ``+space``: the few sentences are looked up by states_sentence, not by walking the space.
    chain, is_head = "", "FALSE"
    args: list[object] = [space]
    if sentence_ids:
        chain = (
            "WITH RECURSIVE chain (id, active, next) AS (SELECT id, active, superseded_by "
            f"FROM states WHERE +space = ? AND sentence_id IN ({_marks(sentence_ids)}) "
            "UNION SELECT s.id, s.active, s.superseded_by FROM states s "
            "JOIN chain c ON s.id = c.next) "
        )
        is_head = "{alias}.id IN (SELECT id FROM chain WHERE active = 1)"
        args = [space, *sentence_ids, space]
    tests = [is_head.format(alias="s")]
    for word in words:  # word characters: LIKE needs no escaping
        tests.append("s.value LIKE ? OR s.attribute LIKE ? OR s.condition LIKE ? OR e.name LIKE ?")
        args += [f"%{word}%"] * 4
    rows = conn.execute(
        f"{chain}SELECT q.*, {is_head.format(alias='q')} AS head FROM ({STATES.sql}"
        f"WHERE s.space = ? AND s.active = 1 AND ({' OR '.join(tests)})) q",
        args,
    )
    return [
        StateMatch(
            str(r["entity"]), str(r["attribute"]), str(r["value"]), str(r["condition"]),
            bool(r["head"]), r,
        )
        for r in STATES.all_named(rows, "head")
    ]  # fmt: skip


def events_matching(
    conn: Connection, space: str, words: Sequence[str], sentence_ids: Sequence[int]
) -> list[Event]:
    """Events of ``space`` drawn from one of these sentences or naming a word."""
    tests, args = _event_tests(words, sentence_ids)
    if not tests:
        return []
    sql = EVENTS.sql + f"WHERE v.space = ? AND ({' OR '.join(tests)})"
    return [event_from(r) for r in EVENTS.all_named(conn.execute(sql, (space, *args)))]
