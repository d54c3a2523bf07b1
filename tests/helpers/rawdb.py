"""Looking inside a database file directly, as a test's independent witness.

Through ``sqlean`` (the SQLite Orma itself links), never the standard library's
``sqlite3`` while a memory is open in this process: two copies of SQLite in one
process do not see each other's POSIX locks, and a connection of one copy may
read stale pages or checkpoint the write-ahead log under the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from orma_proxy.store.connect import Connection, open_sync


@contextmanager
def raw(path: Path) -> Iterator[Connection]:
    """A read-only connection of its own to ``path``."""
    conn = open_sync(path, busy_timeout_ms=15_000, read_only=True)
    try:
        yield conn
    finally:
        conn.close()


def rows(path: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    """Every row of ``sql``."""
    with raw(path) as conn:
        return [tuple(row) for row in conn.execute(sql, args).fetchall()]


def scalar(path: Path, sql: str, *args: object) -> object:
    """The first column of the first row of ``sql``."""
    return rows(path, sql, *args)[0][0]
