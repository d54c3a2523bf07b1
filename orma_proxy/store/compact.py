"""Making deleted bytes leave the files: VACUUM, then an emptied write-ahead log.

A DELETE only unlinks rows: their bytes stay in free pages of the database
and, in WAL mode, in old page images of the ``-wal`` file. After a purge,
``VACUUM`` rewrites the database without free pages and a ``TRUNCATE``
checkpoint copies it home and cuts the log to zero bytes.

It runs on a connection of its own, outside any transaction (VACUUM refuses
to run inside one), so the writer never has to pause mid-batch; SQLite's locks
and the busy timeout order it with the writer's transactions.
"""

from __future__ import annotations

from pathlib import Path

from orma_proxy.store.connect import open_sync
from orma_proxy.store.postgres.maintenance import pg_compact


def compact(where: Path | str, *, busy_timeout_ms: int) -> bool:
    """VACUUM the file and truncate its log; False if a reader kept the log in use.

    A reader in another process (an open ``orma`` command, a backup) can hold old
    page images in the log past the busy timeout; the next checkpoint after it
    ends overwrites them. On PostgreSQL (``where`` a URL), ``pg_compact``.
    """
    if isinstance(where, str):
        return pg_compact(where)
    path = where
    conn = open_sync(path, busy_timeout_ms=busy_timeout_ms)
    try:
        conn.execute("PRAGMA secure_delete = ON")
        conn.execute("VACUUM")
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return int(busy) == 0
    finally:
        conn.close()
