"""What recall may put in the block: passages, states and events, with their relevance.

Sources, in indexed SQL (rules, the user's states and word matches read while the
query is embedded; the rest once the hybrid search has found its sentences):

- the best ``recall_passages`` passages (sentences) of BM25 + vectors, with
  their RRF score;
- states and events cited from those sentences inherit the sentence's score:
  they are that sentence, consolidated. A closed state found this way lends
  its score to the active state that replaced it ("I live in Pune" finds the
  current home city) and stays a candidate itself while recently closed, as
  history;
- states and events sharing words with the query form one more RRF channel;
- the user's own active states are always candidates, scored by boosts only
  when nothing matched them;
- forbidden rules (``prohibited`` or ``forbidden_*``) are always carried.

Relevance is plain RRF; ``rank`` turns it into the final score.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import NamedTuple

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import (
    EVENTS_WITH_TIMES,
    RULE_SQL,
    STATES_WITH_TIMES,
    USER,
    Event,
    Row,
    State,
    event_from,
    is_rule,
    state_from,
)
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.search import EmbedQuery, Passage, hybrid_search
from orma_proxy.recall.states import query_terms
from orma_proxy.recall.temporal import SECONDS_PER_DAY, History
from orma_proxy.store import as_sync, execute_fn
from orma_proxy.store.episodes import fetch_sentences
from orma_proxy.store.vector_index import VectorIndex

# Longest replacement chain followed (a guard: chains are acyclic by construction).
_MAX_CHAIN = 64


@dataclass
class Candidate:
    """One item that may go into the block, and everything ranking knows about it."""

    key: ItemKey
    history: History
    passage: Passage | None = None
    state: State | None = None
    event: Event | None = None
    relevance: float = 0.0
    activation: float = 0.0
    score: float = 0.0
    boosts: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Successor:
    """Where the chain of states that replaced a closed state ends."""

    sentence_id: int
    head_id: int
    value: str
    active: bool


@dataclass
class Pool:
    """Every candidate of a recall, the rules always packed, and what each sentence backs.

    ``citing`` maps a sentence to the states and events drawn from it (closed
    ones included), ``closed`` a closed state to what replaced it.
    """

    items: dict[ItemKey, Candidate]
    rules: list[State]
    citing: dict[int, set[ItemKey]] = field(default_factory=dict)
    closed: dict[int, Successor] = field(default_factory=dict)

    def outdated(self, sentence_id: int) -> list[str]:
        """What replaced the facts a sentence stated: ``["Bangalore"]``, ``[""]`` if ended."""
        marks = []
        for kind, item_id in sorted(self.citing.get(sentence_id, ())):
            successor = self.closed.get(item_id) if kind == "state" else None
            if successor is not None:
                marks.append(successor.value if successor.active else "")
        return marks


def state_candidate(row: Row) -> Candidate:
    """A state read by ``STATES_WITH_TIMES``, with its history."""
    state = state_from(row)
    stated_at, rehearsed_at = row["stated_at"], row["rehearsed_at"]
    history = History(
        created=float(stated_at),
        rehearsals=state.rehearsals,
        rehearsed_at=None if rehearsed_at is None else float(rehearsed_at),
    )
    return Candidate(("state", state.id), history, state=state)


def event_candidate(row: Row) -> Candidate:
    """An event read by ``EVENTS_WITH_TIMES``, with its history."""
    event = event_from(row)
    return Candidate(("event", event.id), History(float(row["said_at"])), event=event)


async def load_items(
    conn: aiosqlite.Connection, space: str, keys: list[ItemKey]
) -> list[Candidate]:
    """Active states and events by id (items reached by spreading activation)."""
    found = []
    active_states = f"WHERE s.space = ? AND s.active = 1 AND NOT {RULE_SQL} AND s.id IN "
    for kind, select, where, make in (
        ("state", STATES_WITH_TIMES, active_states, state_candidate),
        ("event", EVENTS_WITH_TIMES, "WHERE v.space = ? AND v.id IN ", event_candidate),
    ):
        ids = [i for k, i in keys if k == kind]
        if ids:
            sql = select.sql + where + f"({','.join('?' * len(ids))})"
            rows = await conn.execute_fetchall(sql, (space, *ids))
            found += [make(r) for r in select.all_named(rows)]
    return found


async def gather(
    conn: aiosqlite.Connection,
    embed_query: EmbedQuery,
    query: str,
    space: str,
    config: OrmaConfig,
    now: float,
    *,
    vectors: VectorIndex | None = None,
) -> Pool:
    """Every candidate for ``query`` with its RRF relevance (see the module docstring)."""
    semantic = config.enable_semantic  # off: passages only; rules set by hand bind all the same
    terms = sorted(query_terms(query)) if semantic else []
    recent = now - config.superseded_recent_days * SECONDS_PER_DAY
    # The states that don't depend on what the search finds (rules, the user's, word
    # matches) are read while the query is being embedded, off the critical path.
    passages, early = await asyncio.gather(
        hybrid_search(
            conn,
            embed_query,
            query,
            space,
            k=config.search_k,
            config=config,
            vectors=vectors,
            now=now,
        ),
        _state_rows(conn, space, _early_parts(terms, config, recent, user=semantic)),
    )
    items: dict[ItemKey, Candidate] = {}
    for p in passages[: config.recall_passages]:  # all of them still lend states their score
        items[("passage", p.sentence_id)] = _passage_candidate(p, p.score)
    if not semantic:
        return Pool(items, _classify(early, [], config, recent)[1])
    # Several small queries, each depending on the last: one trip to the reader's thread.
    return await execute_fn(
        conn,
        as_sync(lambda c: _with_states(c, space, terms, passages, early, items, config, recent)),
    )


async def _with_states(
    conn: aiosqlite.Connection,
    space: str,
    terms: list[str],
    passages: list[Passage],
    early: list[Row],
    items: dict[ItemKey, Candidate],
    config: OrmaConfig,
    recent: float,
) -> Pool:
    """The pool: the passages found, the states and events they and the query name."""
    found = {p.sentence_id: p.score for p in passages}
    cited_rows = await _state_rows(conn, space, _cited_parts(list(found)))
    states, rules, closed_cited = _classify([*early, *cited_rows], list(found), config, recent)
    event_sql, event_args = _event_query(space, terms, list(found), config)
    event_rows = EVENTS_WITH_TIMES.all_named(await conn.execute_fetchall(event_sql, event_args))
    events = [event_candidate(r) for r in event_rows]
    matched: list[tuple[int, Candidate]] = []
    citing: dict[int, set[ItemKey]] = {}
    for cand in [*states, *events]:
        cited = _cited(cand)
        citing.setdefault(cited, set()).add(cand.key)
        cand.relevance = found.get(cited, 0.0)
        overlap = len(set(terms) & query_terms(_describe(cand)))
        if overlap:
            matched.append((overlap, cand))
        items[cand.key] = cand
    for rank, (_, cand) in enumerate(sorted(matched, key=lambda p: -p[0]), start=1):
        cand.relevance += config.term_match_weight / (config.rrf_k + rank)
    history = [c for c in states if c.state is not None and not c.state.active]
    closed = {}
    if closed_cited or history:
        closed = await successors(conn, space, sorted({*found, *map(_cited, history)}))
    heads: set[ItemKey] = {("state", c.head_id) for c in closed.values() if c.active}
    for cand in await load_items(conn, space, [k for k in heads if k not in items]):
        items[cand.key] = cand
    for origin, successor in closed.items():
        citing.setdefault(successor.sentence_id, set()).add(("state", origin))
        head = items.get(("state", successor.head_id))
        if successor.active and head is not None:
            # Old news about a slot the query found: what holds the slot now answers it.
            head.relevance = max(head.relevance, found.get(successor.sentence_id, 0.0))
    await _history_as_passages(conn, space, history, items)
    return Pool(items, rules, citing, closed)


async def _history_as_passages(
    conn: aiosqlite.Connection,
    space: str,
    history: list[Candidate],
    items: dict[ItemKey, Candidate],
) -> None:
    """A recently closed state is shown as the line it came from, marked outdated."""
    for cand in history:
        del items[cand.key]
    rows = await fetch_sentences(conn, sorted({_cited(c) for c in history}), space)
    for cand in history:
        row = rows.get(_cited(cand))
        key: ItemKey = ("passage", _cited(cand))
        if row is None:
            continue
        if key in items:
            items[key].relevance = max(items[key].relevance, cand.relevance)
            continue
        passage = Passage(
            text=row.text,
            episode_id=row.episode_id,
            sentence_id=row.sentence_id,
            said_at=datetime.fromtimestamp(row.said_at, UTC),
            score=cand.relevance,
            role=row.role,
        )
        items[key] = _passage_candidate(passage, cand.relevance)


def _passage_candidate(passage: Passage, relevance: float) -> Candidate:
    history = History(passage.said_at.timestamp())
    return Candidate(
        ("passage", passage.sentence_id), history, passage=passage, relevance=relevance
    )


def _cited(cand: Candidate) -> int:
    if cand.state is not None:
        return cand.state.sentence_id
    assert cand.event is not None
    return cand.event.sentence_id


async def successors(
    conn: aiosqlite.Connection, space: str, sentence_ids: list[int]
) -> dict[int, Successor]:
    """For each closed state drawn from these sentences, the end of its replacement chain."""
    if not sentence_ids:
        return {}
    rows = await conn.execute_fetchall(
        "WITH RECURSIVE chain (origin, sentence_id, next, id, value, active, depth) AS ("
        "SELECT id, sentence_id, superseded_by, id, value, active, 0 FROM states "
        f"WHERE +space = ? AND active = 0 AND sentence_id IN ({','.join('?' * len(sentence_ids))}) "
        "UNION ALL SELECT c.origin, c.sentence_id, n.superseded_by, n.id, n.value, n.active, "
        "c.depth + 1 FROM chain c JOIN states n ON n.id = c.next WHERE c.depth < ?) "
        "SELECT origin, sentence_id, id, value, active FROM chain WHERE next IS NULL",
        (space, *sentence_ids, _MAX_CHAIN),
    )
    return {
        int(origin): Successor(int(line), int(head), str(value), bool(active) and head != origin)
        for origin, line, head, value, active in rows
    }


def _describe(cand: Candidate) -> str:
    if cand.state is not None:
        s = cand.state
        return f"{s.entity} {s.attribute} {s.value} {s.condition}"
    assert cand.event is not None
    return f"{cand.event.what} {' '.join(cand.event.who)}"


class _Part(NamedTuple):
    """One source of states: a WHERE test, its values, and an optional bound."""

    test: str
    values: Sequence[object]
    limit: int | None = None
    # False when the test's own column is the selective one (a state's sentence):
    # without statistics SQLite prefers the space's index and reads every state of it.
    by_space: bool = True


def _early_parts(terms: list[str], config: OrmaConfig, recent: float, *, user: bool) -> list[_Part]:
    """Rules, the user's own active states and the states naming a query word."""
    parts = [_Part(f"s.active = 1 AND {RULE_SQL}", [])]
    if user:  # bounded in SQL: a space may hold thousands of the user's states
        parts.append(_Part("s.active = 1 AND e.name = ?", [USER], config.recall_user_states))
    if terms:
        likes = " OR ".join(["s.value LIKE ? OR s.attribute LIKE ? OR e.name LIKE ?"] * len(terms))
        words = [f"%{t}%" for t in terms for _ in range(3)]
        # Two parts, each on its own index: the active states, and those closed since
        # ``recent`` (migration 0009), not every state the space ever held.
        parts.append(_Part(f"s.active = 1 AND ({likes})", words, config.recall_states))
        parts.append(
            _Part(
                f"s.active = 0 AND s.valid_to >= ? AND ({likes})",
                [recent, *words],
                config.recall_states,
            )
        )
    return parts


def _cited_parts(sentence_ids: list[int]) -> list[_Part]:
    """States drawn from the found sentences, closed ones of any age too (for the marks)."""
    if not sentence_ids:
        return []
    marks = ",".join("?" * len(sentence_ids))
    return [_Part(f"s.sentence_id IN ({marks})", [*sentence_ids], by_space=False)]


async def _state_rows(conn: aiosqlite.Connection, space: str, parts: list[_Part]) -> list[Row]:
    """The rows of every part, in one statement, each part newest first within its bound."""
    if not parts:
        return []
    return STATES_WITH_TIMES.all_named(await conn.execute_fetchall(*_states_sql(space, parts)))


def _states_sql(space: str, parts: list[_Part]) -> tuple[str, list[object]]:
    selects, args = [], []
    for test, values, limit, by_space in parts:
        bound = "" if limit is None else f" LIMIT {int(limit)}"
        space_test = "s.space = ?" if by_space else "+s.space = ?"  # "+": not by its index
        selects.append(
            f"SELECT * FROM ({STATES_WITH_TIMES.sql}WHERE {space_test} AND {test} "
            f"ORDER BY coalesce(s.rehearsed_at, s.stated_at) DESC, s.id DESC{bound})"
        )
        args += [space, *values]
    # UNION ALL: a state two parts return comes twice, and _classify keeps one.
    return " UNION ALL ".join(selects), args


def _classify(
    rows: list[Row], sentence_ids: list[int], config: OrmaConfig, recent: float
) -> tuple[list[Candidate], list[State], bool]:
    """States cited by found sentences (recently closed too), matching words, the user's, rules.

    The flag says whether a found sentence backs any closed state, however old
    (its replacement chain then has to be followed for the outdated marks).
    """
    unique = {int(r["id"]): r for r in reversed(rows)}  # a state read twice: its first row
    rows = sorted(
        unique.values(),
        key=lambda r: (r["rehearsed_at"] or r["stated_at"], r["id"]),
        reverse=True,
    )
    cited = set(sentence_ids)
    rules: list[State] = []
    user: list[Candidate] = []
    others: list[Candidate] = []
    closed_cited = False
    for row in rows:
        cand = state_candidate(row)
        state = cand.state
        assert state is not None
        if not state.active:
            closed_cited = closed_cited or state.sentence_id in cited
            if state.valid_to is None or state.valid_to.timestamp() < recent:
                continue  # history older than superseded_recent_days: only its mark is shown
        if state.active and is_rule(state):
            rules.append(state)
        elif state.sentence_id in cited:
            others.insert(0, cand)  # found by the search: never cut below
        elif state.entity == USER:
            user.append(cand)
        else:
            others.append(cand)
    rules.sort(key=lambda s: (s.valid_from, s.id))
    kept = user[: config.recall_user_states] + others[: config.recall_states + len(cited)]
    return kept, rules, closed_cited


def _event_query(
    space: str, terms: list[str], sentence_ids: list[int], config: OrmaConfig
) -> tuple[str, list[object]]:
    tests: list[str] = []
    args: list[object] = []
    if sentence_ids:
        tests.append(f"v.sentence_id IN ({','.join('?' * len(sentence_ids))})")
        args += sentence_ids
    for term in terms:
        tests.append("v.what LIKE ? OR v.who LIKE ?")
        args += [f"%{term}%", f"%{term}%"]
    where = " OR ".join(tests) or "0"
    # Events drawn from a found sentence first, then the newest word matches.
    order = "v.id DESC"
    if sentence_ids:
        order = f"v.sentence_id IN ({','.join('?' * len(sentence_ids))}) DESC, " + order
    sql = EVENTS_WITH_TIMES.sql + f"WHERE v.space = ? AND ({where}) ORDER BY {order} LIMIT ?"
    return sql, [space, *args, *sentence_ids, config.recall_events]
