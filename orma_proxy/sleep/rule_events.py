"""Dated events, by rule: "my manager gave me a Swiss knife yesterday".

A clause that names a date ("yesterday", "two weeks ago", "last month", "on
Friday", "in 2019") and has a subject doing something then (a verb in the
past, "I'm flying", "I will", "I have an appointment") is an event; what
happened is the clause without its date words, and the date is resolved by
``clock`` against the moment the line was said (verification does that).
A state said with a date ("I'm 34 since May", "my birthday is on 14 March")
has no verb of doing: it is not an event.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orma_proxy.facts import USER
from orma_proxy.sleep import clock
from orma_proxy.sleep.batch import Line
from orma_proxy.sleep.extract import RawEvent
from orma_proxy.sleep.rule_patterns import PAST_IRREGULAR
from orma_proxy.sleep.subjects import Subject, subjects_in
from orma_proxy.text import felt, lead_in, passing, unresolved

__all__ = ["events_in"]

_PLANNED = (
    "appointment|meeting|interview|exam|test|flight|trip|surgery|operation|class|date|call|"
    "party|wedding|concert|match|game|deadline|presentation|review|checkup|check-up|visit"
)
_DOING = re.compile(
    r"^\s+(?:(?:just|finally|also|already|recently|then|actually|both|only)\s+)*(?:"
    rf"(?:(?:was|were|got|have|has|had)\s+)?(?:\w+ed|{PAST_IRREGULAR})\b"
    r"|(?:am|is|are|was|were)\s+(?:\w+\s+)?\w+ing\b"
    r"|(?:will|would|am\s+going\s+to|is\s+going\s+to|are\s+going\s+to|plan\s+to|want\s+to)\s+\w+"
    rf"|(?:have|has)\s+(?:a|an|my|our|the|his|her)\s+(?:[\w-]+\s+){{0,3}}(?:{_PLANNED})\b)",
    re.I,
)
# Clause ends: "I went to a parade and it was awesome - so much energy" tells of the parade.
_CLAUSE = re.compile(
    r"[,;]\s*|[.!?]\s+|\s+[-\u2013\u2014]\s+|\s+(?:but|though|although|while)\s+"
    r"|\s+and\s+(?=(?:it|that|this|there|they|he|she|we)\b)",
    re.I,
)
# "..., but we came back and won" (or a next sentence "But ..."): what follows changes its story.
_CONTRAST = re.compile(r"\s*[,;.!]?\s*(?:but|though|although|yet|however|except)\b", re.I)
# "a meeting coming up, we'll be discussing the schools": what the occasion is, said next.
_GOES_ON = re.compile(r"^(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?=(?:we|they)\s)", re.I)
_BEFORE = re.compile(r"(?:\b(?:since|for|until|till|by|every|each|from)\s+)$", re.I)
_HOW_LONG = re.compile(r"(?:since|for|until|till|from)\b", re.I)
# "My sister Leela and her husband Arjun visited": a second subject before the verb.
_JOINED = re.compile(r"^\s+and\s+(?:(?:my|our|his|her|their)\s+(?:\w+\s+)?)?[A-Z][a-z][\w'-]*")
# "I had a race where we were losing at the turn": the past progressive sets a story's scene; what
# happened comes after, and the clause alone says the opposite of its end.
_SCENE = re.compile(r"\b(?:where|when|as)\s+\w+\s+(?:was|were)\s+(?:\w+\s+)?\w+ing\b", re.I)
# "I'm relaxing this weekend": what someone is doing over the next day or two, a plan of
# the moment, unless it is an appointment-like occasion or names someone or somewhere.
_SOON = re.compile(
    r"^(?:today|tonight|this\s+(?:weekend|morning|afternoon|evening)|right\s+now|now)$", re.I
)
_PROGRESSIVE = re.compile(r"^\s+(?:am|is|are)\s+(?:\w+\s+)?\w+ing\b", re.I)
_OCCASION = re.compile(rf"\b(?:{_PLANNED})\b", re.I)
# "we had our first outing": an unnamed group's own occasion ("our ..."), what it was left
# to the rest of the line, unless a name (a capital) or a place or topic ("at", "in") says.
_WE_HAD = re.compile(
    r"^[Ww]e\s+had\s+our\b(?![^A-Z]*[A-Z])(?!.*\b(?:at|in|on|to|for|about|of|from|with)\b)"
)
_TO_YOU = re.compile(r"\b(?:you|your|yours)\b", re.I)
# What a date phrase takes with it: "in", "on", "about" ("about a year ago") and "later"
# ("later this month": alone, "later" would dangle).
_PREPOSITION = re.compile(
    r"\s*\b(?:(?:on|in|at|during)\s+)?"
    r"(?:(?:about|around|roughly|nearly|almost|over|later|earlier)\s*)?$",
    re.I,
)
_OPENING = re.compile(r"^(?:(?:then|and|so|but|also|well|oh|anyway|just)\b[\s,]*)+", re.I)
# "We just did it", "I'm going to try making it": what was done is said elsewhere.
# A clause cut short: "our season opener is" (its date was all it said), "I went to".
_DANGLING = re.compile(
    r"\b(?:it|that|this|them|those|these|is|are|was|were|am|be|the|a|an|to|of|for|with|and|at|"
    r"in|on)$",
    re.I,
)
# "I made it in class", "I did something new": what it is, the line leaves to another.
_POINTING = re.compile(
    r"\b(?:it|them)\b(?!\s+(?:is|was|has|had|will|would|am|are|were)\b)|\b(?:something|"
    r"anything|stuff)\b",
    re.I,
)


def _clause_of(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause of ``text`` that holds ``text[start:end]``."""
    first, last = 0, len(text)
    for m in _CLAUSE.finditer(text):
        if m.end() <= start:
            first = m.end()
        elif m.start() >= end:
            last = m.start()
            break
    return first, last


def _goes_on(text: str, last: int) -> str:
    """What the group does in the occasion, said next (", we will be discussing ..."), or ""."""
    opening = _GOES_ON.match(text[last:])
    if opening is None:
        return ""
    start = last + opening.end()
    end = _clause_of(text, start, start + 1)[1]
    more = text[start:end].strip(" ,.!?")
    rest = more.partition(" ")[2]  # after "we" or "they"
    if not _DOING.match(f" {rest}") or _TO_YOU.search(more) or _POINTING.search(more):
        return ""
    if felt(more) or lead_in(more) or unresolved(more) or passing("", more, more):
        return ""
    return f"{' and' if 'and' in opening.group().lower() else ','} {more}"


def _passing_plan(clause: str, phrase: str, subject: Subject) -> bool:
    """Whether ``clause`` is what someone is doing over the next day or two ("I'm resting")."""
    if not _SOON.match(phrase.strip()) or not _PROGRESSIVE.match(subject.rest):
        return False
    named = any(w[:1].isupper() for w in clause.split()[1:])
    return not named and not _OCCASION.search(clause)


def events_in(
    line: Line, text: str, preceding: Sequence[str], following: str = ""
) -> list[RawEvent]:
    """The dated event ``text`` (contractions spelt out) tells of, if any.

    ``following`` is the next sentence of the same turn: "But ..." there changes the story.
    """
    phrase = clock.find_date_phrase(text)
    if phrase is None:
        return []
    at = text.lower().find(phrase.lower())
    if _BEFORE.search(text[:at]) or _HOW_LONG.match(phrase):
        return []  # "since 2019", "for two weeks": how long a state holds, not an event
    first, last = _clause_of(text, at, at + len(phrase))
    after = text[at + len(phrase) : last]
    if re.match(r"['\u2019]s\b", after):  # "during last week's game": during the game
        before, after = f"{text[first:at]} the", after[2:]
    else:
        before = _PREPOSITION.sub("", text[first:at])
    clause = f"{before} {after}"
    clause = re.sub(r"\s+([,.;!?])", r"\1", " ".join(clause.split()))
    clause = _OPENING.sub("", clause).strip(" ,.!?")
    if _POINTING.search(clause) or _DANGLING.search(clause) or passing("", clause, clause):
        return []  # what was done is said elsewhere; "I was bored": a feeling, no happening
    rest = text[last:] if text[last:].strip(" .!?") else f"{text[last:]} {following}"
    if unresolved(clause) or lead_in(clause) or felt(clause) or _CONTRAST.match(rest):
        return []  # "I had a blast there", "I had a setback", "I'm hoping to go", "..., but"
    subjects = subjects_in(clause, preceding)
    if not subjects or subjects[0].lead.strip():
        return []
    subject = subjects[0]
    if not _DOING.match(_JOINED.sub("", subject.rest)) or _TO_YOU.search(clause):
        return []  # no act, or one with the assistant ("I'll call you tomorrow")
    if _SCENE.search(clause) or _WE_HAD.match(clause) or _passing_plan(clause, phrase, subject):
        return []  # a story's scene, an unnamed group's occasion, a plan of the moment
    clause += _goes_on(text, last)
    if clause.split()[0].lower() in ("i", "we", "my", "our"):
        who = [USER] if subject.about == USER else [USER, subject.about]
    else:
        who = [subject.about]
    return [RawEvent(line=line.number, what=clause, when=phrase, who=who)]
