"""The stores ``bench.latency`` compares: SQLite files and PostgreSQL databases, one corpus.

PostgreSQL is a server given by URL (``--db``), or a private pgserver started in a
temporary folder as the tests' fixture starts it; each size gets a new database on it.
Embedding a corpus is most of a run (~150 sentences/s here), so it is done once: the
SQLite store's flush embeds for real while ``ReplayEmbedder`` keeps each sentence's
vector, and the PostgreSQL store's flush, running at the same time, is handed those
same vectors through its own indexer. Queries are always embedded for real, on both.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from orma_proxy.embed.base import Embedder, Vectors

_numbers = itertools.count(1)


class Kept:
    """Each corpus sentence's vector, as SQLite's flush embeds it, for PostgreSQL's to store."""

    def __init__(self) -> None:
        self.vectors: dict[str, Vectors] = {}
        self.changed = threading.Condition()
        self.open = False  # while True, the corpus is being embedded and handed over

    def put(self, texts: list[str], vectors: Vectors) -> None:
        with self.changed:
            self.vectors.update(zip(texts, np.asarray(vectors, dtype=np.float32), strict=True))
            self.changed.notify_all()

    def take(self, texts: list[str]) -> Vectors:
        """The vectors of ``texts``, waiting until SQLite's flush has embedded them all."""
        with self.changed:
            self.changed.wait_for(lambda: all(t in self.vectors for t in texts))
            return np.stack([self.vectors[t] for t in texts])


class ReplayEmbedder:
    """The model, except while ``kept`` is open: then it records or replays the corpus.

    SQLite's memory gets a recording one, PostgreSQL's a replaying one: its indexer
    stores each batch as soon as SQLite's has embedded it, so both flushes run at
    once and the corpus is embedded once. Queries are always embedded for real.
    """

    def __init__(self, model: Embedder, kept: Kept, *, replay: bool) -> None:
        self.model = model
        self.model_id = model.model_id
        self.dim = model.dim
        self._kept = kept
        self._replay = replay

    def embed(self, texts: list[str]) -> Vectors:
        if not self._kept.open:
            return self.model.embed(texts)
        if self._replay:
            return self._kept.take(texts)
        vectors = self.model.embed(texts)
        self._kept.put(texts, vectors)
        return vectors


@contextmanager
def postgres_server(url: str | None) -> Iterator[str]:
    """A PostgreSQL URL to create the bench's databases from: ``url``, or a private pgserver."""
    if url is not None:
        yield url
        return
    root = Path(tempfile.mkdtemp(prefix="orma-bench-postgres-"))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        from pgserver import get_server  # type: ignore[attr-defined]  # a dev dependency

        server: Any = get_server(root, cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def fresh_database(server_url: str, label: str) -> Iterator[str]:
    """A new, empty database on the server of ``server_url``: its URL. Dropped afterwards."""
    import psycopg

    name = f"orma_bench_{label}_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
