"""Looking inside a database file directly, as a test's independent witness.

Through ``sqlean`` (the SQLite Orma itself links), never the standard library's
``sqlite3`` while a memory is open in this process: two copies of SQLite in one
process do not see each other's POSIX locks, and a connection of one copy may
read stale pages or checkpoint the write-ahead log under the other.

Tests read and write a memory's file through connections of their own, as
another process would, never through the memory's private ones: ``raw``,
``rows`` and ``scalar`` read; ``reading`` is an async read-only connection for
the store and recall functions that take one; ``writing`` runs write jobs.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from orma_proxy.store import KeywordIndex, Reader, Writer, open_async
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.postgres.connection import connect

BUSY_TIMEOUT_MS = 15_000


@contextmanager
def raw(path: Path | str) -> Iterator[Connection]:
    """A read-only connection of its own to ``path`` (or to a PostgreSQL URL's database)."""
    if isinstance(path, str):
        conn = connect(path)
    else:
        conn = open_sync(path, busy_timeout_ms=BUSY_TIMEOUT_MS, read_only=True)
    try:
        yield conn
    finally:
        conn.close()


def rows(path: Path | str, sql: str, *args: object) -> list[tuple[object, ...]]:
    """Every row of ``sql``."""
    with raw(path) as conn:
        return [tuple(row) for row in conn.execute(sql, args).fetchall()]


def scalar(path: Path | str, sql: str, *args: object) -> Any:
    """The first column of the first row of ``sql``."""
    return rows(path, sql, *args)[0][0]


@asynccontextmanager
async def reading(path: Path | str) -> AsyncIterator[Reader]:
    """A read-only reader of its own on ``path`` (queries run with ``execute_fn``).

    A PostgreSQL URL gets a reader of its own on that database.
    """
    conn = await open_async(path, busy_timeout_ms=BUSY_TIMEOUT_MS, read_only=True)
    try:
        yield conn
    finally:
        await conn.close()


@asynccontextmanager
async def writing(path: Path | str) -> AsyncIterator[Writer]:
    """A writer of its own on ``path`` (another process's, as far as the memory can tell).

    A PostgreSQL URL gets a writer of its own on that database.
    """
    if isinstance(path, str):
        opened = await Writer.start(functools.partial(connect, path), path, batch_max=64)
    else:
        opened = await Writer.open(
            path, busy_timeout_ms=BUSY_TIMEOUT_MS, synchronous="NORMAL", batch_max=64
        )
    try:
        yield opened
    finally:
        await opened.close()


def held_search(
    index: KeywordIndex, conn: Connection, space: str, terms: list[str], k: int
) -> list[tuple[int, float]] | None:
    """``index.search`` after catching up on ``conn``, as a search does first (``catch_up``)."""
    index.caught_up(conn)
    return index.search(conn, space, terms, k)
