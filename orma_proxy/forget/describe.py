"""Reading a forgetting request the way a person says it: "Meera's employer", "my old address".

``describe(text)`` splits a description into what it names: identifiers (an
email, a phone number, a key, a URL), a person (a name, or the user: "my", "I"),
kinds of fact (attribute groups: "employer" and "where she works" are both
*work*), other words that must all be present ("coffee" in "user does not drink
coffee"), and which of several lines over time is meant ("previous", "current").
``Description.holds(line)`` then says whether one stored line is in scope. Scope
is exact by construction: a name matches as a whole word ("Ann" is not "Anna"),
a word by its stem ("cat" is not "category"), and a line must carry the person
*and* the kind of fact, so "Bob's city" never reaches Alice's line about the same
city. Nothing here is fuzzy; the vectors play no part in deciding what goes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from orma_proxy.facts import USER
from orma_proxy.text import (
    NOT_NAMES,
    STOPWORDS,
    Identifier,
    evidence_of,
    find_identifiers,
    group_stems,
    groups_of,
    has_cjk,
    kinds_shown,
    same,
    stem,
    stems,
)

__all__ = [
    "Description",
    "Line",
    "Subject",
    "clauses",
    "describe",
    "full_names",
    "naming",
]

When = Literal["any", "previous", "current"]

_TOKEN = re.compile(r"[\w][\w'-]*")
_FIRST_PERSON = frozenset("i i'm i've i'd i'll my me mine myself user users".split())  # noqa: SIM905
_PREVIOUS = frozenset("previous before old former earlier past prior".split())  # noqa: SIM905
_CURRENT = frozenset("current latest newest now present new".split())  # noqa: SIM905
# Words that say how to forget, or point at "it", not what it is.
_FILLER = frozenset(
    """forget remove delete erase purge release hide drop stop bringing bring up mention
    mentioning mentioned mentions about everything anything all record records details detail
    info information stuff habit habits preference preferences thing things data fact facts one
    ones bit pasted paste gave told said wrote noted am not don't doesn't didn't never no
    anymore longer any some his her hers their please""".split()  # noqa: SIM905
)
# Words that say who someone is to the user; with a name given, the name says it.
_RELATIONS = frozenset(
    """ex sister brother mother father mom mum dad son daughter wife husband partner friend
    colleague boss manager cousin aunt uncle grandma grandpa neighbour neighbor""".split()  # noqa: SIM905
)
# A description that says "does not" means a line that says so, not its opposite.
_NEGATIONS = frozenset(
    "not don't doesn't didn't never no won't can't cannot isn't aren't wasn't".split()  # noqa: SIM905
)
_NEGATED = re.compile(
    r"(?i)(?<![\w'])(?:not|no|never|none|nothing|cannot|\w+n't|no longer)(?![\w'])"
)
_CLAUSE_CUT = re.compile(r"\s*;\s*|,?\s+(?:and|but|while|whereas)\s+(?=\w)", re.I)


@dataclass(frozen=True)
class Subject:
    """Whose fact and which kinds: what a correction says it corrects, kept with it."""

    holder: str  # a name, or "user"
    kinds: frozenset[str]

    def meets(self, other: Subject | None) -> bool:
        """The same person, and a kind of fact in common."""
        if other is None or self.holder.casefold() != other.holder.casefold():
            return False
        return bool(self.kinds & other.kinds)

    def as_json(self) -> dict[str, object]:
        return {"holder": self.holder, "kinds": sorted(self.kinds)}

    @classmethod
    def from_json(cls, value: object) -> Subject | None:
        """The stored form back; anything else (an older or foreign note) is no subject."""
        if not isinstance(value, dict):
            return None
        holder, kinds = value.get("holder"), value.get("kinds")
        if not isinstance(holder, str) or not isinstance(kinds, list):
            return None
        return cls(holder, frozenset(k for k in kinds if isinstance(k, str)))


@dataclass(frozen=True)
class Line:
    """One stored line as the resolver sees it."""

    id: int
    text: str
    about_user: bool  # said by the user, or in the first person
    speaker: str | None = None  # who said it, when a note or transcript names them
    corrects: Subject | None = None  # a correction's line: whose fact, which kinds


@dataclass(frozen=True)
class Description:
    text: str
    identifiers: tuple[Identifier, ...] = ()
    names: tuple[str, ...] = ()
    user: bool = False
    groups: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()  # stems that must all be in the line
    phrases: frozenset[str] = frozenset()  # CJK text that must be in the line (no spaces)
    negated: bool = False  # "user does not drink coffee": only lines that say "not"
    when: When = "any"

    @property
    def subject(self) -> Subject | None:
        """The person and kinds named, when both are: what a correction of them records."""
        if not self.groups or not (self.names or self.user):
            return None
        return Subject(self.names[0] if self.names else USER, self.groups)

    @property
    def topic(self) -> bool:
        """Only words, no person, kind or identifier ("politics"): meaning may widen it."""
        return bool(self.values) and not (
            self.names or self.user or self.groups or self.identifiers
        )

    @property
    def empty(self) -> bool:
        named = self.identifiers or self.names or self.user or self.groups
        return not (named or self.values or self.phrases)

    def summary(self) -> str:
        """How the description was read, for dry runs and errors (no identifier's value)."""
        parts = [f"{len(self.identifiers)} identifier(s)"] if self.identifiers else []
        parts += [f"person {n!r}" for n in self.names] + (["the user"] if self.user else [])
        parts += [f"kind {g}" for g in sorted(self.groups)]
        parts += [f"word {v!r}" for v in sorted(self.values | self.phrases)]
        parts += [f"{self.when} only"] if self.when != "any" else []
        parts += ["said in the negative"] if self.negated else []
        return ", ".join(parts) or "nothing"

    def names_in(self, line: Line) -> bool:
        """Every name is in the line, or is who said it ("Asha: I moved to Pune")."""
        said = (line.speaker or "").casefold()
        return all(mentions(line.text, n) or n.casefold() == said for n in self.names)

    def holds(self, line: Line, *, linked: bool = False) -> bool:
        """Is ``line`` in scope? ``linked``: a state of this person and kind cites it."""
        if self.identifiers:
            found = find_identifiers(line.text)
            return any(same(a, b) for a in self.identifiers for b in found)
        if line.corrects is not None and line.corrects.meets(self.subject):
            linked = True
        if self.names and not self.names_in(line):
            return False
        if self.user and not self.names and not line.about_user:
            return False
        words = stems(line.text)
        if self.groups and not linked and not words & group_stems(self.groups):
            return False
        if self.negated and not _NEGATED.search(line.text):
            return False
        return self.values <= words and all(p in line.text for p in self.phrases)

    def clause_cuts(self, text: str) -> list[tuple[int, int, bool]]:
        """``text``'s clauses as (start, end, in scope), or one clause when it can't be cut.

        "Ann likes tea and lives in Oslo" for "where Ann lives": the clause about
        tea is another kind of fact, so only "lives in Oslo" is in scope. A
        sentence is cut only when every clause names a kind of fact and the
        clauses out of scope name other kinds: a clause with no kind of its own
        ("and avoids eggs") stays with the rest.
        """
        whole = [(0, len(text), True)]
        if not self.groups or self.identifiers:
            return whole
        spans = clauses(text)
        if len(spans) < 2:
            return whole
        cut = []
        for start, end in spans:
            kinds = kinds_shown(_TOKEN.findall(text[start:end]))
            if not kinds:
                return whole
            cut.append((start, end, bool(kinds & self.groups)))
        if all(c[2] for c in cut) or not any(c[2] for c in cut):
            return whole
        return cut


def mentions(text: str, name: str) -> bool:
    """``name`` as whole words of ``text``: "Ann" is in "Ann's flat", not in "Anna"."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def clauses(text: str) -> list[tuple[int, int]]:
    """Spans of ``text``'s clauses: cut at "and", "but", ";" (the joiner stays with the next)."""
    spans, start = [], 0
    for m in _CLAUSE_CUT.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.start() + (len(m[0]) - len(m[0].lstrip()))
    spans.append((start, len(text)))
    return [s for s in spans if text[s[0] : s[1]].strip()]


def naming(text: str, person: str) -> str:
    """``text`` about one person a first name stood for: "Sam's phone" -> "Sam Lee's phone"."""
    first = person.split()[0]
    return re.sub(rf"(?<!\w){re.escape(first)}(?!\w)", person, text, count=1)


def full_names(name: str, texts: list[str]) -> list[str]:
    """The longer names ``name`` is part of in ``texts`` ("Sam" -> "Sam Lee", "Sam Park")."""
    found: dict[str, None] = {}
    pattern = re.compile(rf"(?<!\w){re.escape(name)}\s+([A-Z][\w'-]+)")
    for text in texts:
        for m in pattern.finditer(text):
            surname = m[1].removesuffix("'s")
            if surname.lower() not in NOT_NAMES and not groups_of(surname):
                found[f"{name} {surname}"] = None
    return list(found)


def describe(text: str) -> Description:
    """Read a description into what it names; see the module's docstring."""
    identifiers = tuple(find_identifiers(text))
    if identifiers:
        return Description(text, identifiers=identifiers)
    names: list[str] = []
    user = False
    groups: set[str] = set()
    values: set[str] = set()
    phrases: set[str] = set()
    relations: set[str] = set()
    negated = False
    when: When = "any"
    previous_token_was_name = False
    for m in _TOKEN.finditer(text):
        raw = m[0].removesuffix("'s").removesuffix("’s")
        word = raw.lower()
        is_name = False
        if has_cjk(raw):
            phrases.add(raw)
        elif word in _NEGATIONS:
            negated = True
        elif word in _PREVIOUS:
            when = "previous"
        elif word in _CURRENT:
            when = "current" if when == "any" else when
        elif word in _FIRST_PERSON:
            user = True
        elif word in _RELATIONS:
            relations.add(word)
        elif word in _FILLER or word in STOPWORDS:
            pass
        elif groups_of(word):
            groups |= groups_of(word)
        elif raw[:1].isupper() and word not in NOT_NAMES and not evidence_of(word):
            # A known value ("Coffee habit") is a word however it is written, not a name.
            if previous_token_was_name:
                names[-1] = f"{names[-1]} {raw}"
            else:
                names.append(raw)
            is_name = True
        else:
            values.add(stem(word))
        previous_token_was_name = is_name
    if not names:
        values |= {stem(r) for r in relations}
    return Description(
        text,
        names=tuple(names),
        user=user and not names,
        groups=frozenset(groups),
        values=frozenset(values),
        phrases=frozenset(phrases),
        when=when,
        negated=negated,
    )
