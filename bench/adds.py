"""Does ``add()`` grow with the store? One process, stores of two sizes, note by note in turns.

``python -m bench.adds [--sizes 10000,100000] [--notes 160] [--dir DIR]``

Each size's store is the one ``bench.search_ab`` builds and keeps under ``--dir``
(``DIR/nSIZE/memory.db``: corpus notes, hash vectors under the real model's name);
each gets a fresh copy. Then the same new notes go to every store, one
``add()`` + ``flush()`` (the real embedder: the note's vectors are stored before
the next) at a time, the stores taking turns and the first of each round
alternating, so the machine's drift hits all alike. Reported: median ms of
``add()``, of ``flush()`` and of both, per size, and each size's ratio to the
smallest (the bar of issue 31: within 1.2x at 100,000 of 10,000). The first 10
notes warm up and are not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

from bench import corpus
from bench.latency import ADD_SEED_OFFSET, bench_config
from bench.latency_search import SPACE
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.models import load_embedder

WARMUP = 10


async def run(sizes: list[int], count: int, folder: Path) -> dict[int, tuple[float, float]]:
    """Median seconds of add() and of flush() per size."""
    embedder = load_embedder(OrmaConfig())
    notes = corpus.notes(count + WARMUP, seed=corpus.DEFAULT_SEED + ADD_SEED_OFFSET)
    times: dict[int, tuple[list[float], list[float]]] = {size: ([], []) for size in sizes}
    async with AsyncExitStack() as stack:
        mems = {}
        for size in sizes:
            built, copy = folder / f"n{size}" / "memory.db", folder / f"n{size}-adds"
            if not built.exists():
                raise SystemExit(f"{built} is missing: build it with bench.search_ab first")
            shutil.rmtree(copy, ignore_errors=True)
            copy.mkdir()
            shutil.copy(built, copy / "memory.db")
            config = bench_config(copy)
            mems[size] = await stack.enter_async_context(
                AsyncMemory(config=config, embedder=embedder)
            )
            await mems[size].flush()
        for i, note in enumerate(notes):
            for size in sizes if i % 2 == 0 else sizes[::-1]:
                start = time.perf_counter()
                await mems[size].add(note.text, SPACE, note.role, at=note.said_at)
                added = time.perf_counter()
                await mems[size].flush()
                if i >= WARMUP:
                    times[size][0].append(added - start)
                    times[size][1].append(time.perf_counter() - added)
    return {s: (statistics.median(a), statistics.median(f)) for s, (a, f) in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.adds", description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--notes", type=int, default=160)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "orma-ab")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    found = asyncio.run(run(sizes, args.notes, args.dir))
    print(f"`python -m bench.adds {' '.join(argv or sys.argv[1:])}` (median ms per note)\n")
    print("| notes in store | add() | flush() | both | both / smallest |\n|---|---|---|---|---|")
    base = sum(found[sizes[0]])
    for size in sizes:
        add, flush = found[size]
        print(
            f"| {size:,} | {1e3 * add:.2f} | {1e3 * flush:.2f} | {1e3 * (add + flush):.2f} "
            f"| {(add + flush) / base:.2f}x |"
        )


if __name__ == "__main__":
    main()
