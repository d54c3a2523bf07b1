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
from bench.latency_report import POSTGRES, Quantiles, Recall
from bench.search_worker import vector_knn
from orma_proxy import AsyncMemory
from orma_proxy.embed.base import Embedder, Vectors, normalise
from orma_proxy.recall.search import rrf_fuse
from orma_proxy.store import Reader, execute_fn, open_async
from orma_proxy.store.connect import Connection
from orma_proxy.store.episodes import fetch_sentences
from orma_proxy.store.keywords import BM25_SQL, bm25_params
from orma_proxy.store.postgres import search as pg_search
from orma_proxy.store.postgres.vectors import candidates
from orma_proxy.store.vectors import nearest

SPACE = "bench"
# Searches run before timing starts: model, page cache and statement caches warm.
WARMUP_QUERIES = 20
RECALL_K = 10
STAGES = ("query embedding", "BM25", "vector k-NN", "fetch")
# Passages a search returns (AsyncMemory.search's default k).
SEARCH_K = 10


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
                times = await stage_times(readers[name], mems[name], query, name)
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


async def stage_times(
    reader: Reader, mem: AsyncMemory, query: str, backend: str
) -> dict[str, float]:
    """Each stage of a search on its own, one after the other.

    BM25 and k-NN are the statements the search runs (it wraps each in a join
    that returns the rows, so it needs no separate fetch); "fetch" is what that
    join costs when done apart, for the 10 fused winners.
    """
    config = mem.config
    start = time.perf_counter()
    vector = (await asyncio.to_thread(embed_queries, mem.embedder, [query]))[0]
    embedded = time.perf_counter()
    lexical = await execute_fn(reader, lambda c: bm25(c, query, config.search_k, backend))
    lexed = time.perf_counter()
    if backend == POSTGRES:
        search: Callable[[Connection], list[tuple[int, float]]] = functools.partial(
            candidates,
            query=vector,
            space=SPACE,
            count=config.search_k * config.vector_oversample,
            exact_under=config.vector_exact_under,
            ef_floor=config.vector_ef_search,
        )
    else:
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
    semantic = (await execute_fn(reader, search))[: config.search_k]
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


def bm25(conn: Connection, query: str, k: int, backend: str) -> list[tuple[int, float]]:
    """The search's BM25 statement alone: (sentence id, score), best first."""
    if backend == POSTGRES:
        sql, params = pg_search.KEYWORD_HITS, pg_search.keyword_params(query, SPACE, k)
    else:
        sql, params = BM25_SQL, bm25_params(query, SPACE, k)
    if params is None:
        return []
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, params)]


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
