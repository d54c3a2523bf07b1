"""Hybrid search: BM25 and vectors, fused by score-aware Reciprocal Rank Fusion.

``RRF(d) = sum over channels of w * (score(d) / best score) ** p / (rrf_k + rank(d))``
(``p = rrf_score_power``; 0 is plain RRF). The channels run concurrently: FTS5 on
the reader connection while the query is embedded in a worker thread; the vector
k-NN follows once the query vector exists.

Each channel is one statement of the store (``store/passages.py``), returning
its hits together with what a passage shows (text, episode, role, time), so no
third trip is needed to fetch the fused winners; both keyword channels share
one trip to the reader's thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Vectors
from orma_proxy.recall.floor import QueryFloor
from orma_proxy.recall.turns import (
    asks_when,
    listener_roles,
    named_in,
    says_when,
    turn_scores,
    with_replies,
    without_names,
)
from orma_proxy.store import (
    Connection,
    KeywordIndex,
    Reader,
    SentenceRow,
    catch_up,
    execute_fn,
    float_vectors,
    keyword_passages,
    nearest_passages,
    next_turns,
    pair_passages,
    speakers_among,
)
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.text import QueryDates, finest_terms, query_dates
from orma_proxy.text.names import names_in

EmbedQuery = Callable[[str], Awaitable[Vectors]]
Named = tuple[frozenset[str], dict[str, str]]  # ``_speakers_named``'s
Lexical = list[list[SentenceRow]]  # each keyword channel's hits
LISTENER_LOOKUP = 40  # lines holding a name read to tell whom the chat calls so


@dataclass(frozen=True)
class Passage:
    """A remembered sentence, where it came from, and how well it matched."""

    text: str
    episode_id: int
    sentence_id: int
    said_at: datetime
    score: float
    role: str
    speaker: str | None = None


@dataclass(frozen=True)
class SearchResult:
    """What recall found. ``states`` and ``events`` come from sleep consolidation.

    ``below_floor`` holds the passages (by sentence id) that recall would count off
    the query's topic (``recall/relevance.py``): none of the query's words, and not
    far enough above the query's noise floor (``recall_topic_margin``, ``_share``).
    """

    query: str
    space: str
    passages: list[Passage] = field(default_factory=list)
    states: list[object] = field(default_factory=list)
    events: list[object] = field(default_factory=list)
    below_floor: frozenset[int] = frozenset()


def rrf_fuse(
    rankings: list[list[int]],
    rrf_k: int,
    weights: list[float] | None = None,
    scores: list[dict[int, float]] | None = None,
    power: float = 0.0,
) -> dict[int, float]:
    """Reciprocal Rank Fusion of several best-first id lists, each list with its weight.

    With each list's own ``scores`` (higher is better) and ``power`` > 0, an item's
    ``weight / (rrf_k + rank)`` is scaled by ``(score / best score of its list) ** power``:
    a second place with a tenth of the first's BM25 score is not worth almost as
    much as the first, as plain RRF has it (a list whose best score is not positive
    is fused by rank alone).
    """
    fused: dict[int, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        own = scores[i] if scores is not None and power > 0 else {}
        best = max(own.values(), default=0.0)
        for rank, item in enumerate(ranking, start=1):
            share = max(own[item] / best, 0.0) ** power if best > 0 else 1.0
            fused[item] = fused.get(item, 0.0) + weight * share / (rrf_k + rank)
    return fused


def _ranked(
    found: list[SentenceRow],
    rows: dict[int, SentenceRow],
    scores: dict[int, float] | None = None,
) -> list[int]:
    """A channel's ids, best first; their rows are added to ``rows``, their scores to ``scores``."""
    for row in found:
        rows[row.sentence_id] = row
        if scores is not None:
            scores[row.sentence_id] = row.score
    return [row.sentence_id for row in found]


async def _speakers_named(conn: Reader, space: str, query: str, held: KeywordIndex | None) -> Named:
    """The words of the query's names that are speakers in ``space`` ("melanie"), and
    role -> the name its unnamed chat turns are said by (``turns.listener_roles``).

    Only a speaker's name is taken out of the words searched (it is matched by
    speaker instead); a place or a thing named in a question ("Goa", "Zoho") is
    what the question is about, and stays a word. The lines holding a name come
    from ``held``'s postings when it holds the space, as the keyword channel's do.
    """
    named = named_in(query)
    if not named:
        return named, {}
    candidates = sorted(named | {name.lower() for name in names_in(query)})

    def lookup(c: Connection) -> tuple[set[str], dict[str, str]]:
        speaking = speakers_among(c, space, candidates)
        rest = sorted(w for w in named if not any(w in name.split() for name in speaking))
        said = [
            (row.role, row.text)
            for word in rest
            for row in keyword_passages(c, word, space, LISTENER_LOOKUP, held=held)
        ]
        return speaking, listener_roles(said, rest)

    speaking, roles = await execute_fn(conn, lookup)
    speakers = {w for w in named if any(w in name.split() for name in speaking)}
    return frozenset(speakers | set(roles.values())), roles


def _keywords(
    conn: Connection,
    words: str,
    dates: list[str],
    query: str,
    space: str,
    config: OrmaConfig,
    held: KeywordIndex | None,
) -> Lexical:
    """The keyword channels: BM25 over the words and date terms (from ``held``'s postings
    when it holds the space), and CJK pairs when on."""
    found = [keyword_passages(conn, words, space, config.search_k, dates, held)]
    if config.enable_cjk_keywords:  # Chinese, Japanese, Korean: keywords by character pairs
        found.append(pair_passages(conn, query, space, config.search_k))
    return found


def _above(
    conn: Connection, found: list[SentenceRow], vector: Vectors, least: float, worded: set[int]
) -> list[SentenceRow]:
    """The vector hits at ``least`` cosine or more, or that the query's words found too.

    A hit under the query's floor (``recall/floor.py``) is no closer than text about
    nothing it asks; it still ranks a sentence the keywords matched, whose words
    already made it a candidate.
    """
    sims = float_vectors(conn, [row.sentence_id for row in found if row.sentence_id not in worded])
    return [row for row in found if row.sentence_id in worded or _sim(sims, row, vector) >= least]


def _sim(sims: dict[int, Vectors], row: SentenceRow, vector: Vectors) -> float:
    found = sims.get(row.sentence_id)
    return -1.0 if found is None else float(found @ vector)


async def _with_replies(
    conn: Reader,
    space: str,
    turns: list[tuple[int, float]],
    rows: dict[int, SentenceRow],
    share: float,
    *,
    users: bool = True,
) -> list[tuple[int, float]]:
    """``turns`` with the replies to the questions among them (``turns.with_replies``).

    Without ``users`` a chat user's question lends nothing to the reply: the
    assistant's answer is what the assistant said, shown only when it matches itself.
    """
    asked = {
        rows[s].episode_id: s
        for s, _ in turns
        if rows[s].text.rstrip().endswith("?") and (users or rows[s].role != "user")
    }
    if not asked:
        return turns
    following = await execute_fn(conn, lambda c: next_turns(c, space, list(asked)))
    found: dict[int, int] = {}  # reply episode -> its first sentence
    for sentence in _ranked(following, rows):
        found.setdefault(rows[sentence].episode_id, sentence)
    replies = {}
    for episode, sentence in found.items():
        question = max((q for q in asked if q < episode), default=None)
        if question is not None:
            replies[asked[question]] = sentence
    episode_of = {sentence: row.episode_id for sentence, row in rows.items()}
    return with_replies(turns, replies, episode_of, share=share)


def _on_date(said: dict[int, str], dates: list[str]) -> frozenset[int]:
    """The sentences said on, or speaking of, the finest dates the query names."""
    wanted = finest_terms(dates)
    if not wanted:
        return frozenset()
    return frozenset(sid for sid, terms in said.items() if not wanted.isdisjoint(terms.split()))


async def hybrid_search(
    conn: Reader,
    embed_query: EmbedQuery,
    query: str,
    space: str,
    *,
    k: int,
    config: OrmaConfig,
    vectors: VectorIndex | None = None,
    keywords: KeywordIndex | None = None,
    now: float | None = None,
    floor: QueryFloor | None = None,
) -> list[Passage]:
    """The ``k`` best passages of ``space`` for ``query``.

    A date the query names, or a relative one ("last week", read as of ``now``,
    default the clock), is matched with the words (``text/dates.py``).

    With ``keywords``, BM25 runs on its postings once it holds the space
    (``store/keyword_index.py``); until then on FTS5 (PostgreSQL: ``sentence_terms``).
    With ``vectors``, the k-NN runs in memory once that index holds the
    space. Both held indexes catch up from their logs once, before the first read,
    while the query is being embedded (``held_index.catch_up``: one trip on PostgreSQL);
    on SQLite ``conn`` must have its ``orma_nearest`` function (``VectorIndex.register``).
    With ``floor`` (``recall/floor.py``), no vector hit under the query's floor counts.
    """
    query = query[: config.max_query_chars]
    held = keywords if keywords is not None and keywords.use(space) else None

    async def by_words() -> tuple[Named, QueryDates, asyncio.Future[Vectors] | None, Lexical]:
        named = await _speakers_named(conn, space, query, held)
        words = without_names(query, named[0])
        dated = query_dates(words, now) if config.enable_date_terms else QueryDates([], words)
        # "last week" is a time, not words to match; embedded while the words are searched
        embedding = (
            asyncio.ensure_future(embed_query(dated.rest)) if config.enable_semantic else None
        )
        lexical = await execute_fn(
            conn, lambda c: _keywords(c, dated.rest, dated.terms, query, space, config, held)
        )
        return named, dated, embedding, lexical

    # The held indexes catch up first, queued on the reader with the first read of the words
    # (no round trip between them): every read of the search sees one point of their logs.
    _, ((named, roles), dated, embedding, lexical) = await asyncio.gather(
        catch_up(conn, vectors if config.enable_semantic else None, held), by_words()
    )
    dates = dated.terms
    rows: dict[int, SentenceRow] = {}
    scores: list[dict[int, float]] = [{} for _ in lexical]  # each channel's own scores
    rankings = [_ranked(found, rows, own) for found, own in zip(lexical, scores, strict=True)]
    weights = [1.0] * len(rankings)
    if embedding is not None:
        vector = await embedding
        margin = config.noise_floor_background_margin
        least = await floor(vector, margin) if floor is not None else None
        held_vectors = vectors if vectors is not None and vectors.use(space) else None
        worded = {row.sentence_id for found in lexical for row in found}

        def near(c: Connection) -> list[SentenceRow]:
            found = nearest_passages(
                c,
                vector,
                space,
                k=config.search_k,
                oversample=config.vector_oversample,
                use_floor=config.enable_similarity_weighting,
                held=held_vectors,
            )
            return found if least is None else _above(c, found, vector, least, worded)

        nearest = await execute_fn(conn, near)
        scores.append({})
        rankings.append(_ranked(nearest, rows, scores[-1]))
        weights.append(config.rrf_vector_weight)
    fused = rrf_fuse(rankings, config.rrf_k, weights, scores, config.rrf_score_power)
    turns = turn_scores(
        fused,
        {sid: row.episode_id for sid, row in rows.items()},
        {sid: row.speaker or roles.get(row.role) for sid, row in rows.items()},
        named,
        share=config.sentence_share,
        boost=config.speaker_boost,
        words_of={sid: len(row.text.split()) for sid, row in rows.items()},
        short_words=config.short_sentence_words,
        dated=frozenset(s for s, row in rows.items() if says_when(row.text))
        if asks_when(query)
        else frozenset(),
        time_boost=config.time_boost,
        on_date=_on_date({i: r.dates for i, r in rows.items()}, dates)
        if config.date_boost
        else frozenset(),
        date_boost=config.date_boost,
    )
    if config.reply_share > 0:  # every matched question's: the first k never depend on k
        turns = await _with_replies(
            conn, space, turns, rows, config.reply_share, users=not config.recall_screen
        )
    return [
        Passage(
            text=rows[sid].text,
            episode_id=rows[sid].episode_id,
            sentence_id=sid,
            said_at=datetime.fromtimestamp(rows[sid].said_at, UTC),
            score=value,
            role=rows[sid].role,
            speaker=rows[sid].speaker,
        )
        for sid, value in turns[:k]
    ]
