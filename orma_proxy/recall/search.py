"""Hybrid search: BM25 and vectors, fused by Reciprocal Rank Fusion.

``RRF(d) = sum over channels of 1 / (rrf_k + rank_channel(d))``. The channels
run concurrently: FTS5 on the reader connection while the query is embedded in
a worker thread; the vector k-NN follows once the query vector exists.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Vectors
from orma_proxy.recall.fts import bm25_search
from orma_proxy.store.episodes import fetch_sentences, space_tag
from orma_proxy.store.vectors import nearest

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


@dataclass(frozen=True)
class SearchResult:
    """What recall found. ``states`` and ``events`` come from sleep consolidation."""

    query: str
    space: str
    passages: list[Passage] = field(default_factory=list)
    states: list[object] = field(default_factory=list)
    events: list[object] = field(default_factory=list)


def rrf_fuse(rankings: list[list[int]], rrf_k: int) -> dict[int, float]:
    """Reciprocal Rank Fusion of several best-first id lists."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (rrf_k + rank)
    return scores


async def hybrid_search(
    conn: aiosqlite.Connection,
    embed_query: EmbedQuery,
    query: str,
    space: str,
    *,
    k: int,
    config: OrmaConfig,
) -> list[Passage]:
    """The ``k`` best passages of ``space`` for ``query``."""
    query = query[: config.max_query_chars]
    if config.enable_semantic:
        vector_task = asyncio.ensure_future(embed_query(query))
    lexical = await bm25_search(conn, query, space_tag(space), config.search_k)
    rankings = [[sid for sid, _ in lexical]]
    if config.enable_semantic:
        vector = await vector_task
        semantic = await nearest(
            conn,
            vector,
            space,
            k=config.search_k,
            oversample=config.vector_oversample,
            use_floor=config.enable_similarity_weighting,
        )
        rankings.append([sid for sid, _ in semantic])
    fused = rrf_fuse(rankings, config.rrf_k)
    best = sorted(fused, key=lambda sid: fused[sid], reverse=True)[:k]
    rows = await fetch_sentences(conn, best, space)
    return [
        Passage(
            text=rows[sid].text,
            episode_id=rows[sid].episode_id,
            sentence_id=sid,
            said_at=datetime.fromtimestamp(rows[sid].said_at, UTC),
            score=fused[sid],
            role=rows[sid].role,
        )
        for sid in best
        if sid in rows
    ]
