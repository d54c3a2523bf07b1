"""aiosqlite's connection API on a plain connection, for jobs run inside a connection's thread.

Queries are async functions of an ``aiosqlite.Connection``. Behind aiosqlite
every statement is a trip from the event loop to the connection's thread and
back (~0.25 ms on a busy 2-core machine): an ``add()`` made five of them, a
recall a dozen, each waiting on the one before.

The writer instead runs a whole transaction in its own thread, and recall runs
its dependent queries in the reader's thread (``run_in_thread_of``). There a job gets
an ``InlineConnection``: the same class, whose one hook for reaching the
database (aiosqlite's ``_execute``, which its cursors call too) runs the call
at once instead of queueing it. Every ``await`` on it completes without
suspending, so ``run_inline`` drives the job's coroutine to its end in a single
step. A job that awaits anything else (a future, another connection) would
need the event loop: it fails at once (asyncio's "no running event loop", or
``run_inline``'s own error when it suspends) instead of hanging.

``_execute`` and ``_connection`` are aiosqlite internals: pyproject holds
aiosqlite to 0.22.x (0.21 and older were a ``Thread`` subclass), and the
writer's tests fail if either changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import aiosqlite

from orma_proxy.errors import StoreError
from orma_proxy.store.connect import Connection

T = TypeVar("T")

# Rows a cursor's async iteration fetches at a time (aiosqlite's own default).
_ITER_CHUNK = 64


class InlineConnection(aiosqlite.Connection):
    """An ``aiosqlite.Connection`` whose calls run in the calling thread."""

    def __init__(self, conn: Connection) -> None:
        super().__init__(lambda: conn, _ITER_CHUNK)
        self._connection = conn

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    def detach(self) -> Connection | None:
        """Hand the connection back to its owner to close; nothing warns at collection."""
        conn, self._connection = self._connection, None
        return conn


def run_inline(job: Callable[[aiosqlite.Connection], Awaitable[T]], conn: InlineConnection) -> T:
    """Run ``job(conn)`` to completion in this thread and return its result."""
    steps = job(conn).__await__()
    try:
        steps.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    steps.close()
    raise StoreError(
        "a write job waited on something other than its database connection; "
        "write jobs run in the writer's thread and may only use the connection they get"
    )


async def run_in_thread_of(
    conn: aiosqlite.Connection, job: Callable[[aiosqlite.Connection], Awaitable[T]]
) -> T:
    """Run ``job`` in ``conn``'s own thread, all of its statements in one trip.

    For a reader's sequence of small dependent queries (as datasette's
    ``execute_fn``): each would otherwise cost a round trip through the event
    loop, ~0.3 ms on a busy 2-core machine.
    """

    def call() -> T:
        inline = InlineConnection(conn._conn)
        try:
            return run_inline(job, inline)
        finally:
            inline.detach()

    in_its_thread = cast(Callable[[Callable[[], T]], Awaitable[T]], conn._execute)
    return await in_its_thread(call)
