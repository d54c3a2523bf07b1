"""Latency of the episodic core: ``add()``, ``flush()`` and ``search()`` at realistic sizes.

``python -m bench.latency [--sizes 2000,10000] [--queries 200] [--adds 200] [--json]``

For each size a store is built in a temporary folder from ``bench.corpus`` with
the real default embedder (offline: MiniLM int8), then:

- flush: the whole corpus is embedded by the real background indexer, timed;
- search: ``AsyncMemory.search`` end to end, warm, query embedding included,
  one query at a time (a chat turn waits for it), with the cost of each stage
  timed on its own (query embedding, BM25, vector k-NN, fetch);
- recall@10: how much of the exact top-10 (brute-force cosine over every float
  vector of the space) the binary-quantised + re-rank k-NN ranks in its top 10;
- add: durable ``add()`` on the built store, one at a time with the indexer
  idle in between (a user's next note comes seconds later), under
  ``synchronous=FULL`` (the default) and ``NORMAL`` for comparison.

These are measurements for a README, not timed tests: nothing fails on a slow
machine, and every figure of a run comes from that one run.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from bench import corpus
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder, Vectors, normalise
from orma_proxy.embed.models import load_embedder
from orma_proxy.recall.search import rrf_fuse
from orma_proxy.store import Reader, execute_fn, open_async
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.database import Database
from orma_proxy.store.episodes import NewEpisode, fetch_sentences, insert_episode
from orma_proxy.store.keywords import BM25_SQL, bm25_params
from orma_proxy.store.vectors import nearest
from orma_proxy.text.segment import split_sentences

SPACE = "bench"
DEFAULT_SIZES = (2_000, 10_000)
DEFAULT_QUERIES = 200
DEFAULT_ADDS = 200
# Searches run before timing starts: model, page cache and statement caches warm.
WARMUP_QUERIES = 20
# Queries whose vector recall is checked against brute force.
RECALL_QUERIES = 100
RECALL_K = 10
PERCENTILES = (50, 95, 99)
STAGES = ("query embedding", "BM25", "vector k-NN", "fetch")
# Passages a search returns (AsyncMemory.search's default k).
SEARCH_K = 10
# The targets on the 2-core reference machine.
TARGET_SEARCH_P95_MS = 15.0
TARGET_SEARCH_AT_NOTES = 10_000
TARGET_ADD_P95_MS = 5.0
ORIGINAL_ORMA_P95_MS_AT_2000 = 18.0
# Seed offset for the notes added during the add() measurement (not in the corpus).
ADD_SEED_OFFSET = 7
MS = 1_000.0

Synchronous = Literal["FULL", "NORMAL"]


@dataclass(frozen=True)
class Quantiles:
    """p50 / p95 / p99 of a sample, in milliseconds."""

    p50: float
    p95: float
    p99: float
    n: int

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Quantiles:
        p50, p95, p99 = np.percentile(np.asarray(seconds) * MS, PERCENTILES)
        return cls(float(p50), float(p95), float(p99), len(seconds))

    def cell(self) -> str:
        return f"{self.p50:.2f} / {self.p95:.2f} / {self.p99:.2f}"


@dataclass(frozen=True)
class SizeResult:
    """Every figure measured on one store."""

    notes: int
    sentences: int
    flush_seconds: float
    sentences_per_second: float
    search: Quantiles
    split: dict[str, Quantiles]
    recall_at_10: float
    add_full: Quantiles
    add_normal: Quantiles


@dataclass(frozen=True)
class Report:
    """A whole run: the machine it ran on and one result per size."""

    command: str
    model: str
    dim: int
    cpus: int
    load_before: float
    load_after: float
    python: str
    results: list[SizeResult]


def bench_config(folder: Path, synchronous: Synchronous = "FULL") -> OrmaConfig:
    """Defaults, with the data in ``folder``."""
    return OrmaConfig(home=folder / "home", db_path=folder / "memory.db", synchronous=synchronous)


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    """Seconds ``call()`` took."""
    start = time.perf_counter()
    await call()
    return time.perf_counter() - start


async def build_store(config: OrmaConfig, embedder: Embedder, notes: list[corpus.Note]) -> None:
    """Write the notes through the real writer (group commits), without the indexer.

    The indexer is left out so that ``flush()`` afterwards times the embedding of
    the whole corpus, not whatever was left over from racing the bulk load.
    """
    db = await Database.open(config, lambda _recorded: embedder)
    try:
        batch = config.writer_batch_max
        for start in range(0, len(notes), batch):
            jobs = [
                functools.partial(
                    insert_episode,
                    episode=NewEpisode(SPACE, n.role, n.text, n.said_at, n.said_at),
                    segments=split_sentences(n.text, config.max_sentence_chars),
                )
                for n in notes[start : start + batch]
            ]
            await asyncio.gather(*(db.writer.execute_write_fn(job) for job in jobs))
    finally:
        await db.close()


async def measure_search(
    mem: AsyncMemory, queries: list[str]
) -> tuple[Quantiles, dict[str, Quantiles]]:
    """End-to-end search latency, then each stage on its own."""
    for query in queries[:WARMUP_QUERIES]:
        await mem.search(query, space=SPACE)
    await mem.flush()  # the space's bit vectors are in memory now, as in a running proxy
    total = [await timed(functools.partial(mem.search, q, space=SPACE)) for q in queries]
    reader = await open_async(mem.path, busy_timeout_ms=mem.config.busy_timeout_ms, read_only=True)
    await mem.vector_index.register(reader)  # the search's in-memory k-NN, as the proxy's
    try:
        split: dict[str, list[float]] = {name: [] for name in STAGES}
        for query in queries[:WARMUP_QUERIES] + queries:
            times = await stage_times(reader, mem, query)
            for name, seconds in times.items():
                split[name].append(seconds)
    finally:
        await reader.close()
    warm = slice(WARMUP_QUERIES, None)
    return Quantiles.of(total), {name: Quantiles.of(s[warm]) for name, s in split.items()}


async def stage_times(reader: Reader, mem: AsyncMemory, query: str) -> dict[str, float]:
    """Each stage of a search on its own, one after the other.

    BM25 and k-NN are the statements the search runs (it wraps each in a join
    that returns the rows, so it needs no separate fetch); "fetch" is what that
    join costs when done apart, for the 10 fused winners.
    """
    config = mem.config
    start = time.perf_counter()
    vector = (await asyncio.to_thread(embed_queries, mem.embedder, [query]))[0]
    embedded = time.perf_counter()
    lexical = await execute_fn(reader, lambda c: bm25(c, query, config.search_k))
    lexed = time.perf_counter()
    await mem.vector_index.catch_up(reader)
    search = functools.partial(
        nearest,
        query=vector,
        space=SPACE,
        k=config.search_k,
        oversample=config.vector_oversample,
        use_floor=config.enable_similarity_weighting,
        in_memory=mem.vector_index.use(SPACE),
    )
    semantic = await execute_fn(reader, search)
    searched = time.perf_counter()
    fused = rrf_fuse([[i for i, _ in lexical], [i for i, _ in semantic]], config.rrf_k)
    winners = sorted(fused, key=fused.__getitem__)[-SEARCH_K:]
    await execute_fn(reader, lambda c: fetch_sentences(c, winners, SPACE))
    fetched = time.perf_counter()
    return dict(
        zip(
            STAGES,
            (embedded - start, lexed - embedded, searched - lexed, fetched - searched),
            strict=True,
        )
    )


def bm25(conn: Connection, query: str, k: int) -> list[tuple[int, float]]:
    """The search's BM25 statement alone: (sentence id, score), best first."""
    params = bm25_params(query, SPACE, k)
    if params is None:
        return []
    return [(int(r[0]), float(r[1])) for r in conn.execute(BM25_SQL, params)]


def embed_queries(embedder: Embedder, queries: list[str]) -> Vectors:
    vectors: Vectors = normalise(embedder.embed(queries))
    return vectors


def exact_neighbours(path: Path, config: OrmaConfig, queries: Vectors, k: int) -> list[set[int]]:
    """The true top-``k`` sentence ids per query: cosine against every float vector."""
    conn = open_sync(path, busy_timeout_ms=config.busy_timeout_ms, read_only=True)
    try:
        rows = conn.execute(
            "SELECT v.sentence_id, v.embedding FROM sentence_vectors v "
            "JOIN sentences s ON s.id = v.sentence_id WHERE s.space = ?",
            (SPACE,),
        ).fetchall()
    finally:
        conn.close()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    sims = queries @ matrix.T
    top = np.argpartition(-sims, k, axis=1)[:, :k]
    return [{int(i) for i in ids[row]} for row in top]


async def measure_recall(mem: AsyncMemory, queries: list[str]) -> float:
    """Share of the exact top-10 in the top 10 of the binary-quantised + re-rank k-NN.

    The k-NN runs as the search runs it (``search_k`` hits from ``search_k *
    vector_oversample`` candidates); the noise floor is off, as it is a filter on
    purpose, not an approximation.
    """
    vectors = await asyncio.to_thread(embed_queries, mem.embedder, queries)
    truth = await asyncio.to_thread(exact_neighbours, mem.path, mem.config, vectors, RECALL_K)
    found = 0
    reader = await open_async(mem.path, busy_timeout_ms=mem.config.busy_timeout_ms, read_only=True)
    await mem.vector_index.register(reader)  # the search's in-memory k-NN, as the proxy's
    try:
        for vector, exact in zip(vectors, truth, strict=True):
            search = functools.partial(
                nearest,
                query=vector,
                space=SPACE,
                k=mem.config.search_k,
                oversample=mem.config.vector_oversample,
                use_floor=False,
                in_memory=mem.vector_index.use(SPACE),
            )
            approx = await execute_fn(reader, search)
            found += len(exact & {sid for sid, _ in approx[:RECALL_K]})
    finally:
        await reader.close()
    return found / (RECALL_K * len(truth))


async def measure_adds(
    folder: Path, embedder: Embedder, synchronous: Synchronous, notes: list[corpus.Note]
) -> Quantiles:
    """Durable ``add()`` latency, the indexer idle before each add."""
    samples = []
    async with AsyncMemory(config=bench_config(folder, synchronous), embedder=embedder) as mem:
        await mem.flush()
        for note in notes:
            samples.append(
                await timed(
                    functools.partial(mem.add, note.text, SPACE, note.role, at=note.said_at)
                )
            )
            await mem.flush()
    return Quantiles.of(samples)


async def measure_size(
    size: int, embedder: Embedder, queries: list[str], adds: int, root: Path
) -> SizeResult:
    folder = root / f"n{size}"
    config = bench_config(folder)
    await build_store(config, embedder, corpus.notes(size))
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        flush_seconds = await timed(mem.flush)
        sentences = (await mem.stats(SPACE)).sentences
        search, split = await measure_search(mem, queries)
        recall = await measure_recall(mem, queries[:RECALL_QUERIES])
    extra = corpus.notes(2 * adds, seed=corpus.DEFAULT_SEED + ADD_SEED_OFFSET)
    add_full = await measure_adds(folder, embedder, "FULL", extra[:adds])
    add_normal = await measure_adds(folder, embedder, "NORMAL", extra[adds:])
    return SizeResult(
        notes=size,
        sentences=sentences,
        flush_seconds=flush_seconds,
        sentences_per_second=sentences / flush_seconds,
        search=search,
        split=split,
        recall_at_10=recall,
        add_full=add_full,
        add_normal=add_normal,
    )


def render(report: Report) -> str:
    """Markdown: the machine, the main table, the search split and the ratios."""
    lines = [
        f"`{report.command}`",
        "",
        f"Model {report.model} ({report.dim} dims), {report.cpus} CPUs, "
        f"load average {report.load_before:.2f} before / {report.load_after:.2f} after, "
        f"Python {report.python}. Times in ms (p50 / p95 / p99).",
        "",
        "| notes | sentences | search | add (FULL) | add (NORMAL) | flush | recall@10 |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report.results:
        lines.append(
            f"| {r.notes:,} | {r.sentences:,} | {r.search.cell()} | {r.add_full.cell()} | "
            f"{r.add_normal.cell()} | {r.flush_seconds:.1f} s ({r.sentences_per_second:,.0f} "
            f"sentences/s) | {r.recall_at_10:.3f} |"
        )
    names = list(report.results[0].split) if report.results else []
    lines += [
        "",
        "Search split, each stage timed on its own (p50 / p95 ms); the end-to-end search "
        "runs BM25 while the query is embedded:",
        "",
        "| notes | " + " | ".join(names) + " | end to end |",
        "|---:|" + "---:|" * (len(names) + 1),
    ]
    for r in report.results:
        cells = [f"{r.split[n].p50:.2f} / {r.split[n].p95:.2f}" for n in names]
        end = f"{r.search.p50:.2f} / {r.search.p95:.2f}"
        lines.append(f"| {r.notes:,} | " + " | ".join(cells) + f" | {end} |")
    lines += ["", *ratios(report.results)]
    return "\n".join(lines)


def ratios(results: list[SizeResult]) -> list[str]:
    """The comparisons the issue asks for, as ratios within this run."""
    out = []
    by_size = {r.notes: r for r in results}
    if len(results) > 1:
        small, large = results[0], results[-1]
        out.append(
            f"- search p95 grows {large.search.p95 / small.search.p95:.2f}x from "
            f"{small.notes:,} to {large.notes:,} notes ({large.notes / small.notes:.0f}x the data)."
        )
    if TARGET_SEARCH_AT_NOTES in by_size:
        p95 = by_size[TARGET_SEARCH_AT_NOTES].search.p95
        out.append(
            f"- search p95 at {TARGET_SEARCH_AT_NOTES:,} notes: {p95:.2f} ms = "
            f"{p95 / TARGET_SEARCH_P95_MS:.2f}x the {TARGET_SEARCH_P95_MS:.0f} ms target, "
            f"{p95 / ORIGINAL_ORMA_P95_MS_AT_2000:.2f}x the original Orma's "
            f"{ORIGINAL_ORMA_P95_MS_AT_2000:.0f} ms at 2,000."
        )
    for r in results:
        out.append(
            f"- add p95 at {r.notes:,} notes: {r.add_full.p95:.2f} ms (FULL) = "
            f"{r.add_full.p95 / TARGET_ADD_P95_MS:.2f}x the {TARGET_ADD_P95_MS:.0f} ms target; "
            f"FULL / NORMAL p50 = {r.add_full.p50 / r.add_normal.p50:.2f}x."
        )
    return out


def load_average() -> float:
    return os.getloadavg()[0]


async def run(sizes: list[int], query_count: int, adds: int, where: Path | None) -> Report:
    embedder = await asyncio.to_thread(load_embedder, OrmaConfig())
    queries = corpus.queries(query_count)
    load_before = load_average()
    results = []
    with tempfile.TemporaryDirectory(prefix="orma-bench-", dir=where) as tmp:
        for size in sizes:
            print(f"measuring {size:,} notes...", file=sys.stderr, flush=True)
            results.append(await measure_size(size, embedder, queries, adds, Path(tmp)))
    return Report(
        command=" ".join(["python -m bench.latency", *sys.argv[1:]]),
        model=embedder.model_id,
        dim=embedder.dim,
        cpus=os.cpu_count() or 0,
        load_before=load_before,
        load_after=load_average(),
        python=platform.python_version(),
        results=results,
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__)
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in DEFAULT_SIZES),
        help="comma-separated note counts",
    )
    parser.add_argument("--queries", type=int, default=DEFAULT_QUERIES)
    parser.add_argument("--adds", type=int, default=DEFAULT_ADDS)
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="build the stores under this folder (default: the system's temp folder); "
        "fsync cost depends on its disk, so put it where ~/.orma would live",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    report = asyncio.run(run(sizes, args.queries, args.adds, args.dir))
    print(json.dumps(asdict(report), indent=2) if args.json else render(report))


if __name__ == "__main__":
    main()
