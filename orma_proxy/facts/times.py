"""When each state and event came to be, and how often it was said again since.

The start of an item's recall history (recall adds the accesses it logged):
a state's ``stated_at`` and rehearsals, an event's line's ``said_at``, once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from orma_proxy.store import Connection
from orma_proxy.store.select import Select

__all__ = ["ItemTimes", "item_times"]

TimedKind = Literal["state", "event"]


@dataclass(frozen=True)
class ItemTimes:
    """When an item was first said, how many times in all, and when last said again."""

    created: float
    rehearsals: int
    rehearsed_at: float | None


# Per kind: its SELECT (ending in its space test), its id column, and its test for "every".
_SOURCES: tuple[tuple[TimedKind, Select, str, str], ...] = (
    (
        "state",
        Select.of(
            {
                "id": "id",
                "created": "stated_at",
                "rehearsals": "rehearsals",
                "rehearsed_at": "rehearsed_at",
            },
            "FROM states WHERE space = ?",
        ),
        "id",
        " AND active = 1",
    ),
    (
        "event",
        Select.of(
            {"id": "v.id", "created": "e.said_at", "rehearsals": "1", "rehearsed_at": "NULL"},
            "FROM events v JOIN episodes e ON e.id = v.episode_id WHERE v.space = ?",
        ),
        "v.id",
        "",
    ),
)


def item_times(
    conn: Connection, space: str, keys: Iterable[tuple[str, int]] | None = None
) -> dict[tuple[TimedKind, int], ItemTimes]:
    """The times of these (kind, id) items of ``space``; absent ones are left out.

    ``keys`` None means every active state and every event of ``space``.
    """
    wanted = None if keys is None else set(keys)
    found: dict[tuple[TimedKind, int], ItemTimes] = {}
    for kind, select, column, every in _SOURCES:
        ids = None if wanted is None else [n for k, n in wanted if k == kind]
        if ids == []:
            continue
        only = every if ids is None else f" AND {column} IN ({','.join('?' * len(ids))})"
        rows = conn.execute(select.sql + only, (space, *(ids or ())))
        for r in select.all_named(rows):
            rehearsed = None if r["rehearsed_at"] is None else float(r["rehearsed_at"])
            found[(kind, int(r["id"]))] = ItemTimes(
                float(r["created"]), int(r["rehearsals"]), rehearsed
            )
    return found
