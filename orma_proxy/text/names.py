"""Person-like names in text: "my sister Asha", "Dr. Rao in Kothrud".

Sleep decides a fact's holder from them, links states and events to the
entities they name, and recall seeds spreading activation in the entities a
query names: all three must find the same names, so they share this.
"""

from __future__ import annotations

import re

__all__ = ["NOT_NAMES", "clean_name", "names_in"]

_NAME = re.compile(r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?\b[A-Z][a-z][\w'-]*")
# Capitalised words that are not names.
NOT_NAMES = frozenset(
    """i i'm i've i'd i'll my we our you your the a an and but so when if whenever unless
    while during after before yes no hi hello hey thanks thank ok okay also then now this that
    these those there here it its he she they his her their them what who where why how
    today yesterday tomorrow monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december never
    always please sorry well oh last next""".split()  # noqa: SIM905
)


_POSSESSIVE = re.compile(r"['\u2019]s?$")


def clean_name(name: str) -> str:
    """``" Dr.  Rao, "`` -> ``"Dr. Rao"``: single spaces, no edge punctuation, quotes or
    possessive ("Asha's birthday" names Asha)."""
    return _POSSESSIVE.sub("", " ".join(name.split()).strip(" .,'\"\u2019")).strip(" .,")


def names_in(text: str) -> list[str]:
    """Person-like names in ``text`` in order ("my sister Asha" -> Asha, "Dr. Rao")."""
    found = []
    for m in _NAME.finditer(text):
        word = m[0]
        if word.split()[-1].lower() not in NOT_NAMES:
            found.append(clean_name(word))
    return found
