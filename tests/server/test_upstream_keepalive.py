"""The proxy's pool never sends a request on a connection the upstream is closing.

llama-server and uvicorn close a keep-alive connection idle for 5 s; a client
that keeps it as long can send its next request just as the close arrives and
get nothing back (a 502 to the user). This upstream makes that race certain: a
connection idle past ``IDLE_SECONDS`` is closed the moment the next request
arrives on it, unanswered.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from orma_proxy import OrmaConfig
from orma_proxy.memory.runtime import upstream_client

IDLE_SECONDS = 1.0
ANSWER = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    last = time.monotonic()
    try:
        while head := await reader.readuntil(b"\r\n\r\n"):
            length = next(
                (int(line.split(b":")[1]) for line in head.split(b"\r\n")
                 if line.lower().startswith(b"content-length:")),
                0,
            )  # fmt: skip
            await reader.readexactly(length)
            if time.monotonic() - last > IDLE_SECONDS:
                return  # gave up on this idle connection just as the request came
            writer.write(ANSWER)
            await writer.drain()
            last = time.monotonic()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


@pytest.fixture
async def upstream() -> AsyncIterator[str]:
    server = await asyncio.start_server(_serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}"


async def _twice(url: str, keepalive: float) -> list[int | str]:
    config = OrmaConfig(upstream=f"{url}/v1", upstream_keepalive_seconds=keepalive)
    outcomes: list[int | str] = []
    async with upstream_client(config) as client:
        for _ in range(2):
            try:
                outcomes.append(
                    (await client.post(f"{url}/v1/chat/completions", json={})).status_code
                )
            except httpx.HTTPError as exc:
                outcomes.append(type(exc).__name__)
            await asyncio.sleep(IDLE_SECONDS + 0.3)
    return outcomes


async def test_an_idle_connection_is_dropped_before_the_upstream_drops_it(upstream: str) -> None:
    assert await _twice(upstream, keepalive=0.5) == [200, 200]


async def test_the_race_it_prevents_is_real(upstream: str) -> None:
    """Kept longer than the upstream keeps it, the connection's next request gets nothing."""
    outcomes = await _twice(upstream, keepalive=5.0)
    assert outcomes[0] == 200 and outcomes[1] == "RemoteProtocolError"
