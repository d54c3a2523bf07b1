"""Latency of the episodic core: ``add()``, ``flush()`` and ``search()`` at realistic sizes.

``python -m bench.latency [--sizes 10000,100000,1000000s] [--queries 200] [--adds 200]
[--json] [--backends sqlite,postgresql] [--db postgresql://…] [--vector-cache DIR]
[--wait-for-cache] [--old-ref main] [--repeats 3] [--keep DIR]``

A size is notes, or sentences with an ``s`` (the notes holding that many). For each
size a store is built from ``bench.corpus`` on each backend (SQLite in a temporary
folder; PostgreSQL in a new database on ``--db``'s server, or on a private pgserver
when no URL is given: ``bench/backends.py``), then:

- ingest: the bulk write of the notes, then the flush: the real background indexer
  stores each sentence's vector, taken from ``bench.vector_cache`` (embedded once,
  kept on disk between runs; missing chunks are embedded here, or with
  ``--wait-for-cache`` waited for from a ``nice``d filler), so it times storing the
  vectors (vec0 and float copies; PostgreSQL's rows), not the model;
- search: ``AsyncMemory.search`` end to end, warm, one query at a time (a chat turn
  waits for it), with the query embedded and again with its vector replayed, the
  backends taking turns query by query so the machine's noise hits both alike, with
  the cost of each stage timed on its own (query embedding, then the keyword and the
  vector channel as the search runs them, hits joined to their rows);
- recall@10: how much of the exact top-10 (brute-force cosine over every float
  vector of the space, ``bench/exact.py``) the search's k-NN ranks in its top 10, by
  id and counting ties with the exact 10th (the corpus repeats sentences);
- serving: ``bench/search_worker.py`` processes open the SQLite store as a proxy
  would, this checkout's and with ``--old-ref`` another ref's code, taking turns
  query by query: search latency, recall and each one's peak RSS (with ``--repeats``,
  each query's fastest time too, and the load average around the timing);
- add: durable ``add()`` on the built store, one at a time with the indexer
  idle in between (a user's next note comes seconds later), under
  ``synchronous=FULL`` (the default) and ``NORMAL`` for comparison (SQLite's
  setting: PostgreSQL's commits are its server's).

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
import resource
import sys
import tempfile
from collections.abc import Sequence
from contextlib import AsyncExitStack, ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from bench import corpus
from bench.backends import Kept, ReplayEmbedder, fresh_database, postgres_server
from bench.exact import Exact
from bench.latency_report import (
    POSTGRES,
    SQLITE,
    Quantiles,
    Report,
    SizeResult,
    render,
)
from bench.latency_search import (
    RECALL_K,
    RECALL_QUERIES,
    SPACE,
    embed_queries,
    measure_recall,
    measure_search,
    reader_of,
    timed,
)
from bench.latency_workers import Size, old_tree, parse_size, serve_side_by_side
from bench.vector_cache import DEFAULT_DIR, VectorCache, notes_distinct
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.embed.models import load_embedder
from orma_proxy.store import execute_fn
from orma_proxy.store.database import Database
from orma_proxy.store.episodes import NewEpisode, insert_episode
from orma_proxy.text.segment import split_sentences

BACKENDS = (SQLITE, POSTGRES)
DEFAULT_SIZES = (2_000, 10_000)
DEFAULT_QUERIES = 200
DEFAULT_ADDS = 200
# Seed offset for the notes added during the add() measurement (not in the corpus).
ADD_SEED_OFFSET = 7

Synchronous = Literal["FULL", "NORMAL"]


def bench_config(folder: Path, synchronous: Synchronous = "FULL") -> OrmaConfig:
    """Defaults, with the data in ``folder``."""
    return OrmaConfig(home=folder / "home", db_path=folder / "memory.db", synchronous=synchronous)


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


async def measure_adds(
    config: OrmaConfig, embedder: Embedder, notes: list[corpus.Note]
) -> Quantiles:
    """Durable ``add()`` latency, the indexer idle before each add."""
    samples = []
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.flush()
        for note in notes:
            samples.append(
                await timed(
                    functools.partial(mem.add, note.text, SPACE, note.role, at=note.said_at)
                )
            )
            await mem.flush()
    return Quantiles.of(samples)


@dataclass(frozen=True)
class Options:
    """What every size of a run shares."""

    queries: list[str]
    adds: int
    root: Path
    cache: VectorCache
    old: Path | None
    old_ref: str | None
    wait_for_cache: bool
    repeats: int = 1


async def measure_size(
    size: Size, embedder: Embedder, options: Options, pg_url: str | None
) -> list[SizeResult]:
    """Every backend's figures at ``size``: the same corpus, the same (cached) vectors."""
    folder = options.root / f"n{size.notes}"
    configs = {SQLITE: bench_config(folder)}
    if pg_url is not None:
        configs[POSTGRES] = bench_config(folder).with_db(pg_url)
    notes = corpus.notes(size.notes)
    distinct = notes_distinct(notes, configs[SQLITE].max_sentence_chars)
    print(f"  {len(distinct):,} distinct sentences", file=sys.stderr, flush=True)
    built = {}
    for name, config in configs.items():
        built[name] = await timed(functools.partial(build_store, config, embedder, notes))
    del notes
    fill = functools.partial(
        options.cache.vectors, distinct, embedder, progress=True, wait=options.wait_for_cache
    )
    vectors = await asyncio.to_thread(fill)
    queries = options.queries
    async with AsyncExitStack() as stack:
        # Every flush stores the cached vectors (the model does not run).
        kept = Kept()
        kept.vectors = dict(zip(distinct, vectors, strict=True))
        kept.open = True
        del vectors
        mems = {
            name: await stack.enter_async_context(
                AsyncMemory(config=config, embedder=ReplayEmbedder(embedder, kept, replay=True))
            )
            for name, config in configs.items()
        }
        times = await asyncio.gather(*(timed(mem.flush) for mem in mems.values()))
        flushed = dict(zip(mems, times, strict=True))
        kept.open = False
        kept.vectors.clear()
        sentences = {name: (await mem.stats(SPACE)).sentences for name, mem in mems.items()}
        searched = await measure_search(mems, queries, kept)
        vectors_q = await asyncio.to_thread(embed_queries, embedder, queries[:RECALL_QUERIES])
        async with reader_of(mems[SQLITE]) as reader:
            truth = functools.partial(Exact.of_space, space=SPACE, queries=vectors_q, k=RECALL_K)
            exact = await execute_fn(reader, truth)
        recall = {name: await measure_recall(mem, exact) for name, mem in mems.items()}
    served = await asyncio.to_thread(
        serve_side_by_side,
        configs[SQLITE].resolved_db_path(),
        configs[SQLITE].home,
        SPACE,
        queries,
        queries[:RECALL_QUERIES],
        exact.recall,
        options.old,
        options.old_ref,
        options.repeats,
    )
    del exact
    extra = corpus.notes(2 * options.adds, seed=corpus.DEFAULT_SEED + ADD_SEED_OFFSET)
    results = []
    for name, config in configs.items():
        add_full = add_normal = None
        if options.adds:
            add_full = await measure_adds(config, embedder, extra[: options.adds])
            if name == SQLITE:
                normal = config.model_copy(update={"synchronous": "NORMAL"})
                add_normal = await measure_adds(normal, embedder, extra[options.adds :])
        results.append(
            SizeResult(
                backend=name,
                asked=size.asked,
                notes=size.notes,
                sentences=sentences[name],
                build_seconds=built[name],
                flush_seconds=flushed[name],
                sentences_per_second=sentences[name] / flushed[name],
                search=searched[name][0],
                search_no_embed=searched[name][1],
                split=searched[name][2],
                recall=recall[name],
                add_full=add_full,
                add_normal=add_normal,
                bench_peak_rss=peak_rss(),
                served=served if name == SQLITE else [],
            )
        )
    return results


def peak_rss() -> int:
    """This process's peak resident memory so far, in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def load_average() -> float:
    return os.getloadavg()[0]


async def run(
    sizes: list[Size],
    query_count: int,
    adds: int,
    where: Path | None,
    backends: Sequence[str],
    db: str | None,
    vector_cache: Path,
    old_ref: str | None,
    wait_for_cache: bool = False,
    repeats: int = 1,
    keep: Path | None = None,
) -> Report:
    embedder = await asyncio.to_thread(load_embedder, OrmaConfig())
    max_chars = OrmaConfig().max_sentence_chars
    load_before = load_average()
    results = []
    with ExitStack() as stack:
        if keep is not None:  # the stores stay, for ``python -m bench.latency_workers``
            tmp = keep
        else:
            temporary = tempfile.TemporaryDirectory(prefix="orma-bench-", dir=where)
            tmp = Path(stack.enter_context(temporary))
        options = Options(
            queries=corpus.queries(query_count),
            adds=adds,
            root=tmp,
            cache=VectorCache(vector_cache, embedder.model_id, corpus.DEFAULT_SEED, max_chars),
            old=stack.enter_context(old_tree(old_ref)),
            old_ref=old_ref,
            wait_for_cache=wait_for_cache,
            repeats=repeats,
        )
        server = stack.enter_context(postgres_server(db)) if POSTGRES in backends else None
        for size in sizes:
            print(f"measuring {size.asked} ({size.notes:,} notes)...", file=sys.stderr, flush=True)
            with ExitStack() as per_size:
                url = None
                if server is not None:
                    url = per_size.enter_context(fresh_database(server, f"n{size.notes}"))
                results += await measure_size(size, embedder, options, url)
            if size != sizes[-1]:  # a long run's smaller sizes, should it not finish
                print(render(_report(embedder, load_before, results)), file=sys.stderr, flush=True)
    return _report(embedder, load_before, results)


def _report(embedder: Embedder, load_before: float, results: list[SizeResult]) -> Report:
    return Report(
        command=" ".join(["python -m bench.latency", *sys.argv[1:]]),
        model=embedder.model_id,
        dim=embedder.dim,
        cpus=os.cpu_count() or 0,
        load_before=load_before,
        load_after=load_average(),
        python=platform.python_version(),
        results=list(results),
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__)
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in DEFAULT_SIZES),
        help="comma-separated note counts; a count ending in s is sentences "
        "(1000000s: the notes holding the corpus's first million sentences)",
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
    parser.add_argument(
        "--backends",
        default=None,
        help=f"comma-separated, of {', '.join(BACKENDS)} (default: sqlite, and postgresql "
        "too when --db is given); postgresql without --db starts a private pgserver",
    )
    parser.add_argument(
        "--db",
        default=None,
        help="a PostgreSQL server's URL (postgresql://user:pass@host:5432/db): each size "
        "gets a new database on it, dropped afterwards",
    )
    parser.add_argument(
        "--vector-cache",
        type=Path,
        default=DEFAULT_DIR,
        help="where the corpus's sentence vectors are kept between runs (bench.vector_cache)",
    )
    parser.add_argument(
        "--wait-for-cache",
        action="store_true",
        help="wait for a missing chunk of the vector cache (being filled by a niced "
        "python -m bench.vector_cache) instead of embedding it here",
    )
    parser.add_argument(
        "--old-ref",
        default=None,
        help="a git ref whose orma_proxy also serves the SQLite store, query by query "
        "with this checkout's (old vs new in one run)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="the serving processes search each query this many times; the fastest "
        "time is reported beside the first (a shared machine's preemptions filtered out)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="build the stores in this new folder and keep them: "
        "python -m bench.latency_workers DIR/n<notes> serves one again",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    max_chars = OrmaConfig().max_sentence_chars
    sizes = [parse_size(s, max_chars) for s in args.sizes.split(",") if s.strip()]
    default = (SQLITE, POSTGRES) if args.db else (SQLITE,)
    backends = [b.strip() for b in args.backends.split(",")] if args.backends else default
    if SQLITE not in backends or not set(backends) <= set(BACKENDS):
        raise SystemExit(f"--backends: sqlite, and optionally postgresql (got {args.backends})")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        if any(args.keep.iterdir()):
            raise SystemExit(f"--keep {args.keep}: not empty")
    report = asyncio.run(
        run(
            sizes,
            args.queries,
            args.adds,
            args.dir,
            backends,
            args.db,
            args.vector_cache,
            args.old_ref,
            args.wait_for_cache,
            args.repeats,
            args.keep,
        )
    )
    print(json.dumps(asdict(report), indent=2) if args.json else render(report))


if __name__ == "__main__":
    main()
