"""From sentence hits to turns: what a search returns is the best of each turn.

A turn (an episode: one chat message, one note) is scored from the fused
scores of its sentences: its best sentence plus ``sentence_share`` of its other
hits, since an answer spread over a turn's sentences is more of a match than
any one of them. One passage per turn comes back (its best sentence), so ten
passages are ten turns, not the same turn's sentences crowding the others out.

A name in the query that is a turn's speaker (``text/speaker.py``) boosts that
turn by ``speaker_boost``: "What does Asha do to relax?" is about what Asha
said, and her name is no longer matched as a word of every line she said.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from orma_proxy.text.names import names_in
from orma_proxy.text.stopwords import STOPWORDS

__all__ = ["named_in", "said_by", "turn_scores", "without_names"]

_NAME_WORD = re.compile(r"\w+(?:['’]s)?|\W+")
_WORDS = re.compile(r"\w+")


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
) -> list[tuple[int, float]]:
    """(best sentence id, turn score) of each turn with a hit, best first (ties: lower id)."""
    by_turn: dict[int, list[tuple[float, int]]] = {}
    for sentence, value in hits.items():
        by_turn.setdefault(episode_of[sentence], []).append((value, sentence))
    turns = []
    for found in by_turn.values():
        found.sort(key=lambda hit: (-hit[0], hit[1]))
        best_value, best = found[0]
        value = best_value + share * sum(v for v, _ in found[1:])
        if said_by(speaker_of.get(best), named):
            value *= 1.0 + boost
        turns.append((best, value))
    return sorted(turns, key=lambda t: (-t[1], t[0]))
