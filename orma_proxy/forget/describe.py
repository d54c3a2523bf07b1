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
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from orma_proxy.facts import USER
from orma_proxy.forget.kin import RELATIONS, alike
from orma_proxy.forget.mentions import (
    ORDINAL,
    clauses,
    code_in,
    codes_of,
    full_names,
    may_cut,
    mentions,
    naming,
    unowned,
)
from orma_proxy.text import (
    NOT_NAMES,
    PREFIX_CHARS,
    STOPWORDS,
    Identifier,
    evidence_of,
    find_identifiers,
    group_stems,
    groups_of,
    has_cjk,
    in_full,
    kinds_by_shape,
    kinds_shown,
    same,
    starts,
    stem,
    stems,
)

__all__ = [
    "Description",
    "Line",
    "Subject",
    "clauses",
    "content_words",
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
    anymore longer any some his her hers their please know knew known profile personal whatever
    memory memories remember remembered stored saved note notes entry entries history regarding
    concerning related relating scrub wipe clear rid get keep track recall share mention say
    discard ditch scrap toss nuke destroy update change correct fix replace edit amend modify
    whole entire full complete completely totally permanently use using used""".split()  # noqa: SIM905
)
# Words that carry no content in a request ("can you", "just", "ever"): never a word to look for.
_FUNCTION = frozenset(
    """can could would should will shall may might must you you're your yours u pls plz ok okay
    hey hi just also ever even really very again up out off over our us we he she him them it
    its been being am was were is are do does did done has have had this that these those there
    here something someone somebody anyone anybody everyone else which what who whom whose why
    how when where thanks thank re aka thing things note notes more bio file files background
    dossier lot lots""".split()  # noqa: SIM905
)
_FILLER_STEMS = frozenset(stem(w) for w in _FILLER)
_TITLES = frozenset("dr doctor prof professor".split())  # noqa: SIM905
# Words naming a kind only alone or after a word of it ("phone number", "Mike's number"):
# after another plain word they are that thing's ("passport number", "locker number").
_HEADS = frozenset(stem(w) for w in ("number", "no"))
_LINE_TOKEN = re.compile(r"[^\W_][\w-]*[^\W_]|[^\W_]")
# A description that says "does not" means a line that says so, not its opposite.
_NEGATIONS = frozenset(
    "not don't doesn't didn't never no won't can't cannot isn't aren't wasn't".split()  # noqa: SIM905
)
_NEGATED = re.compile(
    r"(?i)(?<![\w'])(?:not|no|never|none|nothing|cannot|\w+n't|no longer)(?![\w'])"
)


@dataclass(frozen=True)
class Subject:
    """Whose fact, which kinds and which other words: the slot a correction corrects, kept with it.

    ``Tanvi's favourite colour`` is (Tanvi, {likes}, {colour}); the correction
    "Tanvi switched to amber." stands for that slot whatever words it uses, so
    the next correction of the same slot finds it.
    """

    holder: str  # a name, or "user"
    kinds: frozenset[str]
    words: frozenset[str] = frozenset()  # stems of the other words that named the slot

    def covers(self, asked: Subject | None) -> bool:
        """Does a description naming ``asked`` name this slot (or a wider one holding it)?"""
        if asked is None or self.holder.casefold() != asked.holder.casefold():
            return False
        if asked.kinds and not self.kinds & asked.kinds:
            return False
        return bool(asked.kinds or asked.words) and asked.words <= self.words

    def joined(self, other: Subject | None) -> Subject:
        """This slot and ``other`` (a correction it corrects) as one, when they share a holder."""
        if other is None or other.holder.casefold() != self.holder.casefold():
            return self
        return Subject(self.holder, self.kinds | other.kinds, self.words | other.words)

    def saying(self, texts: Iterable[str]) -> Subject:
        """The slot with the words and kinds of the lines it corrects: they name it too."""
        tokens = [t for text in texts for t in _TOKEN.findall(text)]
        holder = self.holder.casefold()
        said = {stem(t) for t in tokens if t.lower() not in STOPWORDS and t.casefold() != holder}
        return Subject(self.holder, self.kinds | kinds_shown(tokens), self.words | said)

    def as_json(self) -> dict[str, object]:
        return {"holder": self.holder, "kinds": sorted(self.kinds), "words": sorted(self.words)}

    @classmethod
    def from_json(cls, value: object) -> Subject | None:
        """The stored form back; anything else (an older or foreign note) is no subject."""
        if not isinstance(value, dict):
            return None
        holder, kinds, words = value.get("holder"), value.get("kinds"), value.get("words", [])
        if not isinstance(holder, str) or not isinstance(kinds, list):
            return None
        if not isinstance(words, list):
            return None
        return cls(
            holder,
            frozenset(k for k in kinds if isinstance(k, str)),
            frozenset(w for w in words if isinstance(w, str)),
        )


@dataclass(frozen=True)
class Line:
    """One stored line as the resolver sees it."""

    id: int
    text: str
    about_user: bool  # said by the user, or in the first person
    speaker: str | None = None  # who said it, when a note or transcript names them
    corrects: Subject | None = None  # a correction's line: whose fact, which kinds

    @cached_property
    def words(self) -> set[str]:
        """The line's stems (and its relations' other words): read once, though every test
        of a description asks them."""
        return alike(stems(self.text))

    @cached_property
    def shape(self) -> frozenset[str]:
        """The kinds the line's values show by their shape (``kinds_by_shape``), read once."""
        return kinds_by_shape(self.text)


@dataclass(frozen=True)
class Description:
    """What a description names: anchors a line must hold, evidence that says which lines.

    Anchors: identifiers, codes (numbers, tokens mixing letters and digits), names
    (people, capitalised titles) and the user. Evidence: kinds of fact, other words
    and CJK phrases. ``holds`` is the strict reading (anchors and all evidence);
    ``evidence_in`` ranks an anchor's lines when no line holds it all.
    """

    text: str
    identifiers: tuple[Identifier, ...] = ()
    codes: tuple[str, ...] = ()  # casefolded
    names: tuple[str, ...] = ()
    user: bool = False
    groups: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()  # stems of the other words
    phrases: frozenset[str] = frozenset()  # CJK text that must be in the line (no spaces)
    negated: bool = False  # "user does not drink coffee": only lines that say "not"
    when: When = "any"
    first_named: bool = False  # the first word, capitalised, was read as a name
    kind_words: tuple[frozenset[str], ...] = ()  # the kinds each word of a kind names

    def other_kind(self, text: str) -> bool:
        """``text`` shows another kind of fact than the one asked, and not it ("Wanjiru's
        phone" is not "Wanjiru's email is ..."): never the line meant."""
        if not self.groups:
            return False
        shown = kinds_shown(_TOKEN.findall(text))
        return bool(shown) and not shown & self.groups

    def kinds_in(self, line: Line) -> int:
        """How many of the words of a kind ``line`` shows ("card PIN": the card, the PIN)."""
        return sum(bool(line.words & group_stems(k) or k & line.shape) for k in self.kind_words)

    @property
    def subject(self) -> Subject | None:
        """The person and the slot named, when both are: what a correction of them records."""
        if not (self.groups or self.values) or not (self.names or self.user):
            return None
        return Subject(self.names[0] if self.names else USER, self.groups, self.values)

    @property
    def topic(self) -> bool:
        """Only words, no person, kind or identifier ("politics"): meaning may widen it."""
        return bool(self.values) and not (self.groups or self.anchored)

    @property
    def exact(self) -> bool:
        """Identifiers or codes: every line holding one is meant, whatever else is said."""
        return bool(self.identifiers or self.codes)

    @property
    def anchored(self) -> bool:
        return bool(self.identifiers or self.codes or self.names or self.user)

    @property
    def evidence(self) -> bool:
        """Words saying which of an anchor's lines are meant (none: all of them)."""
        return bool(self.groups or self.values or self.phrases or self.negated)

    @property
    def empty(self) -> bool:
        return not (self.anchored or self.groups or self.values or self.phrases)

    def summary(self) -> str:
        """How the description was read, for dry runs and errors (no identifier's value)."""
        secret = len(self.identifiers) + len(self.codes)
        parts = [f"{secret} identifier(s)"] if secret else []
        parts += [f"person {n!r}" for n in self.names] + (["the user"] if self.user else [])
        parts += [f"kind {g}" for g in sorted(self.groups)]
        parts += [f"word {v!r}" for v in sorted(self.values | self.phrases)]
        parts += [f"{self.when} only"] if self.when != "any" else []
        parts += ["said in the negative"] if self.negated else []
        return ", ".join(parts) or "nothing"

    def hints(self) -> tuple[str, ...]:
        """Text every line holding the anchors holds (lower case, ASCII): a cheap first cut."""
        found = [n.lower() for n in self.names] + [c[:PREFIX_CHARS] for c in self.codes]
        for i in self.identifiers:
            if i.kind == "number":
                found.append(i.canonical[-3:])
            else:
                run = re.match(r"[a-z0-9]+", i.canonical.lower())
                found += [run[0][:PREFIX_CHARS]] if run else []
        return tuple(h for h in found if h.isascii() and h)

    def value_hints(self) -> tuple[str, ...]:
        """Text every line holding all the words holds (a stem less its last letter)."""
        if self.groups or self.negated:
            return ()  # a kind, or a line's "not", is said in many ways: no first cut
        said = [v for v in self.values if alike([v]) == {v}]  # "partner": a line says "wife"
        found = [v[:-1] for v in said if len(v) >= 3] + list(self.phrases)
        return tuple(h for h in found if h.isascii())

    def evidence_hints(self) -> tuple[str, ...]:
        """Text of which every line showing some evidence holds one (lower case, ASCII).

        A word's stem is its start (less a "y" that was "ies"), so a line whose
        stems meet the kinds' or the words' holds that text. Empty when nothing
        cuts: no kind or word, CJK phrases, a stem outside ASCII.
        """
        if self.phrases or not (self.groups or self.values):
            return ()
        wanted = group_stems(self.groups) | alike(self.values)
        found = {s[:-1] if s.endswith("y") else s for s in wanted}
        if not all(h and h.isascii() for h in found):
            return ()
        # a text holding "breakfast" holds "fast": one test is enough
        return tuple(sorted(h for h in found if not any(o != h and o in h for o in found)))

    def names_in(self, line: Line) -> bool:
        """Every name is in the line, or is who said it ("Asha: I moved to Pune")."""
        said = (line.speaker or "").casefold()
        return all(mentions(line.text, n) or n.casefold() == said for n in self.names)

    def corrected_here(self, line: Line) -> bool:
        """``line`` is a correction of the slot described (or of a narrower one)."""
        return line.corrects is not None and line.corrects.covers(self.subject)

    def anchors_in(self, line: Line) -> bool:
        """Does ``line`` hold every anchor? (A correction of the slot stands for its person.)"""
        if self.identifiers:
            found = find_identifiers(line.text)
            if not any(same(a, b) or starts(a, b) for a in self.identifiers for b in found):
                # "ref 14128890" is the start of the code "1412889025B"
                tokens = {t.casefold() for t in _LINE_TOKEN.findall(line.text)}
                numbers = [a.canonical for a in self.identifiers if a.kind == "number"]
                if not any(code_in(n, tokens) for n in numbers):
                    return False
        if self.codes:
            tokens = {t.casefold() for t in _LINE_TOKEN.findall(line.text)}
            if not all(code_in(code, tokens) for code in self.codes):
                return False
        if self.exact:
            return True
        if self.corrected_here(line):
            return True
        if self.names and not self.names_in(line):
            return False
        return not (self.user and not line.about_user)

    def holds(self, line: Line, *, linked: bool = False) -> bool:
        """The strict reading: every anchor, the kind (or a linked state) and every word.

        ``linked``: a state of this person and kind cites the line.
        """
        if not self.anchors_in(line):
            return False
        if self.exact or self.corrected_here(line):
            return True
        if self.groups and not linked and not self.kind_here(line):
            return False
        if self.negated and not _NEGATED.search(line.text):
            return False
        return self.values <= line.words and all(p in line.text for p in self.phrases)

    def kind_here(self, line: Line) -> bool:
        """Does ``line`` show the kind asked, by a word or a value's shape?"""
        return bool(line.words & group_stems(self.groups) or self.groups & line.shape)

    def evidence_in(self, line: Line, *, linked: bool = False) -> tuple[int, int]:
        """How much of the evidence ``line`` shows: (words of the description, kind shown)."""
        kind = bool(self.groups) and (linked or self.kind_here(line))
        said = len(self.values & line.words) + sum(p in line.text for p in self.phrases)
        return said, int(kind)

    def clause_cuts(self, text: str) -> list[tuple[int, int, bool]]:
        """``text``'s clauses as (start, end, in scope), or one clause when it can't be cut.

        "Ann likes tea and lives in Oslo" for "where Ann lives": the clause about
        tea is another kind of fact, so only "lives in Oslo" is in scope. A
        sentence is cut only when every clause names a kind of fact and the
        clauses out of scope name other kinds: a clause with no kind of its own
        ("and avoids eggs") stays with the rest.
        """
        whole = [(0, len(text), True)]
        if not self.groups or self.identifiers or not may_cut(text):
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


def describe(text: str, *, first_is_name: bool = True) -> Description:
    """Read a description into what it names; see the module's docstring.

    ``first_is_name=False``: a capitalised first word ("Change Ben's band", "Wifi
    password") is a plain word, not a name: the reading to try when no line of
    the space holds it as a name.
    """
    # "HH-20931-77": digits after letters are a reference's code, not a phone number
    identifiers = tuple(i for i in find_identifiers(text) if not _lettered(text, i))
    rest = text
    for found in reversed(identifiers):
        rest = rest[: found.start] + " " + rest[found.end :]
    codes = codes_of(rest)
    if identifiers or codes:
        return Description(text, identifiers=identifiers, codes=codes)
    names: list[str] = []
    user = False
    groups: set[str] = set()
    values: set[str] = set()
    phrases: set[str] = set()
    relations: set[str] = set()
    negated = False
    when: When = "any"
    previous_token_was_name = False
    owned_by_name = False
    previous = ""
    first_named = False
    kind_words: list[frozenset[str]] = []
    full = in_full(text)
    for m in _TOKEN.finditer(full):
        raw = unowned(m[0])
        word = raw.lower()
        is_name = False
        owner = raw != m[0] and raw[:1].isupper() and word not in NOT_NAMES | _FIRST_PERSON
        capital = raw[:1].isupper() and word not in NOT_NAMES and not evidence_of(word)
        if word in _TITLES and re.match(r"\.?\s+[A-Z]", full[m.end() :]):
            continue  # "Dr Okonkwo": a title of the name, not a kind of fact
        if m.start() == 0 and capital and not owner and not first_is_name:
            capital = False  # read as a plain word below
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
        elif word in RELATIONS and owned_by_name:
            values.add(stem(word))  # "Olu's sister": the sister is meant, not all of Olu
        elif word in RELATIONS:
            relations.add(word)
        elif owner and not evidence_of(word):
            # "Will's phone": a possessive names someone, whatever the word is otherwise
            _add_name(names, raw, previous_token_was_name)
            is_name = True
        elif word in _FILLER or word in STOPWORDS or word in _FUNCTION:
            pass
        elif stem(word) in _FILLER_STEMS and not groups_of(word):
            pass  # "forgetting", "remembering", "mentions"
        elif stem(word) in _HEADS and previous and not groups_of(word) & groups_of(previous):
            values.add(stem(word))  # "passport number", "card number": theirs, not a phone
        elif groups_of(word):
            groups |= groups_of(word)
            kind_words.append(groups_of(word))
        elif capital:
            # A known value ("Coffee habit") is a word however it is written, not a name.
            _add_name(names, raw, previous_token_was_name)
            is_name = True
            first_named = first_named or m.start() == 0
        else:
            ordinal = ORDINAL.fullmatch(word)  # "on the 14th": the line says "14 May"
            values.add(ordinal[1] if ordinal else stem(word))
        previous_token_was_name = is_name
        owned_by_name = is_name and raw != m[0]
        said = stem(word) in values or bool(groups_of(word))
        previous = word if said and word not in STOPWORDS and not is_name else ""
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
        first_named=first_named,
        kind_words=tuple(dict.fromkeys(kind_words)),
    )


def _lettered(text: str, found: Identifier) -> bool:
    """A number written straight after letters ("SO-5520198", "LNS-2024091")."""
    return found.kind == "number" and re.search(r"[^\W\d_]-?$", text[: found.start]) is not None


def content_words(text: str) -> list[str]:
    """The words of ``text`` that say what it is about, as typed (no filler, no "my", no "not")."""
    found = []
    for m in _TOKEN.finditer(in_full(text)):
        raw = unowned(m[0])
        word = raw.lower()
        if has_cjk(raw) or word in _NEGATIONS or word in _PREVIOUS or word in _CURRENT:
            continue
        if word in _FIRST_PERSON or word in _FILLER or word in STOPWORDS or word in _FUNCTION:
            continue
        if stem(word) in _FILLER_STEMS and not groups_of(word):
            continue
        found.append(raw)
    return list(dict.fromkeys(found))


def _add_name(names: list[str], raw: str, joined: bool) -> None:
    """A name, or the next part of the one before it ("Sam" "Lee" -> "Sam Lee")."""
    if joined and names:
        names[-1] = f"{names[-1]} {raw}"
    else:
        names.append(raw)
