"""The search box: the exact block recall would inject, and how recall got there.

The block comes from ``AsyncMemory.recall``, the function behind the proxy,
``orma recall`` and MCP; like ``orma recall``, a preview counts as a recall in
the access log. To show *why*, the same candidate steps run again on the
viz's own connection: ``gather`` (hybrid search and the states and events it
finds), ``activate`` (the ranker's spreading activation over the entity graph)
and ``score``. The page flies to the best-ranked state or event and lights up
what activation reached, hop by hop.
"""

from __future__ import annotations

import time
from typing import Any

from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.candidates import Candidate, Pool
from orma_proxy.recall.pipeline import rank_pool
from orma_proxy.store import Reader
from orma_proxy.viz.graph import node_id

# Ranked matches returned to the page.
_MATCHES = 12


def _graph_keys(cand: Candidate, pool: Pool) -> list[ItemKey]:
    """The graph nodes a candidate stands for: itself, or for a passage the items drawn from it."""
    if cand.key[0] != "passage":
        return [cand.key]
    return sorted(k for k in pool.citing.get(cand.key[1], ()) if k in pool.items)


async def recall_preview(
    memory: AsyncMemory, conn: Reader, query: str, space: str
) -> dict[str, Any]:
    """The block for ``query``, the best node, ranked matches and activation per node."""
    config = memory.config
    # Ranked before the block: recall logs its items, which would move their boosts.
    pool, best_first = await rank_pool(
        conn,
        memory.embed_query,
        query[: config.max_query_chars],
        space,
        config,
        time.time(),
        vectors=memory.vector_index,
        keywords=memory.keyword_index,
    )
    block = await memory.recall(query, space)
    matches: list[dict[str, Any]] = []
    seen: set[ItemKey] = set()
    for cand in best_first:
        for key in _graph_keys(cand, pool):
            if key in seen or len(matches) >= _MATCHES:
                continue
            seen.add(key)
            matches.append(
                {
                    "id": node_id(*key),
                    "score": round(cand.score, 4),
                    "relevance": round(cand.relevance, 6),
                    "activation": round(pool.items[key].activation, 4),
                    "via": "passage" if cand.key[0] == "passage" else "match",
                }
            )
    rules = {" ".join(rule.value.split()): rule.id for rule in pool.rules}
    in_block = [node_id("state", rules[v]) for v in block.forbidden if v in rules]
    in_block += [node_id("state", s.id) for s in block.states]
    in_block += [node_id("event", e.id) for e in block.events]
    return {
        "space": space,
        "query": query,
        "block": block.text,
        "tokens": block.tokens,
        "best": matches[0]["id"] if matches else None,
        "matches": matches,
        "activation": {
            node_id(*key): round(c.activation, 4)
            for key, c in pool.items.items()
            if c.activation > 0 and key[0] != "passage"
        },
        "in_block": in_block,
        "passages": [
            {"sentence_id": p.sentence_id, "label": f"[s{p.sentence_id}]", "text": p.text}
            for p in block.passages
        ],
    }
