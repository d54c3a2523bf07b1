"""The opened database: schema checked, model bound, one writer, one reader.

Opening never damages a file it does not understand: a non-SQLite file, a
foreign SQLite database or a newer schema is refused before anything is
written. Readers never block the writer (WAL).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder, store_dim
from orma_proxy.errors import NotAnOrmaDatabaseError, StoreError
from orma_proxy.store.connect import DatabaseError, is_damaged, open_async, open_sync
from orma_proxy.store.migrate import migrate
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.store.vectors import bind_model, recorded_model
from orma_proxy.store.writer import Writer

EmbedderFactory = Callable[[str | None], Embedder]


class Database:
    """Connections to one Orma SQLite file."""

    def __init__(
        self,
        path: Path,
        reader: aiosqlite.Connection,
        writer: Writer,
        embedder: Embedder,
        vectors: VectorIndex,
    ) -> None:
        self.path = path
        self.reader = reader
        self.writer = writer
        self.embedder = embedder
        self.vectors = vectors

    @classmethod
    async def open(
        cls, config: OrmaConfig, make_embedder: EmbedderFactory, *, rebind: bool = False
    ) -> Database:
        """Open (creating if needed) the configured file.

        ``make_embedder`` receives the model the file was built with (or None) and
        returns the embedder to use; ``rebind`` accepts a different model and
        drops the old vectors (``orma reindex``).
        """
        path = config.resolved_db_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create {path.parent}: {exc.strerror}") from exc
        if path.is_dir():
            raise StoreError(f"{path} is a directory, not a database file")
        recorded = await asyncio.to_thread(_prepare, path, config)
        embedder = await asyncio.to_thread(make_embedder, recorded)
        await asyncio.to_thread(_bind, path, config, embedder, rebind)
        writer = await Writer.open(
            path,
            busy_timeout_ms=config.busy_timeout_ms,
            synchronous=config.synchronous,
            batch_max=config.writer_batch_max,
        )
        try:
            reader = await open_async(
                path,
                busy_timeout_ms=config.busy_timeout_ms,
                read_only=True,
                mmap_bytes=config.reader_mmap_bytes,
            )
        except BaseException:
            await writer.close()  # its thread would otherwise outlive the failure
            raise
        vectors = VectorIndex(
            path,
            busy_timeout_ms=config.busy_timeout_ms,
            load_after=config.vector_memory_after,
            catch_up_max=config.vector_catch_up_max,
        )
        await vectors.register(reader)
        return cls(path, reader, writer, embedder, vectors)

    async def close(self) -> None:
        await self.vectors.close()
        await self.writer.close()
        await self.reader.close()


def _prepare(path: Path, config: OrmaConfig) -> str | None:
    """Migrate the file and return the embedding model it was built with."""
    conn = open_sync(path, busy_timeout_ms=config.busy_timeout_ms)
    try:
        migrate(conn)
        return recorded_model(conn)
    except DatabaseError as exc:
        # Page 1 may read fine while later pages are garbage: still not ours to touch.
        if is_damaged(exc):
            raise NotAnOrmaDatabaseError(
                f"{path} is damaged ({exc}); nothing was changed. Restore it from a backup "
                "or move it aside"
            ) from exc
        raise StoreError(f"cannot prepare {path}: {exc}") from exc
    finally:
        conn.close()


def _bind(path: Path, config: OrmaConfig, embedder: Embedder, rebind: bool) -> None:
    conn = open_sync(path, busy_timeout_ms=config.busy_timeout_ms)
    try:
        bind_model(conn, embedder.model_id, store_dim(embedder.dim), rebind=rebind)
    except DatabaseError as exc:
        raise StoreError(f"cannot record the embedding model in {path}: {exc}") from exc
    finally:
        conn.close()
