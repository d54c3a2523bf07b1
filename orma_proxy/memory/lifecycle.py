"""What every part of ``AsyncMemory`` stands on: the open file and its background work.

The config, opening and closing the database, the two embedding threads (one
for queries, one at low priority for the indexer), the indexer and recall's
access log. Writing, reading, forgetting and portability (``engine.py``,
``forgetting.py``, ``portability.py``) all build on this one base, so each
reaches the open database the same way: ``_opened()``.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from orma_proxy.config import OrmaConfig, is_db_url
from orma_proxy.embed.base import Embedder, fit
from orma_proxy.embed.models import load_embedder
from orma_proxy.errors import ConfigError, OrmaError
from orma_proxy.memory.indexer import Indexer
from orma_proxy.memory.priority import lower_thread_priority
from orma_proxy.offload import in_thread
from orma_proxy.recall.access import AccessLog
from orma_proxy.store import KeywordIndex
from orma_proxy.store.database import Database
from orma_proxy.store.vector_index import VectorIndex

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

# Sentences per embedding call of the indexer. A call cannot be interrupted, and
# close() waits for the one in flight: a few sentences take well under a second.
_INDEX_CHUNK = 8


class Lifecycle:
    """Opening and closing one memory file, and the threads and tasks that serve it."""

    def __init__(
        self,
        path: str | Path | None = None,
        upstream: str | None = None,
        model: str | None = None,
        config: OrmaConfig | None = None,
        embedder: Embedder | None = None,
        *,
        url: str | None = None,
    ) -> None:
        updates: dict[str, Any] = {}
        if upstream is not None:
            updates["upstream"] = upstream
        if model is not None:
            updates["model"] = model
        self.config = (config or OrmaConfig.load()).model_copy(update=updates)
        if url is not None and (path is not None or not is_db_url(url)):
            raise ConfigError(
                "url= takes a PostgreSQL URL (postgresql://user:pass@host:5432/orma), "
                "path= a SQLite file; give one of them"
            )
        if path is not None or url is not None:  # a SQLite file, or a PostgreSQL URL
            self.config = self.config.with_db(url or path or "")
        if embedder is not None and not isinstance(embedder, Embedder):
            raise ConfigError(
                "embedder must have model_id, dim and embed(list[str]) -> (n, dim) float32"
            )
        self._given_embedder = embedder
        self._db: Database | None = None
        self._indexer: Indexer | None = None
        self._query_pool: ThreadPoolExecutor | None = None
        self._index_pool: ThreadPoolExecutor | None = None
        self._access: AccessLog | None = None
        self._recall_slots: asyncio.Semaphore | None = None
        # One record-time draw at a time: each reads the facts the one before it wrote
        # ("when I have a sore throat…" is the morning drink's exception only if the
        # morning drink is already there), however many turns are recorded at once.
        self._drawing = asyncio.Lock()

    async def open(self, *, reindex: bool = False) -> Self:
        """Open the database (creating it if needed) and start the vector indexer.

        ``reindex=True`` accepts an embedding model other than the one the file was
        built with, drops the old vectors and re-embeds every sentence.
        """
        if self._db is not None:
            return self
        self._db = await Database.open(self.config, self._make_embedder, rebind=reindex)
        self._query_pool = ThreadPoolExecutor(1, thread_name_prefix="orma-embed-query")
        self._index_pool = ThreadPoolExecutor(
            1,
            thread_name_prefix="orma-embed-index",
            initializer=lower_thread_priority,
            initargs=(self.config.index_nice,),
        )
        self._indexer = Indexer(
            self._db.reader,
            self._db.writer,
            self._embed_batch,
            self.config,
            background=self.config.index_in_background,
        )
        self._indexer.start()
        self._access = AccessLog(self._db.writer, self.config)
        self._recall_slots = asyncio.Semaphore(self.config.recall_concurrency)
        return self

    async def close(self) -> None:
        """Stop background work and close the file. Pending vectors resume next time."""
        if self._access is not None:
            await self._access.close()
            self._access = None
        if self._indexer is not None:
            await self._indexer.close()
            self._indexer = None
        if self._db is not None:
            await self._db.close()
            self._db = None
        for pool in (self._query_pool, self._index_pool):
            if pool is not None:
                pool.shutdown(wait=True)
        self._query_pool = self._index_pool = None

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def embedder(self) -> Embedder:
        return self._opened().embedder

    @property
    def path(self) -> Path:
        return self.config.resolved_db_path()

    @property
    def location(self) -> Path | str:
        """Where the memory lives: its SQLite file, or its PostgreSQL URL."""
        return self.config.db_url or self.config.resolved_db_path()

    @property
    def writes_failing(self) -> str | None:
        """Why the database refuses this memory's writes right now (unreachable, disk full,
        read-only), or None while it takes them (``/health``)."""
        writer = self._opened().writer
        return writer.read_only or writer.failing

    @property
    def vector_index(self) -> VectorIndex:
        """The in-memory k-NN of the spaces this process searches often."""
        return self._opened().vectors

    @property
    def keyword_index(self) -> KeywordIndex:
        """The in-memory BM25 postings of the spaces this process searches often."""
        return self._opened().keywords

    async def flush(self) -> None:
        """Wait until every stored sentence is searchable by vector, and recall's log is written.

        Spaces being loaded into the in-memory vector index are waited for too.
        """
        db = self._opened()
        assert self._indexer is not None and self._access is not None
        await self._indexer.flush()
        await self._access.flush()
        await db.vectors.settle()
        await db.keywords.settle()

    def _opened(self) -> Database:
        if self._db is None:
            raise OrmaError(
                "memory is not open: use `async with AsyncMemory() as mem` or `await mem.open()`"
            )
        return self._db

    def _make_embedder(self, recorded_model: str | None) -> Embedder:
        if self._given_embedder is not None:
            return self._given_embedder
        return load_embedder(self.config, recorded_model)

    async def embed_query(self, query: str) -> Vectors:
        """The query vector recall and search use, embedded on the query thread."""
        embedder = self.embedder
        vectors = await in_thread(lambda: embedder.embed([query]), pool=self._query_pool)
        query_vector: Vectors = fit(vectors, 1, embedder.dim, embedder.model_id)[0]
        return query_vector

    async def _embed_batch(self, texts: list[str]) -> Vectors:
        """Vectors for the indexer, a few texts per call: close() waits for one call only."""
        import numpy as np

        embedder = self.embedder
        parts = []
        for start in range(0, len(texts), _INDEX_CHUNK):
            chunk = texts[start : start + _INDEX_CHUNK]
            vectors = await in_thread(partial(embedder.embed, chunk), pool=self._index_pool)
            parts.append(fit(vectors, len(chunk), embedder.dim, embedder.model_id))
        return np.concatenate(parts)

    async def _embed_fixed(self, texts: list[str]) -> Vectors:
        """``_embed_batch`` for texts fixed in the code (recall's background sentences): read
        from the user's cache when this model embedded them before (``embed/fixed.py``)."""
        from orma_proxy.embed.fixed import fixed_file, keep_fixed, read_fixed

        embedder = self.embedder
        path = await in_thread(lambda: fixed_file(embedder, texts), pool=self._query_pool)
        if path is not None:
            kept = await in_thread(lambda: read_fixed(path, len(texts), embedder.dim))
            if kept is not None:
                return kept
        vectors = await self._embed_batch(texts)
        if path is not None:
            await in_thread(lambda: keep_fixed(path, vectors))
        return vectors

    def _index_new(self) -> None:
        """New sentences were committed: wake the indexer to embed them."""
        assert self._indexer is not None
        self._indexer.notify()
