"""Counts and sizes of a memory database, for ``orma stats`` and ``Memory.stats()``.

``pending_sleep`` counts the episodes above each space's consolidation
watermark: what sleep has not turned into states and events yet.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import aiosqlite


@dataclass(frozen=True)
class Stats:
    path: str
    space: str | None
    spaces: int
    episodes: int
    sentences: int
    pending_vectors: int
    states_active: int
    states_closed: int
    events: int
    pending_sleep: int
    database_bytes: int
    embedder: str
    dim: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def collect_stats(
    conn: aiosqlite.Connection, path: Path, space: str | None, embedder: str, dim: int
) -> Stats:
    where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
    also = "AND" if where else "WHERE"

    async def count(sql: str) -> int:
        cursor = await conn.execute(sql, args)
        row = await cursor.fetchone()
        return int(row[0]) if row else 0

    size = sum(
        p.stat().st_size for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()
    )
    return Stats(
        path=str(path),
        space=space,
        spaces=await count(f"SELECT count(DISTINCT space) FROM episodes {where}"),
        episodes=await count(f"SELECT count(*) FROM episodes {where}"),
        sentences=await count(f"SELECT count(*) FROM sentences {where}"),
        pending_vectors=await count(f"SELECT count(*) FROM sentences {where} {also} embedded = 0"),
        states_active=await count(f"SELECT count(*) FROM states {where} {also} active = 1"),
        states_closed=await count(f"SELECT count(*) FROM states {where} {also} active = 0"),
        events=await count(f"SELECT count(*) FROM events {where}"),
        pending_sleep=await count(
            f"SELECT count(*) FROM (SELECT id, space FROM episodes {where}) e WHERE e.id > "
            "coalesce((SELECT p.last_episode_id FROM sleep_progress p WHERE p.space = e.space), 0)"
        ),
        database_bytes=size,
        embedder=embedder,
        dim=dim,
    )
