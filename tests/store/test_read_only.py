"""A database this process may read but not write: reads work, writes get one clear error.

Each reader is a real process for which the file modes hold (``tests.helpers.unprivileged``);
the file is checked byte for byte afterwards, and nothing may be left beside it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.store.connect import open_sync
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.unprivileged import child, on_read_only_mount, without_override

pytestmark = pytest.mark.slow

NOTES = ["My dentist is Dr. Rao in Kothrud.", "I live in Pune."]
RULE = "Never chain PowerShell commands with semicolons."


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _beside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name + "-"))


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A folder with a closed database of two notes and a rule; modes restored afterwards."""
    where = tmp_path / "a folder #1?"  # characters a file: URI must escape
    where.mkdir()
    config = OrmaConfig(home=where, db_path=where / "memory.db", enable_facts_on_record=False)
    with Memory(config=config, embedder=HashingEmbedder()) as mem:  # the notes stay lines
        for note in NOTES:
            mem.add(note)
        mem.forbid(RULE)
        mem.flush()
    assert _beside(where / "memory.db") == []
    yield where
    where.chmod(0o755)
    for path in where.iterdir():
        path.chmod(0o644)


def _read(argv: list[str]) -> dict[str, object]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    # No warning from indexing or recall bookkeeping; the one from the sleep scheduler.
    said = done.stderr.splitlines()
    assert all(line.startswith("background sleep is off: ") for line in said), done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def _assert_read_only(report: dict[str, object], db: Path, why: str) -> None:
    assert report["search"] == [NOTES[0]] or NOTES[0] in str(report["search"])
    assert NOTES[0] in str(report["recall"]) and "[FORBIDDEN: " in str(report["recall"])
    assert len(report["facts"]) == 1  # type: ignore[arg-type]
    assert report["episodes"] == 3
    assert report["export"]["episode"] == 3  # type: ignore[index]
    assert report["background_sleep"] is False  # it could only fail, again and again
    refused = (
        f"ReadOnlyError: {db} is read-only ({why}): search, recall, facts, stats and export "
        "work, but nothing can be stored or changed"
    )
    for write in ("add", "forget", "flush", "supersede"):
        assert report[write] == refused, write


def test_a_file_without_write_permission(folder: Path, tmp_path: Path) -> None:
    db = folder / "memory.db"
    before = _digest(db)
    db.chmod(0o444)
    report = _read(without_override(child(db, str(tmp_path / "out.jsonl"))))
    _assert_read_only(report, db, "this user may not write the file")
    assert _digest(db) == before
    # No -wal or -shm made by the reader: one as read-only as the file would keep
    # the owner from writing once the file is writable again.
    assert _beside(db) == []


def test_a_folder_without_write_permission(folder: Path, tmp_path: Path) -> None:
    db = folder / "memory.db"
    before = _digest(db)
    folder.chmod(0o555)
    report = _read(without_override(child(db, str(tmp_path / "out.jsonl"))))
    _assert_read_only(report, db, "this user may not write its folder, where SQLite keeps its log")
    assert _digest(db) == before and _beside(db) == []


def test_a_read_only_mount(folder: Path, tmp_path: Path) -> None:
    mounted = tmp_path / "mounted"
    mounted.mkdir()
    db = mounted / "memory.db"
    before = _digest(folder / "memory.db")
    argv = on_read_only_mount(folder, mounted, child(db, str(tmp_path / "out.jsonl")))
    _assert_read_only(_read(argv), db, "it is on a read-only file system")
    assert _digest(folder / "memory.db") == before


def test_a_reader_sees_what_a_live_writer_left_in_the_log(folder: Path, tmp_path: Path) -> None:
    """The owner's process is writing (pages in the -wal); another user reads at the same time."""
    db = folder / "memory.db"
    config = OrmaConfig(home=folder, db_path=db)
    with Memory(config=config, embedder=HashingEmbedder()) as owner:
        owner.add("My dentist moved to Baner.")
        owner.flush()
        assert (folder / "memory.db-wal").stat().st_size > 0
        for path in folder.iterdir():
            path.chmod(0o444)
        report = _read(without_override(child(db, str(tmp_path / "out.jsonl"))))
        assert report["episodes"] == 4
        assert "My dentist moved to Baner." in str(report["search"])
        assert str(report["add"]).startswith("ReadOnlyError: ")
        owner.add("The owner still writes.")  # the reader took nothing from the writer


# A writer told nothing, on a file SQLite can only read: what a file system turning
# read-only under an open memory (ext4 after an I/O error) looks like to it.
_UNWARNED_WRITER = """
import asyncio, logging, sys
# The writer's own warning that writes fail (what /health reports) is tested with the proxy;
# this script checks the refusal's message alone.
logging.basicConfig(level=logging.ERROR)
from pathlib import Path
from orma_proxy.errors import ReadOnlyError
from orma_proxy.store.writer import Writer

async def main():
    writer = await Writer.open(Path(sys.argv[1]), busy_timeout_ms=5000, synchronous="NORMAL",
                               batch_max=8)
    try:
        await writer.execute_write_fn(lambda conn: conn.execute("DELETE FROM episodes"))
    except ReadOnlyError as exc:
        print(exc)
    finally:
        await writer.close()

asyncio.run(main())
"""


def test_a_write_sqlite_refuses_is_the_same_one_line(folder: Path) -> None:
    db = folder / "memory.db"
    before = _digest(db)
    db.chmod(0o444)
    argv = without_override([sys.executable, "-c", _UNWARNED_WRITER, str(db)])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"{db} is read-only (") and "readonly database" in done.stdout
    assert done.stdout.endswith("but nothing can be stored or changed\n")
    assert _digest(db) == before


def test_a_file_that_needs_a_migration_is_one_clear_error(folder: Path, tmp_path: Path) -> None:
    db = folder / "memory.db"
    conn = open_sync(db, busy_timeout_ms=5000)
    latest = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
    conn.execute("DELETE FROM schema_migrations WHERE version = ?", (latest,))
    conn.close()
    before = _digest(db)
    db.chmod(0o444)
    report = _read(without_override(child(db, str(tmp_path / "out.jsonl"))))
    assert report == {
        "open": f"ReadOnlyError: {db} is read-only (this user may not write the file), and "
        f"this Orma must first upgrade its schema (version {latest - 1} to {latest}): open it "
        "once with write access, or read it with the Orma that wrote it"
    }
    assert _digest(db) == before
