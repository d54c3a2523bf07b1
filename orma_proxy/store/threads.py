"""One way to run SQL off the event loop: a plain sync ``fn(conn)`` in the connection's thread.

As datasette's ``execute_fn``: a connection belongs to one thread, and a query
or a write job is a function of the DB-API connection submitted to it. All of
a job's statements run in one trip from the event loop (~0.25 ms each on a
busy 2-core machine when every statement makes its own trip), and the loop
never waits on SQLite. The writer (``store/writer.py``) owns one such thread,
each reader (``Reader``) another.

A PostgreSQL connection can break under a process that lives on (a server
restart, a failover, ``pg_terminate_backend``): the next job finds it lost and
opens a new one the same way the first was opened. A read that was running
when it broke runs again on the new one (reads change nothing); the writer
decides for itself what is safe to run again (``store/writer.py``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Self, TypeVar

from orma_proxy.errors import StoreError
from orma_proxy.offload import in_thread
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.postgres.connection import connect as pg_connect
from orma_proxy.store.postgres.connection import connection_lost

log = logging.getLogger(__name__)

T = TypeVar("T")


class ConnectionThread:
    """One DB-API connection, opened, used and closed in one thread of its own."""

    def __init__(
        self, pool: ThreadPoolExecutor, conn: Connection, connect: Callable[[], Connection]
    ) -> None:
        self._pool = pool
        self._conn: Connection | None = conn
        self._connect = connect

    @classmethod
    async def open(cls, connect: Callable[[], Connection], name: str) -> Self:
        """Run ``connect`` in a new thread; that thread runs every job on what it returns."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        try:
            conn = await in_thread(connect, pool=pool)
        except BaseException:
            pool.shutdown(wait=False)
            raise
        return cls(pool, conn, connect)

    async def run(self, fn: Callable[[Connection], T]) -> T:
        """``fn(conn)`` in the connection's thread; its result, or what it raised."""
        if self._conn is None:
            raise _closed()
        return await in_thread(lambda: self.call(fn), pool=self._pool)

    async def run_bare(self, fn: Callable[[], T]) -> T:
        """``fn()`` in the connection's thread, the connection untouched: for code that asks
        ``live()`` itself and handles a server still down (the writer's retries)."""
        if self._conn is None:
            raise _closed()
        return await in_thread(fn, pool=self._pool)

    def call(self, fn: Callable[[Connection], T]) -> T:
        """``fn(conn)`` here and now: for code already running in this thread."""
        return fn(self.live())

    @property
    def lost(self) -> bool:
        """Whether the connection broke (PostgreSQL's only): ``live`` will open a new one."""
        return self._conn is not None and connection_lost(self._conn)

    def live(self) -> Connection:
        """The connection, a new one if it was lost (in this thread); ``StoreError`` if closed,
        or if a new one cannot be opened (the server is still down: the next job tries again)."""
        if self._conn is None:
            raise _closed()
        if connection_lost(self._conn):
            log.warning("the connection to the database was lost; opening a new one")
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = self._connect()
        return self._conn

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
        """Run ``fn(conn)`` in the reader's thread and return its result.

        A read the lost connection broke runs once more on a new one.
        """
        return await self.run(lambda conn: self._read(fn, conn))

    def _read(self, fn: Callable[[Connection], T], conn: Connection) -> T:
        try:
            return fn(conn)
        except Exception:
            if not connection_lost(conn):
                raise
        return fn(self.live())

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
