"""PostgreSQL's own numbered migrations (``migrations/postgres/NNNN_what.sql``), applied at open.

Recorded in ``schema_migrations`` as SQLite's are. Each runs in one transaction
holding an advisory lock, and re-checks the version inside it, so replicas
opening a new database at once apply each migration once. A database with
tables but no Orma ledger, or a newer schema than this code knows, is refused
before anything is written.
"""

from __future__ import annotations

import time

from orma_proxy.errors import NotAnOrmaDatabaseError
from orma_proxy.store.migrate import Migration, load_migrations, migrations_dir, refuse_newer
from orma_proxy.store.postgres.connection import PgConnection

# pg_advisory_xact_lock's key for migrating: any fixed number, the same in every replica.
_LOCK = 0x6F726D61  # "orma"
_LEDGER_COLUMNS = {"version", "name", "applied_at"}


def postgres_migrations() -> list[Migration]:
    """Every PostgreSQL migration, in order (1, 2, 3... without gaps)."""
    return load_migrations(migrations_dir() / "postgres")


def applied_version(conn: PgConnection) -> int:
    """The highest applied version; 0 for an empty database. Refuses foreign ones."""
    tables = {
        str(r[0])
        for r in conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        ).fetchall()
    }
    if not tables:
        return 0
    columns = {
        str(r[0])
        for r in conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = 'schema_migrations'"
        ).fetchall()
    }
    if columns != _LEDGER_COLUMNS:
        raise NotAnOrmaDatabaseError(
            "this PostgreSQL schema holds tables but is not an Orma database; "
            "point --db at an empty database (nothing was changed)"
        )
    row = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def schema_versions(conn: PgConnection) -> tuple[int, int]:
    """The database's schema version and the latest this code knows; writes nothing."""
    return refuse_newer(applied_version(conn), len(postgres_migrations()))


def migrate(conn: PgConnection) -> int:
    """Bring the schema up to date; returns the version reached."""
    migrations = postgres_migrations()
    current, latest = schema_versions(conn)
    for migration in migrations[current:]:
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, "
                "name text NOT NULL, applied_at double precision NOT NULL)"
            )
            if applied_version(conn) < migration.version:  # else another replica did it
                conn.raw.execute(migration.sql)  # a whole script: no parameters, as written
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, time.time()),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return latest
