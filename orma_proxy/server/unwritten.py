"""Exchanges the database could not take, kept in memory and recorded once it is back.

A recording that fails because the database refuses writes (a server down, a
full disk, a file turned read-only: ``store.writer.unavailable``) waits here, in
order, and one task tries the oldest again: after ``RETRY_FIRST_SECONDS``, then
doubling up to ``RETRY_MAX_SECONDS``. While any wait, new exchanges queue behind
them, so turns are stored in the order they were said. The queue is bounded
(``unwritten_turns_max`` exchanges, ``unwritten_chars_max`` characters): past
that a new exchange is dropped, logged and counted, never one already kept.
What still waits when the proxy stops is logged as lost. ``/health`` shows both
counts.

An exchange whose ``COMMIT`` was cut off (``UnsureWriteError``) may be stored
already: each retry of it looks for it first (``add_exchange(once=True)``), so
no turn is recorded twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from orma_proxy.errors import UnsureWriteError
from orma_proxy.store import unavailable

log = logging.getLogger(__name__)

RETRY_FIRST_SECONDS = 0.5
RETRY_MAX_SECONDS = 4.0


@dataclass
class Exchange:
    """One exchange to record: its turns (role, text, metadata), as first tried."""

    space: str
    said: list[tuple[str, str, dict[str, Any]]]
    heard_at: float  # when its request came (a purge since then binds it)
    at: float  # when it is stored as said: the first try's time, kept by every retry
    unsure: bool = False  # a try's COMMIT was cut off: it may be stored already

    @property
    def chars(self) -> int:
        return sum(len(text) for _, text, _ in self.said)


Write = Callable[[Exchange], Awaitable[None]]


class Unwritten:
    """The bounded queue of exchanges waiting for the database, and the task retrying them."""

    def __init__(self, write: Write, *, max_turns: int, max_chars: int) -> None:
        self._write = write
        self._max_turns = max_turns
        self._max_chars = max_chars
        self._queue: deque[Exchange] = deque()
        self._chars = 0
        self.dropped = 0  # exchanges refused because the queue was full
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Exchanges kept to record once the database takes writes again."""
        return len(self._queue)

    def keep(self, exchange: Exchange, error: BaseException | None = None) -> None:
        """Queue ``exchange`` (its try failed with ``error``, or others wait before it)."""
        if isinstance(error, UnsureWriteError):
            exchange.unsure = True
        if len(self._queue) >= self._max_turns or self._chars + exchange.chars > self._max_chars:
            self.dropped += 1
            log.error(
                "the database refuses writes and %d exchanges (%d characters) already wait: "
                "%d turn(s) of space %r NOT recorded",
                len(self._queue),
                self._chars,
                len(exchange.said),
                exchange.space,
            )
            return
        if not self._queue:
            log.warning("recording failed, kept to record once the database is back: %s", error)
        self._queue.append(exchange)
        self._chars += exchange.chars
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain(), name="orma-unwritten")

    async def close(self, grace: float) -> None:
        """Give the waiting exchanges ``grace`` seconds to be recorded; log what is lost."""
        if self._task is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._task), grace)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        if self._queue:
            log.error(
                "the proxy stops with %d exchange(s) the database never took: not recorded",
                len(self._queue),
            )

    async def _drain(self) -> None:
        """Record the oldest exchange until none waits; wait longer after each refusal."""
        wait = RETRY_FIRST_SECONDS
        while self._queue:
            await asyncio.sleep(wait)
            exchange = self._queue[0]
            try:
                await self._write(exchange)
            except Exception as exc:
                if unavailable(exc):
                    exchange.unsure = exchange.unsure or isinstance(exc, UnsureWriteError)
                    wait = min(max(wait * 2, RETRY_FIRST_SECONDS), RETRY_MAX_SECONDS)
                    continue
                log.warning(
                    "recording %d kept turn(s) of space %r failed: %s",
                    len(exchange.said),
                    exchange.space,
                    exc,
                )
            else:
                wait = 0.0  # the database is back: the rest at once
                if len(self._queue) == 1:
                    log.warning("the database took the kept exchanges: all recorded")
            self._queue.popleft()
            self._chars -= exchange.chars
