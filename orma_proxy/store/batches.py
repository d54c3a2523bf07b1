"""Sleep's log of the batches it attempted: applied, or failed with the error kept."""

from __future__ import annotations

from dataclasses import dataclass

import aiosqlite

from orma_proxy.store.select import Select


@dataclass(frozen=True)
class SleepBatch:
    """How one batch of episodes went: ``applied`` or ``failed``, by which extractor, when."""

    status: str
    extractor: str
    episodes: int
    finished_at: float
    error: str | None


_BATCHES = Select.of(
    {
        "status": "status",
        "extractor": "extractor",
        "episodes": "episodes",
        "finished_at": "finished_at",
        "error": "error",
    },
    "FROM sleep_batches ",
)


async def last_batch(conn: aiosqlite.Connection, space: str) -> SleepBatch | None:
    """The batch of ``space`` sleep attempted last; None before its first."""
    rows = await conn.execute_fetchall(
        _BATCHES.sql + "WHERE space = ? ORDER BY id DESC LIMIT 1", (space,)
    )
    found = _BATCHES.all_named(rows)
    if not found:
        return None
    r = found[0]
    error = r["error"]
    return SleepBatch(
        str(r["status"]),
        str(r["extractor"]),
        int(r["episodes"]),
        float(r["finished_at"]),
        None if error is None else str(error),
    )
