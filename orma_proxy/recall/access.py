"""Recall's access log: what each recall put into the block, feeding the temporal boosts.

A reply must not wait for bookkeeping, so ``AccessLog.record`` only appends
to a buffer; one background task writes the buffer through the single writer
``access_flush_seconds`` later, in one job, however many recalls happened
meanwhile. Only the newest ``access_keep_per_item`` accesses of an item are
kept: a use older than those adds next to nothing to any boost, and reading
an item's history must stay cheap (its times are one packed value).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterable
from typing import Literal

import aiosqlite
import numpy as np

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import OrmaError
from orma_proxy.store.connect import DatabaseError
from orma_proxy.store.writer import Writer

log = logging.getLogger(__name__)

Kind = Literal["passage", "state", "event"]
ItemKey = tuple[Kind, int]
_Row = tuple[str, str, int, float]  # space, kind, item_id, at


# recall_history.times: big-endian int64 milliseconds, oldest first (migration 0007).
_TIME = np.dtype(">i8")


def pack_times(times: Iterable[float]) -> bytes:
    """Access times (Unix seconds) as ``recall_history.times`` stores them."""
    return np.round(np.asarray(sorted(times), dtype=np.float64) * 1000).astype(_TIME).tobytes()


def unpack_times(blob: bytes) -> tuple[float, ...]:
    """The Unix seconds packed by ``pack_times`` (sorted: a rebuild may append out of order)."""
    return unpack_many([blob])[0]


def unpack_many(blobs: list[bytes]) -> list[tuple[float, ...]]:
    """``unpack_times`` of each blob, converted together.

    A recall reads the histories of ~60 items: numpy's fixed cost per call made
    one conversion each ~7 µs, more than the arithmetic of all of them together.
    """
    values = (np.frombuffer(b"".join(blobs), dtype=_TIME) / 1000.0).tolist()
    out, at = [], 0
    for blob in blobs:
        end = at + len(blob) // _TIME.itemsize
        out.append(tuple(sorted(values[at:end])))
        at = end
    return out


async def read_accesses(
    conn: aiosqlite.Connection, space: str, keys: Iterable[ItemKey]
) -> dict[ItemKey, tuple[float, ...]]:
    """The kept access times of each item (oldest first); items never recalled are absent."""
    by_kind: dict[str, list[int]] = {}
    for kind, item_id in keys:
        by_kind.setdefault(kind, []).append(item_id)
    if not by_kind:
        return {}
    selects: list[str] = []
    args: list[object] = []
    for name, ids in by_kind.items():
        selects.append(
            "SELECT kind, item_id, times FROM recall_history WHERE space = ? AND kind = ? "
            f"AND item_id IN ({','.join('?' * len(ids))})"
        )
        args += [space, name, *ids]
    rows = list(await conn.execute_fetchall(" UNION ALL ".join(selects), args))
    times = unpack_many([r[2] for r in rows])
    return {(kind, int(item_id)): t for (kind, item_id, _), t in zip(rows, times, strict=True)}


async def write_accesses(conn: aiosqlite.Connection, rows: list[_Row], keep: int) -> None:
    """Add the rows to their items' histories, each trimmed to its ``keep`` newest accesses."""
    added: dict[tuple[str, str, int], list[float]] = {}
    for space, kind, item_id, at in rows:
        added.setdefault((space, kind, item_id), []).append(at)
    old: dict[tuple[str, str, int], tuple[float, ...]] = {}
    for space, kind in sorted({(space, kind) for space, kind, _ in added}):
        ids = [item_id for s, k, item_id in added if (s, k) == (space, kind)]
        found = list(
            await conn.execute_fetchall(
                "SELECT item_id, times FROM recall_history WHERE space = ? AND kind = ? "
                "AND item_id IN (SELECT value FROM json_each(?))",
                (space, kind, json.dumps(ids)),
            )
        )
        for (item_id, _), times in zip(found, unpack_many([r[1] for r in found]), strict=True):
            old[space, kind, int(item_id)] = times
    merged = [
        (*key, pack_times(sorted([*old.get(key, ()), *times])[-keep:]))
        for key, times in added.items()
    ]
    await conn.executemany(
        "INSERT INTO recall_history (space, kind, item_id, times) VALUES (?, ?, ?, ?) "
        "ON CONFLICT DO UPDATE SET times = excluded.times",
        merged,
    )


class AccessLog:
    """Buffers accesses and writes them in one batch after a short delay."""

    def __init__(self, writer: Writer, config: OrmaConfig) -> None:
        self._writer = writer
        self._delay = config.access_flush_seconds
        self._keep = config.access_keep_per_item
        self._pending: list[_Row] = []
        self._task: asyncio.Task[None] | None = None
        self._waiting = False  # the task is still sleeping: nothing taken from the buffer yet

    def record(self, space: str, keys: Iterable[ItemKey], at: float) -> None:
        """Note that recall returned ``keys`` at ``at``; written later, never awaited."""
        if self._writer.read_only is not None:
            return  # a read-only file keeps no log; recall works without it
        self._pending += [(space, kind, item_id, at) for kind, item_id in keys]
        if self._pending and (self._task is None or self._task.done()):
            self._waiting = True
            self._task = asyncio.create_task(self._later(), name="orma-access-log")

    async def flush(self) -> None:
        """Write everything buffered now (and wait for a write already under way)."""
        task = self._task
        if task is not None and not task.done() and not self._waiting:
            await asyncio.shield(task)
        await self._write()

    async def close(self) -> None:
        """Stop the delayed write and write what is buffered at once."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            if self._waiting:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._write()

    async def _later(self) -> None:
        await asyncio.sleep(self._delay)
        self._waiting = False
        await self._write()

    async def _write(self) -> None:
        rows, self._pending = self._pending, []
        if not rows:
            return
        try:
            await self._writer.submit(lambda conn: write_accesses(conn, rows, self._keep))
        except (OrmaError, DatabaseError) as exc:  # bookkeeping never breaks recall
            log.warning("could not record %d recall accesses: %s", len(rows), exc)
