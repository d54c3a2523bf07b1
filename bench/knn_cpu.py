"""CPU time of the in-memory k-NN alone, on the bench corpus's cached vectors.

``OPENBLAS_NUM_THREADS=1 python -m bench.knn_cpu NOTES [--queries 200]``

Builds the index's ``SpaceVectors`` from the first ``NOTES`` notes' sentences (vectors from
``bench.vector_cache``, which must hold them) and times ``nearest`` as ``VectorIndex`` calls
it, in CPU time (``time.thread_time``), so a busy shared machine does not inflate it, and
its recall@10 against exact search over the float vectors (``bench.exact``), the hits
scored again on the float copies as the search's statement does. Run it
with ``PYTHONPATH`` at another checkout (``git archive REF orma_proxy migrations`` plus this
``bench``) to time that code on the same vectors.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from bench import corpus
from bench.exact import Exact
from bench.latency_workers import parse_size
from bench.vector_cache import DEFAULT_DIR, VectorCache, notes_distinct
from orma_proxy import OrmaConfig
from orma_proxy.embed.base import normalise
from orma_proxy.embed.models import load_embedder
from orma_proxy.store.space_vectors import SpaceVectors
from orma_proxy.text.segment import split_sentences

WARMUP = 20
RECALL_K = 10


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.knn_cpu", description=__doc__)
    parser.add_argument("notes", help="a note count, or sentences ending in s (500000s)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--share", type=float, default=None, help="vector_candidate_share (default: config's)"
    )
    args = parser.parse_args(argv)
    config = OrmaConfig()
    embedder = load_embedder(config)
    size = parse_size(args.notes, OrmaConfig().max_sentence_chars)
    notes = corpus.notes(size.notes)
    chars = config.max_sentence_chars
    distinct = notes_distinct(notes, chars)
    cache = VectorCache(DEFAULT_DIR, embedder.model_id, corpus.DEFAULT_SEED, chars)
    vectors = cache.vectors(distinct, None)
    row = {text: i for i, text in enumerate(distinct)}
    order = [row[s.text] for n in notes for s in split_sentences(n.text, chars)]
    floats = vectors[np.asarray(order)]
    space = SpaceVectors.build(list(range(len(floats))), [f.tobytes() for f in floats])
    queries = normalise(embedder.embed(corpus.queries(args.queries)))
    # Older code has no share: its candidates were search_k * vector_oversample.
    share = getattr(config, "vector_candidate_share", 0.0) if args.share is None else args.share
    count = max(config.search_k * config.vector_oversample, math.ceil(len(floats) * share))
    for query in queries[:WARMUP]:
        space.nearest(query, count, config.search_k)
    cpu, found = [], []
    for query in queries:
        start = time.thread_time()
        hits = space.nearest(query, count, config.search_k)
        cpu.append(time.thread_time() - start)
        # As INDEX_NEAREST_SQL: the hits scored again on the float copies.
        exact = sorted((i for i, _ in hits), key=lambda i: -float(floats[i] @ query))
        found.append(exact[:RECALL_K])
    p50, p95 = np.percentile(np.asarray(cpu) * 1e3, [50, 95])
    ids = np.arange(len(floats), dtype=np.int64)
    recall = Exact(ids, floats, queries, RECALL_K).recall(found)
    print(
        f"{len(floats):,} sentences, {count:,} candidates, {space.nbytes / 1e6:.0f} MB held: "
        f"k-NN CPU p50 {p50:.2f} / p95 {p95:.2f} ms; recall@10 by id {recall.ids:.3f}, "
        f"with ties {recall.ties:.3f}"
    )


if __name__ == "__main__":
    main()
