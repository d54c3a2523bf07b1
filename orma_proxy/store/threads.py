"""One way to run SQL off the event loop: a plain sync ``fn(conn)`` in the connection's thread.

As datasette's ``execute_fn``: a connection belongs to one thread, and a query
or a write job is a function of the DB-API connection submitted to it. All of
a job's statements run in one trip from the event loop (~0.25 ms each on a
busy 2-core machine when every statement makes its own trip), and the loop
never waits on SQLite. The writer (``store/writer.py``) owns one such thread;
the reader (``Reader``) owns another for its chains of dependent queries, and
keeps aiosqlite's connection (public API only) for single queries.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from orma_proxy.errors import StoreError
from orma_proxy.offload import in_thread
from orma_proxy.store.connect import Connection, open_sync

T = TypeVar("T")

# Rows aiosqlite's cursors fetch at a time when iterated.
_ITER_CHUNK = 256


class ConnectionThread:
    """One DB-API connection, opened, used and closed in one thread of its own."""

    def __init__(self, pool: ThreadPoolExecutor, conn: Connection) -> None:
        self._pool = pool
        self._conn: Connection | None = conn

    @classmethod
    async def open(cls, connect: Callable[[], Connection], name: str) -> ConnectionThread:
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


class Reader(aiosqlite.Connection):
    """A read-only aiosqlite connection, with ``execute_fn`` for chains of dependent reads.

    Single queries go through aiosqlite as usual; ``execute_fn(fn)`` runs a
    sync ``fn(conn)`` in a second connection's own thread, all its statements
    in one trip. Both read the same file (WAL: neither blocks the writer).
    """

    def __init__(self, connect: Callable[[], Connection], chains: ConnectionThread) -> None:
        super().__init__(connect, _ITER_CHUNK)
        self.chains = chains

    async def execute_fn(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` in the chain connection's thread and return its result."""
        return await self.chains.run(fn)

    async def create_function(
        self, name: str, num_params: int, func: Callable[..., Any], deterministic: bool = False
    ) -> None:
        """Register ``func`` on both connections, so single queries and chains may call it."""
        await super().create_function(name, num_params, func, deterministic)
        await self.chains.run(
            lambda conn: conn.create_function(name, num_params, func, deterministic=deterministic)
        )

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            await self.chains.close()


async def open_async(
    path: Path, *, busy_timeout_ms: int, read_only: bool = False, mmap_bytes: int = 0
) -> Reader:
    """A ``Reader`` on ``path``: its two connections, each behind its own thread."""
    connect = functools.partial(
        open_sync, path, busy_timeout_ms=busy_timeout_ms, read_only=read_only, mmap_bytes=mmap_bytes
    )
    chains = await ConnectionThread.open(connect, "orma-reader")
    try:
        # aiosqlite's worker thread is not a daemon, and a caller who forgets close()
        # would hang the interpreter at exit. A thread takes its daemon flag from the
        # thread that creates it, so the connection is made in a daemon thread.
        reader = _made_in_daemon_thread(lambda: Reader(connect, chains))
        await reader
        return reader
    except BaseException:
        await chains.close()
        raise


def _made_in_daemon_thread(make: Callable[[], T]) -> T:
    made: list[T] = []
    maker = threading.Thread(target=lambda: made.append(make()), daemon=True)
    maker.start()
    maker.join()
    if not made:
        raise StoreError("could not set up the database reader")
    return made[0]


async def execute_fn(conn: aiosqlite.Connection, fn: Callable[[Connection], T]) -> T:
    """Run ``fn(conn)`` in the thread of the reader ``conn`` (one opened by ``open_async``)."""
    if not isinstance(conn, Reader):
        raise StoreError("execute_fn needs a reader opened by orma_proxy.store.open_async")
    return await conn.execute_fn(fn)
