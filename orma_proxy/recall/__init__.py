"""Recall: finding what a space remembers about a query, without any LLM call."""

from orma_proxy.recall.access import AccessLog, ItemKey, read_accesses
from orma_proxy.recall.candidates import Candidate, Pool, load_items
from orma_proxy.recall.fts import STOPWORDS
from orma_proxy.recall.pack import MemoryBlock, TokenCounter, estimate_tokens
from orma_proxy.recall.pipeline import RecallRequest, rank_pool, recall_block
from orma_proxy.recall.rank import boosts
from orma_proxy.recall.search import SearchResult, hybrid_search
from orma_proxy.recall.states import (
    Event,
    State,
    list_events,
    list_facts,
    matching_states,
    state_by_id,
)
from orma_proxy.recall.temporal import History
from orma_proxy.recall.tokens import load_token_counter

__all__ = [
    "STOPWORDS",
    "AccessLog",
    "Candidate",
    "Event",
    "History",
    "ItemKey",
    "MemoryBlock",
    "Pool",
    "RecallRequest",
    "SearchResult",
    "State",
    "TokenCounter",
    "boosts",
    "estimate_tokens",
    "hybrid_search",
    "list_events",
    "list_facts",
    "load_items",
    "load_token_counter",
    "matching_states",
    "rank_pool",
    "read_accesses",
    "recall_block",
    "state_by_id",
]
