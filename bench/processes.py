"""Child processes of a benchmark: a free loopback port, a ``python -m`` child, readiness.

``bench.proxy`` and ``bench.fuzz`` run the upstream, the proxy and the load client
as processes of their own, so none competes with another for a GIL.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

__all__ = [
    "STARTUP_TIMEOUT_SECONDS",
    "STOP_TIMEOUT_SECONDS",
    "child",
    "listening_socket",
    "wait_until_up",
]

ROOT = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 10.0


def listening_socket() -> socket.socket:
    """A loopback socket on a free port, bound before anyone is told the port."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextlib.asynccontextmanager
async def child(*args: str, stdout: int | None = None) -> AsyncIterator[asyncio.subprocess.Process]:
    """A ``python -m`` child process, terminated (then killed) however the block ends."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", *args, cwd=ROOT, stdout=stdout, stdin=asyncio.subprocess.DEVNULL
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT_SECONDS)
            except TimeoutError:
                process.kill()
                await process.wait()


async def wait_until_up(url: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    async with httpx.AsyncClient(trust_env=False) as client:
        while True:
            try:
                if (await client.get(url)).status_code == httpx.codes.OK:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not come up in time")
            await asyncio.sleep(0.05)
