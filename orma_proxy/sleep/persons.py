"""Who a she, he or they can be: the people a window of lines mentions, never a place or thing.

A capitalised word is not a person: "Mumbai", "Bergen", a sentence's first
word ("Congratulations", "Mostly", "In") are not. A person is *introduced*
by how the text names them: a relation ("my sister Asha", "her husband
Arjun", "our neighbour Mr. Fernandes"; "my mom" unnamed is "user's mom"), a
title ("Ms. Kapoor"), a name given ("a dog named Bruno", "her name is Miso":
an animal, tried after the people), or a verb that takes a person ("met
Priya", "visited Dagny"); a name the space already holds facts about (``known``) is a person
wherever it stands. Two people joined by "and" ("Leela and her husband
Arjun") are also a group, for "they".

``antecedent`` carries a pronoun (anuvṛtti) to the last person of its
gender and number said before it: in the same line first, then the lines
before, newest first. Gender comes from the relation or title that
introduced the person ("sister" is she, "Mr." is he); a person of unknown
gender ("my colleague Ravi") agrees with both.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from orma_proxy.facts import USER
from orma_proxy.text.names import NOT_NAMES, clean_name

__all__ = ["Person", "antecedent", "people_in", "pronoun_kind", "relatives"]

Gender = Literal["f", "m", ""]
Kind = Literal["person", "animal", "group"]

_FEMALE = (
    "sister|mother|mom|mum|wife|daughter|girlfriend|aunt|niece|grandmother|grandma|fiancee|"
    "stepmother|stepdaughter|sister-in-law|mother-in-law|daughter-in-law"
)
_MALE = (
    "brother|father|dad|husband|son|boyfriend|uncle|nephew|grandfather|grandpa|fiance|"
    "stepfather|stepson|brother-in-law|father-in-law|son-in-law"
)
_NEUTRAL = (
    "partner|friend|boss|manager|colleague|coworker|cousin|roommate|flatmate|neighbour|"
    "neighbor|teacher|mentor|landlord|landlady|doctor|dentist|therapist|kid|child|baby|"
    "classmate|teammate|client|coach"
)
_PLURAL = "parents|kids|children|grandparents|friends|colleagues|siblings|in-laws|cousins|twins"
_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?"
_OWNER = (
    r"(?P<owner>my|our|his|her|their)\s+"
    r"(?:(?:older|younger|little|big|elder|best|new|old)\s+)?"
)
_RELATION = re.compile(
    rf"\b(?i:{_OWNER})(?P<rel>(?i:{_FEMALE}|{_MALE}|{_NEUTRAL}|{_PLURAL}))\b"
    rf"(?:,?\s+(?P<name>{_NAME}))?"
)
_TITLED = re.compile(r"\b(?P<title>Dr|Mr|Mrs|Ms|Prof)\.?\s+(?P<name>[A-Z][a-z][\w'-]*)")
# "named" gives a name to an animal; "called" names startups as often as pets.
_GIVEN = re.compile(rf"\b(?i:named|name is|name's)\s+(?P<name>{_NAME})")
_OBJECT = re.compile(
    rf"\b(?i:met|meet|meeting|with|told|tell|asked|ask|visited|visit|saw|see|"
    rf"texted|text|married|dating|hugged|thanked)\s+(?P<name>{_NAME})"
)
_CAPITALISED = re.compile(_NAME)
_JOINED = re.compile(r"^\s*,?\s*and\s+(?:(?:my|our|his|her|their)\s+(?:\w+\s+)?)?$", re.IGNORECASE)
_SHE = frozenset({"she", "her", "hers", "herself", "she's", "she'd", "she'll"})
_HE = frozenset({"he", "him", "his", "himself", "he's", "he'd", "he'll"})
_THEY = frozenset({"they", "them", "their", "theirs", "themselves", "they're", "they've"})
_TITLE_GENDER: dict[str, Gender] = {"mrs": "f", "ms": "f", "mr": "m"}


@dataclass(frozen=True)
class Person:
    """Someone a line mentions: a name ("Asha", "user's mom"), gender, kind, where."""

    name: str
    gender: Gender
    kind: Kind
    start: int
    end: int
    members: tuple[str, ...] = ()


def _gender(relation: str) -> Gender:
    rel = relation.lower()
    if re.fullmatch(_FEMALE, rel):
        return "f"
    if re.fullmatch(_MALE, rel):
        return "m"
    return ""


def _bare(name: str) -> str:
    """'Mr. Fernandes' -> 'fernandes': how a name is compared."""
    return re.sub(r"^(?:dr|mr|mrs|ms|prof)\.?\s+", "", name.lower()).strip()


def _proper(name: str) -> bool:
    return name.split()[-1].lower() not in NOT_NAMES


def _introduced(text: str) -> Iterator[Person]:
    for m in _RELATION.finditer(text):
        rel = m["rel"].lower()
        name = m["name"]
        if name and _proper(name):
            gender = _gender(rel) or _TITLE_GENDER.get(name.split(".")[0].lower(), "")
            yield Person(clean_name(name), gender, "person", m.start("name"), m.end())
        elif m["owner"].lower() in ("my", "our"):
            plural = re.fullmatch(_PLURAL, rel) is not None
            kind: Kind = "group" if plural else "person"
            yield Person(f"{USER}'s {rel}", _gender(rel), kind, m.start("rel"), m.end("rel"))
    for m in _TITLED.finditer(text):
        gender = _TITLE_GENDER.get(m["title"].lower(), "")
        yield Person(clean_name(m[0]), gender, "person", m.start(), m.end())
    for m in _GIVEN.finditer(text):
        if _proper(m["name"]):
            yield Person(clean_name(m["name"]), "", "animal", m.start("name"), m.end())
    for m in _OBJECT.finditer(text):
        if _proper(m["name"]):
            yield Person(clean_name(m["name"]), "", "person", m.start("name"), m.end())


def relatives(text: str) -> list[tuple[str, str]]:
    """The relations ``text`` names as the speaker's own: 'my sister Asha' -> ('sister', 'Asha').

    Only "my" and "our" with a name: "her husband Arjun" is someone else's,
    "my friend" names nobody, "my parents" are a group.
    """
    found = []
    for m in _RELATION.finditer(text):
        rel, name = m["rel"].lower(), m["name"]
        if m["owner"].lower() not in ("my", "our") or not name or not _proper(name):
            continue
        if re.fullmatch(_PLURAL, rel) is None:
            found.append((rel, clean_name(name)))
    return found


def people_in(text: str, known: Collection[str | Person] = ()) -> list[Person]:
    """The people ``text`` mentions, in order; ``known`` ones are people wherever they stand.

    A name introduced once ("my sister Leela") is known to the mentions after it
    in the same text ("Leela is a cardiologist"), with its gender; groups of two
    joined by "and" follow their members.
    """
    found = sorted(_introduced(text), key=lambda p: (p.start, -p.end))
    merged: list[Person] = []
    for person in found:  # one mention, the first (longest) reading of it
        if merged and person.start < merged[-1].end:
            continue
        merged.append(person)
    names: dict[str, Person] = {}
    for k in known:
        person = k if isinstance(k, Person) else Person(k, "", "person", 0, 0)
        if person.name != USER and person.kind != "group":
            names.setdefault(_bare(person.name), person)
    for person in merged:
        if person.kind != "group":
            names[_bare(person.name)] = person
    taken = [(p.start, p.end) for p in merged]
    for m in _CAPITALISED.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        same = names.get(_bare(m[0]))
        if same is not None:
            merged.append(Person(same.name, same.gender, same.kind, m.start(), m.end()))
    merged.sort(key=lambda p: p.start)
    groups = []
    for a, b in itertools.pairwise(merged):
        if a.kind == b.kind == "person" and _JOINED.match(text[a.end : b.start]):
            groups.append(
                Person(f"{a.name} and {b.name}", "", "group", a.start, b.end, (a.name, b.name))
            )
    return sorted(merged + groups, key=lambda p: (p.end, p.kind == "group"))


def pronoun_kind(word: str) -> Gender | Literal["they"] | None:
    """'f' for she/her, 'm' for he/his, 'they' for they/their; None for anything else."""
    w = word.lower().strip(".,!?;:")
    if w in _SHE:
        return "f"
    if w in _HE:
        return "m"
    if w in _THEY:
        return "they"
    return None


def antecedent(
    pronoun: str, before: str, preceding: Sequence[str], known: Collection[str] = ()
) -> Person | None:
    """The person ``pronoun`` stands for: the last one of its gender and number said before it.

    ``before`` is the line up to the pronoun, ``preceding`` the lines before it,
    oldest first. People are tried before animals; a place or thing never is.
    None when nobody fits.
    """
    kind = pronoun_kind(pronoun)
    if kind is None:
        return None
    window = [before, *reversed(preceding)]
    introduced = [p for text in window for p in people_in(text)]
    names: list[str | Person] = [*introduced, *known]
    for wanted in ("person", "animal"):
        for text in window:
            for person in reversed(people_in(text, names)):
                if _agrees(person, kind, wanted):
                    return person
    return None


def _agrees(person: Person, kind: str, wanted: str) -> bool:
    if kind == "they":
        return person.kind == "group"
    if person.kind != wanted:
        return False
    return person.gender in ("", kind)
