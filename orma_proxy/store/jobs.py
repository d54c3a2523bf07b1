"""Async jobs as plain sync ``fn(conn)``: for the queries written against aiosqlite's API.

Many queries are async functions of an ``aiosqlite.Connection``. ``as_sync(job)``
turns one into the plain ``fn(conn)`` that a connection's thread runs
(``store/threads.py``): the job gets an ``AsyncView`` of the DB-API connection,
with aiosqlite's public methods, each of which runs its statement at once.
Every ``await`` on it completes without suspending, so the job's coroutine runs
to its end in a single step. A job that awaits anything else (a future,
another connection) would need the event loop: it fails at once instead of
hanging.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable, Sequence
from types import TracebackType
from typing import Any, Generic, TypeVar, cast

import aiosqlite

from orma_proxy.errors import StoreError
from orma_proxy.store.connect import Connection

T = TypeVar("T")
Row = Any  # a DB-API row (a tuple)


class AsyncCursor:
    """aiosqlite's cursor methods on a DB-API cursor, each done when called."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    async def fetchone(self) -> Row | None:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Row]:
        return list(self._cursor.fetchmany() if size is None else self._cursor.fetchmany(size))

    async def fetchall(self) -> list[Row]:
        return list(self._cursor.fetchall())

    async def close(self) -> None:
        self._cursor.close()

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    @property
    def lastrowid(self) -> int | None:
        return cast(int | None, self._cursor.lastrowid)

    def __aiter__(self) -> AsyncIterator[Row]:
        return self._rows()

    async def _rows(self) -> AsyncIterator[Row]:
        for row in self._cursor:
            yield row


class _Done(Generic[T]):
    """A result both awaited and used in ``async with`` (as aiosqlite's ``execute`` is)."""

    def __init__(self, value: T) -> None:
        self._value = value

    def __await__(self) -> Generator[Any, None, T]:
        return self._value
        yield  # a generator that never suspends

    async def __aenter__(self) -> T:
        return self._value

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if isinstance(self._value, AsyncCursor):
            await self._value.close()


class AsyncView:
    """The public methods of ``aiosqlite.Connection`` that queries use, on a DB-API connection."""

    def __init__(self, conn: Connection) -> None:
        self.connection = conn

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> _Done[AsyncCursor]:
        return _Done(AsyncCursor(self.connection.execute(sql, parameters)))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> _Done[AsyncCursor]:
        return _Done(AsyncCursor(self.connection.executemany(sql, parameters)))

    def executescript(self, script: str) -> _Done[AsyncCursor]:
        return _Done(AsyncCursor(self.connection.executescript(script)))

    def execute_fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> _Done[list[Row]]:
        return _Done(list(self.connection.execute(sql, parameters).fetchall()))

    def execute_insert(self, sql: str, parameters: Sequence[Any] = ()) -> _Done[Row | None]:
        cursor = self.connection.execute(sql, parameters)
        return _Done(cursor.execute("SELECT last_insert_rowid()").fetchone())

    @property
    def in_transaction(self) -> bool:
        return bool(self.connection.in_transaction)

    @property
    def total_changes(self) -> int:
        return int(self.connection.total_changes)


def as_sync(job: Callable[[aiosqlite.Connection], Awaitable[T]]) -> Callable[[Connection], T]:
    """The plain ``fn(conn)`` that runs ``job`` on ``conn``, in the calling thread, to its end."""

    def fn(conn: Connection) -> T:
        # AsyncView has the part of aiosqlite.Connection's public API that jobs use.
        steps = job(cast(aiosqlite.Connection, AsyncView(conn))).__await__()
        try:
            steps.send(None)
        except StopIteration as done:
            return cast(T, done.value)
        steps.close()
        raise StoreError(
            "a database job waited on something other than its database connection; "
            "jobs run in the connection's thread and may only use the connection they get"
        )

    return fn


def connection_of(conn: aiosqlite.Connection) -> Connection:
    """The DB-API connection behind a job's ``conn``: an async job may call sync store functions.

    Only inside a job run through ``as_sync`` (a writer's ``submit``, a reader's
    ``execute_fn``); anywhere else the statements would run on the event loop.
    """
    view: object = conn
    if not isinstance(view, AsyncView):
        raise StoreError("this store function runs only inside a database job")
    return view.connection
