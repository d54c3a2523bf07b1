"""Who someone is to someone, in the words people use: "mum" and "mother", "gran" and "grandma".

A request and the line it means often name one relation in two ways ("my
grandmother's pension" for "Nana's pension pays on the 3rd", "Kofi's partner" for
"Kofi's boyfriend is Emeka"). Each set in ``_SAME`` is the general English
vocabulary of one relation; a word of ``_WIDER`` names any of the relations it
covers. ``alike`` gives a line's stems the stems of the words naming the same
relation, so a description's relation word is found whichever word the line used:
"partner" reaches "boyfriend" and "wife" (they are partners), a line's "partner"
is reached by "wife", but "wife" never reaches "girlfriend".
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from orma_proxy.text import stem

__all__ = ["RELATIONS", "alike"]

# Words that say who someone is to the user; with a name given, the name says it.
RELATIONS = frozenset(
    """ex sister brother mother father mom mum dad son daughter wife husband partner friend
    colleague boss manager cousin aunt uncle grandma grandpa neighbour neighbor grandmother
    grandfather grandad granddad granny nana stepmother stepfather stepmum stepmom stepdad niece
    nephew spouse""".split()  # noqa: SIM905
)
_SAME = (
    "mother mum mom mam mummy mommy mama",
    "father dad daddy papa",
    "grandmother grandma granny gran nana nan nanna",
    "grandfather grandpa grandad granddad gramps",
    "stepmother stepmum stepmom",
    "stepfather stepdad",
    "neighbour neighbor",
    "boss manager",
    "colleague coworker co-worker workmate",
    "child kid",
    "wife",
    "husband",
    "girlfriend",
    "boyfriend",
    "fiance fiancee",
    "brother",
    "sister",
    "son",
    "daughter",
)
_WIDER = {
    "partner spouse": "wife husband girlfriend boyfriend fiance",
    "parent": "mother father stepmother stepfather",
    "grandparent": "grandmother grandfather",
    "sibling": "brother sister",
    "child kid": "son daughter",
}


@cache
def _table() -> dict[str, frozenset[str]]:
    """Each stem of a relation word, and the stems a line holding it holds as well."""
    same: dict[str, frozenset[str]] = {}
    for words in _SAME:
        group = frozenset(stem(w) for w in words.split())
        for s in group:
            same[s] = same.get(s, frozenset()) | group
    table = dict(same)
    for wide, narrow in _WIDER.items():
        wide_stems = frozenset(stem(w) for w in wide.split())
        narrow_stems = frozenset(s for w in narrow.split() for s in same.get(stem(w), {stem(w)}))
        for s in wide_stems:  # a line's "partner" is any partner
            table[s] = table.get(s, frozenset()) | wide_stems | narrow_stems
        for s in narrow_stems:  # a line's "girlfriend" is a partner
            table[s] = table.get(s, frozenset()) | wide_stems
    return table


def alike(words: Iterable[str]) -> set[str]:
    """``words`` (stems) and the stems of every word naming the same relation as one of them."""
    table = _table()
    found = set(words)
    for word in list(found):
        found |= table.get(word, frozenset())
    return found
