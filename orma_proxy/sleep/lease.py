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

from orma_proxy.errors import LeaseHeldError
from orma_proxy.store import Connection, Writer, claim_lease, drop_lease, lease_of


def new_holder() -> str:
    """A holder id unique to one consolidation run (pid for humans, uuid for uniqueness)."""
    return f"pid{os.getpid()}-{uuid.uuid4().hex[:12]}"


def _claim(conn: Connection, space: str, holder: str, seconds: float) -> bool:
    now = time.time()
    return claim_lease(conn, space, holder, until=now + seconds, now=now)


async def acquire(writer: Writer, space: str, holder: str, seconds: float) -> bool:
    """Take (or extend) the lease on ``space``; False if someone else holds it."""
    return await writer.execute_write_fn(lambda conn: _claim(conn, space, holder, seconds))


async def release(writer: Writer, space: str, holder: str) -> None:
    """Give the lease back (only if it is still ours)."""
    await writer.execute_write_fn(lambda conn: drop_lease(conn, space, holder))


def check_held(conn: Connection, space: str, holder: str) -> None:
    """Inside a write transaction: refuse to go on if the lease passed to someone else."""
    lease = lease_of(conn, space)
    if lease is None or lease.holder != holder or lease.expires_at < time.time():
        raise LeaseHeldError(f"the lease on space {space!r} is no longer ours")
