"""How ``bench.sleep`` judges a stored fact against its conversation's labels.

The rules are ``bench/sleep.py``'s docstring ("Matching", "Measures"): entity,
attribute (core attributes by synonyms), value key, condition and status for a
state; date label and shared words for an event.

Three alternatives a careful reader calls right as the label is (each the same
fact worded otherwise, never another fact):

- *how often is not what*: words of frequency ("most days", "every morning",
  "on weekends", a weekday) in a stored value are not words the label lacks:
  "habit: cycle to work most days" is ``commute: cycle``;
- *a condition said in the value*: when one side has a condition and the other
  none, both are read as value and condition together: "habit: work from home
  on Fridays" is ``work_location: home | Fridays``, "symptom: sneezing every
  morning | when: I clean my room" is ``symptom: sneezes when cleaning the room``;
- *a companion named*: a person the labels know (a holder, or a relation and
  its name: "with my cousin Rhea") in a stored value is not a word the label
  lacks: that person is a fact of the conversation too.

And "eats" is a ``diet`` attribute: what someone eats is their diet.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import cast

from bench.sleep_labels import USER, Case, Fact, Happening
from orma_proxy.facts import State
from orma_proxy.sleep.clock import Precision, ResolvedDate

CORE_ATTRIBUTES: dict[str, frozenset[str]] = {
    name: frozenset(words.split())
    for name, words in {
        "name": "name first_name full_name nickname user_name",
        "age": "age",
        "home_city": "home_city city lives_in residence location current_city home "
        "city_of_residence current_location living_in based_in lives",
        "birthplace": "birthplace born_in place_of_birth birth_place birth_city",
        "hometown": "hometown grew_up_in home_town childhood_city origin from",
        "job_title": "job_title occupation job role profession title works_as position designation",
        "employer": "employer company works_at workplace work organisation organization work_place",
        "diet": "diet dietary_preference diet_type dietary_restriction eating_habit eats",
        "allergy": "allergy allergies allergic_to food_allergy",
        "birthday": "birthday date_of_birth dob birth_date",
        "rule": "rule",
    }.items()
}
_SYNONYM = {word: core for core, words in CORE_ATTRIBUTES.items() for word in words}
_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "my",
        "your",
        "his",
        "her",
        "their",
        "our",
        "its",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "be",
        "i",
        "me",
        "it",
        "by",
        "from",
        "about",
        "as",
        "that",
        "this",
        "over",
    }
)
# Label attributes that name a person (or an animal): their values may hold facts too.
_RELATIONS = frozenset(
    {
        "sister",
        "brother",
        "mother",
        "mom",
        "father",
        "dad",
        "wife",
        "husband",
        "partner",
        "son",
        "daughter",
        "friend",
        "boss",
        "manager",
        "colleague",
        "cousin",
        "roommate",
        "neighbour",
        "neighbor",
        "teacher",
        "doctor",
        "pet",
        "dog",
        "cat",
    }
)
_WORD = re.compile(r"[\w'-]+")
_TITLE = re.compile(r"^(?:mr|mrs|ms|dr|prof)\.?\s+", re.I)
_SUFFIXES = ("ing", "ion", "ed", "es", "s", "e")
_MIN_STEM = 3
_MAX_EXTRA_WORDS = 2
_NUMBERS = {w: str(n) for n, w in enumerate(("zero", "one", "two", "three", "four", "five",
                                             "six", "seven", "eight", "nine", "ten"))}  # fmt: skip


def key(text: str) -> frozenset[str]:
    """The content words of ``text``, lowercased and crudely stemmed; 'two' is '2'."""
    words = []
    for raw in _WORD.findall(text.lower()):
        word = raw.strip("'-").removesuffix("'s")
        word = _NUMBERS.get(word, word)
        if not word or word in _STOP:
            continue
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
                word = word[: -len(suffix)]
                break
        words.append(word)
    return frozenset(words)


def values_match(label: str, stored: str, known: frozenset[str] = frozenset()) -> bool:
    """At least half the label's words (one at least), and at most two words it hasn't.

    Words of frequency and ``known`` words (the people of the conversation) are
    not counted as words the label hasn't (the module's docstring).
    """
    want, got = key(label), key(stored)
    if not want or not got:
        return want == got
    shared = len(want & got)
    extra = got - want - _FREQUENCY - known
    return shared >= max(1, math.ceil(len(want) / 2)) and len(extra) <= _MAX_EXTRA_WORDS


_FREQUENCY = key(
    "most days every each daily weekly usually often always sometimes mornings evenings nights "
    "weekends weekdays monday tuesday wednesday thursday friday saturday sunday mondays tuesdays "
    "wednesdays thursdays fridays saturdays sundays"
)
_CONDITION_WORDS = key("when whenever if during while")
_RELATION_WORDS = frozenset(w for r in _RELATIONS for w in key(r))


def entity_key(name: str) -> str:
    return _TITLE.sub("", name.strip()).lower().removesuffix("'s")


def attribute_group(attribute: str, prohibited: bool = False) -> str | None:
    """The core attribute ``attribute`` is a synonym of; None for any other."""
    name = attribute.strip().lower().replace(" ", "_").replace("-", "_")
    if prohibited or name.startswith("forbidden_"):
        return "rule"
    return _SYNONYM.get(name)


def attributes_match(label: str, stored: str, prohibited: bool) -> bool:
    want, got = attribute_group(label), attribute_group(stored, prohibited)
    return want == got if (want or got) else True


@dataclass(frozen=True)
class StoredEvent:
    date: str
    what: str
    quote: str

    def text(self) -> str:
        return f"{self.date or 'undated'}: {self.what}"


def _same(
    label: Fact,
    s: State,
    *,
    entity: bool = True,
    status: bool = True,
    known: frozenset[str] = frozenset(),
) -> bool:
    if entity and entity_key(label.entity) != entity_key(s.entity):
        return False
    if status and label.active != s.active:
        return False
    if not attributes_match(label.attribute, s.attribute, s.prohibited):
        return False
    if label.condition and not s.condition:
        # "work from home on Fridays" for "home | Fridays": the condition is in the value.
        said = key(label.condition) - _CONDITION_WORDS
        return values_match(label.value, s.value, known) and said <= key(s.value)
    if s.condition and not label.condition:
        # "sneezing | when: I clean my room" for "sneezes when cleaning the room".
        both = f"{s.value} {s.condition}"
        shares = bool(key(s.value) & key(label.value))
        return shares and values_match(label.value, both, known | _CONDITION_WORDS)
    if not values_match(label.value, s.value, known):
        return False
    if label.condition or s.condition:
        return values_match(label.condition, s.condition)
    return True


def _event_same(label: Happening, e: StoredEvent, *, date: bool = True) -> bool:
    if date and label.date != e.date:
        return False
    want, got = key(label.what), key(e.what)
    return bool(want and got) and len(want & got) >= max(1, min(len(want), len(got)) / 2)


@dataclass
class Verdicts:
    """How one conversation's stored facts compare with its labels."""

    stored: int = 0
    right: int = 0
    labels: int = 0
    found: int = 0
    wrong: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def add(self, other: Verdicts) -> None:
        self.stored += other.stored
        self.right += other.right
        self.labels += other.labels
        self.found += other.found
        self.wrong.update(other.wrong)
        self.examples += other.examples
        self.missed += other.missed


def _state_text(s: State) -> str:
    return s.text + ("" if s.active else " [closed]")


def _state_verdict(
    case: Case, s: State, people: set[str], junk: Sequence[str]
) -> tuple[list[int], str]:
    """The labels ``s`` is right for, or else the kind of its error."""
    known = frozenset(w for p in people for w in key(p)) | _RELATION_WORDS
    hits = [i for i, f in enumerate(case.states) if _same(f, s, known=known)]
    if hits:
        return hits, ""
    if any(s.quote in t for t in junk):
        return [], "junk"
    if any(_same(f, s, status=False) for f in case.states):
        return [], "stale"
    if entity_key(s.entity) not in people or any(
        entity_key(f.entity) != entity_key(s.entity) and values_match(f.value, s.value)
        for f in case.states
    ):
        return [], "wrong entity"
    return [], "other"


def _event_verdict(case: Case, e: StoredEvent, junk: Sequence[str]) -> tuple[list[int], str]:
    offset = len(case.states)
    hits = [offset + i for i, h in enumerate(case.events) if _event_same(h, e)]
    if hits:
        return hits, ""
    if any(e.quote in t for t in junk):
        return [], "junk"
    if any(_event_same(h, e, date=False) for h in case.events):
        return [], "wrong date"
    return [], "other"


def judge(case: Case, states: Sequence[State], events: Sequence[StoredEvent]) -> Verdicts:
    """Score one conversation (see the module's docstring for the rules)."""
    junk = [t.text for t in case.turns if t.junk]
    people = {entity_key(f.entity) for f in case.states} | {USER}
    people |= {entity_key(f.value) for f in case.states if f.attribute in _RELATIONS}
    verdict = Verdicts(stored=len(states) + len(events), labels=len(case.states) + len(case.events))
    judged = [(_state_text(s), s.quote, _state_verdict(case, s, people, junk)) for s in states]
    judged += [(e.text(), e.quote, _event_verdict(case, e, junk)) for e in events]
    matched: set[int] = set()
    for text, quote, (hits, kind) in judged:
        if hits:
            verdict.right += 1
            matched.update(hits)
        else:
            verdict.wrong[kind] += 1
            verdict.examples.append(f"{case.name}: {kind}: {text}  <- {quote!r}")
    verdict.found = len(matched)
    labels: list[Fact | Happening] = [*case.states, *case.events]
    verdict.missed = [f"{case.name}: {labels[i]}" for i in range(len(labels)) if i not in matched]
    return verdict


def date_label(day: str | None, precision: str | None) -> str:
    if not day:
        return ""
    found = date.fromisoformat(day)
    return ResolvedDate(found, cast(Precision, precision or "day"), "").label()
