"""Whole ``AsyncMemory.search`` of two code trees on one corpus, query by query in turns.

``python -m bench.search_ab --old /work/main [--sizes 10000,100000] [--queries 200]
[--dir DIR]``

Each tree runs in its own child process (``PYTHONPATH`` = the tree), on its own copy
of one store, with the real query embedder; the parent sends them the same queries
one at a time, the first of each pair alternating, and prints p50/p95 ms of each
and the ratio. A store is built once under ``--dir`` by the old tree (kept for later
runs: 100,000 notes take minutes) with a stand-in for the document embedder (a
vector per sentence drawn from a hash of its text, under the real model's name):
embedding 200,000 sentences for real takes hours here, and the k-NN's cost does not
depend on what the vectors say. The new tree's copy is migrated as it is opened.
Both warm up (20 searches, in-memory indexes loaded) before timing.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import corpus

SPACE = "bench"
WARMUP = 20


class HashVectors:
    """A unit-free vector per text, drawn from its hash, under the real model's id."""

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id, self.dim = model_id, dim

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(self.dim)
        return out


async def _build(folder: Path, size: int) -> None:
    from bench.latency import bench_config, build_store
    from orma_proxy import AsyncMemory, OrmaConfig
    from orma_proxy.embed.models import load_embedder

    real = load_embedder(OrmaConfig())
    fake = HashVectors(real.model_id, real.dim)
    config = bench_config(folder)
    await build_store(config, fake, corpus.notes(size))
    async with AsyncMemory(config=config, embedder=fake) as mem:
        await mem.flush()


async def _serve(folder: Path) -> None:
    from bench.latency import bench_config
    from orma_proxy import AsyncMemory

    async with AsyncMemory(config=bench_config(folder)) as mem:
        for query in corpus.queries(WARMUP, seed=corpus.DEFAULT_SEED + 1):
            await mem.search(query, space=SPACE)
        await mem.flush()  # the in-memory indexes' loads
        print("ready", flush=True)
        for line in sys.stdin:
            start = time.perf_counter()
            await mem.search(json.loads(line), space=SPACE)
            print(time.perf_counter() - start, flush=True)


def _child(tree: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.Popen(
        [sys.executable, __file__, *args],  # this file, with the tree's packages
        env=env,
        cwd=tree,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return 1e3 * ordered[len(ordered) // 2], 1e3 * ordered[int(len(ordered) * 0.95)]


def compare(old: Path, new: Path, folder: Path, size: int, queries: list[str]) -> str:
    built = folder / f"n{size}"
    if not (built / "memory.db").exists():
        print(f"building {size:,} notes in {built}...", file=sys.stderr, flush=True)
        _child(old, "--build", str(built), "--sizes", str(size)).wait()
    copies = {"old": folder / f"n{size}-old", "new": folder / f"n{size}-new"}
    for copy in copies.values():
        shutil.rmtree(copy, ignore_errors=True)
        copy.mkdir(parents=True)
        shutil.copy(built / "memory.db", copy / "memory.db")
    children = {
        "old": _child(old, "--serve", str(copies["old"])),
        "new": _child(new, "--serve", str(copies["new"])),
    }
    times: dict[str, list[float]] = {name: [] for name in children}
    try:
        for child in children.values():
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        for i, query in enumerate(queries):
            names = list(children) if i % 2 == 0 else list(children)[::-1]
            for name in names:
                child = children[name]
                assert child.stdin is not None and child.stdout is not None
                child.stdin.write(json.dumps(query) + "\n")
                child.stdin.flush()
                times[name].append(float(child.stdout.readline()))
    finally:
        for child in children.values():
            assert child.stdin is not None
            child.stdin.close()
            child.wait()
    (o50, o95), (n50, n95) = _quantiles(times["old"]), _quantiles(times["new"])
    return (
        f"| {size:,} | {o50:.1f} / {o95:.1f} | {n50:.1f} / {n95:.1f} "
        f"| {o50 / n50:.2f}x / {o95 / n95:.2f}x |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.search_ab", description=__doc__)
    parser.add_argument("--old", type=Path, help="the tree to compare against (e.g. main's)")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "orma-ab")
    parser.add_argument("--build", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build is not None:
        asyncio.run(_build(args.build, int(args.sizes)))
        return
    if args.serve is not None:
        asyncio.run(_serve(args.serve))
        return
    if args.old is None:
        parser.error("--old is required")
    queries = corpus.queries(args.queries)
    print(f"`python -m bench.search_ab {' '.join(argv or sys.argv[1:])}` (k = 10, ms, warm)")
    print("\n| notes | old p50 / p95 | new p50 / p95 | old / new |\n|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        print(compare(args.old.resolve(), args.new.resolve(), args.dir, size, queries), flush=True)


if __name__ == "__main__":
    main()
