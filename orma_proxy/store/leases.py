"""Sleep's lease rows: who may consolidate a space, and until when.

Taken, checked and given back inside the writer's transaction (``BEGIN
IMMEDIATE``), so two processes cannot both win a space; what a lease is for
is sleep's business (``sleep/lease.py``). A purge takes a lease away too
(``store/erase.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.postgres.connection import is_postgres

__all__ = ["Lease", "claim_lease", "drop_lease", "lease_of"]


@dataclass(frozen=True)
class Lease:
    """Who holds a space's lease, and when it lapses (seconds since the epoch)."""

    holder: str
    expires_at: float


def claim_lease(conn: Connection, space: str, holder: str, *, until: float, now: float) -> bool:
    """Take (or extend) the lease on ``space`` until ``until`` unless another holder's is
    still running at ``now``; whether ``holder`` holds it afterwards."""
    conn.execute(
        "INSERT INTO sleep_leases (space, holder, expires_at) VALUES (?, ?, ?) "
        "ON CONFLICT (space) DO UPDATE SET holder = excluded.holder, "
        "expires_at = excluded.expires_at "
        "WHERE sleep_leases.expires_at < ? OR sleep_leases.holder = excluded.holder",
        (space, holder, until, now),
    )
    lease = lease_of(conn, space)
    return lease is not None and lease.holder == holder


def drop_lease(conn: Connection, space: str, holder: str) -> None:
    """Give the lease on ``space`` back, if ``holder`` still holds it."""
    conn.execute("DELETE FROM sleep_leases WHERE space = ? AND holder = ?", (space, holder))


def lease_of(conn: Connection, space: str) -> Lease | None:
    """The lease on ``space``, expired or not; None if nobody ever took it (or gave it back).

    On PostgreSQL the row stays locked until the transaction ends (``FOR UPDATE``):
    a replica claiming the lease meanwhile waits for this transaction (an apply that
    checked it holds the lease) to commit, as SQLite's one writer at a time would.
    """
    sql = "SELECT holder, expires_at FROM sleep_leases WHERE space = ?"
    row = conn.execute(sql + (" FOR UPDATE" if is_postgres(conn) else ""), (space,)).fetchone()
    if row is None:
        return None
    holder, expires_at = row
    return Lease(holder=str(holder), expires_at=float(expires_at))
