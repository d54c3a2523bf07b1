"""Whole tables as rows of named columns: what ``orma export`` reads and ``orma import`` writes.

The caller names the table, the columns and the key to sort by (plain names:
``portable/records.py`` owns which ones make the format); the store writes
the statements. A sentence's ``end`` (its start plus its length) reads as a
column too: the format stores offsets, not the text twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orma_proxy.errors import StoreError
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.postgres.connection import connect, is_postgres
from orma_proxy.store.rows import iter_named
from orma_proxy.store.select import Row

# PostgreSQL's SQLSTATE for a row referring to a missing one.
_FOREIGN_KEY_VIOLATION = "23503"
# Columns computed on reading, by table: name -> SQL expression.
_DERIVED = {"sentences": {"end": '"start" + length(text)'}}


def _quoted(name: str) -> str:
    """A table or column name as an SQL identifier (never as syntax)."""
    return '"' + name.replace('"', '""') + '"'


@contextmanager
def snapshot(
    where: Path | str, *, busy_timeout_ms: int, application_name: str = "orma-export"
) -> Iterator[Connection]:
    """A read-only connection of its own, every read inside one transaction: one snapshot.

    A proxy writing meanwhile never makes the reads disagree with each other. On
    PostgreSQL (``where`` a URL) the transaction is REPEATABLE READ: one snapshot too.
    """
    if isinstance(where, str):
        conn = connect(where, application_name=application_name)
        begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    else:
        conn, begin = open_sync(where, busy_timeout_ms=busy_timeout_ms, read_only=True), "BEGIN"
    try:
        conn.execute(begin)
        yield conn
        conn.execute("COMMIT")
    finally:
        conn.close()


def count_rows(conn: Connection, table: str, space: str | None) -> int:
    """How many rows ``table`` holds (of one space, or of all)."""
    where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
    return int(conn.execute(f"SELECT count(*) FROM {_quoted(table)} {where}", args).fetchone()[0])


def read_rows(
    conn: Connection, table: str, columns: Sequence[str], key: Sequence[str], space: str | None
) -> Iterator[Row]:
    """The rows of ``table`` (of one space, or of all) sorted by ``key``, streamed."""
    derived = _DERIVED.get(table, {})
    listed = ", ".join(f"{derived.get(c, _quoted(c))} AS {_quoted(c)}" for c in columns)
    order = ", ".join(_quoted(c) for c in key)
    where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
    return iter_named(conn, f"SELECT {listed} FROM {_quoted(table)} {where} ORDER BY {order}", args)


def has_rows(conn: Connection, table: str) -> bool:
    """Whether ``table`` holds any row."""
    return bool(conn.execute(f"SELECT EXISTS (SELECT 1 FROM {_quoted(table)})").fetchone()[0])


def insert_rows(
    conn: Connection, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Write ``rows`` (values in the order of ``columns``) into ``table``, ids as given."""
    listed = ", ".join(_quoted(c) for c in columns)
    marks = ", ".join("?" * len(columns))
    conn.executemany(f"INSERT INTO {_quoted(table)} ({listed}) VALUES ({marks})", rows)


@dataclass(frozen=True)
class BrokenReference:
    """A row of ``table`` that refers to a row of ``parent`` that is not there."""

    table: str
    rowid: int | None  # None in a table without rowids
    parent: str


def defer_foreign_keys(conn: Connection) -> None:
    """Check references at commit, not per row: rows may arrive before what they refer to."""
    if is_postgres(conn):  # its foreign keys are DEFERRABLE (migrations/postgres/0001)
        conn.execute("SET CONSTRAINTS ALL DEFERRED")
    else:
        conn.execute("PRAGMA defer_foreign_keys = ON")


def broken_reference(conn: Connection) -> BrokenReference | None:
    """The first row that refers to a missing row, if any (checked before a commit)."""
    if is_postgres(conn):
        return broken_on_postgres(conn)
    broken = next(iter_named(conn, "PRAGMA foreign_key_check"), None)
    if broken is None:
        return None
    return BrokenReference(str(broken["table"]), broken["rowid"], str(broken["parent"]))


def broken_on_postgres(conn: Connection) -> BrokenReference | None:
    """PostgreSQL's check of the deferred references now: the table and key that failed."""
    try:
        conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
    except StoreError as exc:
        diag = getattr(exc.__cause__, "diag", None)
        if diag is None or getattr(exc.__cause__, "sqlstate", None) != _FOREIGN_KEY_VIOLATION:
            raise
        parent = re.search(r'in table "([^"]+)"', str(diag.message_detail or ""))
        return BrokenReference(
            str(diag.table_name), None, parent[1] if parent else str(diag.constraint_name)
        )
    return None
