"""Numbered SQL migrations: order, one transaction each, the ledger, concurrent openers."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from orma_proxy.store.accesses import unpack_times
from orma_proxy.store.connect import Connection, DatabaseError, open_sync
from orma_proxy.store.migrate import load_migrations, migrate, split_statements
from tests.helpers.processes import migration_counts


def write_migrations(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, sql in files.items():
        (folder / name).write_text(sql, "utf-8")
    return folder


def tables(conn: Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[Connection]:
    c = open_sync(tmp_path / "m.db", busy_timeout_ms=2_000)
    yield c
    c.close()


def test_migrations_apply_in_order_and_are_recorded(tmp_path: Path, conn: Connection) -> None:
    folder = write_migrations(
        tmp_path / "migrations",
        {
            # 0002 only works after 0001; 0010 would sort before 0002 as text, but versions
            # must run without gaps, so order is by number.
            "0001_people.sql": "-- people\nCREATE TABLE people (id INTEGER PRIMARY KEY);\n",
            "0002_names.sql": "ALTER TABLE people ADD COLUMN name TEXT;\n"
            "INSERT INTO people (name) VALUES ('Rao');\n",
        },
    )
    migrations = load_migrations(folder)
    assert [(m.version, m.name) for m in migrations] == [(1, "people"), (2, "names")]
    assert migrate(conn, migrations) == 2
    assert conn.execute("SELECT name FROM people").fetchall() == [("Rao",)]
    ledger = conn.execute("SELECT version, name, applied_at FROM schema_migrations ORDER BY 1")
    rows = ledger.fetchall()
    assert [(v, n) for v, n, _ in rows] == [(1, "people"), (2, "names")]
    assert all(isinstance(at, float) and at > 1.7e9 for _, _, at in rows)
    assert migrate(conn, migrations) == 2  # idempotent: nothing applied twice
    assert conn.execute("SELECT count(*) FROM people").fetchone() == (1,)


def test_a_failing_migration_is_rolled_back_whole(tmp_path: Path, conn: Connection) -> None:
    good = {"0001_a.sql": "CREATE TABLE a (x);"}
    broken = {**good, "0002_b.sql": "CREATE TABLE b (x);\nINSERT INTO missing VALUES (1);"}
    with pytest.raises(DatabaseError, match="no such table: missing"):
        migrate(conn, load_migrations(write_migrations(tmp_path / "v1", broken)))
    assert "a" in tables(conn) and "b" not in tables(conn)
    assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == (1,)
    assert not conn.in_transaction
    fixed = {**good, "0002_b.sql": "CREATE TABLE b (x);"}
    assert migrate(conn, load_migrations(write_migrations(tmp_path / "v2", fixed))) == 2
    assert "b" in tables(conn)


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ({"0001_a.sql": "", "0003_c.sql": ""}, "without gaps"),
        ({"0002_b.sql": ""}, "without gaps"),
        ({"1_a.sql": ""}, "badly named"),
        ({"0001_Bad-Name.sql": ""}, "badly named"),
    ],
)
def test_badly_numbered_migrations_are_refused(
    tmp_path: Path, files: dict[str, str], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        load_migrations(write_migrations(tmp_path / "m", files))


def test_the_shipped_migrations_load_and_run_one_to_n() -> None:
    versions = [m.version for m in load_migrations()]
    assert versions == list(range(1, len(versions) + 1))


def test_statements_split_whole_even_with_triggers() -> None:
    sql = (
        "-- a comment first\n"
        "CREATE TABLE t (x);\n"
        "CREATE TRIGGER t_guard BEFORE DELETE ON t BEGIN\n"
        "  SELECT RAISE(ABORT, 'no; really');\n"
        "END;\n"
        "INSERT INTO t VALUES (';');\n"
        "-- a trailing comment\n"
    )
    statements = split_statements(sql)
    assert len(statements) == 3
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")


def test_two_connections_creating_a_new_file_at_once_apply_each_migration_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fresh.db"
    latest = load_migrations()[-1].version
    barrier = threading.Barrier(2)
    reached: list[int] = []
    errors: list[BaseException] = []

    def open_and_migrate() -> None:
        c = open_sync(path, busy_timeout_ms=15_000)
        try:
            barrier.wait()
            reached.append(migrate(c))
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)
        finally:
            c.close()

    threads = [threading.Thread(target=open_and_migrate) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert reached == [latest, latest]
    assert migration_counts(path) == [(v, 1) for v in range(1, latest + 1)]


def test_the_access_log_moves_to_one_packed_history_per_item(conn: Connection) -> None:
    shipped = load_migrations()
    migrate(conn, [m for m in shipped if m.version <= 6])
    conn.executemany(
        "INSERT INTO recall_access (space, kind, item_id, at) VALUES (?, ?, ?, ?)",
        [
            ("a", "passage", 7, 1_796_029_755.178),
            ("a", "passage", 7, 1_796_000_000.5),
            ("a", "state", 7, 1_700_000_000.0),
            ("b", "passage", 7, 1_800_000_000.25),
        ],
    )
    migrate(conn, shipped)
    histories = {
        (space, kind, item): unpack_times(times)
        for space, kind, item, times in conn.execute("SELECT * FROM recall_history")
    }
    assert histories == {
        ("a", "passage", 7): (1_796_000_000.5, 1_796_029_755.178),  # oldest first
        ("a", "state", 7): (1_700_000_000.0,),
        ("b", "passage", 7): (1_800_000_000.25,),
    }
    assert "recall_access" not in tables(conn)
