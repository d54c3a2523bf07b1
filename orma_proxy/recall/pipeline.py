"""Recall, end to end: candidates, spreading activation, scores, novelty, the packed block.

``recall_block`` is the one function behind ``Memory.recall``, ``build_context``,
``orma recall``, the MCP tool and the proxy. It reads only (zero LLM calls);
the caller records the block's items in the access log afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from orma_proxy.config import OrmaConfig
from orma_proxy.recall.activation import entities_of, named_entities, spread
from orma_proxy.recall.candidates import Candidate, Pool, gather, items_by_id
from orma_proxy.recall.floor import QueryFloor
from orma_proxy.recall.pack import Entry, MemoryBlock, Shares, TokenCounter, pack_block
from orma_proxy.recall.rank import novelty_gate, score
from orma_proxy.recall.relevance import relevant
from orma_proxy.recall.search import EmbedQuery
from orma_proxy.store import (
    Connection,
    KeywordIndex,
    Reader,
    access_times,
    execute_fn,
    float_vectors,
)
from orma_proxy.store.vector_index import VectorIndex

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors


@dataclass(frozen=True)
class RecallRequest:
    """What one recall needs besides the store: the query, where, when and how big."""

    query: str
    space: str
    now: float
    today: date
    budget_tokens: int
    count_tokens: TokenCounter
    exclude_texts: tuple[str, ...] = ()


async def recall_block(
    conn: Reader,
    embed_query: EmbedQuery,
    request: RecallRequest,
    config: OrmaConfig,
    *,
    vectors: VectorIndex | None = None,
    keywords: KeywordIndex | None = None,
    floor: QueryFloor | None = None,
) -> MemoryBlock:
    """The memory block for ``request`` (see the ``recall`` package modules for each step)."""
    query, space, now = request.query, request.space, request.now
    pool = await gather(
        conn, embed_query, query, space, config, now,
        vectors=vectors, keywords=keywords, floor=floor,
    )  # fmt: skip

    def packed(c: Connection) -> MemoryBlock:
        ranked = _ranked(c, pool, query, space, config, now)
        if config.recall_relevant_states:
            ranked = relevant(c, ranked, pool, config, query=query, seen=request.exclude_texts)
        vectors_of: dict[int, Vectors] = {}
        if config.enable_novelty_gate:
            passages = [cand.key[1] for cand in ranked if cand.key[0] == "passage"]
            vectors_of = float_vectors(c, passages)
        return _gate_and_pack(pool, ranked, vectors_of, request, config)

    # Ranking and packing (queries and a few ms of CPU) in one trip to the reader's
    # thread, so streams keep flowing.
    return await execute_fn(conn, packed)


def _gate_and_pack(
    pool: Pool,
    ranked: list[Candidate],
    vectors_of: dict[int, Vectors],
    request: RecallRequest,
    config: OrmaConfig,
) -> MemoryBlock:
    if config.enable_novelty_gate:
        ranked = novelty_gate(ranked, vectors_of, config.novelty_threshold)
    return pack_block(
        entries=[_entry(c, pool) for c in ranked],
        budget_tokens=request.budget_tokens,
        today=request.today,
        count_tokens=request.count_tokens,
        # A rule's own line would only repeat its [FORBIDDEN: ...] (and [PREFER: ...]) line.
        exclude_texts=[*request.exclude_texts, *(rule.quote for rule in pool.rules)],
        forbidden=pool.forbidden(),
        sutra=config.enable_sutra_packing,
        compact_header=config.compact_header,
        shares=Shares(
            config.budget_share_states, config.budget_share_events, config.budget_share_passages
        ),
        exact_above=config.pack_exact_above,
    )


async def rank_pool(
    conn: Reader,
    embed_query: EmbedQuery,
    query: str,
    space: str,
    config: OrmaConfig,
    now: float,
    *,
    vectors: VectorIndex | None = None,
    keywords: KeywordIndex | None = None,
    floor: QueryFloor | None = None,
) -> tuple[Pool, list[Candidate]]:
    """Every candidate for ``query``, activated, and the candidates best first.

    The part of recall before the novelty gate and packing; ``orma viz`` shows it.
    """
    pool = await gather(
        conn, embed_query, query, space, config, now,
        vectors=vectors, keywords=keywords, floor=floor,
    )  # fmt: skip
    ranked = await execute_fn(conn, lambda c: _ranked(c, pool, query, space, config, now))
    return pool, ranked


def _ranked(
    conn: Connection, pool: Pool, query: str, space: str, config: OrmaConfig, now: float
) -> list[Candidate]:
    """The pool activated and scored, best first (its queries run on ``conn``)."""
    if config.enable_spreading_activation and config.enable_semantic:
        activate(conn, pool, query, space, config)
    temporal = config.enable_hawkes or config.enable_ebbinghaus or config.enable_base_level
    accesses = access_times(conn, space, pool.items) if temporal else {}
    return score(list(pool.items.values()), accesses, now, config)


def activate(conn: Connection, pool: Pool, query: str, space: str, config: OrmaConfig) -> None:
    """Spread from what matched and what the query names; add the items it reaches.

    An item reached only through the graph joins with no relevance of its own:
    its activation boost is all it has, so it ranks below every real match.
    """
    best = max((c.relevance for c in pool.items.values()), default=0.0) or 1.0
    matched = {k: c.relevance / best for k, c in pool.items.items() if c.relevance > 0}
    seeds: dict[int, float] = {}
    for key, entities in entities_of(conn, matched).items():
        for entity in entities:
            seeds[entity] = max(seeds.get(entity, 0.0), matched[key])
    for entity in named_entities(conn, space, query):
        seeds[entity] = 1.0
    if not seeds:
        return
    reached = spread(conn, space, seeds, config)
    new = sorted((k for k in reached if k not in pool.items), key=lambda k: -reached[k])
    for loaded in items_by_id(conn, space, new[: config.recall_states]):
        pool.items[loaded.key] = loaded
    for key, value in reached.items():
        cand = pool.items.get(key)
        if cand is not None:
            cand.activation = value


def _entry(cand: Candidate, pool: Pool) -> Entry:
    if cand.passage is None:
        return Entry(cand.score, state=cand.state, event=cand.event)
    sentence = cand.passage.sentence_id
    return Entry(
        cand.score,
        passage=cand.passage,
        backs=frozenset(pool.citing.get(sentence, ())),
        replaced_by=tuple(pool.outdated(sentence)),
    )
