"""Open SQLite connections with sqlite-vec loaded, the same way on every platform.

Many Pythons (pyenv builds, macOS's system Python) ship a ``sqlite3`` that cannot
load extensions, so Orma always uses ``sqlean`` (a drop-in ``sqlite3`` with a
recent SQLite that can). aiosqlite accepts any connector; ours runs on
aiosqlite's own thread, so the extension is loaded where it is used.

Every connection in a process must come from here: a second copy of SQLite
(the standard library's ``sqlite3``) on the same file in the same process does
not see these connections' POSIX locks, so it can read stale pages or checkpoint
the write-ahead log under them (SQLite's "multiple copies of SQLite" hazard).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import aiosqlite
import sqlean
import sqlite_vec

from orma_proxy.errors import NotAnOrmaDatabaseError, StoreError
from orma_proxy.text.grams import SQL_FUNCTION as GRAMS_FUNCTION
from orma_proxy.text.grams import cjk_grams

DatabaseError = sqlean.DatabaseError
Connection = Any  # a sqlean DB-API connection (sqlean ships no type stubs)

# SQLite's primary result codes for "these bytes are not a (sound) database".
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


def is_damaged(exc: BaseException) -> bool:
    """Whether a SQLite error means the file is not a database or is corrupt.

    Only these mean "not ours to touch"; a lock or a full disk is another story.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def open_sync(
    path: Path, *, busy_timeout_ms: int, read_only: bool = False, mmap_bytes: int = 0
) -> Connection:
    """A DB-API connection in autocommit mode, sqlite-vec loaded, busy timeout set.

    ``mmap_bytes`` > 0 reads the file through a memory map of that size (no
    read() call per page: a search's scattered row lookups cost ~25% less).

    Raises ``NotAnOrmaDatabaseError`` (and leaves the file alone) when the file
    is not SQLite at all, ``StoreError`` when it cannot be opened.
    """
    try:
        conn = sqlean.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
        )
    except DatabaseError as exc:  # a missing folder, no permission...
        raise StoreError(f"cannot open {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except DatabaseError as exc:
        conn.close()
        if is_damaged(exc):
            raise NotAnOrmaDatabaseError(
                f"{path} is not a SQLite database or is damaged ({exc}); nothing was changed"
            ) from exc
        raise StoreError(f"cannot read {path}: {exc}") from exc
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    # Migration 0008's triggers index each new sentence's CJK terms with it.
    conn.create_function(GRAMS_FUNCTION, 1, cjk_grams, deterministic=True)
    conn.execute("PRAGMA foreign_keys = ON")
    if read_only:
        conn.execute("PRAGMA query_only = ON")
    if mmap_bytes:
        conn.execute(f"PRAGMA mmap_size = {int(mmap_bytes)}")
    return conn


async def open_async(
    path: Path, *, busy_timeout_ms: int, read_only: bool = False, mmap_bytes: int = 0
) -> aiosqlite.Connection:
    """The same connection behind aiosqlite's thread."""
    connector = functools.partial(
        open_sync, path, busy_timeout_ms=busy_timeout_ms, read_only=read_only, mmap_bytes=mmap_bytes
    )
    conn = aiosqlite.Connection(connector, iter_chunk_size=256)
    # aiosqlite's worker thread is not a daemon: a caller who forgets close()
    # would hang the interpreter at exit. Committed data is safe in WAL either way.
    conn._thread.daemon = True
    return await conn
