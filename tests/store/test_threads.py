"""SQL off the event loop: a sync ``fn(conn)`` runs whole in the thread that owns its connection."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path

import aiosqlite
import pytest

from orma_proxy.errors import StoreError
from orma_proxy.store import as_sync, execute_fn, open_async
from orma_proxy.store.connect import Connection

PACKAGE = Path(__file__).resolve().parents[2] / "orma_proxy"


async def people(path: Path) -> aiosqlite.Connection:
    conn = await open_async(path, busy_timeout_ms=2_000)
    await conn.executescript(
        "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, boss INTEGER);"
        "INSERT INTO people VALUES (1, 'Asha', NULL), (2, 'Ravi', 1), (3, 'Meera', 2);"
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


async def test_an_async_job_runs_as_a_sync_fn_with_aiosqlites_methods(tmp_path: Path) -> None:
    conn = await people(tmp_path / "threads.db")

    async def job(c: aiosqlite.Connection) -> tuple[list[str], int, int]:
        async with c.execute("SELECT name FROM people ORDER BY id") as cur:
            names = [str(row[0]) async for row in cur]
        rows = list(await c.execute_fetchall("SELECT count(*) FROM people WHERE boss IS NULL"))
        cursor = await c.execute("SELECT id FROM people WHERE name = ?", ("Ravi",))
        found = await cursor.fetchone()
        assert found is not None
        return names, int(rows[0][0]), int(found[0])

    try:
        assert await execute_fn(conn, as_sync(job)) == (["Asha", "Ravi", "Meera"], 1, 2)
    finally:
        await conn.close()


async def test_a_job_that_waits_on_the_loop_fails_and_the_reader_goes_on(tmp_path: Path) -> None:
    conn = await people(tmp_path / "threads.db")
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def waits(c: aiosqlite.Connection) -> None:
        await c.execute("SELECT 1")
        await never

    try:
        with pytest.raises(StoreError, match="waited on something other than"):
            await asyncio.wait_for(execute_fn(conn, as_sync(waits)), timeout=30)
        assert await execute_fn(conn, lambda c: c.execute("SELECT 2").fetchall()) == [(2,)]
        assert list(await conn.execute_fetchall("SELECT 3")) == [(3,)]
    finally:
        await conn.close()


async def test_a_closed_reader_refuses_chains(tmp_path: Path) -> None:
    conn = await people(tmp_path / "threads.db")
    await conn.close()
    with pytest.raises(StoreError, match="closed"):
        await execute_fn(conn, lambda c: c.execute("SELECT 1").fetchall())


def test_nothing_reaches_into_aiosqlites_private_names() -> None:
    """aiosqlite is used through its public API only (issue 16): no ``conn._thread``..."""
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
