"""Sentence vectors in pgvector: the model binding, writing them, and the space's exact k-NN.

A space searched often is held in memory by each process (``store/vector_index.py``):
its k-NN never reaches PostgreSQL. The rest (a one-shot ``orma search``, a process's
first searches of a space, forgetting's lookups) scan the space's float32 vectors
exactly: its rows by the ``space`` index, sorted by cosine, so every score is exact and
no filter can leave fewer than k rows. No HNSW index: built on every insert it was ~2/3
of ingest (~3 ms a vector) for the unheld searches alone, which then found 0.90 of the
exact top 10 at 100,000 notes; an exact scan of their 200,000 vectors costs ~190 ms here
(bench/RESULTS.md, session 14). Migration 0008 drops the index an older version built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.store.postgres.connection import PgConnection

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

_LOCK = 0x6F726D62  # pg_advisory_xact_lock's key for binding the model

_EXACT_SQL = (
    "SELECT sentence_id, 1.0 - (embedding <=> :q) FROM sentence_vectors "
    "WHERE space = :space ORDER BY embedding <=> :q, sentence_id LIMIT :kc"
)


def has_dimension(conn: PgConnection, dim: int) -> bool:
    """Whether the vector column is ``vector(dim)`` already (the model bound before)."""
    row = conn.execute(
        "SELECT atttypmod FROM pg_attribute "
        "WHERE attrelid = 'sentence_vectors'::regclass AND attname = 'embedding'"
    ).fetchone()
    return row is not None and int(row[0]) == dim


def prepare_vectors(conn: PgConnection, dim: int, *, rebind: bool) -> None:
    """Inside ``store.vectors.bind_model``'s transaction: the column's dimension.

    ``rebind`` drops every vector first (``orma reindex``); replicas binding at once
    take turns on an advisory lock.
    """
    conn.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK,))
    if rebind:
        drop_vectors(conn)
    if not has_dimension(conn, dim):
        conn.execute("DELETE FROM sentence_vectors")
        # The deletes' log rows are written now (migration 0007): PostgreSQL alters no
        # table with trigger events pending.
        conn.execute("SET CONSTRAINTS vector_changed IMMEDIATE")
        conn.execute(f"ALTER TABLE sentence_vectors ALTER COLUMN embedding TYPE vector({dim})")


def drop_vectors(conn: PgConnection) -> None:
    """Every vector gone, every sentence waiting for the indexer again."""
    conn.execute("DELETE FROM sentence_vectors")
    conn.execute("DELETE FROM space_stats")
    conn.execute("UPDATE sentences SET embedded = 0 WHERE embedded <> 0")


def store_vectors(conn: PgConnection, rows: list[tuple[int, str]], vectors: Vectors) -> int:
    """Write vectors for (sentence id, space) rows still pending; how many were new."""
    import numpy as np

    ids = [sid for sid, _ in rows]
    found = conn.execute(
        "SELECT id FROM sentences WHERE embedded = 0 AND id = ANY(?)", (ids,)
    ).fetchall()
    pending = {int(r[0]) for r in found}
    params = [
        (sid, space, np.asarray(vector, dtype=np.float32))
        for (sid, space), vector in zip(rows, vectors, strict=True)
        if sid in pending
    ]
    conn.executemany(
        "INSERT INTO sentence_vectors (sentence_id, space, embedding) VALUES (?, ?, ?) "
        "ON CONFLICT (sentence_id) DO UPDATE SET embedding = excluded.embedding",
        params,
    )
    conn.execute(
        "UPDATE sentences SET embedded = 1 WHERE id = ANY(?)", ([sid for sid, _, _ in params],)
    )
    return len(params)


def candidates(
    conn: PgConnection, query: Vectors, space: str, count: int
) -> list[tuple[int, float]]:
    """The ``count`` vectors of ``space`` nearest to ``query``: (sentence id, cosine), best first.

    Exact: every vector of the space is scored (see the module's docstring).
    """
    import numpy as np

    params = {"q": np.asarray(query, dtype=np.float32), "space": space, "kc": count}
    return [(int(r[0]), float(r[1])) for r in conn.execute(_EXACT_SQL, params).fetchall()]
