"""Fills in sentence vectors in the background, so ``add()`` never waits for a model.

Pending sentences are found in the database (``embedded = 0``), so work left by
a crash or by another process is picked up at the next start. ``flush()``
waits until every sentence stored before it was called has its vector.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Vectors
from orma_proxy.errors import StoreError
from orma_proxy.store.noise import refresh_floor
from orma_proxy.store.vectors import pending_sentences, store_vectors
from orma_proxy.store.writer import Writer, refusal

log = logging.getLogger(__name__)

EmbedBatch = Callable[[list[str]], Awaitable[Vectors]]


@dataclass(frozen=True)
class _Waiter:
    """A ``flush()`` call: sentence ids up to ``through`` must have vectors."""

    through: int
    after_step: int  # only a step that started later looked at the database after us
    done: asyncio.Future[None]


class Indexer:
    """One background task embedding pending sentences in batches, oldest first.

    Sentence ids become visible in increasing order (writes are serialised), and
    each step takes the oldest pending ones. So after a step every sentence up
    to the last id it took has its vector, and after a step that found fewer
    than a full batch, every sentence it could see has one. ``flush()`` waits for
    such a step rather than for "nothing pending", which other writers may keep
    from ever happening.
    """

    def __init__(
        self, reader: aiosqlite.Connection, writer: Writer, embed: EmbedBatch, config: OrmaConfig
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._embed = embed
        self._config = config
        self._wake = asyncio.Event()
        self._steps = 0  # steps started so far
        self._waiters: list[_Waiter] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start indexing; on a read-only file there is nothing it could store."""
        if self._writer.read_only is None:
            self._task = asyncio.create_task(self._run(), name="orma-indexer")
            self.notify()

    def notify(self) -> None:
        """Something may be pending: look again."""
        self._wake.set()

    async def flush(self) -> None:
        """Wait until every sentence stored so far has its vector."""
        if self._writer.read_only is not None:
            raise refusal(self._writer.read_only)
        if self._task is None or self._task.done():
            raise StoreError("the indexer is not running (memory closed?)")
        rows = await self._reader.execute_fetchall("SELECT max(id) FROM sentences")
        through = next(iter(rows))[0]
        if through is None:
            return  # nothing stored yet
        waiter = _Waiter(int(through), self._steps, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        self.notify()
        await waiter.done

    async def close(self) -> None:
        """Stop at once; unfinished work stays pending in the database."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._answer(StoreError("memory closed before indexing finished"))

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                while await self._step():
                    pass
            except Exception as exc:  # logged, surfaced by flush(), retried on next notify
                log.warning("vector indexing failed, will retry: %s", exc)
                failure = StoreError(f"indexing failed: {exc}")
                failure.__cause__ = exc
                self._answer(failure)

    async def _step(self) -> bool:
        """Embed and store one batch; False when nothing was pending."""
        self._steps += 1
        step = self._steps
        limit = self._config.index_batch_size
        batch = await pending_sentences(self._reader, limit)
        if batch:
            vectors = await self._embed([text for _, _, text in batch])
            rows = [(sid, space) for sid, space, _ in batch]
            spaces = sorted({space for _, space in rows})

            async def write(conn: aiosqlite.Connection) -> None:
                await store_vectors(conn, rows, vectors)
                for space in spaces:
                    await refresh_floor(conn, space, self._config)

            await self._writer.submit(write)
        saw_everything = len(batch) < limit
        self._answer(None, step=step, through=None if saw_everything else batch[-1][0])
        return bool(batch)

    def _answer(
        self, error: StoreError | None, *, step: int | None = None, through: int | None = None
    ) -> None:
        """Release the waiters a finished step satisfied, or all of them with ``error``.

        ``through=None`` with a ``step`` means the step saw no more pending rows.
        """
        waiting = []
        for waiter in self._waiters:
            if waiter.done.done():
                continue  # the caller stopped waiting
            if error is not None:
                waiter.done.set_exception(error)
            elif (
                step is not None
                and waiter.after_step < step
                and (through is None or waiter.through <= through)
            ):
                waiter.done.set_result(None)
            else:
                waiting.append(waiter)
        self._waiters = waiting
