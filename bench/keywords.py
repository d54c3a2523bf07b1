"""The keyword channel alone: FTS5's ``bm25()`` statement against the in-memory postings.

``python -m bench.keywords [--sizes 10000,100000] [--queries 200] [--dir DIR] [--json]``

For each size a store of ``bench.corpus`` notes (text only: BM25 needs no vectors)
is built under ``--dir`` through the real writer, or reused when it is already
there (100,000 notes take minutes to write on 2 cores). Then, one query at a time,
three times in turns, alternating which goes first: the search's FTS5 statement (``BM25_SQL``, what
the keyword channel ran before ``store/keyword_index.py``) and the held postings'
top-k (the same BM25 by MaxScore), each timed from query text to best-first
(id, score); and the whole channel as the search calls it (``keyword_passages``:
hits joined to what a passage shows) both ways. Reported: p50/p95 ms of each
(first runs), the ratio of p95s, the p95 of each query's fastest run (the work,
less a busy machine's preemptions), how often the two top-k sets are the same, the postings'
load time and size.

Measurements for bench/RESULTS.md, not timed tests: every figure comes from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import corpus
from bench.latency import bench_config, build_store
from bench.latency_report import Quantiles
from bench.latency_search import SPACE
from orma_proxy.embed.base import Vectors
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.keyword_index import KeywordIndex
from orma_proxy.store.keywords import BM25_SQL, bm25_params, query_terms
from orma_proxy.store.migrate import migrate
from orma_proxy.store.passages import keyword_passages

DEFAULT_SIZES = (10_000, 100_000)
K = 30  # config.search_k
REPEATS = 3  # each query's statements run this many times, in turns; the first is reported


class _NoEmbedder:
    """BM25 needs no vectors; the store records the default model all the same."""

    model_id = "bench-keywords-none"
    dim = 8

    def embed(self, texts: list[str]) -> Vectors:
        raise AssertionError("the keyword bench embeds nothing")


@dataclass(frozen=True)
class SizeKeywords:
    notes: int
    sentences: int
    fts5: Quantiles
    held: Quantiles
    channel_fts5: Quantiles
    channel_held: Quantiles
    p95_ratio: float
    fastest_fts5: Quantiles  # each query's fastest of REPEATS: the work, less the machine's noise
    fastest_held: Quantiles
    same_top: float
    load_seconds: float
    postings_mb: float


async def _store(folder: Path, size: int) -> Path:
    config = bench_config(folder / f"n{size}")
    path = config.resolved_db_path()
    if not path.exists():
        print(f"building {size:,} notes in {path}...", file=sys.stderr, flush=True)
        await build_store(config, _NoEmbedder(), corpus.notes(size))
    conn = open_sync(path, busy_timeout_ms=5000)
    try:
        migrate(conn)  # a store kept from an older schema
    finally:
        conn.close()
    return path


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    found = call()
    return time.perf_counter() - start, found


async def measure(path: Path, size: int, queries: list[str]) -> SizeKeywords:
    index = KeywordIndex(path, busy_timeout_ms=5000, load_after=1, catch_up_max=5000)
    start = time.perf_counter()
    index.use(SPACE)
    await index.settle()
    loaded = time.perf_counter() - start
    conn: Connection = open_sync(path, busy_timeout_ms=5000, read_only=True)
    try:
        sentences = int(conn.execute("SELECT count(*) FROM sentences").fetchone()[0])

        def fts5(query: str) -> list[int]:  # what the keyword channel ran before
            params = bm25_params(query, SPACE, K)
            return [] if params is None else [r[0] for r in conn.execute(BM25_SQL, params)]

        def held(query: str) -> list[int]:
            found = index.search(conn, SPACE, query_terms(query), K)
            assert found is not None
            return [i for i, _ in found]

        times: dict[str, list[float]] = {"fts5": [], "held": [], "c_fts5": [], "c_held": []}
        least: dict[str, list[float]] = {"fts5": [], "held": []}  # each query's fastest
        same = 0
        for i, query in enumerate(queries):
            pair = [("fts5", fts5), ("held", held)]
            tops: dict[str, set[int]] = {}
            runs: dict[str, list[float]] = {"fts5": [], "held": []}
            for turn in range(REPEATS):
                for name, fn in pair if (i + turn) % 2 == 0 else pair[::-1]:
                    seconds, found = _timed(lambda fn=fn, q=query: fn(q))  # type: ignore[misc]
                    runs[name].append(seconds)
                    tops[name] = set(found)
            for name, taken in runs.items():
                times[name].append(taken[0])
                least[name].append(min(taken))
            same += tops["fts5"] == tops["held"]
            calls = [
                ("c_fts5", lambda q=query: keyword_passages(conn, q, SPACE, K)),
                ("c_held", lambda q=query: keyword_passages(conn, q, SPACE, K, held=index)),
            ]
            for name, call in calls if i % 2 == 0 else calls[::-1]:
                times[name].append(_timed(call)[0])
        nbytes = sum(a.nbytes for a in index.held_arrays(SPACE))
    finally:
        conn.close()
        await index.close()
    q = {name: Quantiles.of(t) for name, t in times.items()}
    fastest = {name: Quantiles.of(t) for name, t in least.items()}
    return SizeKeywords(
        notes=size,
        sentences=sentences,
        fts5=q["fts5"],
        held=q["held"],
        channel_fts5=q["c_fts5"],
        channel_held=q["c_held"],
        p95_ratio=q["fts5"].p95 / q["held"].p95,
        fastest_fts5=fastest["fts5"],
        fastest_held=fastest["held"],
        same_top=same / len(queries),
        load_seconds=loaded,
        postings_mb=nbytes / 1e6,
    )


def render(results: list[SizeKeywords], command: str) -> str:
    lines = [
        f"`{command}` (k = {K}, ms, warm, one query at a time, the two taking turns)",
        "",
        "| notes | sentences | FTS5 bm25() p50 / p95 | held p50 / p95 | p95 ratio "
        f"| fastest of {REPEATS}: FTS5 / held p95 "
        "| channel FTS5 p50 / p95 | channel held p50 / p95 | same top-k | load s | postings MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.notes:,} | {r.sentences:,} | {r.fts5.p50:.2f} / {r.fts5.p95:.2f} "
            f"| {r.held.p50:.2f} / {r.held.p95:.2f} | {r.p95_ratio:.1f}x "
            f"| {r.fastest_fts5.p95:.2f} / {r.fastest_held.p95:.2f} "
            f"| {r.channel_fts5.p50:.2f} / {r.channel_fts5.p95:.2f} "
            f"| {r.channel_held.p50:.2f} / {r.channel_held.p95:.2f} "
            f"| {r.same_top:.1%} | {r.load_seconds:.1f} | {r.postings_mb:.0f} |"
        )
    return "\n".join(lines)


async def run(sizes: list[int], query_count: int, folder: Path) -> list[SizeKeywords]:
    queries = corpus.queries(query_count)
    results = []
    for size in sizes:
        path = await _store(folder, size)
        results.append(await measure(path, size, queries))
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.keywords", description=__doc__)
    parser.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "orma-bench-keywords",
        help="where the stores are built once and kept (outside the repository)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    results = asyncio.run(run(sizes, args.queries, args.dir))
    command = " ".join(["python -m bench.keywords", *(argv or sys.argv[1:])])
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
    else:
        print(render(results, command))


if __name__ == "__main__":
    main()
