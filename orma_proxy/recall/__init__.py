"""Recall: finding what a space remembers about a query, without any LLM call.

``recall_block`` builds the memory block (candidates, spreading activation,
scores, packing); ``hybrid_search`` and ``matching_states`` answer a search,
and ``below_floor`` marks what of it recall would count off the query's topic;
``AccessLog`` records what a block showed. States and events themselves are
``orma_proxy.facts``'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.exports import lazy_exports

if TYPE_CHECKING:
    from orma_proxy.recall.access import AccessLog, ItemKey
    from orma_proxy.recall.candidates import Candidate, Pool, Probe, items_by_id
    from orma_proxy.recall.floor import BackgroundFloor, QueryFloor
    from orma_proxy.recall.pack import MemoryBlock, TokenCounter, estimate_tokens
    from orma_proxy.recall.pipeline import RecallRequest, rank_pool, recall_block
    from orma_proxy.recall.rank import boosts
    from orma_proxy.recall.relevance import below_floor
    from orma_proxy.recall.search import Passage, SearchResult, hybrid_search
    from orma_proxy.recall.states import matching_states
    from orma_proxy.recall.temporal import History
    from orma_proxy.recall.tokens import load_token_counter

__all__ = [
    "AccessLog",
    "BackgroundFloor",
    "Candidate",
    "History",
    "ItemKey",
    "MemoryBlock",
    "Passage",
    "Pool",
    "Probe",
    "QueryFloor",
    "RecallRequest",
    "SearchResult",
    "TokenCounter",
    "below_floor",
    "boosts",
    "estimate_tokens",
    "hybrid_search",
    "items_by_id",
    "load_token_counter",
    "matching_states",
    "rank_pool",
    "recall_block",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AccessLog": "access",
        "ItemKey": "access",
        "Candidate": "candidates",
        "Pool": "candidates",
        "Probe": "candidates",
        "items_by_id": "candidates",
        "BackgroundFloor": "floor",
        "QueryFloor": "floor",
        "MemoryBlock": "pack",
        "TokenCounter": "pack",
        "estimate_tokens": "pack",
        "RecallRequest": "pipeline",
        "rank_pool": "pipeline",
        "recall_block": "pipeline",
        "boosts": "rank",
        "below_floor": "relevance",
        "Passage": "search",
        "SearchResult": "search",
        "hybrid_search": "search",
        "matching_states": "states",
        "History": "temporal",
        "load_token_counter": "tokens",
    },
)
