"""Who a role names: "remove the roofer" forgets Bartek, whom a line calls the roofer.

People are often described by what they are to the user ("my bookkeeper", "Maya's
piano teacher", "the roofer"), while most of their lines say only their name
("Anselm charged 400 last year"). Releasing the role should release the person:
when the lines the role found call exactly one person by it ("Bartek the roofer",
"Anselm my bookkeeper", "Mr Oduya is Maya's piano teacher", "our gardener is
Lotte", "Coach Dana"), that person's other lines go with them. The role must be
said in the line right beside the name (an apposition, "is", a colon); a name that
merely shares a line with the word ("Priya and I both cook for the roofer") is
not the role's holder, and two people called by it settle nothing. Kin are not
roles here: "Ines's son" is the line saying so, as ``describe`` reads relations.
"""

from __future__ import annotations

import re

from orma_proxy.forget.describe import Description, content_words
from orma_proxy.forget.kin import RELATIONS
from orma_proxy.forget.mentions import CODE
from orma_proxy.forget.rank import names_said
from orma_proxy.store import Connection, StoredLine
from orma_proxy.text import find_identifiers

__all__ = ["held_by"]

_OWNER = r"(?:the|my|our|a|an|his|her|their|[\w-]+['’]s)"


def held_by(conn: Connection, space: str, d: Description, lines: list[StoredLine]) -> str | None:
    """The one person ``lines`` call by the role ``d`` names, or None."""
    if d.groups or d.exact or not d.values:
        return None
    words = content_words(d.text)  # "Coach" too, where the space writes it only in a name
    head = words[-1].lower() if words else ""  # the head of "Ben's football coach"
    if len(head) < 3 or not head.isalpha() or head in RELATIONS:
        return None  # kin are asked of as themselves: "Ines's son" is not all of Florence
    role = re.escape(head)
    asked = {n.casefold() for n in d.names}
    people = set()
    for line in lines:
        for name in _people(conn, space, line.text):
            if name.casefold() not in asked and _called(line.text, name, role):
                people.add(name)
    return people.pop() if len(people) == 1 else None


def _people(conn: Connection, space: str, text: str) -> tuple[str, ...]:
    """The names ``text`` says, its numbers and identifiers left out (they end a reading)."""
    spans = [(i.start, i.end) for i in find_identifiers(text)]
    plain = text
    for start, end in sorted(spans, reverse=True):
        plain = plain[:start] + " " + plain[end:]
    return names_said(conn, space, CODE.sub(" ", plain))


def _called(text: str, name: str, role: str) -> bool:
    """Does ``text`` call ``name`` by ``role``, right beside it?"""
    who = re.escape(name)
    head = rf"(?:[\w-]+\s+){{0,2}}{role}s?\b"
    patterns = (
        rf"\b{role}\b\W+\w",  # "Coach Dana": the role is a title in the name
        rf"{who}\W+{_OWNER}\s+{head}",  # "Bartek the roofer", "Anselm my bookkeeper"
        rf"{who}\s+(?:is|was)\s+{_OWNER}\s+{head}",  # "Mr Oduya is Maya's piano teacher"
        rf"\b{role}s?\s*(?:is|was|:|-|=|,)\s*{who}\b",  # "our gardener is Lotte"
    )
    targets = (name, text, text, text)
    return any(re.search(p, t, re.I) for p, t in zip(patterns, targets, strict=True))
