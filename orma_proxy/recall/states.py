"""The ``states``/``events`` of search: consolidated facts that match a query.

Sleep writes them (``orma_proxy/sleep``), ``orma_proxy.facts`` reads them; search
attaches the active states and events that match the query's words or that
were drawn from the passages it found — following ``superseded_by`` to what
is true now, so finding "I live in Pune" yields the current home city.
"""

from __future__ import annotations

import re

from orma_proxy.facts import (
    Event,
    State,
    events_matching,
    list_facts,
    state_by_id,
    states_matching,
)
from orma_proxy.store import Reader, execute_fn
from orma_proxy.text.stopwords import STOPWORDS

# State, Event and their reads live in ``orma_proxy.facts``; named here too for the
# SDK, the CLI and MCP until they import them from there.
__all__ = ["Event", "State", "list_facts", "matching_states", "query_terms", "state_by_id"]

_WORD = re.compile(r"\w+", re.UNICODE)
_PASSAGE_BONUS = 2  # drawn from a passage the search found: worth two matching words
_PASSAGE_HEADS = 3  # only the best passages lend their states that bonus
_MIN_STEM = 3
_MAX_TERMS = 16  # query words looked up in state and event texts
_MAX_TERM_CHARS = 64  # a longer "word" names no state (and would pass SQLite's LIKE limit)


def query_terms(text: str) -> set[str]:
    """The words of ``text`` that carry meaning, lower-cased, a plural 's' dropped."""
    words = {w.lower() for w in _WORD.findall(text.replace("_", " "))}
    kept = {w for w in words if w not in STOPWORDS and len(w) <= _MAX_TERM_CHARS}
    return {w[:-1] if w.endswith("s") and len(w) > _MIN_STEM else w for w in kept}


async def matching_states(
    conn: Reader,
    space: str,
    query: str,
    sentence_ids: list[int],
    k: int,
) -> tuple[list[State], list[Event]]:
    """Active states and events for a search: drawn from the best passages, or sharing words.

    A closed state drawn from a found sentence stands for the active state that
    replaced it (its ``superseded_by`` chain is followed to the end).
    """
    terms = query_terms(query)
    sentence_ids = sentence_ids[:_PASSAGE_HEADS]
    # Terms are word characters without '_' (see query_terms), as the facts' reads ask.
    words = sorted(terms)[:_MAX_TERMS]
    # One trip for both reads: the active ends of the chains starting at the found
    # sentences and the active states naming a query word (LIKE narrows, the Python
    # below scores), and the events drawn from those sentences or naming a word.
    states, events = await execute_fn(
        conn,
        lambda c: (
            states_matching(c, space, words, sentence_ids),
            events_matching(c, space, words, sentence_ids),
        ),
    )
    # Scored on the matches: only the k best become States (LIKE may let thousands through).
    scored_states = [
        (len(terms & query_terms(f"{m.entity} {m.attribute} {m.value} {m.condition}"))
         + (_PASSAGE_BONUS if m.head else 0), m)
        for m in states
    ]  # fmt: skip
    found = set(sentence_ids)
    scored_events = [
        (len(terms & query_terms(f"{e.what} {' '.join(e.who)}"))
         + (_PASSAGE_BONUS if e.sentence_id in found else 0), e)
        for e in events
    ]  # fmt: skip
    best_states = [m for score, m in sorted(scored_states, key=lambda p: -p[0]) if score > 0]
    best_events = [e for score, e in sorted(scored_events, key=lambda p: -p[0]) if score > 0]
    return [m.state() for m in best_states[:k]], best_events[:k]
