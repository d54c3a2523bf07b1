"""A process serving one built store's searches for ``bench.latency``: old and new code in turns.

``python -m bench.search_worker DB HOME SPACE`` opens the memory at ``DB`` as a proxy
would, then answers JSON lines on stdin, one line of JSON each on stdout:

- ``{"op": "warm", "queries": [...]}``: embeds the queries once (for the searches timed
  without embedding), searches until the space's vectors are held in memory;
- ``{"op": "search", "query": q, "embed": bool}``: one ``AsyncMemory.search``, timed here
  (``embed`` false: the query's vector comes from the warm-up's, a dictionary look-up);
- ``{"op": "knn", "query": q, "k": 10}``: the vector channel's top ``k`` sentence ids, as
  the search runs it (noise floor off), for recall against exact search;
- ``{"op": "rss"}``: this process's peak resident memory and its resident memory now
  (loading a space holds its rows twice for a moment), and whether the space is held.

Run with ``PYTHONPATH`` at another checkout's ``orma_proxy`` (``--old-ref``), it times
that code on the same file, query by query with this one: only public names used here.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder, Vectors
from orma_proxy.embed.models import load_embedder
from orma_proxy.store import execute_fn, open_async
from orma_proxy.store.passages import nearest_passages

WARM_SEARCHES = 20
KIB = 1024


class MemoEmbedder:
    """The model, or the vectors it gave before for the same texts while ``memo`` is on."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.model_id = model.model_id
        self.dim = model.dim
        self.memo = False
        self.seen: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> Vectors:
        if self.memo and all(t in self.seen for t in texts):
            return np.stack([self.seen[t] for t in texts])
        vectors = np.asarray(self.model.embed(texts), dtype=np.float32)
        self.seen.update(zip(texts, vectors, strict=True))
        return vectors


async def serve(db: Path, home: Path, space: str) -> None:
    config = OrmaConfig(home=home, db_path=db)
    embedder = MemoEmbedder(load_embedder(config))
    loop = asyncio.get_running_loop()
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        reader = await open_async(mem.location, busy_timeout_ms=config.busy_timeout_ms)
        await mem.vector_index.register(reader)
        try:
            while line := await loop.run_in_executor(None, sys.stdin.readline):
                answer = await handle(json.loads(line), mem, embedder, reader, space)
                sys.stdout.write(json.dumps(answer) + "\n")
                sys.stdout.flush()
        finally:
            await reader.close()


async def handle(
    request: dict[str, Any], mem: AsyncMemory, embedder: MemoEmbedder, reader: Any, space: str
) -> dict[str, Any]:
    op = request["op"]
    if op == "warm":
        embedder.embed(list(request["queries"]))
        for query in request["queries"][:WARM_SEARCHES]:
            await mem.search(query, space=space)
        await mem.vector_index.settle()
        await mem.search(request["queries"][0], space=space)
        return {"held": mem.vector_index.holds(space)}
    if op == "search":
        embedder.memo = not request["embed"]
        start = time.perf_counter()
        await mem.search(request["query"], space=space)
        seconds = time.perf_counter() - start
        embedder.memo = False
        return {"seconds": seconds}
    if op == "knn":
        vector = embedder.embed([request["query"]])[0]
        await reader.execute_fn(mem.vector_index.caught_up)  # as old refs' code has it too
        return {"ids": await vector_knn(mem, reader, vector, space, request["k"])}
    if op == "rss":
        return {
            "peak_rss": peak_rss(),
            "rss": status_bytes("VmRSS:"),
            "held": mem.vector_index.holds(space),
        }
    raise ValueError(f"unknown op {op!r}")


def peak_rss() -> int:
    """This process's peak resident memory in bytes: VmHWM, which starts afresh at exec
    (``ru_maxrss`` can carry the parent's peak over a fork and exec)."""
    peak = status_bytes("VmHWM:")
    return peak if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * KIB


def status_bytes(field: str) -> int:
    """A memory figure of ``/proc/self/status`` in bytes (0 where there is none)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) * KIB
    return 0


async def vector_knn(
    mem: AsyncMemory, reader: Any, vector: Vectors, space: str, k: int
) -> list[int]:
    """The vector channel's top ``k`` sentence ids as the search runs it, noise floor off
    (a filter on purpose, not an approximation)."""
    config = mem.config
    held = mem.vector_index if mem.vector_index.use(space) else None
    # ``--old-ref`` runs this file on older code, whose ``nearest_passages`` took ``in_memory``,
    # and PostgreSQL's HNSW settings (``exact_under``, ``ef_search``: no bearing on SQLite).
    named = inspect.signature(nearest_passages).parameters
    chosen: dict[str, Any] = {"held": held} if "held" in named else {"in_memory": held is not None}
    chosen.update({name: 0 for name in ("exact_under", "ef_search") if name in named})
    search = functools.partial(
        nearest_passages,
        query=vector,
        space=space,
        k=max(config.search_k, k),
        oversample=config.vector_oversample,
        use_floor=False,
        **chosen,
    )
    rows = await execute_fn(reader, search)
    return [row.sentence_id for row in rows[:k]]


def main() -> None:
    db, home, space = sys.argv[1:4]
    asyncio.run(serve(Path(db), Path(home), space))


if __name__ == "__main__":
    main()
