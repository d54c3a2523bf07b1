"""Which ranked candidates may enter the block: what is on the query's topic, and the core.

With ``recall_relevant_states`` a state or an event competes for the block as a
passage does: it is a candidate only if the query matched it, by its words or
through a sentence the search found (``relevance > 0``). Reached by spreading
activation alone, or merely held by the user, it stays out. Two kinds are in
whatever the query: the forbidden rules (packed first, apart from the ranking)
and the user's core facts, ``recall_core_facts`` (name, home, job by default),
the small always-on identity a model needs to address the user at all. The core
is the user's states: a user's line is read as it is recorded
(``enable_facts_on_record``), so "I'm Sahil." is a state at once.

Being found is not being on the topic. In a chat every line of the user's is
about the user, so to a vector "What do I do for a living?" is near "My
favourite hobby is chess." too, far above text about nothing (the query's noise
floor, ``recall/floor.py``): in a small space the search finds every fact. So
with ``recall_topic_share`` the facts beyond the core, the lines they were drawn
from and the lines of a chat (the user's and the assistant's) compete with each
other. One enters when it shares a content word with the query or a kind of fact
the words name ("live" and "home" are both about home, ``text/attributes.py``),
or when its sentence is above the query's topic floor (the noise floor with
``recall_topic_margin``) by at least that share of how far above it the best
candidate is (the messages being answered are no rival, if stored already): a
fact or a reply far below the best match is about something else, and when
nothing stands out nothing above the floor is cut for being second. Notes and
documents no fact was drawn from are kept as the search ranked them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import USER, State
from orma_proxy.recall.candidates import CHAT_ROLES, Candidate, Pool
from orma_proxy.recall.chatter import FILLER, words_of
from orma_proxy.recall.search import Passage
from orma_proxy.store import Connection, float_vectors
from orma_proxy.text.attributes import groups_of, kinds_shown, state_attributes, stem
from orma_proxy.text.grams import cjk_grams

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

__all__ = ["below_floor", "core_kinds", "is_core", "relevant", "topics"]

_FILLER_STEMS = frozenset(stem(w) for w in FILLER)


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


def relevant(
    conn: Connection,
    ranked: list[Candidate],
    pool: Pool,
    config: OrmaConfig,
    *,
    query: str,
    seen: Sequence[str] = (),
) -> list[Candidate]:
    """``ranked`` without what the query did not match or is off its topic; the core stays.

    ``seen`` are the messages the model sees already: stored, they are no
    competitor (the query's own line would be its best match by far).
    """
    names = config.recall_core_facts
    core = {c.key for c in ranked if c.state is not None and is_core(c.state, names)}
    matched = [c for c in ranked if c.relevance > 0 or c.key in core]
    share = config.recall_topic_share
    if share is None:
        return matched
    sims = _similarities(conn, matched, pool.query.vector)
    floor = pool.query.floor if pool.query.floor is not None else 0.0
    now = [_normal(text) for text in (query, *seen)]
    rivals = [sims[_sentence(c)] for c in matched if _sentence(c) in sims and not _said(c, now)]
    least = _topic_least(rivals, floor, share)
    words = topics(query)
    return [
        c
        for c in matched
        if c.key in core
        or not _competes(c, pool)
        or bool(words & topics(_text(c)))
        or sims.get(_sentence(c), -1.0) >= least
    ]


def below_floor(
    conn: Connection,
    passages: Sequence[Passage],
    query: str,
    vector: Vectors,
    floor: float,
    share: float | None,
) -> frozenset[int]:
    """The passages recall would count off the query's topic (``relevant``'s test).

    Sharing none of the query's words, a passage is no nearer to it than ``floor``
    (the query's noise floor at ``recall_topic_margin``) plus ``share`` of how far
    above that the nearest passage is.
    """
    words = topics(query)
    found = float_vectors(conn, {p.sentence_id for p in passages})
    sims = {sid: float(v @ vector) for sid, v in found.items()}
    least = _topic_least(list(sims.values()), floor, share or 0.0)
    return frozenset(
        p.sentence_id
        for p in passages
        if not words & topics(p.text) and sims.get(p.sentence_id, -1.0) < least
    )


def _topic_least(sims: Sequence[float], floor: float, share: float) -> float:
    """What a line must reach to be on the topic: above ``floor`` by ``share`` of the best's
    height above it (when nothing stands out, nothing above the floor is cut)."""
    best = max(sims, default=floor)
    return floor + share * max(best - floor, 0.0)


def topics(text: str) -> set[str]:
    """What a text is about, by its words: their stems, and the kinds of fact they name.

    Stop words and filler say nothing ("these days" is no topic); "Where do I
    live?" is about ``home`` as "My home is in Pune." is (``text/attributes.py``):
    the kinds are kept apart from the stems by a prefix. Chinese, Japanese and
    Korean have no spaces: their words are the character pairs the keyword
    channel matches ("牙医" in "我的牙医是王医生").
    """
    words = words_of(text)
    stems = {stem(w) for w in words} - _FILLER_STEMS
    kinds = {f"kind:{kind}" for kind in kinds_shown(words)}
    return stems | kinds | set(cjk_grams(text).split())


def _normal(text: str) -> str:
    return " ".join(text.split())


def _said(cand: Candidate, now: list[str]) -> bool:
    """Whether a candidate's line is of the conversation going on (the query, a message)."""
    item = cand.passage or cand.state or cand.event
    assert item is not None
    line = _normal(item.text if isinstance(item, Passage) else item.quote)
    return bool(line) and any(line in text for text in now)


def _competes(cand: Candidate, pool: Pool) -> bool:
    """Whether a candidate must be on the topic: a fact, a line a fact was drawn from,
    or a line of a chat (a note or a document without facts is as the search ranked it)."""
    passage = cand.passage
    return passage is None or passage.role in CHAT_ROLES or passage.sentence_id in pool.citing


def _sentence(cand: Candidate) -> int:
    if cand.passage is not None:
        return cand.passage.sentence_id
    item = cand.state or cand.event
    assert item is not None
    return item.sentence_id


def _text(cand: Candidate) -> str:
    """What the query's words are looked for in: the line, or the fact and its line."""
    if cand.passage is not None:
        return cand.passage.text
    if cand.state is not None:
        s = cand.state
        return f"{s.attribute.replace('_', ' ')} {s.value} {s.condition} {s.quote}"
    assert cand.event is not None
    return f"{cand.event.what} {' '.join(cand.event.who)} {cand.event.quote}"


def _similarities(
    conn: Connection, ranked: list[Candidate], vector: Vectors | None
) -> dict[int, float]:
    """Each candidate's sentence's cosine to the query (those embedded so far)."""
    if vector is None:
        return {}
    found = float_vectors(conn, {_sentence(c) for c in ranked})
    return {sid: float(v @ vector) for sid, v in found.items()}
