"""The one writer: a task fed by a queue, grouping queued writes in one transaction.

Every write in a process goes through here, so SQLite sees a single writer per
process. Jobs queued while a transaction runs are committed together (group
commit), each inside its own savepoint, so one failing job never takes the
others down and never leaves half its rows behind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiosqlite

from orma_proxy.errors import StoreError

log = logging.getLogger(__name__)

T = TypeVar("T")
WriteJob = Callable[[aiosqlite.Connection], Awaitable[T]]
_Item = tuple[WriteJob[Any], "asyncio.Future[Any]"]


class Writer:
    """Serialises writes on one aiosqlite connection under ``BEGIN IMMEDIATE``."""

    def __init__(self, conn: aiosqlite.Connection, *, batch_max: int) -> None:
        self._conn = conn
        self._batch_max = batch_max
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="orma-writer")

    async def submit(self, job: WriteJob[T]) -> T:
        """Run ``job(conn)`` inside a write transaction; returns once committed."""
        if self._task is None or self._task.done():
            raise StoreError("the database writer is not running (memory closed?)")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((job, future))
        return await future

    async def close(self) -> None:
        """Finish what is queued, then stop."""
        if self._task is None:
            return
        self._queue.put_nowait(None)
        await self._task
        self._task = None

    async def _run(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < self._batch_max and not self._queue.empty():
                more = self._queue.get_nowait()
                if more is None:
                    stop = True
                    break
                batch.append(more)
            await self._apply(batch)
            if stop:
                return

    async def _apply(self, batch: list[_Item]) -> None:
        conn = self._conn
        try:
            await conn.execute("BEGIN IMMEDIATE")
        except Exception as exc:  # a lock held past busy_timeout, disk full...
            for _, future in batch:
                _fail(future, StoreError(f"could not start a write: {exc}"))
            return
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        for job, future in batch:
            await conn.execute("SAVEPOINT job")
            try:
                result = await job(conn)
            except Exception as exc:
                await conn.execute("ROLLBACK TO job")
                await conn.execute("RELEASE job")
                outcomes.append((future, None, exc))
            else:
                await conn.execute("RELEASE job")
                outcomes.append((future, result, None))
        try:
            await conn.execute("COMMIT")
        except Exception as exc:
            log.warning("commit failed, rolling back %d writes: %s", len(batch), exc)
            await conn.execute("ROLLBACK")
            for _, future in batch:
                _fail(future, StoreError(f"could not commit: {exc}"))
            return
        for future, result, error in outcomes:
            if future.done():
                continue
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
