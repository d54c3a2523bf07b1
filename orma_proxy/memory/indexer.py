"""Fills in sentence vectors in the background, so ``add()`` never waits for a model.

Pending sentences are found in the database (``embedded = 0``), so work left by
a crash or by another process is picked up at the next start. ``flush()``
waits until every sentence stored before it was called has its vector;
``embed_first()`` embeds given sentences ahead of that backlog and waits for
those alone. After a failure (a full disk) the indexer tries again by itself
every ``index_retry_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import StoreError
from orma_proxy.store import (
    Connection,
    Reader,
    execute_fn,
    newest_sentence_id,
    pending_between,
    pending_sentences,
    prune_change_logs,
    refresh_floor,
    store_vectors,
)
from orma_proxy.store.writer import Writer, refusal

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

    EmbedBatch = Callable[[list[str]], Awaitable[Vectors]]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Waiter:
    """A ``flush()`` call: sentence ids up to ``through`` must have vectors."""

    through: int
    after_step: int  # only a step that started later looked at the database after us
    done: asyncio.Future[None]


@dataclass
class _Urgent:
    """An ``embed_first()`` call: sentence id ranges still to look at, first to last."""

    ranges: list[tuple[int, int]]
    done: asyncio.Future[None]
    on_embedded: Callable[[int], None] | None = field(default=None)


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
        self,
        reader: Reader,
        writer: Writer,
        embed: EmbedBatch,
        config: OrmaConfig,
        *,
        background: bool = True,
    ) -> None:
        """``background=False`` embeds only what ``flush()`` or ``embed_first()`` asks for."""
        self._reader = reader
        self._writer = writer
        self._embed = embed
        self._config = config
        self._wake = asyncio.Event()
        self._steps = 0  # steps started so far
        self._waiters: list[_Waiter] = []
        self._urgent: list[_Urgent] = []
        self._background = background
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
        through = await execute_fn(self._reader, newest_sentence_id)
        if through is None:
            return  # nothing stored yet
        waiter = _Waiter(through, self._steps, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        self.notify()
        await waiter.done

    async def embed_first(
        self, ranges: list[tuple[int, int]], on_embedded: Callable[[int], None] | None = None
    ) -> None:
        """Embed the pending sentences with ids in these inclusive ranges before any other
        pending work, and wait for them only; ``on_embedded(n)`` follows each batch."""
        if self._task is None or self._task.done():
            raise StoreError("the indexer is not running (memory closed?)")
        urgent = _Urgent(list(ranges), asyncio.get_running_loop().create_future(), on_embedded)
        self._urgent.append(urgent)
        self.notify()
        await urgent.done

    async def close(self) -> None:
        """Stop at once; unfinished work stays pending in the database."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._answer(StoreError("memory closed before indexing finished"))

    async def _run(self) -> None:
        retry: float | None = None  # after a failure, look again this soon without being asked
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), retry)
            self._wake.clear()
            try:
                while await self._step():
                    pass
                retry = None
            except Exception as exc:  # logged, surfaced to the waiters, retried
                log.warning("vector indexing failed, will retry: %s", exc)
                failure = StoreError(f"indexing failed: {exc}")
                failure.__cause__ = exc
                self._answer(failure)
                retry = self._config.index_retry_seconds

    async def _step(self) -> bool:
        """Embed and store one batch; False when nothing was pending (or asked for)."""
        if self._urgent:
            return await self._urgent_step()
        if not self._background and not self._waiters:
            return False
        self._steps += 1
        step = self._steps
        limit = self._config.index_batch_size
        batch = await execute_fn(self._reader, lambda c: pending_sentences(c, limit))
        await self._embed_and_store(batch)
        saw_everything = len(batch) < limit
        self._answer(None, step=step, through=None if saw_everything else batch[-1][0])
        return bool(batch)

    async def _urgent_step(self) -> bool:
        """One batch of the oldest ``embed_first()`` call, or its answer when it is done."""
        urgent = self._urgent[0]
        batch: list[tuple[int, str, str]] = []
        while urgent.ranges and not urgent.done.done():
            first, last = urgent.ranges[0]
            pending = functools.partial(
                pending_between, first=first, last=last, limit=self._config.index_batch_size
            )
            batch = await execute_fn(self._reader, pending)
            if batch:
                break
            urgent.ranges.pop(0)
        if not batch:
            self._urgent.pop(0)
            if not urgent.done.done():
                urgent.done.set_result(None)
            return True
        await self._embed_and_store(batch)
        urgent.ranges[0] = (batch[-1][0] + 1, urgent.ranges[0][1])
        if urgent.on_embedded is not None:
            urgent.on_embedded(len(batch))
        return True

    async def _embed_and_store(self, batch: list[tuple[int, str, str]]) -> None:
        if not batch:
            return
        vectors = await self._embed([text for _, _, text in batch])
        rows = [(sid, space) for sid, space, _ in batch]
        spaces = sorted({space for _, space in rows})

        def write(conn: Connection) -> None:
            store_vectors(conn, rows, vectors)
            for space in spaces:
                refresh_floor(conn, space, self._config)
            prune_change_logs(conn, self._config)

        await self._writer.execute_write_fn(write)

    def _answer(
        self, error: StoreError | None, *, step: int | None = None, through: int | None = None
    ) -> None:
        """Release the waiters a finished step satisfied, or all of them with ``error``.

        ``through=None`` with a ``step`` means the step saw no more pending rows.
        """
        if error is not None:
            for urgent in self._urgent:
                if not urgent.done.done():
                    urgent.done.set_exception(error)
            self._urgent = []
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
