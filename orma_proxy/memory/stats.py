"""Counts and sizes of a memory database, for ``orma stats`` and ``Memory.stats()``."""

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
    database_bytes: int
    embedder: str
    dim: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def collect_stats(
    conn: aiosqlite.Connection, path: Path, space: str | None, embedder: str, dim: int
) -> Stats:
    where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())

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
        pending_vectors=await count(
            f"SELECT count(*) FROM sentences {where} {'AND' if where else 'WHERE'} embedded = 0"
        ),
        database_bytes=size,
        embedder=embedder,
        dim=dim,
    )
