"""What a line says that the facts drawn from it do not: whether they may stand in for it.

A state or event drawn from a line may take the line's place in the memory block
only when nothing of the line is lost (a fact adds to its line, never subtracts
from it). The test is on words, deterministic and conservative: each content word
of the line (stop words and pronouns aside, compared by ``stem``) must be a word
of the facts (entity, attribute, value, condition; an event's who and what) or
name the kind of fact one of their attributes is ("live" for a home city,
"works" for an employer: ``text/attributes``). The line's date phrases ("last
week", "on 4 March") count as said only when a fact carries a resolved date,
and its words for the present ("now", "these days") only when a fact is a
current state, which says that much.
Any other word (an activity, a place, a reaction, a negation such as "don't")
is unsaid, and keeps the line in the block.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from orma_proxy.text.attributes import GROUPS, groups_of, state_attributes, stem
from orma_proxy.text.date_phrases import query_mentions
from orma_proxy.text.stopwords import STOPWORDS

__all__ = ["unsaid"]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# A contraction's tail that only says "am", "is", "are", "have", "will", "would".
# "n't" is not among them: a negation is content.
_CLITICS = ("'m", "'s", "'re", "'ve", "'ll", "'d")
# Pronouns and forms of "be" that STOPWORDS leaves in: they name no one the facts
# don't (the line's speaker is the facts' entity) and say nothing themselves.
_ANY_DAY = date(2000, 1, 1)
_PRESENT = re.compile(
    r"\b(?:right now|now|nowadays|these days|currently|presently|at present|at the moment)\b",
    re.IGNORECASE,
)
_GRAMMAR = frozenset("am been being he she him her his hers our ours us mine myself".split())  # noqa: SIM905


def _words(text: str) -> list[str]:
    words = []
    for found in _WORD.findall(text):
        word = found.replace("’", "'").lower()
        for clitic in _CLITICS:
            if word.endswith(clitic) and len(word) > len(clitic):
                word = word[: -len(clitic)]
                break
        words.append(word)
    return words


def _kinds(attributes: Iterable[str]) -> frozenset[str]:
    """The kinds of fact (``GROUPS``) whose state attributes include one of ``attributes``."""
    names = {a.lower() for a in attributes}
    return frozenset(g for g in GROUPS if names & {*state_attributes(g), g})


def unsaid(
    line: str,
    said: str,
    attributes: Iterable[str] = (),
    *,
    dated: bool = False,
    current: bool = False,
) -> list[str]:
    """The content words of ``line`` that ``said`` (the facts' words) does not say.

    ``attributes``: the facts' state attributes, whose plain-English names also
    count as said; ``dated``: whether a fact carries a resolved date, so the
    line's date phrases are said too; ``current``: whether a fact is a current
    state, so the line's words for the present are. Empty: the facts say it all.
    """
    if current:
        line = _PRESENT.sub(" ", line)
    if dated:
        line = query_mentions(line, _ANY_DAY)[1]  # the phrases blanked out; their days unused
    said_stems = {stem(w) for w in _words(said.replace("_", " "))}
    kinds = _kinds(attributes)
    left = []
    for word in _words(line):
        if word in STOPWORDS or word in _GRAMMAR or stem(word) in said_stems:
            continue
        if kinds & groups_of(word):
            continue
        left.append(word)
    return list(dict.fromkeys(left))
