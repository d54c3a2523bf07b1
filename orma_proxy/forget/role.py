"""Who a role names: "remove the plumber" forgets Gustav, whom a line calls the plumber.

People are often described by what they are to the user ("my accountant", "Isla's
form tutor", "the plumber"), while most of their lines say only their name
("Vikram charged 400 this yr"). Releasing the role should release the person:
when the lines the role found call exactly one person by it ("Gustav the plumber",
"Vikram my accountant", "Ms Kowalczyk is Isla's form tutor", "our cleaner is
Rosa", "Coach Mike"), that person's other lines go with them. The role must be
said in the line right beside the name (an apposition, "is", a colon); a name that
merely shares a line with the word ("Priya and I both cook for the plumber") is
not the role's holder, and two people called by it settle nothing. Kin are not
roles here: "Petra's son" is the line saying so, as ``describe`` reads relations.
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
        return None  # kin are asked of as themselves: "Petra's son" is not all of Milan
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
        rf"\b{role}\b\W+\w",  # "Coach Mike": the role is a title in the name
        rf"{who}\W+{_OWNER}\s+{head}",  # "Gustav the plumber", "Vikram my accountant"
        rf"{who}\s+(?:is|was)\s+{_OWNER}\s+{head}",  # "Ms Kowalczyk is Isla's form tutor"
        rf"\b{role}s?\s*(?:is|was|:|-|=|,)\s*{who}\b",  # "our cleaner is Rosa"
    )
    targets = (name, text, text, text)
    return any(re.search(p, t, re.I) for p, t in zip(patterns, targets, strict=True))
