"""Fills in sentence vectors in the background, so ``add()`` never waits for a model.

Pending sentences are found in the database (``embedded = 0``), so work left by
a crash or by another process is picked up at the next start. ``flush()``
waits until nothing is pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Vectors
from orma_proxy.errors import StoreError
from orma_proxy.store.noise import refresh_floor
from orma_proxy.store.vectors import pending_sentences, store_vectors
from orma_proxy.store.writer import Writer

log = logging.getLogger(__name__)

EmbedBatch = Callable[[list[str]], Awaitable[Vectors]]


class Indexer:
    """One background task embedding pending sentences in batches."""

    def __init__(
        self, reader: aiosqlite.Connection, writer: Writer, embed: EmbedBatch, config: OrmaConfig
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._embed = embed
        self._config = config
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._error: Exception | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="orma-indexer")
        self.notify()

    def notify(self) -> None:
        """Something may be pending: look again."""
        self._idle.clear()
        self._wake.set()

    async def flush(self) -> None:
        """Wait until every sentence stored so far has its vector."""
        if self._task is None or self._task.done():
            raise StoreError("the indexer is not running (memory closed?)")
        self.notify()
        await self._idle.wait()
        if self._error is not None:
            raise StoreError(f"indexing failed: {self._error}") from self._error

    async def close(self) -> None:
        """Stop at once; unfinished work stays pending in the database."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                while await self._step():
                    pass
                self._error = None
            except Exception as exc:  # logged, surfaced by flush(), retried on next notify
                log.warning("vector indexing failed, will retry: %s", exc)
                self._error = exc
            self._idle.set()

    async def _step(self) -> bool:
        """Embed and store one batch; False when nothing was pending."""
        batch = await pending_sentences(self._reader, self._config.index_batch_size)
        if not batch:
            return False
        vectors = await self._embed([text for _, _, text in batch])
        rows = [(sid, space) for sid, space, _ in batch]
        spaces = sorted({space for _, space in rows})

        async def write(conn: aiosqlite.Connection) -> None:
            await store_vectors(conn, rows, vectors)
            for space in spaces:
                await refresh_floor(conn, space, self._config)

        await self._writer.submit(write)
        return True
