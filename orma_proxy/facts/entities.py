"""Entities and their links: the graph spreading activation walks.

Every state is linked to its holder and every event to the people it
involves, and both to the names they mention ("Dr. Rao", "Kothrud"). Sleep
writes the links as it applies a batch, a correction as it replaces a state,
``orma rebuild`` when it rebuilds them all.
"""

from __future__ import annotations

from collections.abc import Iterable

import aiosqlite

from orma_proxy.text.names import names_in

__all__ = ["USER", "entity_id", "link_event", "link_state"]

# The entity every first-person fact is about.
USER = "user"


async def entity_id(
    conn: aiosqlite.Connection, space: str, name: str, kind: str, now: float
) -> int:
    """The id of entity ``name`` in ``space``, created if new."""
    await conn.execute(
        "INSERT INTO entities (space, name, kind, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (space, name) DO NOTHING",
        (space, name, "user" if name == USER else kind, now),
    )
    cursor = await conn.execute(
        "SELECT id FROM entities WHERE space = ? AND name = ?", (space, name)
    )
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def _link(
    conn: aiosqlite.Connection, space: str, entity: int, kind: str, target: int
) -> None:
    await conn.execute(
        "INSERT OR IGNORE INTO entity_links (entity_id, kind, target_id, space) "
        "VALUES (?, ?, ?, ?)",
        (entity, kind, target, space),
    )


async def _link_names(
    conn: aiosqlite.Connection, space: str, text: str, kind: str, target: int, now: float
) -> None:
    """Link the people and places a value or event names ('Dr. Rao', 'Kothrud')."""
    for name in names_in(text):
        await _link(conn, space, await entity_id(conn, space, name, "thing", now), kind, target)


async def link_state(
    conn: aiosqlite.Connection, space: str, holder: int, state_id: int, value: str, now: float
) -> None:
    """Link a state to its holder and to the names its value mentions (also ``orma rebuild``)."""
    await _link(conn, space, holder, "state", state_id)
    await _link_names(conn, space, value, "state", state_id, now)


async def link_event(
    conn: aiosqlite.Connection,
    space: str,
    event_id: int,
    what: str,
    who: Iterable[str],
    now: float,
) -> None:
    """Link an event to the people it involves and the names it mentions."""
    for person in who:
        await _link(
            conn, space, await entity_id(conn, space, person, "person", now), "event", event_id
        )
    await _link_names(conn, space, what, "event", event_id, now)
