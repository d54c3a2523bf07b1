"""Zeroing what a purge frees: SQLite's ``secure_delete``, on for one write job only.

With it on, SQLite overwrites deleted content with zeros instead of leaving
it in free pages; the writer's other jobs keep the faster default.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from orma_proxy.store.connect import Connection
from orma_proxy.store.postgres.connection import is_postgres


@contextmanager
def secure_delete(conn: Connection) -> Iterator[None]:
    """Deletes inside the block zero the bytes they free; the setting is restored after.

    PostgreSQL has no such setting: ``compact``'s VACUUM is what removes the rows there.
    """
    if is_postgres(conn):
        yield
        return
    row = conn.execute("PRAGMA secure_delete").fetchone()
    previous = int(row[0]) if row else 0
    conn.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA secure_delete = {previous}")
