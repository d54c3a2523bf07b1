"""The entity graph as a whole: what ``orma rebuild`` clears and links again.

Every state and event, released or not, with what ``link_state`` and
``link_event`` (``facts/entities.py``) need to link it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from orma_proxy.store import Connection, as_record, int_column, named_rows

__all__ = [
    "EventToLink",
    "StateToLink",
    "clear_links",
    "count_links",
    "events_to_link",
    "states_to_link",
]


@dataclass(frozen=True)
class StateToLink:
    """A state: its holder and the value whose names it links to."""

    id: int
    space: str
    entity_id: int
    value: str


@dataclass(frozen=True)
class EventToLink:
    """An event: what happened and who was involved."""

    id: int
    space: str
    what: str
    who: list[str]


def clear_links(conn: Connection) -> None:
    """Drop every link of the graph, in every space (the entities stay)."""
    conn.execute("DELETE FROM entity_links")


def count_links(conn: Connection) -> int:
    """How many links the graph holds, in every space."""
    return int_column(conn, "SELECT count(*) FROM entity_links")[0]


def states_to_link(conn: Connection) -> list[StateToLink]:
    """Every state of every space, in the order stored."""
    rows = named_rows(conn, "SELECT id, space, entity_id, value FROM states")
    return [as_record(StateToLink, r) for r in rows]


def events_to_link(conn: Connection) -> list[EventToLink]:
    """Every event of every space, in the order stored."""
    rows = named_rows(conn, "SELECT id, space, what, who FROM events")
    return [as_record(EventToLink, r, who=[str(n) for n in json.loads(r["who"])]) for r in rows]
