"""``orma add`` of files in pieces, its own embedding, a full disk and a late bad byte.

Issue 15, items 9 (a full disk never makes a stored note "failed"), 10 (files
stream in pieces; add embeds its own sentences only; ``--no-wait``) and 12
(the binary check covers the whole file, not its first 8 KB).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import orma_proxy.store.writer as writer_module
from tests.helpers.cli import Orma
from tests.helpers.rawdb import raw

FullDisk = Callable[[int | None], None]


def _json(result: Any) -> dict[str, Any]:
    assert result.exit_code in (0, 1, 2), result.stderr
    payload: dict[str, Any] = json.loads(result.stdout)
    return payload


def _stats(orma: Orma, db: Path, *extra: str) -> dict[str, Any]:
    result = orma("stats", "--db", db, "--json", *extra)
    assert result.exit_code == 0, result.stderr
    stats: dict[str, Any] = json.loads(result.stdout)
    return stats


def _texts(orma: Orma, db: Path, query: str, *extra: str) -> list[str]:
    result = orma("search", query, "--db", db, "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return [p["text"] for p in json.loads(result.stdout)["passages"]]


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch, db: Path) -> Iterator[FullDisk]:
    """``full_disk(n)``: the next memory's writer may grow the file by ``n`` pages at most;
    ``full_disk(None)`` frees the disk again.

    SQLite's ``max_page_count`` makes it fail exactly as on a full disk
    (SQLITE_FULL, "database or disk is full") once the file would grow past it.
    """
    connect = writer_module._connect

    def limit(extra_pages: int | None) -> None:
        if extra_pages is None:
            monkeypatch.setattr(writer_module, "_connect", connect)
            return
        with raw(db) as conn:
            pages = int(conn.execute("PRAGMA page_count").fetchone()[0])

        def limited(path: Path, busy_timeout_ms: int, synchronous: str) -> Any:
            conn = connect(path, busy_timeout_ms, synchronous)
            conn.execute(f"PRAGMA max_page_count = {pages + extra_pages}")
            return conn

        monkeypatch.setattr(writer_module, "_connect", limited)

    yield limit
    monkeypatch.setattr(writer_module, "_connect", connect)


# --- item 9: a full disk -----------------------------------------------------------


def test_a_note_stored_before_the_disk_filled_is_reported_stored_not_failed(
    orma: Orma, db: Path, full_disk: FullDisk
) -> None:
    first = orma("add", "The first note is about gardens.", "--space", "a", "--db", db)
    assert first.exit_code == 0
    full_disk(0)  # room for the note in pages already there, none for a new space's vectors
    result = orma("add", "The boiler code is 4417.", "--space", "b", "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    report = _json(result)
    assert [entry["episode_id"] for entry in report["added"]] == [2]
    assert report["failed"] == []
    assert (report["embedding"], report["pending_sentences"]) == ("behind", 1)
    assert not [line for line in result.stderr.splitlines() if line.startswith("error:")]
    warning = " ".join(result.stderr.split())
    assert "warning: indexing is behind" in warning and "orma reindex --pending" in warning
    # Stored once, found by its words; a script retrying on failure has no reason to.
    assert _texts(orma, db, "boiler code", "--space", "b") == ["The boiler code is 4417."]
    assert _stats(orma, db)["pending_vectors"] == 1

    full_disk(None)
    caught_up = orma("reindex", "--pending", "--db", db, "--json")
    assert caught_up.exit_code == 0, caught_up.stderr
    assert _json(caught_up)["embedded"] == 1
    assert _stats(orma, db)["pending_vectors"] == 0


def test_a_note_the_full_disk_refused_is_an_error_and_not_stored(
    orma: Orma, db: Path, full_disk: FullDisk
) -> None:
    assert orma("add", "The first note is about gardens.", "--db", db).exit_code == 0
    full_disk(0)
    long_note = " ".join(f"Shelf {n} holds the jars of {n} summers." for n in range(2000))
    result = orma("add", long_note, "--db", db)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == ("error: not stored: database or disk is full")
    assert _stats(orma, db)["episodes"] == 1


def test_a_disk_filling_part_way_through_a_file_reports_what_was_stored(
    orma: Orma, db: Path, tmp_path: Path, full_disk: FullDisk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORMA_FILE_PIECE_CHARS", "4000")
    assert orma("add", "The first note is about gardens.", "--db", db).exit_code == 0
    book = tmp_path / "book.md"
    _book(book, 60)
    full_disk(40)
    result = orma("add", book, "--db", db, "--json")
    assert result.exit_code == 1
    [entry] = _json(result)["added"]
    ids, end = entry["episode_ids"], entry["bytes"]
    assert not entry["complete"] and ids[0] == 2 and 0 < end < book.stat().st_size
    [error] = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert error.startswith(f"error: {book}: not stored: database or disk is full; ")
    assert f"stored bytes 0-{end} of {book.stat().st_size} as episodes #2-#{ids[-1]}" in error
    with raw(db) as conn:
        stored = conn.execute("SELECT id, metadata ->> 'file_end' FROM episodes WHERE id > 1")
        assert [r[0] for r in stored] == ids
    assert _texts(orma, db, "chapter 1 lighthouse keeper")  # what was stored is found


# --- item 10: files in pieces, add embeds its own sentences --------------------------


def _book(path: Path, chapters: int) -> str:
    text = "".join(
        f"## Chapter {n}\n\n" + f"In chapter {n} the lighthouse keeper counts ships.\n" * 30
        for n in range(chapters)
    )
    text += "The zanzibarite key opens the attic.\n"
    path.write_text(text, "utf-8")
    return text


def test_a_file_is_stored_in_pieces_each_citing_its_bytes(
    orma: Orma, db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORMA_FILE_PIECE_CHARS", "4000")
    book = tmp_path / "book.md"
    text = _book(book, 40)  # ~60 KB
    result = orma("add", book, "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    [entry] = _json(result)["added"]
    ids = entry["episode_ids"]
    assert len(ids) >= 15 and entry["complete"] and entry["bytes"] == len(text.encode())
    assert _json(result)["embedding"] == "done"
    with raw(db) as conn:
        rows = conn.execute(
            "SELECT id, source, text, metadata ->> 'file_offset', metadata ->> 'file_end' "
            "FROM episodes ORDER BY id"
        ).fetchall()
    assert [r[0] for r in rows] == ids
    assert {r[1] for r in rows} == {str(book.resolve())}
    data = book.read_bytes()
    assert [r[3] for r in rows] == [0] + [r[4] for r in rows[:-1]]  # contiguous byte ranges
    assert all(data[r[3] : r[4]].decode() == r[2] and len(r[2]) <= 4000 for r in rows)
    assert all(r[2].startswith("## Chapter") for r in rows)  # cut before headings
    assert _texts(orma, db, "zanzibarite")[0] == "The zanzibarite key opens the attic."
    assert _stats(orma, db)["pending_vectors"] == 0


def test_add_embeds_its_own_sentences_not_another_spaces_backlog(
    orma: Orma, db: Path, tmp_path: Path
) -> None:
    backlog = tmp_path / "backlog.md"
    _book(backlog, 100)  # 3,101 sentences
    deferred = orma("add", backlog, "--space", "archive", "--no-wait", "--db", db, "--json")
    assert deferred.exit_code == 0, deferred.stderr
    assert _json(deferred)["embedding"] == "deferred"
    assert _stats(orma, db)["pending_vectors"] == 3101

    result = orma("add", "My locker number is 218.", "--space", "me", "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    assert (_json(result)["embedding"], _json(result)["pending_sentences"]) == ("done", 0)
    with raw(db) as conn:
        mine = conn.execute("SELECT embedded FROM sentences WHERE space = 'me'").fetchall()
        left = conn.execute("SELECT count(*) FROM sentences WHERE embedded = 0").fetchone()[0]
    assert mine == [(1,)]
    # The old add waited until all 3,101 had vectors; now at most the batches the
    # background indexer took while the note was being stored are done.
    assert left > 2500


def test_no_wait_returns_after_the_commit_and_reindex_pending_catches_up(
    orma: Orma, db: Path
) -> None:
    result = orma("add", "The spare tyre is in the shed.", "--no-wait", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Added note as episode #1.\n"
    with raw(db) as conn:  # stored, findable by its words, no vector yet
        assert conn.execute("SELECT embedded FROM sentences").fetchall() == [(0,)]
        fts = "SELECT count(*) FROM sentence_fts WHERE sentence_fts MATCH 'tyre'"
        assert conn.execute(fts).fetchone()[0] == 1
    caught_up = orma("reindex", "--pending", "--db", db)
    assert caught_up.exit_code == 0, caught_up.stderr
    assert caught_up.stdout.startswith("Embedded 1 pending sentences in 1 space(s)")
    assert _stats(orma, db)["pending_vectors"] == 0
    assert _texts(orma, db, "where is the spare wheel") == ["The spare tyre is in the shed."]


# --- item 12: the binary check covers the whole file ---------------------------------


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (b"\x00\x01\x02", "looks binary (a NUL byte at offset 200000)"),
        (b"\xff\xfe", "not valid UTF-8 (bad byte at offset 200000)"),
    ],
    ids=["nul", "invalid-utf8"],
)
def test_a_bad_byte_past_the_first_8kb_refuses_the_whole_file(
    orma: Orma, db: Path, tmp_path: Path, bad: bytes, message: str
) -> None:
    line = b"A perfectly ordinary sentence about the garden.\n"
    head = line * (200_000 // len(line)) + b"x" * (200_000 % len(line))
    upload = tmp_path / "upload.txt"
    upload.write_bytes(head + bad + line * 100)
    good = tmp_path / "good.md"
    good.write_text("The spare key is under the blue pot.\n", "utf-8")
    result = orma("add", upload, good, "--db", db, "--json")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {upload}: {message}; " + errors[0].split("; ", 1)[1]]
    assert [entry["source"] for entry in _json(result)["added"]] == [str(good)]
    with raw(db) as conn:  # nothing of the bad file, not even its clean first pieces
        sources = conn.execute("SELECT DISTINCT source FROM episodes").fetchall()
    assert sources == [(str(good.resolve()),)]
