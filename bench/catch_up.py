"""The held indexes' catch-up on PostgreSQL: one statement over both logs against one each.

``python -m bench.catch_up [--notes 1000] [--rounds 300] [--db URL]``

A search reads the change logs of both held indexes before its passages queries
(``store/held_index.py``). On SQLite a read is a call in the process; on PostgreSQL a
round trip, so ``held_index.caught_up`` reads both logs with one statement there. This
times that against the two reads it replaces (each index's own ``caught_up``, as the
search did before), in turns on one reader thread of a memory holding both indexes:
with nothing changed (a search after a search) and after another writer added a note
(both logs have a row: a chat turn recorded between two searches). p50 / p95 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import corpus
from bench.backends import fresh_database, postgres_server
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.models import load_embedder
from orma_proxy.store import Connection, Reader, open_async
from orma_proxy.store.held_index import HeldIndex, caught_up

SPACE = "bench"


def _quantiles(times: list[float]) -> str:
    cuts = statistics.quantiles(times, n=20)
    return f"{statistics.median(times) * 1e3:.2f} / {cuts[18] * 1e3:.2f}"


async def measure(
    url: str, home: Path, notes: int, rounds: int
) -> dict[str, dict[str, list[float]]]:
    config = OrmaConfig(home=home, db_url=url)
    embedder = load_embedder(config)
    async with (
        AsyncMemory(config=config, embedder=embedder) as mem,
        AsyncMemory(config=config, embedder=embedder) as other,
    ):
        for note in corpus.notes(notes):
            await mem.add(note.text, space=SPACE, role=note.role, at=note.said_at)
        await mem.flush()
        for _ in range(2):  # *_memory_after: both indexes load the space
            await mem.search("what did I plan for the weekend?", space=SPACE)
        await mem.keyword_index.settle()
        await mem.vector_index.settle()
        assert mem.keyword_index.holds(SPACE) and mem.vector_index.holds(SPACE)
        indexes: list[HeldIndex[Any]] = [mem.vector_index, mem.keyword_index]

        def each(conn: Connection) -> None:  # before: one read per log
            for index in indexes:
                index.caught_up(conn)

        def both(conn: Connection) -> None:
            caught_up(conn, indexes)

        ways: dict[str, Callable[[Connection], None]] = {"one read each": each, "one": both}
        reader = await open_async(mem.location, busy_timeout_ms=5000, read_only=True)
        try:
            return await _in_turns(reader, other, ways, rounds)
        finally:
            await reader.close()


async def _in_turns(
    reader: Reader, other: AsyncMemory, ways: dict[str, Callable[[Connection], None]], rounds: int
) -> dict[str, dict[str, list[float]]]:
    times: dict[str, dict[str, list[float]]] = {
        case: {way: [] for way in ways} for case in ("nothing new", "a note added")
    }
    for i in range(rounds):
        order = list(ways.items()) if i % 2 == 0 else list(ways.items())[::-1]
        for case, add in (("nothing new", False), ("a note added", True)):
            for way, fn in order:
                if add:
                    await other.add(f"Round {i}: a note about {way}.", space=SPACE)
                    await other.flush()
                start = time.perf_counter()
                await reader.execute_fn(fn)
                times[case][way].append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.catch_up", description=__doc__)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--db", default=None, help="a PostgreSQL server's URL")
    args = parser.parse_args(argv)
    before = os.getloadavg()[0]
    with (
        tempfile.TemporaryDirectory() as home,
        postgres_server(args.db) as server,
        fresh_database(server, "catch_up") as url,
    ):
        times = asyncio.run(measure(url, Path(home), args.notes, args.rounds))
    after = os.getloadavg()[0]
    print(f"`python -m bench.catch_up {' '.join(sys.argv[1:])}` (load {before:.2f} -> {after:.2f})")
    print("\n| logs changed | read | p50 / p95 ms |\n|---|---|---:|")
    for case, ways in times.items():
        for way, taken in ways.items():
            print(f"| {case} | {way} | {_quantiles(taken)} |")


if __name__ == "__main__":
    main()
