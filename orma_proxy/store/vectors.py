"""Sentence vectors: sqlite-vec for the search, a plain table for exact re-ranking.

The vec0 table holds binary-quantised vectors partitioned by space, so a k-NN
scan touches only the asking space's rows and is ~10x cheaper than float
vectors; the best ``k * oversample`` candidates are then re-ranked by exact
cosine against the float32 copies in ``sentence_vectors``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from orma_proxy.errors import EmbedderMismatchError
from orma_proxy.store.connect import Connection
from orma_proxy.store.postgres import vectors as pg
from orma_proxy.store.postgres.connection import is_postgres

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

VEC_TABLE = "sentence_vec"


def bind_model(conn: Connection, model_id: str, dim: int, *, rebind: bool = False) -> None:
    """Record the model a database is built with, or refuse a different one.

    ``rebind`` (used by reindex) drops every vector and records the new model.
    """
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE 'embed_%'").fetchall())
    recorded = meta.get("embed_model")
    same = recorded is not None and (recorded, int(meta["embed_dim"])) == (model_id, dim)
    ready = pg.has_dimension(conn, dim) if is_postgres(conn) else _has_table(conn, VEC_TABLE)
    if same and not rebind and ready:
        # Nothing to write: opening takes no write lock, so it never waits for (or times
        # out behind) another process's long write, such as a 10 MB add.
        return
    if recorded is not None and not rebind and not same:
        raise EmbedderMismatchError(
            f"this database was built with the embedding model {recorded} "
            f"({meta['embed_dim']} dims) but {model_id} ({dim} dims) is in use; "
            "run `orma reindex` to re-embed every sentence with the new model"
        )
    conn.execute("BEGIN IMMEDIATE")
    try:
        if is_postgres(conn):
            pg.prepare_vectors(conn, dim, rebind=rebind)
        else:
            if rebind:
                conn.execute(f"DROP TABLE IF EXISTS {VEC_TABLE}")
                conn.execute("DELETE FROM sentence_vectors")
                conn.execute("DELETE FROM space_stats")
                conn.execute("UPDATE sentences SET embedded = 0")
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {VEC_TABLE} USING vec0 (sentence_id "
                f"INTEGER PRIMARY KEY, space TEXT PARTITION KEY, embedding bit[{dim}])"
            )
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [("embed_model", model_id), ("embed_dim", str(dim))],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _has_table(conn: Connection, name: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    return found is not None


def recorded_model(conn: Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
    return None if row is None else str(row[0])


def newest_sentence_id(conn: Connection) -> int | None:
    """The id of the newest sentence stored (None if none): ``flush`` waits up to it."""
    row = conn.execute("SELECT max(id) FROM sentences").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def pending_sentences(conn: Connection, limit: int) -> list[tuple[int, str, str]]:
    """Sentences still waiting for a vector: (id, space, text), oldest first."""
    rows = conn.execute(
        "SELECT id, space, text FROM sentences WHERE embedded = 0 ORDER BY id LIMIT ?", (limit,)
    ).fetchall()
    return [(int(r[0]), r[1], r[2]) for r in rows]


def pending_between(
    conn: Connection, first: int, last: int, limit: int
) -> list[tuple[int, str, str]]:
    """Sentences with ids in ``[first, last]`` still waiting for a vector, oldest first."""
    rows = conn.execute(
        "SELECT id, space, text FROM sentences WHERE embedded = 0 AND id BETWEEN ? AND ? "
        "ORDER BY id LIMIT ?",
        (first, last, limit),
    ).fetchall()
    return [(int(r[0]), r[1], r[2]) for r in rows]


def store_vectors(conn: Connection, rows: list[tuple[int, str]], vectors: Vectors) -> int:
    """Write vectors for (sentence id, space) rows; returns how many were new.

    Runs inside the writer's transaction and re-checks ``embedded = 0`` there,
    so two processes indexing the same pending rows never insert one twice.
    """
    import numpy as np

    if is_postgres(conn):
        return pg.store_vectors(conn, rows, vectors)
    marks = ",".join("?" * len(rows))
    found = conn.execute(
        f"SELECT id FROM sentences WHERE embedded = 0 AND id IN ({marks})",
        [sid for sid, _ in rows],
    ).fetchall()
    still_pending = {int(r[0]) for r in found}
    params = [
        (sid, space, vector.astype(np.float32).tobytes())
        for (sid, space), vector in zip(rows, vectors, strict=True)
        if sid in still_pending
    ]
    conn.executemany(
        f"INSERT INTO {VEC_TABLE} (sentence_id, space, embedding) "
        "VALUES (?, ?, vec_quantize_binary(?))",
        params,
    )
    conn.executemany(
        "INSERT OR REPLACE INTO sentence_vectors (sentence_id, embedding) VALUES (?, ?)",
        [(sid, blob) for sid, _, blob in params],
    )
    conn.executemany(
        "UPDATE sentences SET embedded = 1 WHERE id = ?", [(sid,) for sid, _, _ in params]
    )
    return len(params)


def float_vectors(conn: Connection, ids: Iterable[int]) -> dict[int, Vectors]:
    """The float vectors of these sentences (those embedded so far)."""
    import numpy as np

    wanted = list(ids)
    if not wanted:
        return {}
    rows = conn.execute(
        "SELECT sentence_id, embedding FROM sentence_vectors "
        f"WHERE sentence_id IN ({','.join('?' * len(wanted))})",
        wanted,
    ).fetchall()
    return {int(r[0]): np.frombuffer(r[1], dtype=np.float32) for r in rows}


def recent_vectors(conn: Connection, space: str, limit: int) -> dict[int, Vectors]:
    """The float vectors of the ``limit`` newest shown sentences of ``space`` (a fixed sample)."""
    import numpy as np

    rows = conn.execute(
        "SELECT v.sentence_id, v.embedding FROM sentence_vectors v "
        "JOIN sentences s ON s.id = v.sentence_id WHERE s.space = ? "
        "AND s.superseded_by IS NULL AND s.released_by IS NULL ORDER BY s.id DESC LIMIT ?",
        (space, limit),
    ).fetchall()
    return {int(r[0]): np.frombuffer(r[1], dtype=np.float32) for r in rows}


# Hits under the space's noise floor are dropped if ``:use_floor``.
_ABOVE_FLOOR = (
    "(NOT :use_floor OR score >= "
    "coalesce((SELECT noise_floor FROM space_stats WHERE space = :space), -1.0))"
)
# The ``:k`` sentences of ``:space`` nearest to the float32 blob ``:q``, as (id, score):
# ``:kc`` coarse candidates from a Hamming k-NN over vec0's bit vectors, re-ranked by
# exact cosine on the float copies.
NEAREST_SQL = (
    f"WITH coarse AS (SELECT sentence_id FROM {VEC_TABLE} "
    "WHERE embedding MATCH vec_quantize_binary(:q) AND k = :kc AND space = :space), "
    "scored AS (SELECT v.sentence_id AS id, 1.0 - vec_distance_cosine(v.embedding, :q) AS score "
    "FROM coarse JOIN sentence_vectors v USING (sentence_id)) "
    f"SELECT id, score FROM scored WHERE {_ABOVE_FLOOR} ORDER BY score DESC LIMIT :k"
)
# The same, found in memory by ``VectorIndex`` inside this statement (the
# ``orma_nearest`` function it registers on the reader connection), from more
# candidates (a share of the space) re-ranked on int8 copies; its ``:k`` hits are
# scored again exactly on the float copies, as int8's ~1e-3 error reorders near
# ties (0.975 of the exact top 10 at 400,000 sentences, whatever the candidates).
INDEX_NEAREST_SQL = (
    "WITH hits AS (SELECT value ->> 0 AS id FROM json_each(orma_nearest(:space, :q, :kc, :k))), "
    "scored AS (SELECT v.sentence_id AS id, 1.0 - vec_distance_cosine(v.embedding, :q) AS score "
    "FROM hits JOIN sentence_vectors v ON v.sentence_id = hits.id) "
    f"SELECT id, score FROM scored WHERE {_ABOVE_FLOOR} ORDER BY score DESC LIMIT :k"
)


def nearest_params(
    query: Vectors,
    space: str,
    *,
    k: int,
    oversample: int,
    use_floor: bool,
) -> dict[str, object]:
    """The named parameters of ``NEAREST_SQL`` and ``INDEX_NEAREST_SQL``."""
    import numpy as np

    return {
        "q": np.ascontiguousarray(query, dtype=np.float32).tobytes(),
        "kc": k * oversample,
        "space": space,
        "k": k,
        "use_floor": use_floor,
    }


def nearest(
    conn: Connection,
    query: Vectors,
    space: str,
    *,
    k: int,
    oversample: int,
    use_floor: bool,
    in_memory: bool = False,
) -> list[tuple[int, float]]:
    """The ``k`` sentences of ``space`` most similar to ``query``: (id, cosine similarity).

    With ``use_floor``, hits under the space's noise floor are left out: they are
    no more similar than two random sentences of that space. ``in_memory``: the
    k-NN is ``VectorIndex``'s (``conn`` carries its ``orma_nearest``).
    """
    params = nearest_params(query, space, k=k, oversample=oversample, use_floor=use_floor)
    rows = conn.execute(INDEX_NEAREST_SQL if in_memory else NEAREST_SQL, params).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]
