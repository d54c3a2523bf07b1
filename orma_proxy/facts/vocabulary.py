"""The names a space already uses: its attributes, its entities, the user's own name.

Sleep maps what a model proposes onto these ("hometown" onto "home_city",
"Dr Rao" onto "Dr. Rao"), so a space keeps one name for one thing.
"""

from __future__ import annotations

from orma_proxy.store import Connection

__all__ = ["current_value", "known_attributes", "known_entities"]


def known_attributes(conn: Connection, space: str) -> list[str]:
    """Every attribute a state of ``space`` has (or had)."""
    rows = conn.execute("SELECT DISTINCT attribute FROM states WHERE space = ?", (space,))
    return [str(r[0]) for r in rows]


def known_entities(conn: Connection, space: str) -> list[str]:
    """Every entity of ``space``, people and things."""
    return [str(r[0]) for r in conn.execute("SELECT name FROM entities WHERE space = ?", (space,))]


def current_value(conn: Connection, space: str, entity: str, attribute: str) -> str | None:
    """The value of ``entity``'s active ``attribute`` said last, if any."""
    row = conn.execute(
        "SELECT s.value FROM states s JOIN entities e ON e.id = s.entity_id "
        "WHERE s.space = ? AND e.name = ? AND s.attribute = ? AND s.active = 1 "
        "ORDER BY s.stated_at DESC LIMIT 1",
        (space, entity, attribute),
    ).fetchone()
    return None if row is None else str(row[0])
