"""Releases as stored: one row per ``orma release``, and the mark it leaves on sentences.

A released sentence keeps its row and carries the release's id in
``released_by``; unreleasing clears the mark. (The same mark on states and
events is the facts layer's: ``facts/drawn.py``.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.rows import IN_IDS, as_record, id_list, int_column, named_rows


@dataclass(frozen=True)
class Release:
    """One release: its space, the query that chose what it hid, when it was undone (if it was)."""

    id: int
    space: str
    query: str
    created_at: float
    restored_at: float | None


def insert_release(conn: Connection, space: str, query: str, now: float) -> int:
    """Record a release of ``query`` in ``space``; returns its id."""
    cursor = conn.execute(
        "INSERT INTO releases (space, query, created_at) VALUES (?, ?, ?) RETURNING id",
        (space, query, now),
    )
    return int(cursor.fetchone()[0])


def release_in(conn: Connection, space: str, release_id: int) -> Release | None:
    """Release ``release_id`` if it belongs to ``space``."""
    rows = named_rows(
        conn,
        "SELECT id, space, query, created_at, restored_at FROM releases WHERE id = ? AND space = ?",
        (release_id, space),
    )
    return as_record(Release, rows[0]) if rows else None


def restore_release(conn: Connection, release_id: int, now: float) -> None:
    """Record that release ``release_id`` was undone at ``now``."""
    conn.execute("UPDATE releases SET restored_at = ? WHERE id = ?", (now, release_id))


def mark_sentences_released(
    conn: Connection, sentence_ids: Iterable[int], release_id: int | None
) -> None:
    """Mark these sentences hidden by ``release_id`` (None: shown again)."""
    conn.execute(
        f"UPDATE sentences SET released_by = ? WHERE id {IN_IDS}",
        (release_id, id_list(sentence_ids)),
    )


def sentences_released_by(conn: Connection, release_id: int) -> list[int]:
    """The sentences release ``release_id`` hides, in id order."""
    sql = "SELECT id FROM sentences WHERE released_by = ? ORDER BY id"
    return int_column(conn, sql, (release_id,))
