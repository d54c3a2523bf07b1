"""Opening a PostgreSQL memory: migrate, bind the model, one writer and one reader.

The same two threads as SQLite's (``store/threads.py``), each owning one
psycopg connection: every store function runs there as a sync ``fn(conn)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder, store_dim
from orma_proxy.errors import StoreError
from orma_proxy.offload import in_thread
from orma_proxy.store.postgres.connection import PgConnection, connect
from orma_proxy.store.postgres.migrate import migrate
from orma_proxy.store.threads import Reader
from orma_proxy.store.vectors import bind_model
from orma_proxy.store.writer import Writer


async def open_postgres(
    url: str,
    config: OrmaConfig,
    make_embedder: Callable[[str | None], Embedder],
    *,
    rebind: bool,
) -> tuple[Reader, Writer, Embedder]:
    """Connections to the database at ``url``, its schema current and model bound."""
    recorded = await in_thread(lambda: _prepare(url))
    embedder = await in_thread(lambda: make_embedder(recorded))
    await in_thread(lambda: _bind(url, embedder, rebind))
    opener = functools.partial(connect, url, application_name="orma-writer")
    writer = await Writer.start(
        opener,
        "the PostgreSQL database",
        batch_max=config.writer_batch_max,
        retries=config.write_retries,
    )
    try:
        reader = await Reader.open(
            functools.partial(connect, url, application_name="orma-reader"), "orma-reader"
        )
    except BaseException:
        await writer.close()
        raise
    return reader, writer, embedder


def _prepare(url: str) -> str | None:
    """Migrate the database; the model it was built with (None for a new one)."""
    conn = connect(url, application_name="orma-migrate")
    try:
        migrate(conn)
        row = conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
        return None if row is None else str(row[0])
    except StoreError:
        raise
    except Exception as exc:  # a migration script's own error, raised by psycopg
        raise StoreError(f"cannot prepare the PostgreSQL database: {exc}") from exc
    finally:
        conn.close()


def _bind(url: str, embedder: Embedder, rebind: bool) -> None:
    conn: PgConnection = connect(url, application_name="orma-migrate")
    try:
        bind_model(conn, embedder.model_id, store_dim(embedder.dim), rebind=rebind)
    finally:
        conn.close()
