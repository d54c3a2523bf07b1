"""One consolidation per space at a time, across processes: a lease row with an expiry.

The proxy, the MCP server and ``orma sleep`` may all run on one file. Taking
the lease is one ``BEGIN IMMEDIATE`` transaction through the writer, so two
processes cannot both win; a holder that crashed leaves a row that simply
expires. Each run has its own holder id, so two runs in one process exclude
each other too.
"""

from __future__ import annotations

import os
import time
import uuid

import aiosqlite

from orma_proxy.errors import LeaseHeldError
from orma_proxy.store.writer import Writer


def new_holder() -> str:
    """A holder id unique to one consolidation run (pid for humans, uuid for uniqueness)."""
    return f"pid{os.getpid()}-{uuid.uuid4().hex[:12]}"


async def _claim(conn: aiosqlite.Connection, space: str, holder: str, seconds: float) -> bool:
    now = time.time()
    await conn.execute(
        "INSERT INTO sleep_leases (space, holder, expires_at) VALUES (?, ?, ?) "
        "ON CONFLICT (space) DO UPDATE SET holder = excluded.holder, "
        "expires_at = excluded.expires_at "
        "WHERE sleep_leases.expires_at < ? OR sleep_leases.holder = excluded.holder",
        (space, holder, now + seconds, now),
    )
    cursor = await conn.execute("SELECT holder FROM sleep_leases WHERE space = ?", (space,))
    row = await cursor.fetchone()
    return row is not None and row[0] == holder


async def acquire(writer: Writer, space: str, holder: str, seconds: float) -> bool:
    """Take (or extend) the lease on ``space``; False if someone else holds it."""
    return await writer.submit(lambda conn: _claim(conn, space, holder, seconds))


async def release(writer: Writer, space: str, holder: str) -> None:
    """Give the lease back (only if it is still ours)."""

    async def job(conn: aiosqlite.Connection) -> None:
        await conn.execute(
            "DELETE FROM sleep_leases WHERE space = ? AND holder = ?", (space, holder)
        )

    await writer.submit(job)


async def check_held(conn: aiosqlite.Connection, space: str, holder: str) -> None:
    """Inside a write transaction: refuse to go on if the lease passed to someone else."""
    cursor = await conn.execute(
        "SELECT holder, expires_at FROM sleep_leases WHERE space = ?", (space,)
    )
    row = await cursor.fetchone()
    if row is None or row[0] != holder or float(row[1]) < time.time():
        raise LeaseHeldError(f"the lease on space {space!r} is no longer ours")
