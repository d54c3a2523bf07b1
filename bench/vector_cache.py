"""The corpus's sentence vectors, embedded once and kept on disk between bench runs.

``python -m bench.vector_cache --sentences 1000000 [--vector-cache DIR]`` fills the cache
(run it under ``nice -n 19``: a million sentences take hours on 2 cores); ``bench.latency``
reads it, and embeds and stores whatever part of a size is still missing.

The corpus repeats sentences, and the first ``n`` notes of a larger corpus are the
``n``-note corpus, so the cache holds the corpus's distinct sentences in the order they
first appear: every size's sentences are a prefix of it, and one cache serves them all.
It is a folder per (model, corpus seed, sentence splitting) of fixed-size chunks
(``00000.npy``: float32, one row per distinct sentence; ``00000.json``: those sentences'
texts, compared on reading, so a changed corpus is never served stale vectors). The
vectors are written to a temporary name and renamed, so a run cut off leaves whole
chunks only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bench import corpus
from orma_proxy import OrmaConfig
from orma_proxy.embed.base import Embedder, Vectors
from orma_proxy.text.segment import split_sentences

CHUNK = 10_000
DEFAULT_DIR = Path.home() / ".cache" / "orma-bench" / "vectors"
EMBED_BATCH = 64
WAIT_SECONDS = 10.0


def sentence_stream(seed: int, max_chars: int) -> Iterator[str]:
    """Every sentence of the corpus's notes in order, as the store splits them."""
    for note in corpus.note_stream(seed):
        for segment in split_sentences(note.text, max_chars):
            yield segment.text


def distinct_sentences(sentences: int, seed: int, max_chars: int) -> tuple[list[str], int]:
    """The distinct texts of the first ``sentences`` sentences, and the notes holding them."""
    seen: dict[str, None] = {}
    total = notes = 0
    for note in corpus.note_stream(seed):
        if total >= sentences:
            break
        notes += 1
        for segment in split_sentences(note.text, max_chars):
            total += 1
            seen.setdefault(segment.text, None)
    return list(seen), notes


def notes_distinct(notes: list[corpus.Note], max_chars: int) -> list[str]:
    """The distinct sentence texts of ``notes``, in first-appearance order."""
    seen: dict[str, None] = {}
    for note in notes:
        for segment in split_sentences(note.text, max_chars):
            seen.setdefault(segment.text, None)
    return list(seen)


class VectorCache:
    """The chunks of one (model, seed, splitting) under ``root``."""

    def __init__(self, root: Path, model_id: str, seed: int, max_chars: int) -> None:
        slug = model_id.replace("/", "--")
        self.folder = root / f"{slug}-seed{seed}-chars{max_chars}"

    def _paths(self, index: int) -> tuple[Path, Path]:
        return self.folder / f"{index:05d}.npy", self.folder / f"{index:05d}.json"

    def read_chunk(self, index: int, texts: list[str]) -> Vectors | None:
        """Chunk ``index``'s first ``len(texts)`` vectors, if it was stored for these texts."""
        data, names = self._paths(index)
        if not data.exists() or not names.exists():
            return None
        stored = json.loads(names.read_text())
        if stored[: len(texts)] != texts:
            return None
        return np.array(np.load(data, mmap_mode="r")[: len(texts)], dtype=np.float32)

    def write_chunk(self, index: int, texts: list[str], vectors: Vectors) -> None:
        """Texts first, then the vectors renamed into place: a chunk is whole or absent."""
        self.folder.mkdir(parents=True, exist_ok=True)
        data, names = self._paths(index)
        names.write_text(json.dumps(texts, ensure_ascii=False))
        tmp = data.with_suffix(".tmp.npy")
        np.save(tmp, np.asarray(vectors, dtype=np.float32))
        os.replace(tmp, data)

    def vectors(
        self,
        texts: list[str],
        embedder: Embedder | None,
        *,
        progress: bool = False,
        wait: bool = False,
    ) -> Vectors:
        """The vectors of the corpus's first ``len(texts)`` distinct sentences.

        Missing chunks are embedded with ``embedder`` and stored (whole chunks only: a
        last partial one is embedded, not stored); with no embedder, a missing chunk
        is an error. ``wait``: a missing whole chunk is waited for (a ``nice``d
        ``python -m bench.vector_cache`` is filling the cache) rather than embedded.
        """
        parts = []
        started = time.monotonic()
        done = 0
        for index, start in enumerate(range(0, len(texts), CHUNK)):
            wanted = texts[start : start + CHUNK]
            found = self.read_chunk(index, wanted)
            while found is None and wait and len(wanted) == CHUNK:
                time.sleep(WAIT_SECONDS)
                found = self.read_chunk(index, wanted)
            if found is None:
                if embedder is None:
                    raise LookupError(f"{self.folder}: chunk {index} is not cached")
                found = embed_all(embedder, wanted)
                done += len(wanted)
                if len(wanted) == CHUNK:
                    self.write_chunk(index, wanted, found)
                if progress:
                    rate = done / (time.monotonic() - started)
                    print(
                        f"{start + len(wanted):,} distinct sentences cached ({rate:.0f}/s)",
                        file=sys.stderr,
                        flush=True,
                    )
            parts.append(found)
        if not parts:
            return np.zeros((0, 0), np.float32)
        return np.concatenate(parts)

    def cached(self) -> int:
        """How many distinct sentences are cached (whole chunks from the first)."""
        index = 0
        while self._paths(index)[0].exists():
            index += 1
        return index * CHUNK


def embed_all(embedder: Embedder, texts: list[str]) -> Vectors:
    parts = [embedder.embed(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
    return np.concatenate([np.asarray(p, dtype=np.float32) for p in parts])


def main(argv: list[str] | None = None) -> None:
    from orma_proxy.embed.models import load_embedder

    parser = argparse.ArgumentParser(prog="python -m bench.vector_cache", description=__doc__)
    parser.add_argument("--sentences", type=int, required=True)
    parser.add_argument("--seed", type=int, default=corpus.DEFAULT_SEED)
    parser.add_argument("--vector-cache", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    config = OrmaConfig()
    texts, notes = distinct_sentences(args.sentences, args.seed, config.max_sentence_chars)
    embedder = load_embedder(config)
    cache = VectorCache(args.vector_cache, embedder.model_id, args.seed, config.max_sentence_chars)
    print(
        f"{args.sentences:,} sentences = {notes:,} notes, {len(texts):,} distinct; "
        f"{cache.cached():,} cached in {cache.folder}",
        file=sys.stderr,
        flush=True,
    )
    whole = len(texts) - len(texts) % CHUNK
    cache.vectors(texts[:whole], embedder, progress=True)


if __name__ == "__main__":
    main()
