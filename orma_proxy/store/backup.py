"""``orma backup``: a consistent copy of the database while it is in use.

SQLite's online backup API copies every page of one read snapshot, so a proxy
writing meanwhile neither waits nor leaves a torn copy. The copy is written
beside the target and renamed into place once it is complete and checked, and
it is a single self-contained file (rollback journal mode; Orma switches it
back to WAL when it opens it).
"""

from __future__ import annotations

import os
from pathlib import Path

from orma_proxy.errors import InputError, StoreError
from orma_proxy.store.connect import DatabaseError, open_sync


def backup(where: Path | str, target: Path, *, busy_timeout_ms: int) -> int:
    """Copy the database at ``where`` to ``target`` (which must not exist); returns its size.

    Missing folders on the way to ``target`` are made, as ``orma backup DIR/x.db`` asks."""
    if isinstance(where, str):
        raise InputError(
            "this memory is in PostgreSQL: back it up with pg_dump (or your host's backups), "
            "or copy it with `orma export`"
        )
    path = where
    if target.exists():
        raise InputError(f"{target} already exists; pick a new file for the backup")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise InputError(f"{target.parent} is not a folder") from exc
    except OSError as exc:
        raise StoreError(f"cannot create {target.parent}: {exc.strerror}") from exc
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = open_sync(path, busy_timeout_ms=busy_timeout_ms, read_only=True)
    try:
        copy = open_sync(partial, busy_timeout_ms=busy_timeout_ms)
        try:
            source.backup(copy)  # all pages in one step: one snapshot
            copy.execute("PRAGMA journal_mode = DELETE")
            verdict = copy.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            copy.close()
    except DatabaseError as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"backup of {path} failed: {exc}") from exc
    finally:
        source.close()
    if verdict != "ok":
        partial.unlink(missing_ok=True)
        raise StoreError(f"the backup of {path} failed its check ({verdict}); nothing was kept")
    os.replace(partial, target)
    return target.stat().st_size
