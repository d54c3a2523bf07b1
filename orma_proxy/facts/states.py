"""States: what holds (or held) for an entity, with the line each one cites.

Sleep and forgetting write them (plain sync functions of the connection, run
inside a write job); recall, the SDK and the viz page read them through the
SELECTs here, and every read of a state goes through them: a released state
(``orma release``) never comes back unless asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from orma_proxy.facts.removed import reclaim_id
from orma_proxy.store import Connection
from orma_proxy.store.select import Row, Select

__all__ = [
    "ANY_STATES",
    "STATES",
    "STATES_WITH_TIMES",
    "NewState",
    "State",
    "close_state",
    "insert_state",
    "list_facts",
    "predecessors",
    "state_by_id",
    "state_from",
]


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


# Every field of State: states ``s``, its holder ``e``, its successor ``n``, its line ``t``.
_COLUMNS = {
    "id": "s.id",
    "entity": "e.name",
    "attribute": "s.attribute",
    "value": "s.value",
    "condition": "s.condition",
    "prohibited": "s.prohibited",
    "active": "s.active",
    "since": "s.since",
    "valid_from": "s.valid_from",
    "valid_to": "s.valid_to",
    "rehearsals": "s.rehearsals",
    "sentence_id": "s.sentence_id",
    "episode_id": "s.episode_id",
    "quote": "coalesce(t.text, '')",
    "superseded_by": "s.superseded_by",
    "replaced_by": "n.value",
    "end_reason": "s.end_reason",
}
# When it was said and last said again: what a recall history needs.
_TIMES = {"stated_at": "s.stated_at", "rehearsed_at": "s.rehearsed_at"}


def _source(*, released: bool) -> str:
    # The test sits in the inner join so callers can still append their WHERE.
    shown = "" if released else " AND s.released_by IS NULL"
    return (
        f"FROM states s JOIN entities e ON e.id = s.entity_id{shown} "
        "LEFT JOIN states n ON n.id = s.superseded_by "
        "LEFT JOIN sentences t ON t.id = s.sentence_id "
    )


STATES = Select.of(_COLUMNS, _source(released=False))
ANY_STATES = Select.of(_COLUMNS, _source(released=True))  # released ones too
STATES_WITH_TIMES = Select.of({**_COLUMNS, **_TIMES}, _source(released=False))


def _time(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(float(value), UTC)


def state_from(r: Row) -> State:
    """The State of a row read by one of the SELECTs above."""
    return State(
        id=int(r["id"]),
        entity=str(r["entity"]),
        attribute=str(r["attribute"]),
        value=str(r["value"]),
        condition=str(r["condition"]),
        prohibited=bool(r["prohibited"]),
        active=bool(r["active"]),
        since=None if r["since"] is None else str(r["since"]),
        valid_from=datetime.fromtimestamp(float(r["valid_from"]), UTC),
        valid_to=_time(r["valid_to"]),
        rehearsals=int(r["rehearsals"]),
        sentence_id=int(r["sentence_id"]),
        episode_id=int(r["episode_id"]),
        quote=str(r["quote"]),
        superseded_by=None if r["superseded_by"] is None else int(r["superseded_by"]),
        replaced_by=None if r["replaced_by"] is None else str(r["replaced_by"]),
        end_reason=None if r["end_reason"] is None else str(r["end_reason"]),
    )


def list_facts(conn: Connection, space: str, *, include_history: bool = False) -> list[State]:
    """Active states of ``space`` (and, with history, closed ones), the user's first."""
    where = "WHERE s.space = ?" + ("" if include_history else " AND s.active = 1")
    rows = conn.execute(
        STATES.sql + where + " ORDER BY e.name != 'user', e.name, s.attribute, s.condition, "
        "s.stated_at, s.id",
        (space,),
    )
    return [state_from(r) for r in STATES.all_named(rows)]


def state_by_id(
    conn: Connection, space: str, state_id: int, *, released: bool = False
) -> State | None:
    """State ``state_id`` if it belongs to ``space`` (active or closed).

    A released state (hidden by ``orma release``) only with ``released``.
    """
    select = ANY_STATES if released else STATES
    sql = select.sql + "WHERE s.space = ? AND s.id = ?"
    rows = select.all_named(conn.execute(sql, (space, state_id)))
    return state_from(rows[0]) if rows else None


def predecessors(conn: Connection, space: str, state_id: int, *, max_depth: int) -> list[State]:
    """What state ``state_id`` replaced, directly or through others, oldest first.

    Walks ``superseded_by`` back at most ``max_depth`` steps; released states are left out.
    """
    rows = conn.execute(
        "WITH RECURSIVE back (id, depth) AS (SELECT id, 1 FROM states "
        "WHERE space = ? AND superseded_by = ? UNION ALL SELECT s.id, b.depth + 1 FROM states s "
        "JOIN back b ON s.superseded_by = b.id WHERE b.depth < ?) "
        + STATES.sql
        + "JOIN back b ON b.id = s.id WHERE s.space = ? ORDER BY b.depth DESC, s.id",
        (space, state_id, max_depth, space),
    )
    return [state_from(r) for r in STATES.all_named(rows)]


@dataclass(frozen=True)
class NewState:
    """A state to store: its slot (holder, attribute, condition), value and the line it cites."""

    space: str
    entity_id: int
    attribute: str
    value: str
    condition: str
    prohibited: bool
    active: bool
    since: str | None
    stated_at: float
    valid_from: float
    sentence_id: int
    episode_id: int
    created_at: float


def insert_state(conn: Connection, state: NewState) -> int:
    """Store ``state``; returns its id (sleep's apply step and a user's correction).

    A fact a redo removed and found again takes its old id back (``facts/removed.py``).
    """
    fact = (state.attribute, state.condition, state.value)
    old_id = reclaim_id(conn, state.space, state.entity_id, fact, state.sentence_id)
    values = (
        state.space,
        state.entity_id,
        state.attribute,
        state.value,
        state.condition,
        int(state.prohibited),
        int(state.active),
        state.since,
        state.stated_at,
        state.valid_from,
        state.sentence_id,
        state.episode_id,
        state.created_at,
    )
    # Without an old id the column is left out: PostgreSQL's sequence fills it, not a NULL.
    named = ("id, ", "?, ", (old_id, *values)) if old_id is not None else ("", "", values)
    cursor = conn.execute(
        f"INSERT INTO states ({named[0]}space, entity_id, attribute, value, condition, "
        "prohibited, active, since, stated_at, valid_from, sentence_id, episode_id, created_at) "
        f"VALUES ({named[1]}?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        named[2],
    )
    return int(cursor.fetchone()[0])


def close_state(
    conn: Connection,
    state_id: int,
    superseded_by: int | None,
    valid_to: float | None,
    reason: str,
) -> None:
    """Close a state; without ``valid_to`` it ends where its successor begins."""
    conn.execute(
        "UPDATE states SET active = 0, superseded_by = ?, end_reason = ?, valid_to = "
        "coalesce(?, (SELECT n.valid_from FROM states n WHERE n.id = ?)) WHERE id = ?",
        (superseded_by, reason, valid_to, superseded_by, state_id),
    )
