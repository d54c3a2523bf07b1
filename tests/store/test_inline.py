"""Jobs run inline in a connection's own thread: one trip for all their statements."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import aiosqlite
import pytest

from orma_proxy.errors import StoreError
from orma_proxy.store.connect import open_async
from orma_proxy.store.inline import run_in_thread_of


async def test_a_readers_dependent_queries_run_in_its_thread_in_one_trip(tmp_path: Path) -> None:
    conn = await open_async(tmp_path / "inline.db", busy_timeout_ms=2_000)
    try:
        await conn.executescript(
            "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, boss INTEGER);"
            "INSERT INTO people VALUES (1, 'Asha', NULL), (2, 'Ravi', 1), (3, 'Meera', 2);"
        )
        trips = 0
        execute = conn._execute

        async def counted(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
            nonlocal trips
            trips += 1
            return await execute(fn, *args, **kwargs)  # type: ignore[no-untyped-call]

        conn._execute = counted  # type: ignore[method-assign]
        threads: set[str] = set()

        async def chain(c: aiosqlite.Connection) -> list[str]:
            names, at = [], 3
            while at is not None:  # each query needs the answer of the one before
                threads.add(threading.current_thread().name)
                async with c.execute("SELECT name, boss FROM people WHERE id = ?", (at,)) as cur:
                    row = await cur.fetchone()
                assert row is not None
                names.append(str(row[0]))
                at = row[1]
            return names

        assert await run_in_thread_of(conn, chain) == ["Meera", "Ravi", "Asha"]
        assert trips == 1
        assert len(threads) == 1 and threads != {threading.current_thread().name}
    finally:
        await conn.close()


async def test_a_job_that_waits_on_the_loop_fails_and_the_connection_goes_on(
    tmp_path: Path,
) -> None:
    conn = await open_async(tmp_path / "inline.db", busy_timeout_ms=2_000)
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def waits(c: aiosqlite.Connection) -> None:
        await c.execute("SELECT 1")
        await never

    try:
        with pytest.raises(StoreError, match="waited on something other than"):
            await asyncio.wait_for(run_in_thread_of(conn, waits), timeout=30)
        assert list(await conn.execute_fetchall("SELECT 2")) == [(2,)]
    finally:
        await conn.close()
