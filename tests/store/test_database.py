"""Where the database lives, how it is opened, and what it refuses to touch."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.errors import NotAnOrmaDatabaseError, SchemaTooNewError, StoreError
from orma_proxy.store.connect import open_sync, sqlite_vec_path
from orma_proxy.store.migrate import load_migrations
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import scalar


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in ``folder``: its bytes and modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def make_orma_db(path: Path) -> None:
    with Memory(path=path, embedder=HashingEmbedder()) as mem:
        for n in range(10):
            mem.add(f"Note {n}: the ferry to the island leaves at seven. " * 40)


def test_default_location_is_home_dot_orma(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORMA_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert OrmaConfig().resolved_db_path() == tmp_path / ".orma" / "memory.db"
    with Memory(embedder=HashingEmbedder()) as mem:
        mem.add("Stored in the default place.")
        assert mem.path == tmp_path / ".orma" / "memory.db"
    assert (tmp_path / ".orma" / "memory.db").is_file()


def test_orma_dir_overrides_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ORMA_DIR", str(tmp_path / "elsewhere"))
    assert OrmaConfig().resolved_db_path() == tmp_path / "elsewhere" / "memory.db"
    with Memory(embedder=HashingEmbedder()) as mem:
        mem.add("Stored where ORMA_DIR says.")
    assert (tmp_path / "elsewhere" / "memory.db").is_file()
    assert not (tmp_path / "home").exists()


def test_an_explicit_path_wins_over_orma_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORMA_DIR", str(tmp_path / "orma_dir"))
    chosen = tmp_path / "nested" / "mine.db"
    with Memory(path=str(chosen), embedder=HashingEmbedder()) as mem:
        mem.add("Stored exactly where asked.")
        assert mem.path == chosen
    assert chosen.is_file()
    assert not (tmp_path / "orma_dir" / "memory.db").exists()


def test_the_database_is_in_wal_mode(mem: Memory) -> None:
    mem.add("Readers never block the writer.")
    assert scalar(mem.path, "PRAGMA journal_mode") == "wal"


def test_a_newer_schema_is_refused_and_left_byte_for_byte_alone(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    make_orma_db(path)
    conn = sqlite3.connect(path)
    future = load_migrations()[-1].version + 1
    conn.execute("INSERT INTO schema_migrations VALUES (?, 'from_the_future', 0)", (future,))
    conn.commit()
    conn.close()
    before = snapshot(tmp_path)
    with pytest.raises(SchemaTooNewError, match=f"schema version {future}.*nothing was changed"):
        Memory(path=path, embedder=HashingEmbedder())
    assert snapshot(tmp_path) == before


def _random_bytes(path: Path) -> None:
    path.write_bytes(os.urandom(64 * 1024))


def _text_file(path: Path) -> None:
    path.write_text("# My notes\n\nThis is a Markdown file, not a database.\n", "utf-8")


def _damaged_orma_db(path: Path) -> None:
    """A real Orma file whose first page survived and whose other pages are garbage."""
    make_orma_db(path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = os.urandom(len(data) - page)
    path.write_bytes(bytes(data))


def _sqlite_with(*statements: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        conn = sqlite3.connect(path)
        for statement in statements:
            conn.execute(statement)
        conn.commit()
        conn.close()

    return make


_foreign_sqlite = _sqlite_with(
    "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)",
    "INSERT INTO invoices (total) VALUES (12.5)",
)
# Rails and many migration tools keep a `schema_migrations` table of their own.
_other_tools_schema_migrations = _sqlite_with(
    "CREATE TABLE schema_migrations (version VARCHAR PRIMARY KEY)",
    "INSERT INTO schema_migrations VALUES ('20240101120000_create_users')",
)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_random_bytes, "not a SQLite database"),
        (_text_file, "not a SQLite database"),
        (_damaged_orma_db, "damaged"),
        (_foreign_sqlite, "not an Orma database"),
        (_other_tools_schema_migrations, "not an Orma database"),
    ],
)
def test_a_file_that_is_not_an_orma_database_is_refused_untouched(
    tmp_path: Path, make: Callable[[Path], None], message: str
) -> None:
    path = tmp_path / "memory.db"
    make(path)
    before = snapshot(tmp_path)
    with pytest.raises(NotAnOrmaDatabaseError, match=message):
        Memory(path=path, embedder=HashingEmbedder())
    assert snapshot(tmp_path) == before


def test_a_directory_at_the_database_path_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "memory.db").mkdir()
    with pytest.raises(StoreError, match="is a directory"):
        Memory(path=tmp_path / "memory.db", embedder=HashingEmbedder())


def test_opening_takes_no_write_lock_so_a_long_write_elsewhere_does_not_block_it(
    tmp_path: Path,
) -> None:
    """A CLI search must open while the proxy writes a 10 MB message (seconds of lock)."""
    path = tmp_path / "m.db"
    make_orma_db(path)
    writer = open_sync(path, busy_timeout_ms=1_000)
    try:
        writer.execute("BEGIN IMMEDIATE")  # another process, mid-way through a long write
        writer.execute("INSERT INTO meta (key, value) VALUES ('holding', 'the lock')")
        config = OrmaConfig(home=tmp_path, db_path=path, busy_timeout_ms=200)
        with Memory(config=config, embedder=HashingEmbedder()) as mem:
            assert mem.search("ferry to the island").passages
        writer.execute("ROLLBACK")
    finally:
        writer.close()


def test_sqlite_vec_is_loaded_from_where_its_package_says(tmp_path: Path) -> None:
    """The extension is found without importing ``sqlite_vec`` (whose ``__init__`` imports
    numpy), at the path the package itself names, and it works."""
    import sqlite_vec

    assert sqlite_vec_path() == Path(sqlite_vec.loadable_path())
    conn = open_sync(tmp_path / "vec.db", busy_timeout_ms=1000)
    try:
        assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")
    finally:
        conn.close()
