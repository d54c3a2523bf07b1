"""Why a connection runs in its own thread (``store/threads.py``) and not through aiosqlite.

    pip install aiosqlite          # for this bench only: it is NOT an Orma dependency
    python -m bench.threads_vs_aiosqlite [--statements 20] [--jobs 50] [--rounds 9]

One job is ``--statements`` small reads (``SELECT v FROM t WHERE id = ?``) on a
file of 1,000 short rows, run three ways on the same file:

- ``aiosqlite``: each statement awaited on its own (``execute_fetchall``, the
  library's cheapest call: one trip to its thread per statement);
- ``ours, per statement``: the same, through our ``Reader.execute_fn``, one trip
  per statement (what aiosqlite's model costs in our own thread);
- ``ours, one job``: the whole job as one ``fn(conn)`` in the reader's thread
  (how every Orma job runs: one trip, whatever the statement count).

Each round times ``--jobs`` jobs of each way, the three in rotated order so a
busy machine slows all alike; the medians of the rounds' per-job times are
printed with their ratio to ``ours, one job``. Without aiosqlite it says so and
exits 2.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from orma_proxy.store.connect import Connection
from orma_proxy.store.threads import open_async

ROWS = 1_000
SQL = "SELECT v FROM t WHERE id = ?"
BUSY_MS = 5_000

Job = Callable[[list[int]], Awaitable[int]]


def _make(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", ((i, f"row {i}") for i in range(ROWS)))
    sqlite3.connect(path).close()


def _read_all(conn: Connection, ids: list[int]) -> int:
    """The job: each statement run, its row fetched."""
    return sum(len(conn.execute(SQL, (i,)).fetchall()) for i in ids)


async def _time(job: Job, ids: list[int], jobs: int) -> float:
    """Microseconds per job, over ``jobs`` jobs run one after another."""
    start = time.perf_counter()
    for _ in range(jobs):
        assert await job(ids) == len(ids)  # every statement found its row
    return (time.perf_counter() - start) / jobs * 1e6


async def run(statements: int, jobs: int, rounds: int, path: Path) -> dict[str, list[float]]:
    import aiosqlite

    reader = await open_async(path, busy_timeout_ms=BUSY_MS)
    adb = await aiosqlite.connect(path)
    try:

        async def with_aiosqlite(ids: list[int]) -> int:
            return sum([len(await adb.execute_fetchall(SQL, (i,))) for i in ids])

        async def ours_per_statement(ids: list[int]) -> int:
            found = 0
            for i in ids:
                found += await reader.execute_fn(functools.partial(_read_all, ids=[i]))
            return found

        async def ours_one_job(ids: list[int]) -> int:
            return await reader.execute_fn(lambda c: _read_all(c, ids))

        ways: dict[str, Job] = {
            "aiosqlite": with_aiosqlite,
            "ours, per statement": ours_per_statement,
            "ours, one job": ours_one_job,
        }
        times: dict[str, list[float]] = {name: [] for name in ways}
        names = list(ways)
        for name in names:  # warm both connections' caches first
            await _time(ways[name], list(range(statements)), 3)
        for r in range(rounds):
            order = names[r % 3 :] + names[: r % 3]
            ids = [(r * 7919 + n * 104729) % ROWS for n in range(statements)]
            for name in order:
                times[name].append(await _time(ways[name], ids, jobs))
        return times
    finally:
        await adb.close()
        await reader.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--statements", type=int, default=20, help="statements per job")
    parser.add_argument("--jobs", type=int, default=50, help="jobs timed per round and way")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    try:
        import aiosqlite  # noqa: F401
    except ImportError:
        print(
            "aiosqlite is not installed. It is not an Orma dependency; install it for this "
            "bench only: pip install aiosqlite",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="orma-threads-") as tmp:
        path = Path(tmp) / "bench.db"
        _make(path)
        times = asyncio.run(run(args.statements, args.jobs, args.rounds, path))
    ours = statistics.median(times["ours, one job"])
    print(
        f"{args.statements} statements a job, {args.jobs} jobs x {args.rounds} rounds "
        f"(median of rounds, microseconds per job)"
    )
    print(f"{'way':<22}{'median':>10}{'min':>10}{'max':>10}{'x one job':>11}")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"{name:<22}{median:>10.0f}{min(values):>10.0f}{max(values):>10.0f}"
            f"{median / ours:>11.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
