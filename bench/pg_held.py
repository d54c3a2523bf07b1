"""PostgreSQL's search channels against the held indexes' arrays, built from the same rows.

``python -m bench.pg_held [--notes 100000] [--queries 200] [--db URL] [--pgdata DIR]
[--ef-search 200] [--json]``

What issue 31's "PostgreSQL keeps pace" would gain if the held indexes that serve
SQLite (``store/keyword_index.py``'s ``SpaceKeywords``, ``store/vector_index.py``'s
``SpaceVectors``) served PostgreSQL too. A store of ``--notes`` corpus notes is built
on PostgreSQL (its vectors from ``bench.vector_cache``) in the database
``orma_bench_held_<notes>`` on ``--db``'s server, or on a pgserver kept in ``--pgdata``,
and reused by later runs (100,000 notes take ~15 minutes to build here). Then, one
query at a time, ``REPEATS`` times in turns:

- keywords: the search's PostgreSQL channel (``keyword_passages``: BM25 over
  ``sentence_terms``, rows joined) against ``SpaceKeywords.top`` over the same
  postings (the query's lexemes from PostgreSQL's own ``to_tsvector``, one trip),
  its hits joined to their rows by the same statement the vector channel uses;
- vectors: the search's PostgreSQL channel (HNSW, ``nearest_passages``; its
  ``ef_search`` the config's ``vector_ef_search`` or ``--ef-search``) against
  ``SpaceVectors.nearest`` (the config's candidate share, int8 re-rank), its hits
  scored again on the float vectors and joined; recall@10 of both against exact.

Reported: p50 / p95 ms of the first runs and of each query's fastest, the load
average around the timing, how often the keyword top-k sets agree, and the arrays'
load time and size. Measurements for bench/RESULTS.md, not timed tests.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench import corpus
from bench.backends import Kept, ReplayEmbedder
from bench.exact import Exact
from bench.latency import bench_config, build_store
from bench.latency_report import Quantiles, Recall
from bench.latency_search import SPACE, embed_queries
from bench.vector_cache import DEFAULT_DIR, VectorCache, notes_distinct
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.models import load_embedder
from orma_proxy.store.connect import Connection
from orma_proxy.store.keyword_postings import SpaceKeywords
from orma_proxy.store.passages import PG_BOUND_SQL, keyword_passages, nearest_passages
from orma_proxy.store.postgres.connection import connect
from orma_proxy.store.postgres.search import keyword_params
from orma_proxy.store.space_vectors import SpaceVectors

REPEATS = 3
RECALL_K = 10
DEFAULT_PGDATA = Path("/tmp/orma-bench-pg-held")
# The space's postings, one row per (lexeme, sentence), lexemes grouped.
_POSTINGS_SQL = (
    "SELECT lexeme, sentence_id, f FROM sentence_terms WHERE space = ? ORDER BY lexeme, sentence_id"
)
_LEXEMES_SQL = "SELECT tsvector_to_array(to_tsvector('orma', orma_fold(?)))"
_VECTORS_SQL = "SELECT sentence_id, embedding FROM sentence_vectors WHERE space = ?"
# A held k-NN's hits scored again on the float vectors (SQLite's path does the same).
_RESCORED_SQL = (
    "SELECT sentence_id, 1.0 - (embedding <=> ?) FROM sentence_vectors "
    "WHERE sentence_id = ANY(?) AND space = ?"
)


@dataclass(frozen=True)
class Channel:
    """One channel both ways: first runs, each query's fastest, and what was held."""

    pg: Quantiles
    held: Quantiles
    pg_fastest: Quantiles
    held_fastest: Quantiles
    load_seconds: float
    held_mb: float


@dataclass(frozen=True)
class Result:
    notes: int
    sentences: int
    keywords: Channel
    same_top_k: int
    keyword_queries: int
    vectors: Channel
    recall_pg: Recall
    recall_held: Recall
    load: tuple[float, float]
    ef_search: int


def _server(db: str | None, pgdata: Path) -> str:
    if db is not None:
        return db
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        from pgserver import get_server  # type: ignore[attr-defined]  # a dev dependency

        pgdata.mkdir(parents=True, exist_ok=True)
        server: Any = get_server(pgdata, cleanup_mode=None)  # kept for the next run
    return str(server.get_uri())


async def _store(server: str, notes: int) -> str:
    """The URL of a database holding ``notes`` corpus notes and their vectors (built once)."""
    import psycopg

    name = f"orma_bench_held_{notes}"
    url = server.replace("/postgres?", f"/{name}?", 1)
    with psycopg.connect(server, autocommit=True) as admin:
        if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return url
        admin.execute(f"CREATE DATABASE {name}_building")
    building = server.replace("/postgres?", f"/{name}_building?", 1)
    embedder = load_embedder(OrmaConfig())
    config = bench_config(Path(f"/tmp/{name}")).with_db(building)
    texts = corpus.notes(notes)
    print(f"building {notes:,} notes on PostgreSQL...", file=sys.stderr, flush=True)
    await build_store(config, embedder, texts)
    distinct = notes_distinct(texts, config.max_sentence_chars)
    chars = config.max_sentence_chars
    cache = VectorCache(DEFAULT_DIR, embedder.model_id, corpus.DEFAULT_SEED, chars)
    kept = Kept()
    kept.vectors = dict(zip(distinct, cache.vectors(distinct, embedder), strict=True))
    kept.open = True
    replay = ReplayEmbedder(embedder, kept, replay=True)
    async with AsyncMemory(config=config, embedder=replay) as mem:
        await mem.flush()
    with psycopg.connect(server, autocommit=True) as admin:  # whole, or not there
        admin.execute(f"ALTER DATABASE {name}_building RENAME TO {name}")
    return url


def _held_keywords(conn: Connection) -> SpaceKeywords:
    rows = conn.execute(_POSTINGS_SQL, (SPACE,)).fetchall()
    lexemes = [str(r[0]) for r in rows]
    ids = np.array([int(r[1]) for r in rows], dtype=np.int64)
    counts = np.array([int(r[2]) for r in rows], dtype=np.int64)
    starts = [0, *(i for i in range(1, len(rows)) if lexemes[i] != lexemes[i - 1]), len(rows)]
    spans = itertools.pairwise(starts)
    postings = [(lexemes[a], np.repeat(ids[a:b], counts[a:b])) for a, b in spans]
    members = np.array(
        [int(r[0]) for r in conn.execute("SELECT id FROM sentences WHERE space = ?", (SPACE,))],
        dtype=np.int64,
    )
    return SpaceKeywords.build(postings, members)


def _held_vectors(conn: Connection) -> SpaceVectors:
    rows = conn.execute(_VECTORS_SQL, (SPACE,)).fetchall()
    return SpaceVectors.build([int(r[0]) for r in rows], [bytes(r[1]) for r in rows])


def _joined(conn: Connection, hits: list[tuple[int, float]], k: int) -> list[int]:
    params = {
        "ids": [i for i, _ in hits],
        "scores": [s for _, s in hits],
        "space": SPACE,
        "use_floor": 0,
        "k": k,
    }
    return [int(r[0]) for r in conn.execute(PG_BOUND_SQL, params).fetchall()]


def _in_turns(
    queries: list[Any], ways: dict[str, Callable[[Any], list[int]]]
) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, list[list[int]]]]:
    """Each query ``REPEATS`` times each way, in turns: first times, fastest, first results."""
    first: dict[str, list[float]] = {w: [] for w in ways}
    fastest: dict[str, list[float]] = {w: [] for w in ways}
    found: dict[str, list[list[int]]] = {w: [] for w in ways}
    names = list(ways)
    for i, query in enumerate(queries):
        times: dict[str, list[float]] = {w: [] for w in ways}
        for repeat in range(REPEATS):
            for name in names if (i + repeat) % 2 == 0 else names[::-1]:
                start = time.perf_counter()
                ids = ways[name](query)
                times[name].append(time.perf_counter() - start)
                if repeat == 0:
                    found[name].append(ids)
        for name in ways:
            first[name].append(times[name][0])
            fastest[name].append(min(times[name]))
    return first, fastest, found


def _channel(
    first: dict[str, list[float]], fastest: dict[str, list[float]], load_s: float, mb: float
) -> Channel:
    return Channel(
        Quantiles.of(first["pg"]),
        Quantiles.of(first["held"]),
        Quantiles.of(fastest["pg"]),
        Quantiles.of(fastest["held"]),
        load_s,
        mb,
    )


def measure(url: str, notes: int, query_count: int, ef_search: int | None = None) -> Result:
    config = OrmaConfig()
    if ef_search is not None:
        config = config.model_copy(update={"vector_ef_search": ef_search})
    k = config.search_k
    conn = connect(url, application_name="bench-pg-held")
    try:
        start = time.perf_counter()
        keywords = _held_keywords(conn)
        keyword_load = time.perf_counter() - start
        start = time.perf_counter()
        vectors = _held_vectors(conn)
        vector_load = time.perf_counter() - start
        keyword_mb = sum(a.nbytes for a in [*keywords.ids.values(), *keywords.counts.values()])
        queries = corpus.queries(query_count)
        worded = [q for q in queries if keyword_params(q, SPACE, k) is not None]

        def held_keywords(query: str) -> list[int]:
            params = keyword_params(query, SPACE, k)
            words = "" if params is None else params["words"]
            lexemes = conn.execute(_LEXEMES_SQL, (words,)).fetchone()[0]
            return _joined(conn, keywords.top(list(lexemes), k), k)

        def pg_keywords(query: str) -> list[int]:
            return [r.sentence_id for r in keyword_passages(conn, query, SPACE, k)]

        load_before = os.getloadavg()[0]
        first, fastest, found = _in_turns(worded, {"pg": pg_keywords, "held": held_keywords})
        same = sum(set(a) == set(b) for a, b in zip(found["pg"], found["held"], strict=True))
        keyword_channel = _channel(first, fastest, keyword_load, keyword_mb / 1e6)

        embedder = load_embedder(config)
        vecs = embed_queries(embedder, queries)
        share = config.vector_candidate_share
        count = max(k * config.vector_oversample, math.ceil(vectors.size * share))

        def held_vectors(query: np.ndarray) -> list[int]:
            hits = vectors.nearest(query, count, k)
            ids = [i for i, _ in hits]
            scored = conn.execute(_RESCORED_SQL, (np.asarray(query), ids, SPACE)).fetchall()
            exact = sorted(((int(r[0]), float(r[1])) for r in scored), key=lambda h: -h[1])
            return _joined(conn, exact, k)

        def pg_vectors(query: np.ndarray) -> list[int]:
            rows = nearest_passages(
                conn, query, SPACE, k=k, oversample=config.vector_oversample,
                use_floor=False, exact_under=config.vector_exact_under,
                ef_search=config.vector_ef_search,
            )  # fmt: skip
            return [r.sentence_id for r in rows]

        first, fastest, found = _in_turns(list(vecs), {"pg": pg_vectors, "held": held_vectors})
        load_after = os.getloadavg()[0]
        vector_channel = _channel(first, fastest, vector_load, vectors.nbytes / 1e6)
        exact = Exact.of_space(conn, SPACE, vecs, RECALL_K)
        recall = {w: exact.recall([ids[:RECALL_K] for ids in f]) for w, f in found.items()}
        sentences = int(conn.execute("SELECT count(*) FROM sentences").fetchone()[0])
    finally:
        conn.close()
    return Result(
        notes,
        sentences,
        keyword_channel,
        same,
        len(worded),
        vector_channel,
        recall["pg"],
        recall["held"],
        (load_before, load_after),
        config.vector_ef_search,
    )


def render(r: Result, command: str) -> str:
    def row(name: str, c: Channel) -> list[str]:
        return [
            f"| {name} | PostgreSQL | {c.pg.p50:.2f} / {c.pg.p95:.2f} | "
            f"{c.pg_fastest.p50:.2f} / {c.pg_fastest.p95:.2f} | |",
            f"| | held | {c.held.p50:.2f} / {c.held.p95:.2f} | "
            f"{c.held_fastest.p50:.2f} / {c.held_fastest.p95:.2f} | "
            f"{c.load_seconds:.1f} s, {c.held_mb:.0f} MB |",
        ]

    return "\n".join(
        [
            f"`{command}`",
            "",
            f"{r.notes:,} notes ({r.sentences:,} sentences), load average "
            f"{r.load[0]:.2f} -> {r.load[1]:.2f}; ms, each channel with its rows joined:",
            "",
            f"| channel | how | p50 / p95 | fastest of {REPEATS}: p50 / p95 | load, held |",
            "|---|---|---:|---:|---|",
            *row("keywords", r.keywords),
            *row("vectors", r.vectors),
            "",
            f"- keyword top-k sets the same: {r.same_top_k}/{r.keyword_queries}.",
            f"- vector recall@10 id / ties: PostgreSQL (ef_search {r.ef_search}) "
            f"{r.recall_pg.ids:.3f} / "
            f"{r.recall_pg.ties:.3f}, held {r.recall_held.ids:.3f} / {r.recall_held.ties:.3f}.",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pg_held", description=__doc__)
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--db", default=None, help="a PostgreSQL server's URL (its postgres db)")
    parser.add_argument("--pgdata", type=Path, default=DEFAULT_PGDATA)
    parser.add_argument("--ef-search", type=int, default=None, help="HNSW's ef_search floor")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    url = asyncio.run(_store(_server(args.db, args.pgdata), args.notes))
    result = measure(url, args.notes, args.queries, args.ef_search)
    command = " ".join(["python -m bench.pg_held", *sys.argv[1:]])
    print(json.dumps(asdict(result), indent=2) if args.json else render(result, command))


if __name__ == "__main__":
    main()
