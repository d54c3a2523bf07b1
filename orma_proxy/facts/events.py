"""Events: something that happened, with its resolved date and the line it cites.

Every read of an event goes through the SELECTs here: a released event
(``orma release``) and one drawn from a corrected line (``supersede``) never
come back. Sleep stores them (``insert_event``, inside its write job).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from orma_proxy.store import Connection
from orma_proxy.store.select import Row, Select

__all__ = [
    "EVENTS",
    "EVENTS_WITH_TIMES",
    "Event",
    "NewEvent",
    "event_from",
    "insert_event",
    "list_events",
]


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
        """'2026-11-01: user received a gift from manager: Swiss knife' (the seed's form)."""
        who = ", ".join(self.who)
        head = f"{self.date or 'undated'}: "
        return head + (f"{who} {self.what}" if who else self.what)


# Every field of Event: events ``v`` and the line ``t`` they cite.
_COLUMNS = {
    "id": "v.id",
    "what": "v.what",
    "when_text": "v.when_text",
    "date": "v.date",
    "precision": "v.precision",
    "who": "v.who",
    "sentence_id": "v.sentence_id",
    "episode_id": "v.episode_id",
    "quote": "coalesce(t.text, '')",
}
# When the line was said: what a recall history needs.
_TIMES = {"said_at": "(SELECT said_at FROM episodes WHERE id = v.episode_id)"}
# The tests sit in the inner join so callers can still append their WHERE.
_SOURCE = (
    "FROM events v JOIN sentences t ON t.id = v.sentence_id "
    "AND v.released_by IS NULL AND t.superseded_by IS NULL "
)

EVENTS = Select.of(_COLUMNS, _SOURCE)
EVENTS_WITH_TIMES = Select.of({**_COLUMNS, **_TIMES}, _SOURCE)


def event_from(r: Row) -> Event:
    """The Event of a row read by one of the SELECTs above."""
    return Event(
        id=int(r["id"]),
        what=str(r["what"]),
        when_text=str(r["when_text"]),
        date=None if r["date"] is None else str(r["date"]),
        precision=None if r["precision"] is None else str(r["precision"]),
        who=[str(p) for p in json.loads(str(r["who"]))],
        sentence_id=int(r["sentence_id"]),
        episode_id=int(r["episode_id"]),
        quote=str(r["quote"]),
    )


def list_events(conn: Connection, space: str) -> list[Event]:
    """Every event of ``space``, oldest date first (undated last)."""
    rows = conn.execute(
        EVENTS.sql + "WHERE v.space = ? ORDER BY v.date IS NULL, v.date, v.id", (space,)
    )
    return [event_from(r) for r in EVENTS.all_named(rows)]


@dataclass(frozen=True)
class NewEvent:
    """An event to store: what happened, its resolved date, who took part, the line it cites."""

    space: str
    what: str
    when_text: str
    date: str | None  # ISO date, resolved to ``precision``
    precision: str | None
    who: tuple[str, ...]
    sentence_id: int
    episode_id: int
    created_at: float


def insert_event(conn: Connection, event: NewEvent) -> int | None:
    """Store ``event``; its id, or None if its line already gave this very event."""
    seen = conn.execute(
        "SELECT 1 FROM events WHERE space = ? AND sentence_id = ? AND what = ?",
        (event.space, event.sentence_id, event.what),
    ).fetchone()
    if seen is not None:
        return None
    cursor = conn.execute(
        "INSERT INTO events (space, what, when_text, date, precision, who, sentence_id, "
        "episode_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (event.space, event.what, event.when_text, event.date, event.precision,
         json.dumps(list(event.who), ensure_ascii=False), event.sentence_id, event.episode_id,
         event.created_at),
    )  # fmt: skip
    return int(cursor.fetchone()[0])
