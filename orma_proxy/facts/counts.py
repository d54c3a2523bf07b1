"""How many states (current and closed) and events a database, or one space, holds."""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.store import Connection

__all__ = ["FactCounts", "fact_counts"]


@dataclass(frozen=True)
class FactCounts:
    states_active: int
    states_closed: int
    events: int


def fact_counts(conn: Connection, space: str | None) -> FactCounts:
    """The counts of ``space``, or of the whole database when None (released ones too)."""
    where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
    sql = f"SELECT active, count(*) FROM states {where} GROUP BY active"
    by_active = {int(active): int(n) for active, n in conn.execute(sql, args).fetchall()}
    events = conn.execute(f"SELECT count(*) FROM events {where}", args).fetchone()
    return FactCounts(by_active.get(1, 0), by_active.get(0, 0), int(events[0]))
