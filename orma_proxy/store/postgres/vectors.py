"""Sentence vectors in pgvector: the model binding, writing them, and the space-filtered k-NN.

pgvector 0.6.2's HNSW search applies a ``WHERE space = ...`` after the index
scan, so a selective filter can leave fewer than k rows (it has no iterative
scans). A space with at most ``exact_under`` vectors is scanned exactly (the
``space`` index, then a sort: no index can lose a row); a larger one asks HNSW
for ``k * oversample`` candidates with ``hnsw.ef_search`` at least that, over
the space's share of all vectors (so the filter leaves enough), and is scanned
exactly after all whenever fewer came back than the space could give, or at
once when no ``ef_search`` pgvector allows would leave enough. The vectors are
full float32, so every score is the exact cosine: no re-rank.

The index is built with ``ef_construction`` 128 (pgvector's default is 64; ``m``
stays 16). On the bench's 20,060 sentences (a third of them repeats), inserted one
batch at a time as the indexer does, the default's graph found 0.956 of the exact
top 10 at ``ef_search`` 120 and this one 0.972 (0.979 at 200; SQLite's binary k-NN
with re-rank: 0.985), for 1.7x the insert time; ``m`` 32 found 0.990 but inserted
~3x slower than the default, under 100 vectors/s here: slower than the model embeds
them. An exact scan costs ~1.5 ms per thousand vectors, HNSW ~2-6 ms at any size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.store.postgres.connection import PgConnection

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

# pgvector caps hnsw.ef_search at 1000; 40 is its default.
_EF_MIN, _EF_MAX = 40, 1000
# The HNSW index's build parameters (migration 0005 rebuilds an older index with them).
HNSW_INDEX = (
    "CREATE INDEX IF NOT EXISTS sentence_vectors_hnsw ON sentence_vectors "
    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 128)"
)
_LOCK = 0x6F726D62  # pg_advisory_xact_lock's key for binding the model

HNSW_SQL = (
    "SELECT sentence_id, 1.0 - (embedding <=> :q) FROM sentence_vectors "
    "WHERE space = :space ORDER BY embedding <=> :q LIMIT :kc"
)
# ``+ 0`` keeps the planner off the HNSW index: the space's rows, all of them, sorted.
_EXACT_SQL = (
    "SELECT sentence_id, 1.0 - (embedding <=> :q) FROM sentence_vectors "
    "WHERE space = :space ORDER BY (embedding <=> :q) + 0, sentence_id LIMIT :kc"
)


def has_dimension(conn: PgConnection, dim: int) -> bool:
    """Whether the vector column is ``vector(dim)`` already (the model bound before)."""
    row = conn.execute(
        "SELECT atttypmod FROM pg_attribute "
        "WHERE attrelid = 'sentence_vectors'::regclass AND attname = 'embedding'"
    ).fetchone()
    return row is not None and int(row[0]) == dim


def prepare_vectors(conn: PgConnection, dim: int, *, rebind: bool) -> None:
    """Inside ``store.vectors.bind_model``'s transaction: the column's dimension, the index.

    ``rebind`` drops every vector first (``orma reindex``); replicas binding at once
    take turns on an advisory lock.
    """
    conn.execute("SELECT pg_advisory_xact_lock(?)", (_LOCK,))
    if rebind:
        drop_vectors(conn)
    if not has_dimension(conn, dim):
        conn.execute("DROP INDEX IF EXISTS sentence_vectors_hnsw")
        conn.execute("DELETE FROM sentence_vectors")
        # The deletes' log rows are written now (migration 0007): PostgreSQL alters no
        # table with trigger events pending.
        conn.execute("SET CONSTRAINTS vector_changed IMMEDIATE")
        conn.execute(f"ALTER TABLE sentence_vectors ALTER COLUMN embedding TYPE vector({dim})")
    conn.execute(HNSW_INDEX)


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
    conn: PgConnection,
    query: Vectors,
    space: str,
    count: int,
    *,
    exact_under: int,
    ef_floor: int = _EF_MIN,
) -> list[tuple[int, float]]:
    """The ``count`` vectors of ``space`` nearest to ``query``: (sentence id, cosine), best first.

    Never fewer than the space holds, up to ``count`` (see the module's docstring);
    ``ef_floor``: HNSW's ``ef_search`` for a space alone in the table, at least ``count``.
    """
    import numpy as np

    row = conn.execute(
        "SELECT embedded, (SELECT sum(embedded) FROM space_counts) FROM space_counts "
        "WHERE space = ?",
        (space,),
    ).fetchone()
    held, total = (int(row[0]), int(row[1])) if row else (0, 0)
    if held <= 0:
        return []
    params = {"q": np.asarray(query, dtype=np.float32), "space": space, "kc": count}
    # The space's share of ef_search rows: about ``count`` (or ``ef_floor``) after the filter.
    ef = max(max(count, ef_floor) * total // held, _EF_MIN)
    if held > exact_under and ef <= _EF_MAX:
        conn.execute("SELECT set_config('hnsw.ef_search', ?, false)", (str(ef),))
        found = [(int(r[0]), float(r[1])) for r in conn.execute(HNSW_SQL, params).fetchall()]
        if len(found) >= min(count, held):
            return found
    return [(int(r[0]), float(r[1])) for r in conn.execute(_EXACT_SQL, params).fetchall()]
