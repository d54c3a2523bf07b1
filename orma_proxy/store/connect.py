"""Open SQLite connections with sqlite-vec loaded, the same way on every platform.

Many Pythons (pyenv builds, macOS's system Python) ship a ``sqlite3`` that cannot
load extensions, so Orma always uses ``sqlean`` (a drop-in ``sqlite3`` with a
recent SQLite that can). A connection is opened in the thread that uses it
(``store/threads.py``), so the extension is loaded where it is used.

Every connection in a process must come from here: a second copy of SQLite
(the standard library's ``sqlite3``) on the same file in the same process does
not see these connections' POSIX locks, so it can read stale pages or checkpoint
the write-ahead log under them (SQLite's "multiple copies of SQLite" hazard).
"""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any

import sqlean

from orma_proxy.errors import NotAnOrmaDatabaseError, StoreError
from orma_proxy.text.dates import DATES_SQL_FUNCTION, date_terms_or_none
from orma_proxy.text.grams import SQL_FUNCTION as GRAMS_FUNCTION
from orma_proxy.text.grams import cjk_grams

DatabaseError = sqlean.DatabaseError
Connection = Any  # a sqlean DB-API connection (sqlean ships no type stubs)

# SQLite's primary result codes for "these bytes are not a (sound) database".
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
# ...and for "this connection may not write" (a file, folder or mount it cannot change).
_SQLITE_READONLY = 8
_SQLITE_CANTOPEN = 14


@cache
def sqlite_vec_path() -> Path:
    """sqlite-vec's loadable extension, found as ``sqlite_vec.loadable_path()`` finds it
    (``vec0`` in the package's folder) without importing the package, whose
    ``__init__`` imports numpy (~0.1 s of every command that opens a memory)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise StoreError("the sqlite-vec package is missing: pip install sqlite-vec")
    return Path(next(iter(spec.submodule_search_locations))) / "vec0"


def is_damaged(exc: BaseException) -> bool:
    """Whether a SQLite error means the file is not a database or is corrupt.

    Only these mean "not ours to touch"; a lock or a full disk is another story.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def is_read_only(exc: BaseException) -> bool:
    """Whether a SQLite error means the database cannot be written through this connection."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == _SQLITE_READONLY


def read_only_reason(path: Path) -> str | None:
    """Why this process may read the existing database at ``path`` but not write it.

    None when it may write (or the file does not exist yet). In WAL mode SQLite
    also writes two files beside the database (-wal, -shm), so those, or a
    folder where it cannot make them, count too.
    """
    if not path.is_file():
        return None
    beside = [_beside(path, suffix) for suffix in ("-wal", "-shm")]
    if _read_only_mount(path):
        why = "it is on a read-only file system"
    elif not os.access(path, os.W_OK):
        why = "this user may not write the file"
    elif any(log.exists() and not os.access(log, os.W_OK) for log in beside):
        why = "this user may not write its -wal or -shm file"
    elif not os.access(path.parent, os.W_OK | os.X_OK) and not all(p.exists() for p in beside):
        why = "this user may not write its folder, where SQLite keeps its log"
    else:
        return None
    return f"{path} is read-only ({why})"


def _read_only_mount(path: Path) -> bool:
    return hasattr(os, "statvfs") and bool(os.statvfs(path).f_flag & os.ST_RDONLY)


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _read_only_targets(path: Path) -> list[tuple[str, bool]]:
    """How to open a file this process may not write, best first: (URI, is a URI).

    SQLite's ``mode=ro`` still makes the -shm file WAL reads share, owned by
    this user and as read-only as the database: left behind, it would keep
    the owner from writing again. So a file nobody may write (no write bit, or
    a read-only mount) that no one has open (no -shm) and with no committed
    pages waiting in its log is opened ``immutable``: read as it stands,
    nothing made beside it. ``immutable`` is also the way in when ``mode=ro``
    cannot make the -shm (another user's folder) and no log exists.
    """
    uri = path.absolute().as_uri()
    shared, frozen = (f"{uri}?mode=ro", True), (f"{uri}?immutable=1", True)
    log = _beside(path, "-wal")
    if log.exists() and log.stat().st_size > 0:
        return [shared]  # only a WAL read sees the pages committed to the log
    if not _beside(path, "-shm").exists() and (
        _read_only_mount(path) or not path.stat().st_mode & 0o222
    ):
        return [frozen]
    return [shared, frozen]


def open_sync(
    path: Path, *, busy_timeout_ms: int, read_only: bool = False, mmap_bytes: int = 0
) -> Connection:
    """A DB-API connection in autocommit mode, sqlite-vec loaded, busy timeout set.

    ``mmap_bytes`` > 0 reads the file through a memory map of that size (no
    read() call per page: a search's scattered row lookups cost ~25% less).

    A ``read_only`` connection never writes. On a file this process may not
    write (``read_only_reason``) it opens it through SQLite's ``mode=ro`` or
    ``immutable`` URIs (``_read_only_targets``).

    Raises ``NotAnOrmaDatabaseError`` (and leaves the file alone) when the file
    is not SQLite at all, ``StoreError`` when it cannot be opened.
    """
    targets = [(str(path), False)]
    if read_only and read_only_reason(path) is not None:
        targets = _read_only_targets(path)
    for target, is_uri in targets:
        try:
            conn = _first_read(path, target, busy_timeout_ms, uri=is_uri)
            break
        except StoreError as exc:
            code = (getattr(exc.__cause__, "sqlite_errorcode", None) or 0) & 0xFF
            if target == targets[-1][0] or code not in (_SQLITE_READONLY, _SQLITE_CANTOPEN):
                raise
    conn.enable_load_extension(True)
    conn.load_extension(str(sqlite_vec_path()))
    conn.enable_load_extension(False)
    # Migration 0008's triggers index each new sentence's CJK terms with it.
    conn.create_function(GRAMS_FUNCTION, 1, cjk_grams, deterministic=True)
    # Migration 0012 computes the date terms of the sentences stored before it.
    conn.create_function(DATES_SQL_FUNCTION, 2, date_terms_or_none, deterministic=True)
    conn.execute("PRAGMA foreign_keys = ON")
    if read_only:
        conn.execute("PRAGMA query_only = ON")
    if mmap_bytes:
        conn.execute(f"PRAGMA mmap_size = {int(mmap_bytes)}")
    return conn


def _first_read(path: Path, target: str, busy_timeout_ms: int, *, uri: bool) -> Connection:
    """A connection to ``target`` (the path, or a ``file:`` URI) that has read the schema."""
    try:
        conn = sqlean.connect(
            target,
            isolation_level=None,
            check_same_thread=False,
            timeout=busy_timeout_ms / 1000,
            uri=uri,
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
    return conn
