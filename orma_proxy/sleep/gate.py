"""Chat first: the hook through which the proxy tells sleep that a chat request is in flight.

Local servers (llama.cpp, llama-cpp-python, Ollama with one slot) answer one
request at a time, so a consolidation call running when a user asks something
would make the user wait. The proxy wraps each chat request in
``with gate.chat():``; sleep starts its LLM call only while no chat is in
flight, and abandons (then later repeats) a call that a chat overtook.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


class UpstreamGate:
    """Counts chat requests in flight; sleep's LLM calls run only when none is."""

    def __init__(self) -> None:
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._busy = asyncio.Event()
        self.yields = 0  # LLM calls abandoned for a chat, for reports and tests

    @property
    def busy(self) -> bool:
        return self._in_flight > 0

    def chat_started(self) -> None:
        self._in_flight += 1
        self._idle.clear()
        self._busy.set()

    def chat_finished(self) -> None:
        self._in_flight = max(0, self._in_flight - 1)
        if self._in_flight == 0:
            self._busy.clear()
            self._idle.set()

    @contextlib.contextmanager
    def chat(self) -> Iterator[None]:
        """Mark one chat request in flight for the duration of the block."""
        self.chat_started()
        try:
            yield
        finally:
            self.chat_finished()

    async def wait_idle(self) -> None:
        await self._idle.wait()

    async def run_when_idle(self, call: Callable[[], Awaitable[T]]) -> T:
        """Run ``call()`` while no chat is in flight; restart it if a chat arrives meanwhile."""
        while True:
            await self._idle.wait()
            task: asyncio.Future[T] = asyncio.ensure_future(call())
            overtaken: asyncio.Future[Any] = asyncio.ensure_future(self._busy.wait())
            waiters: set[asyncio.Future[Any]] = {task, overtaken}
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                overtaken.cancel()
            if task.done():
                return task.result()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            self.yields += 1
