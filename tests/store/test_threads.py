"""SQL off the event loop: a sync ``fn(conn)`` runs whole in the thread that owns its connection."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from orma_proxy.errors import StoreError
from orma_proxy.store import Reader, execute_fn, open_async
from orma_proxy.store.connect import Connection, DatabaseError

PACKAGE = Path(__file__).resolve().parents[2] / "orma_proxy"


async def people(path: Path) -> Reader:
    conn = await open_async(path, busy_timeout_ms=2_000)
    await conn.execute_fn(
        lambda c: c.executescript(
            "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, boss INTEGER);"
            "INSERT INTO people VALUES (1, 'Asha', NULL), (2, 'Ravi', 1), (3, 'Meera', 2);"
        )
    )
    return conn


async def test_a_chain_of_dependent_reads_runs_in_the_readers_own_thread(tmp_path: Path) -> None:
    conn = await people(tmp_path / "threads.db")
    threads: set[str] = set()

    def chain(c: Connection) -> list[str]:
        names, at = [], 3
        while at is not None:  # each query needs the answer of the one before
            threads.add(threading.current_thread().name)
            name, at = c.execute("SELECT name, boss FROM people WHERE id = ?", (at,)).fetchone()
            names.append(str(name))
        return names

    try:
        assert await execute_fn(conn, chain) == ["Meera", "Ravi", "Asha"]
        assert len(threads) == 1 and threads != {threading.current_thread().name}
        assert next(iter(threads)).startswith("orma-reader")
    finally:
        await conn.close()


async def test_a_failing_read_raises_its_error_and_the_reader_goes_on(tmp_path: Path) -> None:
    conn = await people(tmp_path / "threads.db")

    def missing(c: Connection) -> None:
        c.execute("SELECT name FROM nowhere")

    try:
        with pytest.raises(DatabaseError, match="no such table"):
            await execute_fn(conn, missing)
        assert await execute_fn(conn, lambda c: c.execute("SELECT 2").fetchall()) == [(2,)]
    finally:
        await conn.close()


async def test_a_function_registered_on_the_reader_runs_in_its_statements(
    tmp_path: Path,
) -> None:
    conn = await people(tmp_path / "threads.db")
    try:
        await conn.create_function("shout", 1, lambda text: f"{text}!".upper())
        found = await execute_fn(
            conn, lambda c: c.execute("SELECT shout(name) FROM people WHERE id = 1").fetchall()
        )
        assert found == [("ASHA!",)]
    finally:
        await conn.close()


async def test_a_closed_reader_refuses_chains(tmp_path: Path) -> None:
    conn = await people(tmp_path / "threads.db")
    await conn.close()
    with pytest.raises(StoreError, match="closed"):
        await execute_fn(conn, lambda c: c.execute("SELECT 1").fetchall())


def test_nothing_reaches_into_a_connections_private_names() -> None:
    """No connection's private attribute is reached into (issue 16): no ``conn._thread``..."""
    private = re.compile(
        r"\b(?:conn|reader|c|self\._conn)\._(?:thread|execute|conn|connection|tx)\b"
    )
    found = [
        f"{path.relative_to(PACKAGE)}: {line.strip()}"
        for path in PACKAGE.rglob("*.py")
        for line in path.read_text("utf-8").splitlines()
        if private.search(line)
    ]
    assert found == []
