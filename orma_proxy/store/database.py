"""The opened database: schema checked, model bound, one writer, one reader.

Opening never damages a file it does not understand: a non-SQLite file, a
foreign SQLite database or a newer schema is refused before anything is
written. Readers never block the writer (WAL).

A file this process may read but not write (another user's, a read-only
folder or mount) opens read-only: nothing is migrated or recorded, reads
work, and every write is refused with one ``ReadOnlyError``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder, store_dim
from orma_proxy.errors import NotAnOrmaDatabaseError, ReadOnlyError, StoreError
from orma_proxy.offload import in_thread
from orma_proxy.store.connect import (
    DatabaseError,
    is_damaged,
    is_read_only,
    open_sync,
    read_only_reason,
)
from orma_proxy.store.keyword_index import KeywordIndex
from orma_proxy.store.migrate import migrate, schema_versions
from orma_proxy.store.postgres.database import open_postgres
from orma_proxy.store.threads import Reader, open_async
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.store.vectors import bind_model, recorded_model
from orma_proxy.store.writer import Writer, refusal

EmbedderFactory = Callable[[str | None], Embedder]


class Database:
    """Connections to one Orma SQLite file."""

    def __init__(
        self,
        path: Path,
        reader: Reader,
        writer: Writer,
        embedder: Embedder,
        vectors: VectorIndex,
        keywords: KeywordIndex,
        url: str | None = None,
    ) -> None:
        self.path = path
        self.url = url  # a PostgreSQL memory's (``path`` is then only the SQLite default)
        self.reader = reader
        self.writer = writer
        self.embedder = embedder
        self.vectors = vectors
        self.keywords = keywords

    @classmethod
    async def open(
        cls, config: OrmaConfig, make_embedder: EmbedderFactory, *, rebind: bool = False
    ) -> Database:
        """Open (creating if needed) the configured file.

        ``make_embedder`` receives the model the file was built with (or None) and
        returns the embedder to use; ``rebind`` accepts a different model and
        drops the old vectors (``orma reindex``).
        """
        if config.db_url is not None:
            return await cls._open_postgres(config.db_url, config, make_embedder, rebind=rebind)
        path = config.resolved_db_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create {path.parent}: {exc.strerror}") from exc
        if path.is_dir():
            raise StoreError(f"{path} is a directory, not a database file")
        read_only = await in_thread(lambda: read_only_reason(path))
        if read_only is not None and rebind:
            raise refusal(read_only)
        recorded = await in_thread(lambda: _prepare(path, config, read_only))
        embedder = await in_thread(lambda: make_embedder(recorded))
        await in_thread(lambda: _bind(path, config, embedder, rebind, read_only))
        writer = await Writer.open(
            path,
            busy_timeout_ms=config.busy_timeout_ms,
            synchronous=config.synchronous,
            batch_max=config.writer_batch_max,
            read_only=read_only,
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
        vectors, keywords = _held_indexes(path, config)
        await vectors.register(reader)
        return cls(path, reader, writer, embedder, vectors, keywords)

    @classmethod
    async def _open_postgres(
        cls, url: str, config: OrmaConfig, make_embedder: EmbedderFactory, *, rebind: bool
    ) -> Database:
        """PostgreSQL (``store/postgres/``), its spaces held in memory as SQLite's are."""
        reader, writer, embedder = await open_postgres(url, config, make_embedder, rebind=rebind)
        vectors, keywords = _held_indexes(url, config)
        return cls(config.resolved_db_path(), reader, writer, embedder, vectors, keywords, url)

    @property
    def location(self) -> Path | str:
        """Where the memory lives, for what opens a connection of its own: the file, or the URL."""
        return self.path if self.url is None else self.url

    async def close(self) -> None:
        await self.vectors.close()
        await self.keywords.close()
        await self.writer.close()
        await self.reader.close()


def _held_indexes(where: Path | str, config: OrmaConfig) -> tuple[VectorIndex, KeywordIndex]:
    """The indexes this process holds of the spaces it searches often (``held_index.py``)."""
    vectors = VectorIndex(
        where,
        busy_timeout_ms=config.busy_timeout_ms,
        load_after=config.vector_memory_after,
        catch_up_max=config.vector_catch_up_max,
        candidate_share=config.vector_candidate_share,
    )
    keywords = KeywordIndex(
        where,
        busy_timeout_ms=config.busy_timeout_ms,
        load_after=config.keyword_memory_after,
        catch_up_max=config.keyword_catch_up_max,
    )
    return vectors, keywords


def _prepare(path: Path, config: OrmaConfig, read_only: str | None) -> str | None:
    """Migrate the file (or, read-only, check it needs none); return the model it was built with."""
    conn = open_sync(path, busy_timeout_ms=config.busy_timeout_ms, read_only=read_only is not None)
    try:
        if read_only is None:
            migrate(conn)
        elif (versions := schema_versions(conn))[0] < versions[1]:
            raise ReadOnlyError(
                f"{read_only}, and this Orma must first upgrade its schema (version "
                f"{versions[0]} to {versions[1]}): open it once with write access, "
                "or read it with the Orma that wrote it"
            )
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


def _bind(
    path: Path, config: OrmaConfig, embedder: Embedder, rebind: bool, read_only: str | None
) -> None:
    conn = open_sync(path, busy_timeout_ms=config.busy_timeout_ms, read_only=read_only is not None)
    try:
        bind_model(conn, embedder.model_id, store_dim(embedder.dim), rebind=rebind)
    except DatabaseError as exc:
        if is_read_only(exc):  # a file that never recorded its model
            raise refusal(read_only or f"{path} is read-only ({exc})") from exc
        raise StoreError(f"cannot record the embedding model in {path}: {exc}") from exc
    finally:
        conn.close()
