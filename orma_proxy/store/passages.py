"""Sentences as a search finds them: each channel's hits, best first, with what a passage shows.

Each channel (keywords, CJK pairs, vectors, the replies to questions found) is
one statement that returns its hits joined to their sentence, episode and
speaker, so no further trip is needed to show the fused winners. The query
comes in as text or a vector, never as SQL, and rows go out as ``SentenceRow``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from orma_proxy.store.connect import Connection
from orma_proxy.store.episodes import SentenceRow
from orma_proxy.store.keyword_index import KeywordIndex
from orma_proxy.store.keywords import (
    BM25_SQL,
    GRAMS_SQL,
    bm25_params,
    grams_params,
    query_terms,
)
from orma_proxy.store.postgres import search as pg
from orma_proxy.store.postgres.connection import is_postgres
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.store.vectors import INDEX_NEAREST_SQL, NEAREST_SQL, nearest_params

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

# A channel's ``hits(id, score)`` joined to what a passage shows, best first. The
# ``s.space`` test is the last isolation check: nothing of another space comes back.
# A sentence the user released or corrected (``orma release`` / ``supersede``) never does,
# nor one of a turn the upstream never answered (``metadata.failed``, server/capture.py).
# CROSS JOIN keeps the few hits as the outer loop; a plain JOIN lets the planner
# walk the whole space through ``sentences_space`` instead (~5x slower at 10k notes).
_WITH_ROWS = (
    "WITH hits AS ({hits}) "
    "SELECT h.id, s.episode_id, s.space, e.role, s.text, e.said_at, "
    "json_extract(e.metadata, '$.speaker'), h.score, s.dates FROM hits h "
    "CROSS JOIN sentences s ON s.id = h.id CROSS JOIN episodes e ON e.id = s.episode_id "
    "WHERE s.space = :space AND s.released_by IS NULL AND s.superseded_by IS NULL "
    "AND json_extract(e.metadata, '$.failed') IS NULL ORDER BY h.score DESC, h.id"
)
LEXICAL_SQL = _WITH_ROWS.format(hits=BM25_SQL)
# The in-memory postings' hits (``store/keyword_index.py``): ``:hits`` is ``[[id, score], ...]``.
HELD_LEXICAL_SQL = _WITH_ROWS.format(
    hits="SELECT value ->> 0 AS id, value ->> 1 AS score FROM json_each(:hits)"
)
GRAMS_SEARCH_SQL = _WITH_ROWS.format(hits=GRAMS_SQL)
SEMANTIC_SQL = _WITH_ROWS.format(hits=NEAREST_SQL)
INDEX_SEMANTIC_SQL = _WITH_ROWS.format(hits=INDEX_NEAREST_SQL)
# PostgreSQL's channels (``store/postgres/search.py``), joined the same way; hits found
# elsewhere (the exact k-NN's, the held postings') come bound as arrays, the held k-NN's
# rescored.
PG_LEXICAL_SQL = _WITH_ROWS.format(hits=pg.KEYWORD_HITS)
PG_GRAMS_SQL = _WITH_ROWS.format(hits=pg.GRAMS_HITS)
PG_BOUND_SQL = _WITH_ROWS.format(hits=pg.BOUND_HITS)
PG_RESCORED_SQL = _WITH_ROWS.format(hits=pg.RESCORED_HITS)
# The sentences of the turn right after each of ``:asked`` (a JSON list of episode
# ids) in the space, first sentence first: each an index seek on (space, id).
_NEXT_TURNS = (
    "SELECT s.id AS id, -s.position AS score FROM json_each(:asked) a "
    "CROSS JOIN sentences s ON s.episode_id = "
    "(SELECT min(n.id) FROM episodes n WHERE n.space = :space AND n.id > a.value)"
)
_REPLIES_SQL = _WITH_ROWS.format(hits=_NEXT_TURNS)
# Which of a query's names (lower-cased, a JSON list) speak in the space: a seek on
# the partial index episodes_speaker (migration 0011), whose expressions these repeat.
_SPEAKERS_SQL = (
    "SELECT DISTINCT lower(json_extract(metadata, '$.speaker')) FROM episodes "
    "WHERE space = :space AND json_extract(metadata, '$.speaker') IS NOT NULL "
    "AND lower(json_extract(metadata, '$.speaker')) IN (SELECT value FROM json_each(:names))"
)


def _rows(conn: Connection, sql: str, params: dict[str, object] | None) -> list[SentenceRow]:
    if params is None:
        return []
    return [
        SentenceRow(
            int(r[0]),
            int(r[1]),
            r[2],
            r[3],
            r[4],
            float(r[5]),
            r[6] if isinstance(r[6], str) else None,
            float(r[7]),
            str(r[8]),
        )
        for r in conn.execute(sql, params).fetchall()
    ]


def keyword_passages(
    conn: Connection,
    query: str,
    space: str,
    k: int,
    dates: Sequence[str] = (),
    held: KeywordIndex | None = None,
) -> list[SentenceRow]:
    """The ``k`` best sentences of ``space`` for ``query``'s words and ``dates`` terms by BM25.

    From ``held`` when it holds the space (the same BM25, whatever the words' frequency).
    """
    postgres = is_postgres(conn)
    if held is not None:
        terms = query_terms(query, dates=dates)
        found = held.search(conn, space, terms, k) if terms else []
        if found is not None and postgres:
            return _rows(conn, PG_BOUND_SQL, pg.bound_params(found, space, k))
        if found is not None:
            return _rows(conn, HELD_LEXICAL_SQL, {"hits": json.dumps(found), "space": space})
    if postgres:
        return _rows(conn, PG_LEXICAL_SQL, pg.keyword_params(query, space, k, dates))
    return _rows(conn, LEXICAL_SQL, bm25_params(query, space, k, dates))


def pair_passages(conn: Connection, query: str, space: str, k: int) -> list[SentenceRow]:
    """The ``k`` best by the CJK character pairs ``query`` shares (none if it has no CJK text)."""
    if is_postgres(conn):
        return _rows(conn, PG_GRAMS_SQL, pg.grams_params(query, space, k))
    return _rows(conn, GRAMS_SEARCH_SQL, grams_params(query, space, k))


def nearest_passages(
    conn: Connection,
    query: Vectors,
    space: str,
    *,
    k: int,
    oversample: int,
    use_floor: bool,
    held: VectorIndex | None = None,
) -> list[SentenceRow]:
    """The ``k`` sentences of ``space`` nearest to ``query``, most similar first.

    ``vectors.nearest`` says what the arguments mean; here the hits come with their rows.
    From ``held`` when it holds the space (on SQLite ``conn`` carries its ``orma_nearest``);
    else on PostgreSQL by an exact scan of the space (``postgres/vectors.py``).
    """
    if is_postgres(conn):
        near = None if held is None else held.nearest(space, query, k * oversample, k)
        if near is not None:
            rescored = pg.rescored_params(query, near, space, k, use_floor=use_floor)
            return _rows(conn, PG_RESCORED_SQL, rescored)
        found = pg.nearest_params(
            conn, query, space, k=k, oversample=oversample, use_floor=use_floor
        )
        return _rows(conn, PG_BOUND_SQL, found)
    params = nearest_params(query, space, k=k, oversample=oversample, use_floor=use_floor)
    return _rows(conn, SEMANTIC_SQL if held is None else INDEX_SEMANTIC_SQL, params)


def next_turns(conn: Connection, space: str, episode_ids: Sequence[int]) -> list[SentenceRow]:
    """The sentences of the turn that follows each of these episodes in ``space``.

    Best first is first sentence first; a turn's own order within it.
    """
    params: dict[str, object] = {"asked": json.dumps(sorted(episode_ids)), "space": space}
    return _rows(conn, _REPLIES_SQL, params)


def speakers_among(conn: Connection, space: str, names: Sequence[str]) -> set[str]:
    """Which of ``names`` (lower-case) are an episode's speaker in ``space``, lower-cased."""
    params = {"space": space, "names": json.dumps(list(names))}
    return {str(r[0]) for r in conn.execute(_SPEAKERS_SQL, params).fetchall()}
