"""From sentence hits to turns: what a search returns is the best of each turn.

A turn (an episode: one chat message, one note) is scored from the fused
scores of its sentences: its best sentence plus ``sentence_share`` of its other
hits, since an answer spread over a turn's sentences is more of a match than
any one of them. One passage per turn comes back (its best sentence), so ten
passages are ten turns, not the same turn's sentences crowding the others out.

A turn that answers a matched question (the turn after it) shares
``reply_share`` of the question's score: "What's your dog called?" matches
the query's words, "Biscuit, after my favourite snack." holds the answer.

A name in the query that is a turn's speaker (``text/speaker.py``) boosts that
turn by ``speaker_boost``: "What does Asha do to relax?" is about what Asha
said, and her name is no longer matched as a word of every line she said.

A chat turn carries no name unless the client sent one, but whom a chat's turns
address says who is who: "Thanks, Asha!" said by the assistant calls the user
Asha. A name the query gives that the assistant's lines call their listener
more often than the user's do is the user's (and the other way round), so the
turns of that role without a name of their own count as said by it
(``listener_roles``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from orma_proxy.text.names import names_in
from orma_proxy.text.stopwords import STOPWORDS

__all__ = [
    "addresses",
    "asks_when",
    "listener_roles",
    "named_in",
    "said_by",
    "says_when",
    "turn_scores",
    "with_replies",
    "without_names",
]

_NAME_WORD = re.compile(r"\w+(?:['’]s)?|\W+")
_WORDS = re.compile(r"\w+")
# A question about time, and a line that says when something happened: relative to
# the day it was said ("yesterday", "last week", "two days ago") or a calendar date.
_ASKS_WHEN = re.compile(
    r"^\s*(?:when\b|(?:in |on )?what (?:year|month|day|date|time)\b|how long ago\b)", re.I
)
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_SAYS_WHEN = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|ago|recently|(?:last|next|this|past) "
    rf"(?:week|month|year|night|summer|winter|spring|fall|autumn|{_DAYS})|{_DAYS}|{_MONTHS}"
    rf"|(?:19|20)\d\d)\b",
    re.I,
)


# Words that open a call to someone by name ("Hey Asha", "Thanks Asha").
_CALLING = (
    "hey|hi|hello|hiya|yo|dear|thanks|thank you|cheers|congrats|congratulations|bye|"
    "goodbye|morning|good morning|good night|wow|oh|aww|sorry|welcome|night"
)
CHAT_PAIR = {"user": "assistant", "assistant": "user"}  # who listens to whom in a chat


def addresses(text: str, name: str) -> bool:
    """Whether ``text`` calls its listener ``name``: set off by a greeting or commas.

    "Thanks, Asha!", "Hey Asha, how was Goa?", "That's great, Asha." address Asha;
    "I met Asha today." and "Asha and I went hiking." speak of her.
    """
    called = re.escape(name)
    pattern = (
        rf"(?:^\W*|[,;:!?.]\s*|\b(?:{_CALLING})\W*\s+){called}(?:['’]s)?"
        rf"(?=\s*(?:[,;:!?.\u2014\u2013-]|$))"
    )
    return re.search(pattern, text.strip(), re.IGNORECASE) is not None


def listener_roles(said: Iterable[tuple[str, str]], names: Iterable[str]) -> dict[str, str]:
    """role -> the name (of ``names``) its turns are said by, as the other role addresses it.

    ``said`` are (role, text) of lines holding the names. A name the assistant's
    lines call their listener more often than the user's lines do is the user's;
    the other way round, the assistant's. A role is given one name at most.
    """
    lines = list(said)
    found: dict[str, str] = {}
    for name in names:
        calls = {role: 0 for role in CHAT_PAIR}
        for role, text in lines:
            if role in calls and addresses(text, name):
                calls[role] += 1
        for caller, listener in CHAT_PAIR.items():
            if calls[caller] > calls[listener] and listener not in found:
                found[listener] = name
    return found


def named_in(query: str) -> frozenset[str]:
    """The lower-cased words of the names in ``query`` ("Dr. Rao" -> dr., rao)."""
    return frozenset(
        word.lower().removesuffix("'s").removesuffix("’s")
        for name in names_in(query)
        for word in name.split()
    )


def without_names(query: str, named: frozenset[str]) -> str:
    """The query with its names left out, if anything else is left to match.

    Who a question is about is matched by speaker (and by ``named``); as words,
    a name would draw every short "Thanks, Asha!" in before what was asked.
    """
    if not named:
        return query
    kept = "".join(
        piece
        for piece in _NAME_WORD.findall(query)
        if piece.lower().removesuffix("'s").removesuffix("’s") not in named
    )
    return kept if any(w not in STOPWORDS for w in _WORDS.findall(kept.lower())) else query


def asks_when(query: str) -> bool:
    """Whether the query asks when ("When did...", "What year...")."""
    return _ASKS_WHEN.search(query) is not None


def says_when(text: str) -> bool:
    """Whether a line says when: a relative day ("last Saturday", "ago") or a date."""
    return _SAYS_WHEN.search(text) is not None


def said_by(speaker: str | None, named: frozenset[str]) -> bool:
    """Whether one of the speaker's words is a name the query gives."""
    return bool(speaker) and any(w in named for w in str(speaker).lower().split())


def turn_scores(
    hits: Mapping[int, float],
    episode_of: Mapping[int, int],
    speaker_of: Mapping[int, str | None],
    named: frozenset[str],
    *,
    share: float,
    boost: float,
    words_of: Mapping[int, int] | None = None,
    short_words: int = 0,
    dated: frozenset[int] = frozenset(),
    time_boost: float = 0.0,
    on_date: frozenset[int] = frozenset(),
    date_boost: float = 0.0,
) -> list[tuple[int, float]]:
    """(best sentence id, turn score) of each turn with a hit, best first (ties: lower id).

    A sentence of fewer than ``short_words`` words ("Wow!", "Thanks, Asha!") counts
    for its share of that many: alone it says too little to be the answer.
    """
    by_turn: dict[int, list[tuple[float, int]]] = {}
    for sentence, value in hits.items():
        if words_of is not None and short_words:
            value *= min(1.0, words_of.get(sentence, short_words) / short_words)
        by_turn.setdefault(episode_of[sentence], []).append((value, sentence))
    turns = []
    for found in by_turn.values():
        found.sort(key=lambda hit: (-hit[0], hit[1]))
        best_value, best = found[0]
        value = best_value + share * sum(v for v, _ in found[1:])
        if said_by(speaker_of.get(best), named):
            value *= 1.0 + boost
        if any(sentence in dated for _, sentence in found):
            value *= 1.0 + time_boost
        if any(sentence in on_date for _, sentence in found):
            value *= 1.0 + date_boost
        turns.append((best, value))
    return sorted(turns, key=lambda t: (-t[1], t[0]))


def with_replies(
    turns: list[tuple[int, float]],
    replies: Mapping[int, int],
    episode_of: Mapping[int, int],
    *,
    share: float,
) -> list[tuple[int, float]]:
    """``turns`` with each reply given ``share`` of its question's score, best first.

    ``replies`` maps a matched question's sentence to the first sentence of the
    turn after it; a reply not found by the search joins with that share alone.
    """
    score = dict(turns)
    by_turn = {episode_of[sentence]: [sentence, value] for sentence, value in turns}
    for question, reply in replies.items():
        entry = by_turn.setdefault(episode_of[reply], [reply, 0.0])
        entry[1] += share * score[question]
    ranked = [(int(sentence), float(value)) for sentence, value in by_turn.values()]
    return sorted(ranked, key=lambda t: (-t[1], t[0]))
