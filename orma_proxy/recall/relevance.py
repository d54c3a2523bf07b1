"""Which ranked candidates may enter the block: what the query matched, and the core.

With ``recall_relevant_states`` a state or an event competes for the block as a
passage does: it is a candidate only if the query matched it, by its words or
through a sentence the search found (``relevance > 0``). Reached by spreading
activation alone, or merely held by the user, it stays out: with twenty notes in
a space, "quantum chromodynamics lattice" must not bring every fact the user
ever stated. Two kinds are in whatever the query: the forbidden rules (packed
first, apart from the ranking) and the user's core facts, ``recall_core_facts``
(name, home, job by default), the small always-on identity a model needs to
address the user at all.
"""

from __future__ import annotations

from collections.abc import Iterable

from orma_proxy.config import OrmaConfig
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.candidates import Candidate
from orma_proxy.recall.core import is_core

__all__ = ["relevant"]


def relevant(
    ranked: Iterable[Candidate], config: OrmaConfig, core: frozenset[ItemKey] = frozenset()
) -> list[Candidate]:
    """``ranked`` without what the query did not match; the core (states, ``core`` lines) stays."""
    kept = []
    for cand in ranked:
        matched = cand.relevance > 0 or cand.key in core
        if matched or (cand.state is not None and is_core(cand.state, config.recall_core_facts)):
            kept.append(cand)
    return kept
