"""Relay a byte stream with the chunks that are already waiting joined into one write.

An LLM server streams one tiny HTTP chunk per token. Relayed one by one, every
token costs the proxy an HTTP chunk to frame, a trip through the ASGI stack and
a ``send()`` system call, and costs the client one chunk to parse. Reading runs
in its own task, a little ahead of the client: a slow upstream still has every
chunk sent the moment it arrives, while a fast one has whatever piled up during
the last write sent as one piece. The bytes and their order never change.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable

import anyio

# The reader stops reading the upstream while this much waits for a slow client.
AHEAD_BYTES = 256 * 1024
# The reader lets other tasks run after this much, however fast the upstream is.
YIELD_EVERY_BYTES = 16 * 1024


async def coalesced(
    chunks: AsyncIterable[bytes],
    *,
    ahead_bytes: int = AHEAD_BYTES,
    yield_every_bytes: int = YIELD_EVERY_BYTES,
) -> AsyncGenerator[bytes, None]:
    """``chunks``' bytes in order, joining those that arrived since the last one was taken.

    An error from ``chunks`` is raised after the bytes that came before it. Close
    this generator (``contextlib.aclosing``) before closing what ``chunks`` reads:
    closing stops the reading task and waits for it, even inside a cancelled scope.
    """
    pending: list[bytes] = []
    waiting = 0  # bytes in pending
    arrived = asyncio.Event()
    room = asyncio.Event()
    room.set()
    ended = False
    error: Exception | None = None

    async def read() -> None:
        nonlocal waiting, ended, error
        since_yield = 0
        try:
            async for chunk in chunks:
                pending.append(chunk)
                waiting += len(chunk)
                since_yield += len(chunk)
                arrived.set()
                if waiting >= ahead_bytes:
                    room.clear()
                    await room.wait()
                    since_yield = 0
                elif since_yield >= yield_every_bytes:
                    await asyncio.sleep(0)
                    since_yield = 0
        except Exception as exc:  # handed to the consumer, after the bytes before it
            error = exc
        finally:
            ended = True
            arrived.set()

    reader = asyncio.create_task(read())
    try:
        while True:
            if not pending and not ended:
                arrived.clear()
                await arrived.wait()
            if pending:
                data = pending[0] if len(pending) == 1 else b"".join(pending)
                pending.clear()
                waiting = 0
                room.set()
                yield data
            elif ended:
                break
        if error is not None:
            raise error
    finally:
        reader.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait({reader})
