"""Which ranked candidates may enter the block: what the query matched, and the core.

With ``recall_relevant_states`` a state or an event competes for the block as a
passage does: it is a candidate only if the query matched it, by its words or
through a sentence the search found (``relevance > 0``). Reached by spreading
activation alone, or merely held by the user, it stays out: with twenty notes in
a space, "quantum chromodynamics lattice" must not bring every fact the user
ever stated. Two kinds are in whatever the query: the forbidden rules (packed
first, apart from the ranking) and the user's core facts, ``recall_core_facts``
(name, home, job by default), the small always-on identity a model needs to
address the user at all. The core is the user's states: a user's line is read
as it is recorded (``enable_facts_on_record``), so "I'm Sahil." is a state at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import USER, State
from orma_proxy.recall.candidates import Candidate
from orma_proxy.text.attributes import groups_of, state_attributes

__all__ = ["core_kinds", "is_core", "relevant"]


@cache
def core_kinds(names: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The kinds the configured core names stand for ("job" -> work), and their attributes.

    The attributes are the configured names themselves and those sleep writes for
    each kind (``employer``, ``job_title``; ``home_city``, ``hometown``, ``address``).
    """
    kinds = {kind for name in names for kind in groups_of(name) or {name}}
    attributes = set(names) | {a for kind in kinds for a in state_attributes(kind)}
    return frozenset(kinds), frozenset(attributes)


def is_core(state: State, names: tuple[str, ...]) -> bool:
    """Whether ``state`` is one of the user's active core facts.

    Its attribute is a core one, or every word of it names only core kinds
    ("city", "occupation"; not "pet name", nor "salary", which is income too).
    """
    if state.entity != USER or not state.active:
        return False
    kinds, attributes = core_kinds(names)
    if state.attribute in attributes:
        return True
    words = state.attribute.replace("_", " ").split()
    return bool(words) and all(groups_of(w) and groups_of(w) <= kinds for w in words)


def relevant(ranked: Iterable[Candidate], config: OrmaConfig) -> list[Candidate]:
    """``ranked`` without what the query did not match; the core states stay."""
    kept = []
    for cand in ranked:
        core = cand.state is not None and is_core(cand.state, config.recall_core_facts)
        if cand.relevance > 0 or core:
            kept.append(cand)
    return kept
