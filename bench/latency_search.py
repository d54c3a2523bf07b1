"""``bench.latency``'s searches on the stores it built, in this process: end to end, each stage
on its own, and the vector channel's recall against exact search.

The backends take turns query by query so the machine's noise hits both alike; the
serving processes (``bench.latency_workers``) time the same searches as a proxy runs them.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

from bench.backends import Kept
from bench.exact import Exact
from bench.latency_report import Quantiles, Recall
from bench.search_worker import vector_knn
from orma_proxy import AsyncMemory
from orma_proxy.embed.base import Embedder, Vectors, normalise
from orma_proxy.store import Reader, catch_up, execute_fn, open_async
from orma_proxy.store.passages import keyword_passages, nearest_passages

SPACE = "bench"
# Searches run before timing starts: model, page cache and statement caches warm.
WARMUP_QUERIES = 20
RECALL_K = 10
# Queries whose vector recall is checked against brute force.
RECALL_QUERIES = 100
STAGES = ("query embedding", "keyword channel", "vector channel")


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    """Seconds ``call()`` took."""
    start = time.perf_counter()
    await call()
    return time.perf_counter() - start


async def measure_search(
    mems: dict[str, AsyncMemory], queries: list[str], kept: Kept
) -> dict[str, tuple[Quantiles, Quantiles, dict[str, Quantiles]]]:
    """End-to-end search latency of each backend, with and without query embedding, then
    each stage on its own.

    The backends take turns query by query, the first of each pair alternating.
    Without embedding, the query's vector is replayed from ``kept`` (embedded before).
    """
    for query in queries[:WARMUP_QUERIES]:
        for mem in mems.values():
            await mem.search(query, space=SPACE)
    for mem in mems.values():
        await mem.flush()  # the space's vectors are in memory now, as in a running proxy
        await mem.vector_index.settle()
        await mem.keyword_index.settle()
    embedder = next(iter(mems.values())).embedder
    vectors = await asyncio.to_thread(embed_queries, embedder, queries)
    kept.vectors = dict(zip(queries, vectors, strict=True))
    total: dict[str, list[float]] = {name: [] for name in mems}
    bare: dict[str, list[float]] = {name: [] for name in mems}
    for i, query in enumerate(queries):
        for name in _turn(list(mems), i):
            search = functools.partial(mems[name].search, query, space=SPACE)
            total[name].append(await timed(search))
            kept.open = True
            bare[name].append(await timed(search))
            kept.open = False
    split: dict[str, dict[str, list[float]]] = {n: {s: [] for s in STAGES} for n in mems}
    async with AsyncExitStack() as stack:
        readers = {
            name: await stack.enter_async_context(reader_of(mem)) for name, mem in mems.items()
        }
        for i, query in enumerate(queries[:WARMUP_QUERIES] + queries):
            for name in _turn(list(mems), i):
                times = await stage_times(readers[name], mems[name], query)
                for stage, seconds in times.items():
                    split[name][stage].append(seconds)
    warm = slice(WARMUP_QUERIES, None)
    return {
        name: (
            Quantiles.of(total[name]),
            Quantiles.of(bare[name]),
            {s: Quantiles.of(t[warm]) for s, t in split[name].items()},
        )
        for name in mems
    }


def _turn(names: list[str], i: int) -> list[str]:
    """The backends in the order of turn ``i``: each goes first every other turn."""
    return names if i % 2 == 0 else names[::-1]


class reader_of:
    """A reader of the bench's own on ``mem``'s database, with the search's in-memory k-NN."""

    def __init__(self, mem: AsyncMemory) -> None:
        self._mem = mem
        self._conn: Reader | None = None

    async def __aenter__(self) -> Reader:
        config = self._mem.config
        self._conn = await open_async(
            self._mem.location, busy_timeout_ms=config.busy_timeout_ms, read_only=True
        )
        await self._mem.vector_index.register(self._conn)  # as the proxy's (SQLite only)
        return self._conn

    async def __aexit__(self, *_exc: object) -> None:
        if self._conn is not None:
            await self._conn.close()


async def stage_times(reader: Reader, mem: AsyncMemory, query: str) -> dict[str, float]:
    """Each stage of a search on its own, one after the other: the query's embedding, then
    each channel as the search runs it, its hits joined to their rows (from the held
    postings and vectors once this process holds the space, as the search's are).
    """
    config = mem.config
    start = time.perf_counter()
    vector = (await asyncio.to_thread(embed_queries, mem.embedder, [query]))[0]
    embedded = time.perf_counter()
    held = mem.keyword_index if mem.keyword_index.use(SPACE) else None
    words = functools.partial(
        keyword_passages, query=query, space=SPACE, k=config.search_k, held=held
    )
    await catch_up(reader, mem.vector_index, held)  # both logs, as the search does first
    await execute_fn(reader, words)
    lexed = time.perf_counter()
    near = functools.partial(
        nearest_passages,
        query=vector,
        space=SPACE,
        k=config.search_k,
        oversample=config.vector_oversample,
        use_floor=config.enable_similarity_weighting,
        held=mem.vector_index if mem.vector_index.use(SPACE) else None,
    )
    await execute_fn(reader, near)
    searched = time.perf_counter()
    return dict(zip(STAGES, (embedded - start, lexed - embedded, searched - lexed), strict=True))


def embed_queries(embedder: Embedder, queries: list[str]) -> Vectors:
    vectors: Vectors = normalise(embedder.embed(queries))
    return vectors


async def measure_recall(mem: AsyncMemory, exact: Exact) -> Recall:
    """Share of the exact top-10 in the top 10 of the search's k-NN.

    The k-NN runs as the search runs it (``search_k`` hits from ``search_k *
    vector_oversample`` candidates); the noise floor is off, as it is a filter on
    purpose, not an approximation.
    """
    async with reader_of(mem) as reader:
        found = [await vector_knn(mem, reader, v, SPACE, RECALL_K) for v in exact.queries]
    return exact.recall(found)
