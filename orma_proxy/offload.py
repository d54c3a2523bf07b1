"""Blocking or CPU-heavy work off the event loop: one helper, ``in_thread``.

Whatever would hold the loop (the embedder, ranking, reading files, opening and
migrating the database, a backup) runs as a plain ``fn()`` in a thread: the
default pool, or a pool of the caller's own where a thread is reserved for it
(the embedder keeps one for queries and a lower-priority one for indexing; each
database connection has one that runs its SQL, ``store/threads.py``). Context
variables go with the call, as ``asyncio.to_thread`` does.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import Executor
from typing import TypeVar

T = TypeVar("T")

__all__ = ["in_thread"]


async def in_thread(fn: Callable[[], T], *, pool: Executor | None = None) -> T:
    """``fn()`` run in ``pool`` (None: the loop's default pool); its result, or what it raised."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(pool, context.run, fn)
