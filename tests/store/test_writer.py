"""The single writer's group commit, on real connections to a real file."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from orma_proxy.errors import StoreError
from orma_proxy.store import Reader, open_async
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.writer import Writer

Job = Callable[[Connection], object]


@pytest.fixture
async def read(tmp_path: Path) -> AsyncIterator[Reader]:
    """A reading connection on a WAL file with one table."""
    path = tmp_path / "writer.db"
    setup = open_sync(path, busy_timeout_ms=2_000)
    try:
        setup.execute("PRAGMA journal_mode = WAL")
        setup.execute("CREATE TABLE notes (n INTEGER UNIQUE)")
    finally:
        setup.close()
    reader = await open_async(path, busy_timeout_ms=2_000, read_only=True)
    try:
        yield reader
    finally:
        await reader.close()


async def open_writer(path: Path, *, batch_max: int = 64, busy_timeout_ms: int = 2_000) -> Writer:
    return await Writer.open(
        path, busy_timeout_ms=busy_timeout_ms, synchronous="FULL", batch_max=batch_max
    )


@pytest.fixture
async def writer(tmp_path: Path, read: Reader) -> AsyncIterator[Writer]:
    w = await open_writer(tmp_path / "writer.db")
    try:
        yield w
    finally:
        await w.close()


def insert(n: int) -> Job:
    def job(conn: Connection) -> int:
        conn.execute("INSERT INTO notes (n) VALUES (?)", (n,))
        return n

    return job


async def committed(read: Reader) -> list[int]:
    rows = await read.execute_fn(lambda c: c.execute("SELECT n FROM notes ORDER BY n").fetchall())
    return [int(r[0]) for r in rows]


async def run_as_one_batch(writer: Writer, jobs: list[Job]) -> list[object]:
    """Hold the writer busy while ``jobs`` queue up, so they are committed together."""
    entered, gate = threading.Event(), threading.Event()

    def hold(conn: Connection) -> None:
        entered.set()
        gate.wait(timeout=30)  # blocks the writer's thread, not the event loop

    holding = asyncio.ensure_future(writer.execute_write_fn(hold))
    assert await asyncio.to_thread(entered.wait, 30)  # the writer is now inside `hold`
    queued = [asyncio.ensure_future(writer.execute_write_fn(job)) for job in jobs]
    await asyncio.sleep(0)
    gate.set()
    await holding
    # Generous bound: a writer that lost track of a batch leaves its callers waiting forever.
    gathered = asyncio.gather(*queued, return_exceptions=True)
    return list(await asyncio.wait_for(gathered, timeout=30))


async def test_a_failing_job_leaves_the_others_in_its_batch_committed(
    tmp_path: Path, writer: Writer, read: Reader
) -> None:
    seen_by_another_connection: list[list[int]] = []
    other = open_sync(tmp_path / "writer.db", busy_timeout_ms=2_000, read_only=True)

    def half_then_fail(conn: Connection) -> None:
        conn.execute("INSERT INTO notes (n) VALUES (2)")
        # Job 1 ran in this same transaction: nobody else can see it yet.
        rows = other.execute("SELECT n FROM notes ORDER BY n").fetchall()
        seen_by_another_connection.append([int(r[0]) for r in rows])
        raise RuntimeError("job 2 gives up half-way")

    try:
        results = await run_as_one_batch(writer, [insert(1), half_then_fail, insert(3)])
    finally:
        other.close()

    assert seen_by_another_connection == [[]]  # so all three shared one transaction
    assert results[0] == 1 and results[2] == 3
    assert isinstance(results[1], RuntimeError)
    assert await committed(read) == [1, 3]  # job 2's own row was rolled back


async def test_a_job_that_makes_sqlite_abort_the_transaction_costs_only_itself(
    writer: Writer, read: Reader
) -> None:
    def abort_everything(conn: Connection) -> None:
        # OR ROLLBACK: on conflict SQLite rolls back the whole transaction, savepoints too.
        conn.execute("INSERT OR ROLLBACK INTO notes (n) VALUES (1)")

    results = await run_as_one_batch(writer, [insert(1), abort_everything, insert(3)])

    assert results[0] == 1 and results[2] == 3
    assert "UNIQUE" in str(results[1])
    assert await committed(read) == [1, 3]
    assert await writer.execute_write_fn(insert(4)) == 4  # and the writer carries on
    assert await committed(read) == [1, 3, 4]


async def test_a_write_waiting_for_a_held_lock_fails_cleanly_then_writing_resumes(
    tmp_path: Path, read: Reader
) -> None:
    writer = await open_writer(tmp_path / "writer.db", busy_timeout_ms=50)
    other = await open_async(tmp_path / "writer.db", busy_timeout_ms=50)
    try:
        await other.execute_fn(lambda c: c.execute("BEGIN IMMEDIATE"))
        with pytest.raises(StoreError, match="could not start a write"):
            await writer.execute_write_fn(insert(1))
        await other.execute_fn(lambda c: c.execute("ROLLBACK"))
        assert await writer.execute_write_fn(insert(2)) == 2
        assert await committed(read) == [2]
    finally:
        await writer.close()
        await other.close()


async def test_close_finishes_queued_writes_and_refuses_new_ones(
    tmp_path: Path, read: Reader
) -> None:
    writer = await open_writer(tmp_path / "writer.db", batch_max=2)
    queued = [asyncio.ensure_future(writer.execute_write_fn(insert(n))) for n in range(1, 6)]
    await asyncio.sleep(0)
    closing = asyncio.ensure_future(writer.close())
    await asyncio.sleep(0)  # close() has begun; the writer is still draining the queue
    with pytest.raises(StoreError, match="not running"):
        await asyncio.wait_for(
            writer.execute_write_fn(insert(6)), timeout=10
        )  # refused, not stranded
    await closing
    assert [q.result() for q in queued] == [1, 2, 3, 4, 5]
    assert await committed(read) == [1, 2, 3, 4, 5]


async def test_a_transaction_runs_in_one_call_to_the_writer_thread(
    writer: Writer, read: Reader
) -> None:
    """Every statement of a job runs in the writer's thread, and the loop stays free."""
    threads: set[str] = set()

    def many(conn: Connection) -> int:
        for n in range(1, 51):
            threads.add(threading.current_thread().name)
            conn.execute("INSERT INTO notes (n) VALUES (?)", (n,))
            row = conn.execute("SELECT count(*) FROM notes").fetchone()
        assert row is not None
        return int(row[0])

    assert await writer.execute_write_fn(many) == 50
    assert len(threads) == 1 and threads != {threading.current_thread().name}
    assert await committed(read) == list(range(1, 51))


async def test_a_writer_cancelled_mid_transaction_tells_its_caller_what_happened(
    tmp_path: Path, read: Reader
) -> None:
    """The transaction finishes in the writer's thread; its caller hears it committed."""
    writer = await open_writer(tmp_path / "writer.db")
    entered, gate = threading.Event(), threading.Event()

    def slow(conn: Connection) -> int:
        entered.set()
        gate.wait(timeout=30)
        conn.execute("INSERT INTO notes (n) VALUES (7)")
        return 7

    try:
        pending = asyncio.ensure_future(writer.execute_write_fn(slow))
        assert await asyncio.to_thread(entered.wait, 30)
        assert writer._task is not None
        writer._task.cancel()
        await asyncio.sleep(0.05)
        assert not pending.done()  # not answered "failed" while the write may still commit
        gate.set()
        assert await asyncio.wait_for(pending, timeout=30) == 7
        assert await committed(read) == [7]
        with pytest.raises(StoreError, match="not running"):
            await writer.execute_write_fn(insert(8))
    finally:
        gate.set()
        await writer.close()
