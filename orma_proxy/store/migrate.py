"""Numbered SQL migrations, applied in order, each in its own transaction.

Files live in the top-level ``migrations/`` folder (shipped inside the wheel as
``orma_proxy/migrations``) and are named ``NNNN_what.sql``. Applied versions are
recorded in ``schema_migrations``. A database that knows a version this code
does not is refused before anything is written to it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import sqlean

from orma_proxy.errors import NotAnOrmaDatabaseError, SchemaTooNewError
from orma_proxy.store.connect import Connection

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LEDGER_COLUMNS = {"version", "name", "applied_at"}
_WAL_WAIT_S = 10.0  # another process switching a new file to WAL holds its lock briefly


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations_dir() -> Path:
    """The installed copy inside the package, else the source tree's top-level folder."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "migrations", package.parent / "migrations"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("Orma's migrations/ folder is missing from this installation")


def load_migrations(folder: Path | None = None) -> list[Migration]:
    """Every migration file, sorted by version; versions must be 1, 2, 3... without gaps."""
    found = []
    for path in sorted((folder or migrations_dir()).glob("*.sql")):
        match = _NAME.match(path.name)
        if match is None:
            raise ValueError(f"badly named migration file: {path.name}")
        found.append(Migration(int(match[1]), match[2], path.read_text("utf-8")))
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise ValueError("migration versions must run 1, 2, 3... without gaps")
    return found


def split_statements(sql: str) -> list[str]:
    """Cut a script into complete statements (triggers with inner ``;`` stay whole)."""
    statements, pending = [], ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlean.complete_statement(pending):
            if pending.strip():
                statements.append(pending.strip())
            pending = ""
    if pending.strip() and not pending.strip().startswith("--"):
        statements.append(pending.strip())
    return statements


def applied_version(conn: Connection) -> int:
    """The highest applied version; 0 for an empty file. Refuses foreign databases."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return 0
    foreign = NotAnOrmaDatabaseError(
        "this SQLite file holds tables but is not an Orma database; "
        "pick another path with --db or ORMA_DIR (nothing was changed)"
    )
    if "schema_migrations" not in tables:
        raise foreign
    # Other tools (Rails, many migration libraries) keep a `schema_migrations` table
    # too; ours has exactly these columns and integer versions.
    columns = {row[1] for row in conn.execute("PRAGMA table_info(schema_migrations)")}
    if columns != _LEDGER_COLUMNS:
        raise foreign
    row = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
    if row[0] is not None and not isinstance(row[0], int):
        raise foreign
    return int(row[0] or 0)


def schema_versions(conn: Connection, migrations: list[Migration] | None = None) -> tuple[int, int]:
    """The file's schema version and the latest this code knows; writes nothing.

    Refuses a foreign database, or one written by a newer Orma.
    """
    migrations = load_migrations() if migrations is None else migrations
    latest = migrations[-1].version if migrations else 0
    return refuse_newer(applied_version(conn), latest)


def refuse_newer(current: int, latest: int) -> tuple[int, int]:
    """``(current, latest)``, or ``SchemaTooNewError`` for a schema from a newer Orma."""
    if current > latest:
        raise SchemaTooNewError(
            f"this database has schema version {current}, but this Orma knows only up to "
            f"{latest}; upgrade orma-proxy (nothing was changed)"
        )
    return current, latest


def _into_wal(conn: Connection) -> None:
    """WAL mode, waiting out another process that is switching the same new file to it.

    SQLite can answer "database is locked" at once, without the busy handler, while
    another connection holds the lock a change of journal mode needs; the wait is
    bounded by ``_WAL_WAIT_S`` and the error is raised after it.
    """
    deadline = time.monotonic() + _WAL_WAIT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlean.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def migrate(conn: Connection, migrations: list[Migration] | None = None) -> int:
    """Bring the schema up to date; returns the version reached.

    Each migration runs under ``BEGIN IMMEDIATE`` and re-checks the version inside
    it, so two processes opening a new file at once apply each migration once.
    """
    migrations = load_migrations() if migrations is None else migrations
    current, _ = schema_versions(conn, migrations)
    _into_wal(conn)
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    for migration in migrations:
        if migration.version <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if applied_version(conn) >= migration.version:
                conn.execute("ROLLBACK")  # another connection applied it meanwhile
                current = migration.version
                continue
            for statement in split_statements(migration.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, time.time()),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # some errors make SQLite roll back by itself
                conn.execute("ROLLBACK")
            raise
        current = migration.version
    return current
