"""PostgreSQL's search channels: each a ``hits(id, score)`` statement for ``store/passages.py``.

Keywords match the lexemes of the generated ``tsv`` column (the ``orma``
configuration: English stems, no stop words, diacritics folded by ``orma_fold``
as FTS5 folds them, on the query too; date terms as they are) through their
postings (``sentence_terms``, migration 0004), ranked by BM25 as FTS5 ranks
them; CJK pairs match the ``grams`` column through its GIN index, ranked by
``ts_rank``. The query's terms are the same as SQLite's (``keywords.query_terms``),
each quoted as one lexeme, OR-ed: never tsquery syntax of the user's. The vector
channel's candidates come from ``vectors.candidates``, bound as two arrays, as are
the held keyword postings' hits (``store/keyword_index.py``); the held k-NN's hits
(``store/vector_index.py``) are scored again on the float vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from orma_proxy.store.keywords import MAX_TERMS, query_terms
from orma_proxy.store.postgres.connection import PgConnection
from orma_proxy.store.postgres.vectors import candidates
from orma_proxy.text.grams import query_grams

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

# BM25 as FTS5 computes it (k1 = 1.2, b = 0.75, an IDF under 1e-6 raised to it), over the
# space's sentences: each query lexeme's postings (migration 0004: its count in each sentence
# holding it, and that sentence's length) from one index-only scan, how many sentences hold
# it, and the space's totals (migration 0002). float8 throughout: numeric's ln is ~10x slower.
KEYWORD_HITS = (
    "WITH p AS MATERIALIZED (SELECT lexeme, sentence_id, f::float8 AS f, tokens::float8 AS len "
    "FROM sentence_terms WHERE space = :space "
    "AND lexeme = ANY(tsvector_to_array(to_tsvector('orma', orma_fold(:words))))), "
    "df AS (SELECT lexeme, count(*)::float8 AS holding FROM p GROUP BY lexeme), "
    "totals AS (SELECT sentences::float8 AS n, tokens::float8 / greatest(sentences, 1) AS mean "
    "FROM space_text WHERE space = :space) "
    "SELECT p.sentence_id AS id, sum(greatest(ln((t.n - df.holding + 0.5) / (df.holding + 0.5)), "
    "1e-6) * p.f * 2.2 / (p.f + 1.2 * (0.25 + 0.75 * p.len / t.mean))) AS score "
    "FROM p JOIN df USING (lexeme), totals t GROUP BY p.sentence_id ORDER BY score DESC, id "
    "LIMIT :k"
)
GRAMS_HITS = (
    "SELECT id, ts_rank(grams, CAST(:grams AS tsquery)) AS score FROM sentences "
    "WHERE space = :space AND grams @@ CAST(:grams AS tsquery) "
    "ORDER BY score DESC, id LIMIT :k"
)
# Hits under the space's noise floor are dropped if ``:use_floor``.
_ABOVE_FLOOR = (
    "(:use_floor = 0 OR h.score >= "
    "coalesce((SELECT noise_floor FROM space_stats WHERE space = :space), -1.0))"
)
# Hits found elsewhere (the exact k-NN's, the held postings'), bound as arrays of ids and scores.
BOUND_HITS = (
    "SELECT h.id AS id, h.score AS score "
    "FROM unnest(CAST(:ids AS bigint[]), CAST(:scores AS float8[])) AS h(id, score) "
    f"WHERE {_ABOVE_FLOOR} ORDER BY h.score DESC LIMIT :k"
)
# The held k-NN's hits (cosines on int8 copies, ~1e-3 off) scored again on the float
# vectors, as SQLite's ``vectors.INDEX_NEAREST_SQL``: near ties keep their exact order.
RESCORED_HITS = (
    "SELECT h.id AS id, h.score AS score FROM (SELECT sentence_id AS id, "
    "1.0 - (embedding <=> :q) AS score FROM sentence_vectors "
    "WHERE sentence_id = ANY(CAST(:ids AS bigint[]))) h "
    f"WHERE {_ABOVE_FLOOR} ORDER BY h.score DESC LIMIT :k"
)


def _lexemes(terms: Sequence[str]) -> str:
    """Terms OR-ed as a tsquery, each one quoted lexeme (word characters: no quote inside)."""
    return " | ".join(f"'{term}'" for term in terms)


def keyword_params(
    query: str, space: str, k: int, dates: Sequence[str] = ()
) -> dict[str, object] | None:
    """The parameters of ``KEYWORD_HITS``; None when the query has no words."""
    terms = query_terms(query, dates=dates)
    if not terms:
        return None
    return {"words": " ".join(terms), "space": space, "k": k}


def grams_params(query: str, space: str, k: int) -> dict[str, object] | None:
    """The parameters of ``GRAMS_HITS``; None when the query has no CJK text."""
    grams = query_grams(query, MAX_TERMS)
    return {"grams": _lexemes(grams), "space": space, "k": k} if grams else None


def nearest_params(
    conn: PgConnection, query: Vectors, space: str, *, k: int, oversample: int, use_floor: bool
) -> dict[str, object]:
    """The parameters of ``BOUND_HITS``: the space's best ``k * oversample`` by cosine."""
    found = candidates(conn, query, space, k * oversample)
    return bound_params(found, space, k, use_floor=use_floor)


def bound_params(
    found: Sequence[tuple[int, float]], space: str, k: int, *, use_floor: bool = False
) -> dict[str, object]:
    """The parameters of ``BOUND_HITS`` for these (id, score) hits."""
    return {
        "ids": [sid for sid, _ in found],
        "scores": [score for _, score in found],
        "space": space,
        "use_floor": use_floor,
        "k": k,
    }


def rescored_params(
    query: Vectors, found: Sequence[tuple[int, float]], space: str, k: int, *, use_floor: bool
) -> dict[str, object]:
    """The parameters of ``RESCORED_HITS`` for the held k-NN's hits."""
    return {
        "q": np.asarray(query, dtype=np.float32),
        "ids": [sid for sid, _ in found],
        "space": space,
        "use_floor": use_floor,
        "k": k,
    }


# ``lines.on_topic``'s scan: every shown sentence of the space, by its words, then by cosine.
_ON_TOPIC = (
    "SELECT id FROM (SELECT s.id AS id, {lexical} AS lexical, "
    "coalesce(1.0 - (v.embedding <=> :q), -1.0) AS sim "
    "FROM sentences s LEFT JOIN sentence_vectors v ON v.sentence_id = s.id "
    "WHERE s.space = :space AND s.released_by IS NULL AND s.superseded_by IS NULL) t "
    "WHERE lexical OR sim >= greatest(:threshold, "
    "coalesce((SELECT noise_floor FROM space_stats WHERE space = :space), :threshold)) "
    "ORDER BY lexical DESC, sim DESC, id LIMIT :limit"
)


def on_topic(
    conn: PgConnection,
    space: str,
    words: Sequence[str],
    vector: Vectors,
    *,
    threshold: float,
    limit: int,
) -> list[int]:
    """``store.lines.on_topic`` on PostgreSQL: the sentences holding every word, or near."""
    lexical = "s.tsv @@ to_tsquery('orma', orma_fold(:terms))" if words else "false"
    rows = conn.execute(
        _ON_TOPIC.format(lexical=lexical),
        {
            "terms": " & ".join("'" + w.replace("'", "''") + "'" for w in words),
            "q": np.asarray(vector, dtype=np.float32),
            "space": space,
            "threshold": threshold,
            "limit": limit,
        },
    ).fetchall()
    return [int(r[0]) for r in rows]
