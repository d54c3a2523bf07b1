"""One way to run SQL off the event loop: a plain sync ``fn(conn)`` in the connection's thread.

As datasette's ``execute_fn``: a connection belongs to one thread, and a query
or a write job is a function of the DB-API connection submitted to it. All of
a job's statements run in one trip from the event loop (~0.25 ms each on a
busy 2-core machine when every statement makes its own trip), and the loop
never waits on SQLite. The writer (``store/writer.py``) owns one such thread,
each reader (``Reader``) another.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Self, TypeVar

from orma_proxy.errors import StoreError
from orma_proxy.offload import in_thread
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.postgres.connection import connect as pg_connect

T = TypeVar("T")


class ConnectionThread:
    """One DB-API connection, opened, used and closed in one thread of its own."""

    def __init__(self, pool: ThreadPoolExecutor, conn: Connection) -> None:
        self._pool = pool
        self._conn: Connection | None = conn

    @classmethod
    async def open(cls, connect: Callable[[], Connection], name: str) -> Self:
        """Run ``connect`` in a new thread; that thread runs every job on what it returns."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        try:
            conn = await in_thread(connect, pool=pool)
        except BaseException:
            pool.shutdown(wait=False)
            raise
        return cls(pool, conn)

    async def run(self, fn: Callable[[Connection], T]) -> T:
        """``fn(conn)`` in the connection's thread; its result, or what it raised."""
        if self._conn is None:
            raise _closed()
        return await in_thread(lambda: self.call(fn), pool=self._pool)

    def call(self, fn: Callable[[Connection], T]) -> T:
        """``fn(conn)`` here and now: for code already running in this thread."""
        if self._conn is None:
            raise _closed()
        return fn(self._conn)

    async def close(self) -> None:
        """Close the connection in its thread, then end the thread. Later jobs are refused."""
        conn, self._conn = self._conn, None
        try:
            if conn is not None:
                await in_thread(conn.close, pool=self._pool)
        finally:
            self._pool.shutdown()


def _closed() -> StoreError:
    return StoreError("the database connection is closed (memory closed?)")


class Reader(ConnectionThread):
    """A connection for reads, in a thread of its own: each read is a sync ``fn(conn)`` run there.

    A single query and a chain of dependent ones alike: all the statements of
    one ``fn`` run in one trip from the event loop. WAL: it never blocks the writer.
    """

    async def execute_fn(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` in the reader's thread and return its result."""
        return await self.run(fn)

    async def create_function(
        self, name: str, num_params: int, func: Callable[..., Any], deterministic: bool = False
    ) -> None:
        """Register ``func`` on the connection, so its statements may call it."""
        await self.run(
            lambda conn: conn.create_function(name, num_params, func, deterministic=deterministic)
        )


async def open_async(
    path: Path | str, *, busy_timeout_ms: int, read_only: bool = False, mmap_bytes: int = 0
) -> Reader:
    """A ``Reader`` on ``path``, its connection opened in its own thread.

    ``path`` may be a PostgreSQL URL (a memory's ``location``): a reader on that database.
    """
    if isinstance(path, str):
        return await Reader.open(functools.partial(pg_connect, path), "orma-reader")
    connect = functools.partial(
        open_sync, path, busy_timeout_ms=busy_timeout_ms, read_only=read_only, mmap_bytes=mmap_bytes
    )
    return await Reader.open(connect, "orma-reader")


async def execute_fn(reader: Reader, fn: Callable[[Connection], T]) -> T:
    """Run ``fn(conn)`` in the thread of ``reader`` (one opened by ``open_async``)."""
    return await reader.execute_fn(fn)
