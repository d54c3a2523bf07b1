"""How much each space holds: its sizes for a space picker, and a version of its graph.

The version moves whenever a state or event of the space is added, closed or
released, so a page drawing the graph reloads only when there is news.
"""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.store import Connection
from orma_proxy.store.select import Select

__all__ = ["SpaceSize", "graph_version", "space_sizes"]


@dataclass(frozen=True)
class SpaceSize:
    """A space with episodes: how many, and how many active states and events sleep drew."""

    name: str
    episodes: int
    states: int
    events: int


_SIZES = Select.of(
    {
        "name": "space",
        "episodes": "count(*)",
        "states": "(SELECT count(*) FROM states s WHERE s.space = e.space AND s.active = 1)",
        "events": "(SELECT count(*) FROM events v WHERE v.space = e.space)",
    },
    "FROM episodes e GROUP BY space ORDER BY space",
)

# Four numbers, each changed by one kind of change to the space's graph.
_VERSION = Select.of(
    {
        "states": "(SELECT count(*) FROM states WHERE space = ?1 AND active = 1 "
        "AND released_by IS NULL)",
        "last_state": "(SELECT coalesce(max(id), 0) FROM states WHERE space = ?1)",
        "events": "(SELECT count(*) FROM events WHERE space = ?1 AND released_by IS NULL)",
        "last_event": "(SELECT coalesce(max(id), 0) FROM events WHERE space = ?1)",
    },
    "",
)


def space_sizes(conn: Connection) -> list[SpaceSize]:
    """Every space with at least one episode, by name."""
    rows = conn.execute(_SIZES.sql)
    return [
        SpaceSize(str(r["name"]), int(r["episodes"]), int(r["states"]), int(r["events"]))
        for r in _SIZES.all_named(rows)
    ]


def graph_version(conn: Connection, space: str) -> str:
    """A token that changes whenever a state or event of ``space`` is added, closed or released."""
    rows = _VERSION.all_named(conn.execute(_VERSION.sql, (space,)))
    return ":".join(str(rows[0][name]) for name in _VERSION.columns)
