"""Hybrid search: BM25 and vectors, fused by score-aware Reciprocal Rank Fusion.

``RRF(d) = sum over channels of w * (score(d) / best score) ** p / (rrf_k + rank(d))``
(``p = rrf_score_power``; 0 is plain RRF). The channels run concurrently: FTS5 on
the reader connection while the query is embedded in a worker thread; the vector
k-NN follows once the query vector exists.

Each channel is one statement and one trip to the reader's thread, returning
its hits together with what a passage shows (text, episode, role, time), so no
third trip is needed to fetch the fused winners.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Vectors
from orma_proxy.recall.fts import BM25_SQL, GRAMS_SQL, bm25_params, grams_params
from orma_proxy.recall.turns import (
    asks_when,
    named_in,
    says_when,
    turn_scores,
    with_replies,
    without_names,
)
from orma_proxy.store.episodes import SPEAKERS_SQL, SentenceRow
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.store.vectors import INDEX_NEAREST_SQL, NEAREST_SQL, nearest_params
from orma_proxy.text.dates import QueryDates, finest_terms, query_dates
from orma_proxy.text.names import names_in

EmbedQuery = Callable[[str], Awaitable[Vectors]]


@dataclass(frozen=True)
class Passage:
    """A remembered sentence, where it came from, and how well it matched."""

    text: str
    episode_id: int
    sentence_id: int
    said_at: datetime
    score: float
    role: str
    speaker: str | None = None


@dataclass(frozen=True)
class SearchResult:
    """What recall found. ``states`` and ``events`` come from sleep consolidation."""

    query: str
    space: str
    passages: list[Passage] = field(default_factory=list)
    states: list[object] = field(default_factory=list)
    events: list[object] = field(default_factory=list)


def rrf_fuse(
    rankings: list[list[int]],
    rrf_k: int,
    weights: list[float] | None = None,
    scores: list[dict[int, float]] | None = None,
    power: float = 0.0,
) -> dict[int, float]:
    """Reciprocal Rank Fusion of several best-first id lists, each list with its weight.

    With each list's own ``scores`` (higher is better) and ``power`` > 0, an item's
    ``weight / (rrf_k + rank)`` is scaled by ``(score / best score of its list) ** power``:
    a second place with a tenth of the first's BM25 score is not worth almost as
    much as the first, as plain RRF has it (a list whose best score is not positive
    is fused by rank alone).
    """
    fused: dict[int, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        own = scores[i] if scores is not None and power > 0 else {}
        best = max(own.values(), default=0.0)
        for rank, item in enumerate(ranking, start=1):
            share = max(own[item] / best, 0.0) ** power if best > 0 else 1.0
            fused[item] = fused.get(item, 0.0) + weight * share / (rrf_k + rank)
    return fused


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
GRAMS_SEARCH_SQL = _WITH_ROWS.format(hits=GRAMS_SQL)
SEMANTIC_SQL = _WITH_ROWS.format(hits=NEAREST_SQL)
# The sentences of the turn right after each of ``:asked`` (a JSON list of episode
# ids) in the space, first sentence first: each an index seek on (space, id).
_NEXT_TURNS = (
    "SELECT s.id AS id, -s.position AS score FROM json_each(:asked) a "
    "CROSS JOIN sentences s ON s.episode_id = "
    "(SELECT min(n.id) FROM episodes n WHERE n.space = :space AND n.id > a.value)"
)
REPLIES_SQL = _WITH_ROWS.format(hits=_NEXT_TURNS)
INDEX_SEMANTIC_SQL = _WITH_ROWS.format(hits=INDEX_NEAREST_SQL)


async def _ranked(
    conn: aiosqlite.Connection,
    sql: str,
    params: dict[str, object],
    rows: dict[int, SentenceRow],
    speakers: dict[int, str | None],
    scores: dict[int, float] | None = None,
    dates: dict[int, str] | None = None,
) -> list[int]:
    """Run one channel: its ids best first; their rows (and speakers) are added.

    ``scores`` gets the channel's own score of each, ``dates`` each one's date terms.
    """
    ranking = []
    for r in await conn.execute_fetchall(sql, params):
        row = SentenceRow(int(r[0]), int(r[1]), r[2], r[3], r[4], float(r[5]))
        rows[row.sentence_id] = row
        speakers[row.sentence_id] = r[6] if isinstance(r[6], str) else None
        ranking.append(row.sentence_id)
        if scores is not None:
            scores[row.sentence_id] = float(r[7])
        if dates is not None:
            dates[row.sentence_id] = str(r[8])
    return ranking


async def _speakers_named(conn: aiosqlite.Connection, space: str, query: str) -> frozenset[str]:
    """The words of the query's names that are speakers in ``space`` ("melanie").

    Only a speaker's name is taken out of the words searched (it is matched by
    speaker instead); a place or a thing named in a question ("Goa", "Zoho") is
    what the question is about, and stays a word.
    """
    named = named_in(query)
    if not named:
        return named
    candidates = sorted(named | {name.lower() for name in names_in(query)})
    params = {"space": space, "names": json.dumps(candidates)}
    speaking = {str(r[0]) for r in await conn.execute_fetchall(SPEAKERS_SQL, params)}
    return frozenset(w for w in named if any(w in name.split() for name in speaking))


async def _with_replies(
    conn: aiosqlite.Connection,
    space: str,
    turns: list[tuple[int, float]],
    rows: dict[int, SentenceRow],
    speakers: dict[int, str | None],
    share: float,
) -> list[tuple[int, float]]:
    """``turns`` with the replies to the questions among them (``turns.with_replies``)."""
    asked = {rows[s].episode_id: s for s, _ in turns if rows[s].text.rstrip().endswith("?")}
    if not asked:
        return turns
    params: dict[str, object] = {"asked": json.dumps(sorted(asked)), "space": space}
    found: dict[int, int] = {}  # reply episode -> its first sentence
    for sentence in await _ranked(conn, REPLIES_SQL, params, rows, speakers):
        found.setdefault(rows[sentence].episode_id, sentence)
    replies = {}
    for episode, sentence in found.items():
        question = max((q for q in asked if q < episode), default=None)
        if question is not None:
            replies[asked[question]] = sentence
    episode_of = {sentence: row.episode_id for sentence, row in rows.items()}
    return with_replies(turns, replies, episode_of, share=share)


def _on_date(said: dict[int, str], dates: list[str]) -> frozenset[int]:
    """The sentences said on, or speaking of, the finest dates the query names."""
    wanted = finest_terms(dates)
    if not wanted:
        return frozenset()
    return frozenset(sid for sid, terms in said.items() if not wanted.isdisjoint(terms.split()))


async def hybrid_search(
    conn: aiosqlite.Connection,
    embed_query: EmbedQuery,
    query: str,
    space: str,
    *,
    k: int,
    config: OrmaConfig,
    vectors: VectorIndex | None = None,
    now: float | None = None,
) -> list[Passage]:
    """The ``k`` best passages of ``space`` for ``query``.

    A date the query names, or a relative one ("last week", read as of ``now``,
    default the clock), is matched with the words (``text/dates.py``).

    With ``vectors``, the k-NN runs in memory once that index holds the
    space (it catches up on the reader while the query is being embedded);
    ``conn`` must have its ``orma_nearest`` function (``VectorIndex.register``).
    """
    query = query[: config.max_query_chars]
    named = await _speakers_named(conn, space, query)
    words = without_names(query, named)
    dated = query_dates(words, now) if config.enable_date_terms else QueryDates([], words)
    dates = dated.terms
    if config.enable_semantic:  # "last week" is a time, not words to match
        vector_task = asyncio.ensure_future(embed_query(dated.rest))
    rows: dict[int, SentenceRow] = {}
    speakers: dict[int, str | None] = {}
    keywords = []
    lexical = bm25_params(dated.rest, space, config.search_k, dates)
    scores: list[dict[int, float]] = []  # each channel's own scores, as rankings are
    said: dict[int, str] = {}  # each sentence's date terms (text/dates.py)
    if lexical is not None:
        scores.append({})
        keywords.append(_ranked(conn, LEXICAL_SQL, lexical, rows, speakers, scores[-1], said))
    grams = grams_params(query, space, config.search_k) if config.enable_cjk_keywords else None
    if grams is not None:  # Chinese, Japanese, Korean: keywords by character pairs
        scores.append({})
        keywords.append(_ranked(conn, GRAMS_SEARCH_SQL, grams, rows, speakers, scores[-1], said))
    # Queued on the reader together (no round trip between them) while the query embeds.
    catch_up = [vectors.catch_up(conn)] if config.enable_semantic and vectors is not None else []
    done = await asyncio.gather(*catch_up, *keywords)
    rankings = [ranking for ranking in done if ranking is not None]  # catch_up gives None
    weights = [1.0] * len(rankings)
    if config.enable_semantic:
        vector = await vector_task
        semantic = nearest_params(
            vector,
            space,
            k=config.search_k,
            oversample=config.vector_oversample,
            use_floor=config.enable_similarity_weighting,
        )
        in_memory = vectors is not None and vectors.use(space)
        sql = INDEX_SEMANTIC_SQL if in_memory else SEMANTIC_SQL
        scores.append({})
        rankings.append(await _ranked(conn, sql, semantic, rows, speakers, scores[-1], said))
        weights.append(config.rrf_vector_weight)
    fused = rrf_fuse(rankings, config.rrf_k, weights, scores, config.rrf_score_power)
    turns = turn_scores(
        fused,
        {sid: row.episode_id for sid, row in rows.items()},
        speakers,
        named,
        share=config.sentence_share,
        boost=config.speaker_boost,
        words_of={sid: len(row.text.split()) for sid, row in rows.items()},
        short_words=config.short_sentence_words,
        dated=frozenset(s for s, row in rows.items() if says_when(row.text))
        if asks_when(query)
        else frozenset(),
        time_boost=config.time_boost,
        on_date=_on_date(said, dates) if config.date_boost else frozenset(),
        date_boost=config.date_boost,
    )
    if config.reply_share > 0:  # every matched question's: the first k never depend on k
        turns = await _with_replies(conn, space, turns, rows, speakers, config.reply_share)
    return [
        Passage(
            text=rows[sid].text,
            episode_id=rows[sid].episode_id,
            sentence_id=sid,
            said_at=datetime.fromtimestamp(rows[sid].said_at, UTC),
            score=value,
            role=rows[sid].role,
            speaker=speakers.get(sid),
        )
        for sid, value in turns[:k]
    ]
