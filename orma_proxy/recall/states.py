"""Consolidated states and events, read back: ``facts()`` and the ``states``/``events`` of search.

Sleep writes them (``orma_proxy/sleep``); this module only reads. Search
attaches the active states and events that match the query's words or that
were drawn from the passages it found — following ``superseded_by`` to what
is true now, so finding "I live in Pune" yields the current home city.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime

import aiosqlite

from orma_proxy.text.stopwords import STOPWORDS

_WORD = re.compile(r"\w+", re.UNICODE)
_PASSAGE_BONUS = 2  # drawn from a passage the search found: worth two matching words
_PASSAGE_HEADS = 3  # only the best passages lend their states that bonus
_MIN_STEM = 3
_MAX_TERMS = 16  # query words looked up in event texts


@dataclass(frozen=True)
class State:
    """A state (current, or closed with what replaced it), with the line it cites."""

    id: int
    entity: str
    attribute: str
    value: str
    condition: str
    prohibited: bool
    active: bool
    since: str | None
    valid_from: datetime
    valid_to: datetime | None
    rehearsals: int
    sentence_id: int
    episode_id: int
    quote: str
    superseded_by: int | None
    replaced_by: str | None
    end_reason: str | None

    @property
    def text(self) -> str:
        """``user · home city: Bangalore`` (with ``| when: ...`` for a conditional state)."""
        attribute = self.attribute.replace("_", " ")
        line = f"{self.entity} · {attribute}: {self.value}"
        return f"{line} | when: {self.condition}" if self.condition else line


@dataclass(frozen=True)
class Event:
    """Something that happened, with its resolved date and the line it cites."""

    id: int
    what: str
    when_text: str
    date: str | None
    precision: str | None
    who: list[str]
    sentence_id: int
    episode_id: int
    quote: str

    @property
    def text(self) -> str:
        who = ", ".join(self.who)
        head = f"{self.date or 'undated'}: "
        return head + (f"{who}: {self.what}" if who else self.what)


# Every read of states and events goes through these two: a released item (``orma
# release``) and an event drawn from a corrected line (``supersede``) never come
# back. The tests sit in the inner joins so callers can still append their WHERE.
_STATE_SELECT = (
    "SELECT s.id, e.name, s.attribute, s.value, s.condition, s.prohibited, s.active, s.since, "
    "s.valid_from, s.valid_to, s.rehearsals, s.sentence_id, s.episode_id, "
    "coalesce(t.text, ''), s.superseded_by, n.value, s.end_reason "
    "FROM states s JOIN entities e ON e.id = s.entity_id{shown} "
    "LEFT JOIN states n ON n.id = s.superseded_by "
    "LEFT JOIN sentences t ON t.id = s.sentence_id "
)
_STATE_SQL = _STATE_SELECT.format(shown=" AND s.released_by IS NULL")
_ANY_STATE_SQL = _STATE_SELECT.format(shown="")  # released ones too
_EVENT_SQL = (
    "SELECT v.id, v.what, v.when_text, v.date, v.precision, v.who, v.sentence_id, "
    "v.episode_id, coalesce(t.text, '') FROM events v "
    "JOIN sentences t ON t.id = v.sentence_id "
    "AND v.released_by IS NULL AND t.superseded_by IS NULL "
)


def _time(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(float(value), UTC)


def _state(r: aiosqlite.Row) -> State:
    return State(
        id=int(r[0]),
        entity=str(r[1]),
        attribute=str(r[2]),
        value=str(r[3]),
        condition=str(r[4]),
        prohibited=bool(r[5]),
        active=bool(r[6]),
        since=None if r[7] is None else str(r[7]),
        valid_from=datetime.fromtimestamp(float(r[8]), UTC),
        valid_to=_time(r[9]),
        rehearsals=int(r[10]),
        sentence_id=int(r[11]),
        episode_id=int(r[12]),
        quote=str(r[13]),
        superseded_by=None if r[14] is None else int(r[14]),
        replaced_by=None if r[15] is None else str(r[15]),
        end_reason=None if r[16] is None else str(r[16]),
    )


def _event(r: aiosqlite.Row) -> Event:
    return Event(
        id=int(r[0]),
        what=str(r[1]),
        when_text=str(r[2]),
        date=None if r[3] is None else str(r[3]),
        precision=None if r[4] is None else str(r[4]),
        who=[str(p) for p in json.loads(str(r[5]))],
        sentence_id=int(r[6]),
        episode_id=int(r[7]),
        quote=str(r[8]),
    )


async def list_facts(
    conn: aiosqlite.Connection, space: str, *, include_history: bool = False
) -> list[State]:
    """Active states of ``space`` (and, with history, closed ones), the user's first."""
    where = "WHERE s.space = ?" + ("" if include_history else " AND s.active = 1")
    rows = await conn.execute_fetchall(
        _STATE_SQL + where + " ORDER BY e.name != 'user', e.name, s.attribute, s.condition, "
        "s.stated_at, s.id",
        (space,),
    )
    return [_state(r) for r in rows]


async def forbidden_states(conn: aiosqlite.Connection, space: str) -> list[State]:
    """Active rules of ``space`` (``prohibited``, or named ``forbidden_*``), oldest first.

    Every recall carries them all, whatever the query: a constraint binds always.
    """
    rows = await conn.execute_fetchall(
        _STATE_SQL + "WHERE s.space = ? AND s.active = 1 "
        "AND (s.prohibited = 1 OR s.attribute LIKE 'forbidden\\_%' ESCAPE '\\') "
        "ORDER BY s.stated_at, s.id",
        (space,),
    )
    return [_state(r) for r in rows]


async def state_by_id(
    conn: aiosqlite.Connection, space: str, state_id: int, *, released: bool = False
) -> State | None:
    """State ``state_id`` if it belongs to ``space`` (active or closed).

    A released state (hidden by ``orma release``) only with ``released``.
    """
    sql = (_ANY_STATE_SQL if released else _STATE_SQL) + "WHERE s.space = ? AND s.id = ?"
    rows = list(await conn.execute_fetchall(sql, (space, state_id)))
    return _state(rows[0]) if rows else None


async def list_events(conn: aiosqlite.Connection, space: str) -> list[Event]:
    """Every event of ``space``, oldest date first (undated last)."""
    rows = await conn.execute_fetchall(
        _EVENT_SQL + "WHERE v.space = ? ORDER BY v.date IS NULL, v.date, v.id", (space,)
    )
    return [_event(r) for r in rows]


async def _candidate_events(
    conn: aiosqlite.Connection, space: str, terms: list[str], marks: str, sentence_ids: list[int]
) -> list[Event]:
    """Events cited from a found sentence or naming a query word (filtered in SQL)."""
    tests = [f"v.sentence_id IN ({marks})"] if sentence_ids else []
    # Terms are word characters without '_' (see _terms), so LIKE needs no escaping.
    tests += ["v.what LIKE ? OR v.who LIKE ?"] * len(terms[:_MAX_TERMS])
    if not tests:
        return []
    likes = [f"%{t}%" for t in terms[:_MAX_TERMS] for _ in (0, 1)]
    rows = await conn.execute_fetchall(
        _EVENT_SQL + f"WHERE v.space = ? AND ({' OR '.join(tests)})", (space, *sentence_ids, *likes)
    )
    return [_event(r) for r in rows]


def _terms(text: str) -> set[str]:
    words = {w.lower() for w in _WORD.findall(text.replace("_", " "))}
    kept = {w for w in words if w not in STOPWORDS}
    return {w[:-1] if w.endswith("s") and len(w) > _MIN_STEM else w for w in kept}


async def matching_states(
    conn: aiosqlite.Connection,
    space: str,
    query: str,
    sentence_ids: list[int],
    k: int,
) -> tuple[list[State], list[Event]]:
    """Active states and events for a search: drawn from the best passages, or sharing words.

    A closed state drawn from a found sentence stands for the active state that
    replaced it (its ``superseded_by`` chain is followed to the end).
    """
    terms = _terms(query)
    sentence_ids = sentence_ids[:_PASSAGE_HEADS]
    marks = ",".join("?" * len(sentence_ids))
    words = sorted(terms)[:_MAX_TERMS]
    # One trip: the active ends of the chains starting at the found sentences (``+space``:
    # the few sentences are looked up by states_sentence, not by walking the space), and
    # the active states naming a query word (LIKE narrows, the Python below scores).
    chain, is_head = "", "0"
    args: list[object] = [space]
    if sentence_ids:
        chain = (
            "WITH RECURSIVE chain (id, active, next) AS (SELECT id, active, superseded_by "
            f"FROM states WHERE +space = ? AND sentence_id IN ({marks}) "
            "UNION SELECT s.id, s.active, s.superseded_by FROM states s "
            "JOIN chain c ON s.id = c.next) "
        )
        is_head = "s.id IN (SELECT id FROM chain WHERE active = 1)"
        args = [space, *sentence_ids, space]
    tests = [is_head]
    for word in words:
        tests.append("s.value LIKE ? OR s.attribute LIKE ? OR s.condition LIKE ? OR e.name LIKE ?")
        args += [f"%{word}%"] * 4
    # Both statements are queued on the reader at once: one wait for the two.
    rows, events = await asyncio.gather(
        conn.execute_fetchall(
            f"{chain}SELECT q.*, {is_head.replace('s.id', 'q.id')} FROM ({_STATE_SQL}"
            f"WHERE s.space = ? AND s.active = 1 AND ({' OR '.join(tests)})) q",
            args,
        ),
        _candidate_events(conn, space, sorted(terms), marks, sentence_ids),
    )
    states = [_state(r) for r in rows]
    heads = {state.id for state, r in zip(states, rows, strict=True) if r[-1]}
    scored_states = [
        (len(terms & _terms(f"{s.entity} {s.attribute} {s.value} {s.condition}"))
         + (_PASSAGE_BONUS if s.id in heads else 0), s)
        for s in states
    ]  # fmt: skip
    found = set(sentence_ids)
    scored_events = [
        (len(terms & _terms(f"{e.what} {' '.join(e.who)}"))
         + (_PASSAGE_BONUS if e.sentence_id in found else 0), e)
        for e in events
    ]  # fmt: skip
    best_states = [s for score, s in sorted(scored_states, key=lambda p: -p[0]) if score > 0]
    best_events = [e for score, e in sorted(scored_events, key=lambda p: -p[0]) if score > 0]
    return best_states[:k], best_events[:k]
