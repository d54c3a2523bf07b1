"""The stores ``bench.latency`` compares: SQLite files and PostgreSQL databases, one corpus.

PostgreSQL is a server given by URL (``--db``), or a private pgserver started in a
temporary folder as the tests' fixture starts it; each size gets a new database on it.
Embedding a corpus is most of a run (~150 sentences/s here), so it is done once: the
SQLite store's flush embeds for real while ``ReplayEmbedder`` keeps each sentence's
vector, and the PostgreSQL store's flush is then given those same vectors back through
its own indexer. Queries are always embedded for real, on both.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from orma_proxy.embed.base import Embedder, Vectors

_numbers = itertools.count(1)


class ReplayEmbedder:
    """An embedder that can keep what it embeds, then hand it back instead of embedding again.

    Outside ``keeping`` it is the model it wraps, so a search's
    query is embedded for real on every backend.
    """

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.model_id = model.model_id
        self.dim = model.dim
        self._kept: dict[str, Vectors] = {}
        self._mode = "pass"

    def embed(self, texts: list[str]) -> Vectors:
        if self._mode == "replay" and all(t in self._kept for t in texts):
            return np.stack([self._kept[t] for t in texts])
        vectors = self.model.embed(texts)
        if self._mode == "record":
            self._kept.update(zip(texts, np.asarray(vectors, dtype=np.float32), strict=True))
        return vectors

    @contextmanager
    def keeping(self, mode: Literal["record", "replay"]) -> Iterator[None]:
        """Keep each text's vector (``record``), or give the kept ones back (``replay``)."""
        self._mode = mode
        try:
            yield
        finally:
            self._mode = "pass"
            if mode == "replay":
                self._kept.clear()  # one size's corpus at a time in memory


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
