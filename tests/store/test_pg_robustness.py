"""Replicas on one PostgreSQL server: deadlocks between them, and connections that break.

Real connections to pgserver's PostgreSQL: two writers (two replicas, as far as the
server can tell) lock two spaces' counter rows in opposite orders, and
``pg_terminate_backend`` cuts a memory's connections while idle, while a write runs,
and while it commits.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import DatabaseUnavailableError, StoreError
from orma_proxy.store.connect import Connection
from orma_proxy.store.episodes import NewEpisode, insert_episode
from orma_proxy.store.postgres.connection import connect
from orma_proxy.store.writer import Writer
from orma_proxy.text.segment import split_sentences
from tests.helpers.postgres import stopped
from tests.helpers.rawdb import rows, writing

pytestmark = pytest.mark.parametrize("backend", ["postgres"], indirect=True)

Job = Callable[[Connection], object]


def add_to(conn: Connection, space: str, text: str) -> int:
    now = time.time()
    episode = NewEpisode(space=space, role="user", text=text, said_at=now, created_at=now)
    return insert_episode(conn, episode, split_sentences(text, 480))


def space_totals(url: str) -> dict[str, tuple[int, int]]:
    """(episodes, sentences the keyword counters hold) of each space."""
    found = rows(
        url,
        "SELECT e.space, count(*), (SELECT t.sentences FROM space_text t WHERE t.space = e.space) "
        "FROM episodes e GROUP BY e.space",
    )
    return {str(space): (int(n), int(counted)) for space, n, counted in found}


def terminate(url: str, where: str) -> list[int]:
    """``pg_terminate_backend`` for this database's other sessions matching ``where``."""
    conn = connect(url)
    try:
        found = conn.execute(
            "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = current_database() AND pid <> pg_backend_pid() AND {where}"
        ).fetchall()
        return [int(pid) for pid, _ in found]
    finally:
        conn.close()


def writer_pid(url: str) -> int | None:
    found = rows(
        url,
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND application_name = 'orma-writer'",
    )
    return int(found[0][0]) if found else None


async def test_replicas_locking_two_spaces_in_opposite_orders_both_commit(
    amem: AsyncMemory, caplog: pytest.LogCaptureFixture
) -> None:
    url = str(amem.location)
    crossed = threading.Barrier(2, timeout=30)
    runs: Counter[str] = Counter()

    def crossing(name: str, first: str, second: str) -> Job:
        def job(conn: Connection) -> None:
            runs[name] += 1
            add_to(conn, first, f"Replica {name} was here first in {first}.")
            if runs[name] == 1:  # both now hold their first space's counter rows
                crossed.wait()
            add_to(conn, second, f"Replica {name} came second to {second}.")

        return job

    caplog.set_level(logging.WARNING, logger="orma_proxy.store.writer")
    async with writing(url) as one, writing(url) as two:
        await asyncio.gather(
            one.execute_write_fn(crossing("one", "north", "south")),
            two.execute_write_fn(crossing("two", "south", "north")),
        )
    # PostgreSQL broke the deadlock by aborting one; the writer ran that one again.
    assert sorted(runs.values()) == [1, 2]
    assert any("rolled back by a deadlock" in r.getMessage() for r in caplog.records)
    assert space_totals(url) == {"north": (2, 2), "south": (2, 2)}


async def test_a_deadlock_past_the_retries_fails_with_the_reason(amem: AsyncMemory) -> None:
    url = str(amem.location)
    crossed = threading.Barrier(2, timeout=30)

    def crossing(first: str, second: str) -> Job:
        def job(conn: Connection) -> None:
            add_to(conn, first, "Holding my own space.")
            if not crossed.broken:
                crossed.wait()
            add_to(conn, second, "Reaching for the other.")

        return job

    writers = [
        await Writer.start(lambda: connect(url), url, batch_max=8, retries=0) for _ in range(2)
    ]
    try:
        outcomes = await asyncio.gather(
            writers[0].execute_write_fn(crossing("east", "west")),
            writers[1].execute_write_fn(crossing("west", "east")),
            return_exceptions=True,
        )
    finally:
        for writer in writers:
            await writer.close()
    failed = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(failed) == 1 and isinstance(failed[0], StoreError)
    assert "rolled back by a deadlock" in str(failed[0])
    assert space_totals(url) == {"east": (1, 1), "west": (1, 1)}


async def test_a_memory_reconnects_after_its_connections_were_terminated(
    amem: AsyncMemory,
) -> None:
    url = str(amem.location)
    await amem.add("The lighthouse keeper paints the door blue.")
    before = writer_pid(url)
    killed = terminate(url, "application_name IN ('orma-writer', 'orma-reader')")
    assert len(killed) == 2
    # The next write and the next read each open a new connection and run.
    await amem.add("The lighthouse keeper feeds the gulls at dawn.")
    found = await amem.search("lighthouse keeper")
    assert {p.text for p in found.passages} >= {
        "The lighthouse keeper paints the door blue.",
        "The lighthouse keeper feeds the gulls at dawn.",
    }
    assert writer_pid(url) not in (None, before)


async def test_a_write_cut_off_before_commit_runs_again_on_a_new_connection(
    amem: AsyncMemory, writer: Writer
) -> None:
    url = str(amem.location)
    runs = 0

    def job(conn: Connection) -> int:
        nonlocal runs
        runs += 1
        if runs == 1:
            conn.execute("SELECT pg_sleep(60)")
        return add_to(conn, "default", "Written once although the first try was cut off.")

    write = asyncio.ensure_future(writer.execute_write_fn(job))
    deadline = time.monotonic() + 30
    while not terminate(url, "state = 'active' AND query LIKE '%pg_sleep%'"):
        assert time.monotonic() < deadline and not write.done()
        await asyncio.sleep(0.05)
    episode_id = await write
    assert runs == 2
    stored = rows(url, "SELECT id FROM episodes WHERE text LIKE 'Written once%'")
    assert stored == [(episode_id,)]


async def test_a_write_cut_off_while_committing_is_reported_not_repeated(
    amem: AsyncMemory, writer: Writer
) -> None:
    """At COMMIT the write may have been stored: it fails with that said, and only once."""
    url = str(amem.location)
    setup = connect(url)
    try:  # a deferred trigger: the backend terminates itself as the transaction commits
        setup.raw.execute(
            "CREATE TABLE fuse (n integer); "
            "CREATE FUNCTION blow() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); "
            "PERFORM pg_sleep(5); RETURN NULL; END $$; "
            "CREATE CONSTRAINT TRIGGER fuse_blows AFTER INSERT ON fuse "
            "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION blow();"
        )
    finally:
        setup.close()
    runs = 0

    def job(conn: Connection) -> int:
        nonlocal runs
        runs += 1
        conn.execute("INSERT INTO fuse (n) VALUES (1)")
        return add_to(conn, "default", "A write whose commit was cut off.")

    with pytest.raises(StoreError, match="may or may not have been stored"):
        await writer.execute_write_fn(job)
    assert runs == 1
    await amem.add("The next write finds a new connection.")
    assert rows(url, "SELECT text FROM episodes") == [("The next write finds a new connection.",)]


async def test_the_writer_outlives_a_server_stopped_then_started(
    amem: AsyncMemory, pg_server: object
) -> None:
    """A write while the server is down fails (nothing stored, say so); the writer lives,
    says writes fail, and the next writes once the server is back are stored."""
    url = str(amem.location)
    await amem.add("Written before the outage.")
    assert amem.writes_failing is None
    with stopped(pg_server):
        with pytest.raises(DatabaseUnavailableError, match="cannot connect to PostgreSQL"):
            await amem.add("Written while the server is down.")
        assert "cannot connect to PostgreSQL" in (amem.writes_failing or "")
    for n in range(3):
        await amem.add(f"Written after the outage, note {n}.")
    assert amem.writes_failing is None
    assert [text for (text,) in rows(url, "SELECT text FROM episodes ORDER BY id")] == [
        "Written before the outage.",
        *(f"Written after the outage, note {n}." for n in range(3)),
    ]
