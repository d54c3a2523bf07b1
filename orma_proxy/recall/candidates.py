"""What recall may put in the block: passages, states and events, with their relevance.

Sources, each read by index through ``orma_proxy.facts`` (rules, the user's states and
word matches while the query is embedded; the rest once the hybrid search has found
its sentences):

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
- forbidden rules (``prohibited`` or ``forbidden_*``) are always carried, with
  what they say to do instead (``instead_of_*``).

Relevance is plain RRF; ``rank`` turns it into the final score.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import (
    USER,
    Citing,
    Event,
    HeldBy,
    Naming,
    Rules,
    State,
    StateSource,
    Successor,
    TimedEvent,
    TimedState,
    active_states,
    alternative_attribute,
    events_by_id,
    gather_events,
    gather_states,
    is_alternative,
    is_rule,
    successors,
)
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.chatter import Said, needs_statements, screen, words_of
from orma_proxy.recall.floor import QueryFloor
from orma_proxy.recall.search import EmbedQuery, Passage, hybrid_search
from orma_proxy.recall.states import query_terms
from orma_proxy.recall.temporal import SECONDS_PER_DAY, History
from orma_proxy.store import (
    Connection,
    KeywordIndex,
    Reader,
    execute_fn,
    fetch_sentences,
    keyword_passages,
)
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.text.attributes import groups_of, kinds_shown

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

CHAT_ROLES = ("user", "assistant")  # whose chatter and questions the screen leaves out
ECHO_LOOKUP = 8  # lines sharing an assistant sentence's words it is compared with


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


@dataclass
class Probe:
    """What the block's topic test needs of the query: its vector, and its topic floor.

    ``vector`` is the embedding the search made; ``floor`` the query's noise floor
    at ``recall_topic_margin`` (``recall/floor.py``). Each is None when there is none.
    """

    vector: Vectors | None = None
    floor: float | None = None

    def embedding(self, embed_query: EmbedQuery) -> EmbedQuery:
        """``embed_query``, remembering the vector it returns."""

        async def embed(text: str) -> Vectors:
            self.vector = await embed_query(text)
            return self.vector

        return embed


@dataclass
class Pool:
    """Every candidate of a recall, the rules always packed, and what each sentence backs.

    ``rules`` holds the active rules and their alternatives (``forbidden`` pairs
    them); ``citing`` maps a sentence to the states and events drawn from it (closed
    ones included), ``closed`` a closed state to what replaced it.
    """

    items: dict[ItemKey, Candidate]
    rules: list[State]
    citing: dict[int, set[ItemKey]] = field(default_factory=dict)
    closed: dict[int, Successor] = field(default_factory=dict)
    query: Probe = field(default_factory=Probe)  # for the topic test (``relevance``)

    def forbidden(self) -> list[tuple[str, str]]:
        """Each rule's value with what it says to do instead ("" when nothing)."""
        instead = {(s.entity, s.attribute): s.value for s in self.rules if is_alternative(s)}
        return [
            (rule.value, instead.get((rule.entity, alternative_attribute(rule.attribute)), ""))
            for rule in self.rules
            if is_rule(rule)
        ]

    def outdated(self, sentence_id: int) -> list[str]:
        """What replaced the facts a sentence stated: ``["Bangalore"]``, ``[""]`` if ended."""
        marks = []
        for kind, item_id in sorted(self.citing.get(sentence_id, ())):
            successor = self.closed.get(item_id) if kind == "state" else None
            if successor is not None:
                marks.append(successor.value if successor.active else "")
        return marks


def state_candidate(timed: TimedState) -> Candidate:
    """A state with its history."""
    state = timed.state
    history = History(
        created=timed.stated_at, rehearsals=state.rehearsals, rehearsed_at=timed.rehearsed_at
    )
    return Candidate(("state", state.id), history, state=state)


def event_candidate(timed: TimedEvent) -> Candidate:
    """An event with its history."""
    event = timed.event
    return Candidate(("event", event.id), History(timed.said_at), event=event)


def items_by_id(conn: Connection, space: str, keys: list[ItemKey]) -> list[Candidate]:
    """Active states and events by id (items reached by spreading activation)."""
    states = active_states(conn, space, [i for kind, i in keys if kind == "state"])
    events = events_by_id(conn, space, [i for kind, i in keys if kind == "event"])
    return [*map(state_candidate, states), *map(event_candidate, events)]


async def gather(
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
) -> Pool:
    """Every candidate for ``query`` with its RRF relevance (see the module docstring)."""
    semantic = config.enable_semantic  # off: passages only; rules set by hand bind all the same
    terms = sorted(query_terms(query)) if semantic else []
    recent = now - config.superseded_recent_days * SECONDS_PER_DAY
    # The states that don't depend on what the search finds (rules, the user's, word
    # matches) are read while the query is being embedded, off the critical path.
    early_sources = _early_sources(terms, config, recent, user=semantic)
    probe = Probe()
    passages, early = await asyncio.gather(
        hybrid_search(
            conn,
            probe.embedding(embed_query),
            query,
            space,
            k=config.search_k,
            config=config,
            vectors=vectors,
            keywords=keywords,
            now=now,
            floor=floor,
        ),
        execute_fn(conn, lambda c: gather_states(c, space, early_sources)),
    )
    topical = config.recall_relevant_states and config.recall_topic_share is not None
    if floor is not None and probe.vector is not None and topical:
        probe.floor = await floor(probe.vector, config.recall_topic_margin)
    if config.recall_screen:
        limit = config.recall_passages
        passages = await execute_fn(
            conn, lambda c: shown(c, space, passages, query, limit, keywords)
        )
    items: dict[ItemKey, Candidate] = {}
    for p in passages[: config.recall_passages]:  # all of them still lend states their score
        items[("passage", p.sentence_id)] = _passage_candidate(p, p.score)
    if not semantic:
        return Pool(items, _classify(early, [], config, recent)[1], query=probe)
    # Several small queries, each depending on the last: one trip to the reader's thread.
    pool = await execute_fn(
        conn, lambda c: _with_states(c, space, terms, passages, early, items, config, recent)
    )
    pool.query = probe
    return pool


def _with_states(
    conn: Connection,
    space: str,
    terms: list[str],
    passages: list[Passage],
    early: list[TimedState],
    items: dict[ItemKey, Candidate],
    config: OrmaConfig,
    recent: float,
) -> Pool:
    """The pool: the passages found, the states and events they and the query name."""
    found = {p.sentence_id: p.score for p in passages}
    cited = gather_states(conn, space, [Citing(tuple(found))])
    states, rules, closed_cited = _classify([*early, *cited], list(found), config, recent)
    timed_events = gather_events(conn, space, terms, list(found), config.recall_events)
    events = [event_candidate(e) for e in timed_events]
    matched: list[tuple[int, Candidate]] = []
    citing: dict[int, set[ItemKey]] = {}
    kinds = {kind for term in terms for kind in groups_of(term)}
    for cand in [*states, *events]:
        cited_line = _cited(cand)
        citing.setdefault(cited_line, set()).add(cand.key)
        cand.relevance = found.get(cited_line, 0.0)
        said = query_terms(_describe(cand))
        overlap = len(set(terms) & said) + bool(kinds & kinds_shown(said))
        if overlap:
            matched.append((overlap, cand))
        items[cand.key] = cand
    for rank, (_, cand) in enumerate(sorted(matched, key=lambda p: -p[0]), start=1):
        cand.relevance += config.term_match_weight / (config.rrf_k + rank)
    history = [c for c in states if c.state is not None and not c.state.active]
    closed = {}
    if closed_cited or history:
        closed = successors(conn, space, sorted({*found, *map(_cited, history)}))
    heads: set[ItemKey] = {("state", c.head_id) for c in closed.values() if c.active}
    for cand in items_by_id(conn, space, [k for k in heads if k not in items]):
        items[cand.key] = cand
    for origin, successor in closed.items():
        citing.setdefault(successor.sentence_id, set()).add(("state", origin))
        head = items.get(("state", successor.head_id))
        if successor.active and head is not None:
            # Old news about a slot the query found: what holds the slot now answers it.
            head.relevance = max(head.relevance, found.get(successor.sentence_id, 0.0))
    _history_as_passages(conn, space, history, items)
    return Pool(items, rules, citing, closed)


def _history_as_passages(
    conn: Connection,
    space: str,
    history: list[Candidate],
    items: dict[ItemKey, Candidate],
) -> None:
    """A recently closed state is shown as the line it came from, marked outdated."""
    for cand in history:
        del items[cand.key]
    rows = fetch_sentences(conn, sorted({_cited(c) for c in history}), space)
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


def shown(
    conn: Connection,
    space: str,
    passages: list[Passage],
    query: str,
    limit: int,
    held: KeywordIndex | None = None,
) -> list[Passage]:
    """The passages the block may show (``chatter.screen``: no chatter, echo, stray question).

    An assistant sentence is compared with the lines of the space sharing its
    words (the ``ECHO_LOOKUP`` best by BM25), whether or not the query found them;
    only until ``limit`` passages are kept: an assistant sentence past them would
    never be shown, and backs no state, so it is left out unread. The lookups use
    ``held``'s postings when it holds the space (a sentence's every word: FTS5 would
    score each common one's every posting).
    """
    said = [Said(p.text, p.role, p.episode_id) for p in passages]
    keep = screen(said, query, chat_roles=CHAT_ROLES)  # without the lookups: echoes kept
    kept: list[Passage] = []
    for passage, s, first in zip(passages, said, keep, strict=True):
        if first and needs_statements(s):
            if len(kept) >= limit:
                continue
            words = " ".join(sorted(words_of(s.text)))
            lines = [
                Said(row.text, row.role, row.episode_id)
                for row in keyword_passages(conn, words, space, ECHO_LOOKUP, held=held)
                if row.role != "assistant"
            ]
            if not screen([s], query, chat_roles=CHAT_ROLES, statements=lines)[0]:
                continue
        if first:
            kept.append(passage)
    return kept


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


def _describe(cand: Candidate) -> str:
    if cand.state is not None:
        s = cand.state
        return f"{s.entity} {s.attribute} {s.value} {s.condition}"
    assert cand.event is not None
    return f"{cand.event.what} {' '.join(cand.event.who)}"


def _early_sources(
    terms: list[str], config: OrmaConfig, recent: float, *, user: bool
) -> list[StateSource]:
    """Rules, the user's own active states and the states naming a query word."""
    sources: list[StateSource] = [Rules()]
    if user:  # bounded: a space may hold thousands of the user's states
        sources.append(HeldBy(USER, config.recall_user_states))
    if terms:
        # Two sources, each on its own index: the active states, and those closed since
        # ``recent`` (migration 0009), not every state the space ever held.
        sources.append(Naming(tuple(terms), config.recall_states))
        sources.append(Naming(tuple(terms), config.recall_states, closed_since=recent))
    return sources


def _classify(
    found: list[TimedState], sentence_ids: list[int], config: OrmaConfig, recent: float
) -> tuple[list[Candidate], list[State], bool]:
    """States cited by found sentences (recently closed too), matching words, the user's, rules.

    The flag says whether a found sentence backs any closed state, however old
    (its replacement chain then has to be followed for the outdated marks).
    """
    unique = {t.state.id: t for t in reversed(found)}  # a state read twice: its first read
    timed = sorted(
        unique.values(),
        key=lambda t: (t.rehearsed_at or t.stated_at, t.state.id),
        reverse=True,
    )
    cited = set(sentence_ids)
    rules: list[State] = []
    user: list[Candidate] = []
    others: list[Candidate] = []
    closed_cited = False
    for one in timed:
        cand = state_candidate(one)
        state = one.state
        if not state.active:
            closed_cited = closed_cited or state.sentence_id in cited
            if state.valid_to is None or state.valid_to.timestamp() < recent:
                continue  # history older than superseded_recent_days: only its mark is shown
        if state.active and (is_rule(state) or is_alternative(state)):
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
