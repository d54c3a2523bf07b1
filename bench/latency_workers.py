"""``bench.latency``'s sizes, and its serving processes: this code and another ref's, in turns.

Each serving process (``bench.search_worker``) opens the built SQLite store as a proxy
would and holds the space's vectors; with ``--old-ref`` a second one runs another
commit's ``orma_proxy`` and migrations (exported with ``git archive``, beside this
checkout's ``bench``) on the same file. The bench sends each query to both, the first of each pair
alternating, so the machine's noise hits both alike; each reports its own peak RSS.

``python -m bench.latency_workers DIR/n<notes> [--queries 200] [--repeats 3] [--old-ref REF]``
serves a store that ``bench.latency --keep DIR`` built and kept, again: the serving
figures alone, in minutes where building a million sentences takes a quarter of an hour.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from bench import corpus
from bench.exact import Exact
from bench.latency_report import Quantiles, Recall, Served, served_table
from bench.latency_search import RECALL_K, RECALL_QUERIES, SPACE, embed_queries
from bench.vector_cache import distinct_sentences

ROOT = Path(__file__).resolve().parents[1]
NEW = "new"


@dataclass(frozen=True)
class Size:
    """A size asked for: notes, and how it was asked (``1000000s``: a million sentences)."""

    notes: int
    asked: str


def parse_size(text: str, max_chars: int, seed: int = corpus.DEFAULT_SEED) -> Size:
    """``10000`` is 10,000 notes; ``1000000s`` the notes holding the first million sentences."""
    text = text.strip().lower().replace("_", "")
    if text.endswith("s"):
        sentences = int(text[:-1])
        _, notes = distinct_sentences(sentences, seed, max_chars)
        return Size(notes, f"{sentences:,} sentences")
    return Size(int(text), f"{int(text):,} notes")


class Worker:
    """One ``bench.search_worker`` process, spoken to a line at a time."""

    def __init__(self, label: str, tree: Path, db: Path, home: Path, space: str) -> None:
        self.label = label
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "bench.search_worker", str(db), str(home), space],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **request: Any) -> dict[str, Any]:
        stdin, stdout = self._pipes()
        stdin.write(json.dumps(request) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"search worker {self.label} exited ({self._proc.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def close(self) -> None:
        stdin, _ = self._pipes()
        stdin.close()
        self._proc.wait(timeout=60)


@contextmanager
def old_tree(ref: str | None) -> Iterator[Path | None]:
    """``ref``'s ``orma_proxy`` beside this checkout's ``bench``, in a temporary folder."""
    if ref is None:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="orma-bench-old-"))
    try:
        archive = subprocess.run(
            ["git", "archive", ref, "orma_proxy", "migrations"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        archive_path = root / "old.tar"
        archive_path.write_bytes(archive)
        with tarfile.open(archive_path) as tar:
            tar.extractall(root, filter="data")
        shutil.copytree(ROOT / "bench", root / "bench")
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def serve_side_by_side(
    db: Path,
    home: Path,
    space: str,
    queries: list[str],
    recall_queries: list[str],
    recall_of: Callable[[list[list[int]]], Recall],
    old: Path | None,
    old_ref: str | None,
    repeats: int = 1,
) -> list[Served]:
    """Search latency (with and without query embedding), recall and RSS of each process.

    With ``repeats`` > 1 each query is searched that many times by each process (the
    processes still in turns), and the fastest of its times is kept beside the first:
    on a shared machine the fastest is the query's cost, the first what a user waited.
    """
    trees = {NEW: ROOT} if old is None else {f"old ({old_ref})": old, NEW: ROOT}
    with ExitStack() as stack:
        workers = []
        for label, tree in trees.items():
            worker = Worker(label, tree, db, home, space)
            stack.callback(worker.close)
            workers.append(worker)
        held = {w.label: w.ask(op="warm", queries=queries)["held"] for w in workers}
        timed: dict[str, dict[bool, list[list[float]]]] = {
            w.label: {True: [], False: []} for w in workers
        }
        load_before = os.getloadavg()[0]
        for i, query in enumerate(queries):
            for embed in (True, False):
                times: dict[str, list[float]] = {w.label: [] for w in workers}
                for repeat in range(repeats):
                    turn = workers if (i + repeat) % 2 == 0 else workers[::-1]
                    for worker in turn:
                        answer = worker.ask(op="search", query=query, embed=embed)
                        times[worker.label].append(answer["seconds"])
                for label, seconds in times.items():
                    timed[label][embed].append(seconds)
        load_after = os.getloadavg()[0]
        served = []
        for worker in workers:
            found = [worker.ask(op="knn", query=q, k=10)["ids"] for q in recall_queries]
            rss = worker.ask(op="rss")
            mine = timed[worker.label]
            served.append(
                Served(
                    label=worker.label,
                    search=Quantiles.of([t[0] for t in mine[True]]),
                    search_no_embed=Quantiles.of([t[0] for t in mine[False]]),
                    recall=recall_of(found),
                    peak_rss=int(rss["peak_rss"]),
                    rss=int(rss.get("rss", 0)),
                    held=bool(held[worker.label] and rss["held"]),
                    load=(load_before, load_after),
                    repeats=repeats,
                    fastest=Quantiles.of([min(t) for t in mine[True]]),
                    fastest_no_embed=Quantiles.of([min(t) for t in mine[False]]),
                )
            )
        return served


def main(argv: list[str] | None = None) -> None:
    from orma_proxy import OrmaConfig
    from orma_proxy.embed.models import load_embedder
    from orma_proxy.store.connect import open_sync

    parser = argparse.ArgumentParser(prog="python -m bench.latency_workers", description=__doc__)
    parser.add_argument("folder", type=Path, help="a size's folder under bench.latency --keep")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--old-ref", default=None)
    args = parser.parse_args(argv)
    db, home = args.folder / "memory.db", args.folder / "home"
    if not db.exists():
        raise SystemExit(f"{db}: no store (build one with python -m bench.latency --keep)")
    queries = corpus.queries(args.queries)
    config = OrmaConfig()
    recall_queries = queries[:RECALL_QUERIES]
    vectors = embed_queries(load_embedder(config), recall_queries)
    conn = open_sync(db, busy_timeout_ms=config.busy_timeout_ms, read_only=True)
    try:
        exact = Exact.of_space(conn, SPACE, vectors, RECALL_K)
        sentences = int(conn.execute("SELECT count(*) FROM sentences").fetchone()[0])
    finally:
        conn.close()
    with old_tree(args.old_ref) as old:
        served = serve_side_by_side(
            db, home, SPACE, queries, recall_queries, exact.recall, old, args.old_ref, args.repeats
        )
    command = " ".join(["python -m bench.latency_workers", *sys.argv[1:]])
    size = f"{sentences:,} sentences"
    print("\n".join([f"`{command}`", "", *served_table([(size, s) for s in served])]))


if __name__ == "__main__":
    main()
