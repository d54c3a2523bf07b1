"""How much a database (or one space of it) holds, and what is still waiting on it.

``pending_sleep`` counts the episodes above each space's consolidation
watermark: what sleep has not turned into states and events yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.store.connect import Connection


@dataclass(frozen=True)
class Counts:
    """Spaces, episodes and sentences; sentences without a vector, episodes not slept on."""

    spaces: int
    episodes: int
    sentences: int
    pending_vectors: int
    pending_sleep: int


def counts(conn: Connection, space: str | None) -> Counts:
    """The counts of ``space``, or of the whole database when None."""
    where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
    also = "AND" if where else "WHERE"

    def count(sql: str) -> int:
        row = conn.execute(sql, args).fetchone()
        return int(row[0]) if row else 0

    return Counts(
        spaces=count(f"SELECT count(DISTINCT space) FROM episodes {where}"),
        episodes=count(f"SELECT count(*) FROM episodes {where}"),
        sentences=count(f"SELECT count(*) FROM sentences {where}"),
        pending_vectors=count(f"SELECT count(*) FROM sentences {where} {also} embedded = 0"),
        pending_sleep=count(
            f"SELECT count(*) FROM (SELECT id, space FROM episodes {where}) e WHERE e.id > "
            "coalesce((SELECT p.last_episode_id FROM sleep_progress p WHERE p.space = e.space), 0)"
        ),
    )


def database_bytes(conn: Connection) -> int:
    """How many bytes a PostgreSQL memory's database takes on its server (its files and WAL
    are the server's, so no file to measure)."""
    return int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])
