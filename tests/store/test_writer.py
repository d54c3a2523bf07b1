"""The single writer's group commit, on real aiosqlite connections to a real file."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import aiosqlite
import pytest

from orma_proxy.errors import StoreError
from orma_proxy.store.connect import open_async
from orma_proxy.store.writer import Writer

Job = Callable[[aiosqlite.Connection], Awaitable[object]]


@pytest.fixture
async def conns(tmp_path: Path) -> AsyncIterator[tuple[aiosqlite.Connection, aiosqlite.Connection]]:
    """A writing and a reading connection on a WAL file with one table."""
    path = tmp_path / "writer.db"
    write = await open_async(path, busy_timeout_ms=2_000)
    await write.execute("PRAGMA journal_mode = WAL")
    await write.execute("CREATE TABLE notes (n INTEGER UNIQUE)")
    read = await open_async(path, busy_timeout_ms=2_000, read_only=True)
    try:
        yield write, read
    finally:
        await read.close()
        await write.close()


@pytest.fixture
async def writer(
    conns: tuple[aiosqlite.Connection, aiosqlite.Connection],
) -> AsyncIterator[Writer]:
    w = Writer(conns[0], batch_max=64)
    w.start()
    try:
        yield w
    finally:
        await w.close()


def insert(n: int) -> Job:
    async def job(conn: aiosqlite.Connection) -> int:
        await conn.execute("INSERT INTO notes (n) VALUES (?)", (n,))
        return n

    return job


async def committed(read: aiosqlite.Connection) -> list[int]:
    return [int(r[0]) for r in await read.execute_fetchall("SELECT n FROM notes ORDER BY n")]


async def run_as_one_batch(writer: Writer, jobs: list[Job]) -> list[object]:
    """Hold the writer busy while ``jobs`` queue up, so they are committed together."""
    gate = asyncio.Event()

    async def hold(conn: aiosqlite.Connection) -> None:
        await gate.wait()

    holding = asyncio.ensure_future(writer.submit(hold))
    await asyncio.sleep(0.05)  # the writer is now inside `hold`
    queued = [asyncio.ensure_future(writer.submit(job)) for job in jobs]
    await asyncio.sleep(0)
    gate.set()
    await holding
    # Generous bound: a writer that lost track of a batch leaves its callers waiting forever.
    gathered = asyncio.gather(*queued, return_exceptions=True)
    return list(await asyncio.wait_for(gathered, timeout=30))


async def test_a_failing_job_leaves_the_others_in_its_batch_committed(
    writer: Writer, conns: tuple[aiosqlite.Connection, aiosqlite.Connection]
) -> None:
    _, read = conns
    seen_by_another_connection: list[list[int]] = []

    async def half_then_fail(conn: aiosqlite.Connection) -> None:
        await conn.execute("INSERT INTO notes (n) VALUES (2)")
        # Job 1 ran in this same transaction: nobody else can see it yet.
        seen_by_another_connection.append(await committed(read))
        raise RuntimeError("job 2 gives up half-way")

    results = await run_as_one_batch(writer, [insert(1), half_then_fail, insert(3)])

    assert seen_by_another_connection == [[]]  # so all three shared one transaction
    assert results[0] == 1 and results[2] == 3
    assert isinstance(results[1], RuntimeError)
    assert await committed(read) == [1, 3]  # job 2's own row was rolled back


async def test_a_job_that_makes_sqlite_abort_the_transaction_costs_only_itself(
    writer: Writer, conns: tuple[aiosqlite.Connection, aiosqlite.Connection]
) -> None:
    _, read = conns

    async def abort_everything(conn: aiosqlite.Connection) -> None:
        # OR ROLLBACK: on conflict SQLite rolls back the whole transaction, savepoints too.
        await conn.execute("INSERT OR ROLLBACK INTO notes (n) VALUES (1)")

    results = await run_as_one_batch(writer, [insert(1), abort_everything, insert(3)])

    assert results[0] == 1 and results[2] == 3
    assert "UNIQUE" in str(results[1])
    assert await committed(read) == [1, 3]
    assert await writer.submit(insert(4)) == 4  # and the writer carries on
    assert await committed(read) == [1, 3, 4]


async def test_a_write_waiting_for_a_held_lock_fails_cleanly_then_writing_resumes(
    tmp_path: Path, conns: tuple[aiosqlite.Connection, aiosqlite.Connection]
) -> None:
    _, read = conns
    impatient = await open_async(tmp_path / "writer.db", busy_timeout_ms=50)
    writer = Writer(impatient, batch_max=64)
    writer.start()
    other = await open_async(tmp_path / "writer.db", busy_timeout_ms=50)
    try:
        await other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match="could not start a write"):
            await writer.submit(insert(1))
        await other.execute("ROLLBACK")
        assert await writer.submit(insert(2)) == 2
        assert await committed(read) == [2]
    finally:
        await writer.close()
        await other.close()
        await impatient.close()


async def test_close_finishes_queued_writes_and_refuses_new_ones(
    conns: tuple[aiosqlite.Connection, aiosqlite.Connection],
) -> None:
    write, read = conns
    writer = Writer(write, batch_max=2)
    writer.start()
    queued = [asyncio.ensure_future(writer.submit(insert(n))) for n in range(1, 6)]
    await asyncio.sleep(0)
    closing = asyncio.ensure_future(writer.close())
    await asyncio.sleep(0)  # close() has begun; the writer is still draining the queue
    with pytest.raises(StoreError, match="not running"):
        await asyncio.wait_for(writer.submit(insert(6)), timeout=10)  # refused, not stranded
    await closing
    assert [q.result() for q in queued] == [1, 2, 3, 4, 5]
    assert await committed(read) == [1, 2, 3, 4, 5]
