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
import logging
from collections.abc import Iterable
from typing import Literal

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import OrmaError
from orma_proxy.store import Access, add_accesses
from orma_proxy.store.connect import DatabaseError
from orma_proxy.store.writer import Writer

log = logging.getLogger(__name__)

Kind = Literal["passage", "state", "event"]
ItemKey = tuple[Kind, int]


class AccessLog:
    """Buffers accesses and writes them in one batch after a short delay."""

    def __init__(self, writer: Writer, config: OrmaConfig) -> None:
        self._writer = writer
        self._delay = config.access_flush_seconds
        self._keep = config.access_keep_per_item
        self._pending: list[Access] = []
        self._task: asyncio.Task[None] | None = None
        self._waiting = False  # the task is still sleeping: nothing taken from the buffer yet

    def record(self, space: str, keys: Iterable[ItemKey], at: float) -> None:
        """Note that recall returned ``keys`` at ``at``; written later, never awaited."""
        if self._writer.read_only is not None:
            return  # a read-only file keeps no log; recall works without it
        self._pending += [Access(space, kind, item_id, at) for kind, item_id in keys]
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
            await self._writer.execute_write_fn(lambda conn: add_accesses(conn, rows, self._keep))
        except (OrmaError, DatabaseError) as exc:  # bookkeeping never breaks recall
            log.warning("could not record %d recall accesses: %s", len(rows), exc)
