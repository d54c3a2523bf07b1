"""aiosqlite's connection API on a plain connection, for jobs run in the writer's thread.

Write jobs are async functions of an ``aiosqlite.Connection``: they share their
helpers with the readers, which do run on aiosqlite's thread. Behind aiosqlite
every statement of a job is a trip from the event loop to that thread and back
(~0.25 ms on a busy 2-core machine), and an ``add()`` makes five of them.

The writer instead runs a whole transaction in its own thread. There a job gets
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
