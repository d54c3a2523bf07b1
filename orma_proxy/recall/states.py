"""The ``states``/``events`` of search: consolidated facts that match a query.

Sleep writes them (``orma_proxy/sleep``), ``orma_proxy.facts`` reads them; search
attaches the active states and events that match the query's words or that
were drawn from the passages it found — following ``superseded_by`` to what
is true now, so finding "I live in Pune" yields the current home city.
"""

from __future__ import annotations

import asyncio
import re

import aiosqlite

from orma_proxy.facts import (
    EVENTS,
    STATES,
    Event,
    State,
    event_from,
    list_facts,
    state_by_id,
    state_from,
)
from orma_proxy.text.stopwords import STOPWORDS

# State, Event and their reads live in ``orma_proxy.facts``; named here too for the
# SDK, the CLI and MCP until they import them from there.
__all__ = ["Event", "State", "list_facts", "matching_states", "query_terms", "state_by_id"]

_WORD = re.compile(r"\w+", re.UNICODE)
_PASSAGE_BONUS = 2  # drawn from a passage the search found: worth two matching words
_PASSAGE_HEADS = 3  # only the best passages lend their states that bonus
_MIN_STEM = 3
_MAX_TERMS = 16  # query words looked up in event texts


async def _candidate_events(
    conn: aiosqlite.Connection, space: str, terms: list[str], marks: str, sentence_ids: list[int]
) -> list[Event]:
    """Events cited from a found sentence or naming a query word (filtered in SQL)."""
    tests = [f"v.sentence_id IN ({marks})"] if sentence_ids else []
    # Terms are word characters without '_' (see query_terms), so LIKE needs no escaping.
    tests += ["v.what LIKE ? OR v.who LIKE ?"] * len(terms[:_MAX_TERMS])
    if not tests:
        return []
    likes = [f"%{t}%" for t in terms[:_MAX_TERMS] for _ in (0, 1)]
    rows = await conn.execute_fetchall(
        EVENTS.sql + f"WHERE v.space = ? AND ({' OR '.join(tests)})", (space, *sentence_ids, *likes)
    )
    return [event_from(r) for r in EVENTS.all_named(rows)]


def query_terms(text: str) -> set[str]:
    """The words of ``text`` that carry meaning, lower-cased, a plural 's' dropped."""
    words = {w.lower() for w in _WORD.findall(text.replace("_", " "))}
    kept = {w for w in words if w not in STOPWORDS}
    return {w[:-1] if w.endswith("s") and len(w) > _MIN_STEM else w for w in kept}


async def matching_states(
    conn: aiosqlite.Connection,
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
    marks = ",".join("?" * len(sentence_ids))
    words = sorted(terms)[:_MAX_TERMS]
    # One trip: the active ends of the chains starting at the found sentences (``+space``:
    # the few sentences are looked up by states_sentence, not by walking the space), and
    # the active states naming a query word (LIKE narrows, the Python below scores).
    chain, is_head = "", "0"
    args: list[object] = [space]
    if sentence_ids:
        chain = (
            "WITH RECURSIVE chain (id, active, next) AS (SELECT id, active, superseded_by "
            f"FROM states WHERE +space = ? AND sentence_id IN ({marks}) "
            "UNION SELECT s.id, s.active, s.superseded_by FROM states s "
            "JOIN chain c ON s.id = c.next) "
        )
        is_head = "{alias}.id IN (SELECT id FROM chain WHERE active = 1)"
        args = [space, *sentence_ids, space]
    tests = [is_head.format(alias="s")]
    for word in words:
        tests.append("s.value LIKE ? OR s.attribute LIKE ? OR s.condition LIKE ? OR e.name LIKE ?")
        args += [f"%{word}%"] * 4
    # Both statements are queued on the reader at once: one wait for the two.
    rows, events = await asyncio.gather(
        conn.execute_fetchall(
            f"{chain}SELECT q.*, {is_head.format(alias='q')} AS head FROM ({STATES.sql}"
            f"WHERE s.space = ? AND s.active = 1 AND ({' OR '.join(tests)})) q",
            args,
        ),
        _candidate_events(conn, space, sorted(terms), marks, sentence_ids),
    )
    # Scored on the rows: only the k best become States (LIKE may let thousands through).
    scored_states = [
        (len(terms & query_terms(f"{r['entity']} {r['attribute']} {r['value']} {r['condition']}"))
         + (_PASSAGE_BONUS if r["head"] else 0), r)
        for r in STATES.all_named(rows, "head")
    ]  # fmt: skip
    found = set(sentence_ids)
    scored_events = [
        (len(terms & query_terms(f"{e.what} {' '.join(e.who)}"))
         + (_PASSAGE_BONUS if e.sentence_id in found else 0), e)
        for e in events
    ]  # fmt: skip
    best_states = [r for score, r in sorted(scored_states, key=lambda p: -p[0]) if score > 0]
    best_events = [e for score, e in sorted(scored_events, key=lambda p: -p[0]) if score > 0]
    return [state_from(r) for r in best_states[:k]], best_events[:k]
