"""Habits and their exceptions, by rule: "every morning I drink black coffee".

A clause in the present tense with a frequency ("every Sunday", "on
weekends", "twice a week", "usually") states a habit; one under a condition
("When I have a sore throat, I drink ginger tea instead", "If it rains, I
take the metro") states what holds in that situation, beside the habit and
never replacing it (defeasible logic). "Unless" is not "when": "I cycle
unless it rains" holds *unless* it rains (condition ``unless it rains``),
while "Unless I have a deadline, then I make an espresso" names the
exception's own act (condition ``deadline``). A drink keeps the seed's shape,
its time of day in the attribute (``morning_drink: black coffee``), and a
conditional drink joins the attribute of the drink it is the exception to;
any other habit is ``habit: run 5k every Sunday``.

What is no habit of the holder's is left alone: a verb in the past ("a pic I
took during a morning workout"), a clause inside a noun phrase ("the book I
read last year reminds me"), what a group does to itself ("we push each
other"), what everyone does ("we all need a push"), a stance rather than a
doing ("I remember when", "I understand how"), a phrase with "it" or "them"
the rules cannot resolve, a phrase about "you", a third person's phrase
told in the speaker's own words ("she always puts a smile on my face"), and a
habit in a turn that advises the listener ("... You could try that."): the
advice's example, not a habit told for its own sake.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orma_proxy.sleep.batch import Line
from orma_proxy.sleep.extract import RawState
from orma_proxy.sleep.rule_patterns import PAST_IRREGULAR
from orma_proxy.sleep.subjects import Subject, spelt_out, subjects_in
from orma_proxy.sleep.verify import tidy_condition
from orma_proxy.text import felt, unresolved

__all__ = ["advises", "habits_in"]

_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_FREQUENCY = re.compile(
    rf"\b(?:(?:every|each)\s+(?:other\s+|few\s+|single\s+)?(?:{_DAYS}|\w+)"
    rf"|on\s+(?:weekends|weekdays|{_DAYS}s)(?:(?:,\s*|\s+and\s+)(?:{_DAYS}s))*"
    r"|(?:most|some)\s+(?:days|mornings|evenings|nights|weekends|weeks)"
    r"|(?:once|twice|thrice|\w+\s+times)\s+(?:a|per|every)\s+\w+"
    r"|daily|weekly|nightly|monthly|everyday"
    r"|(?:before|after)\s+(?:bed|work|breakfast|lunch|dinner|school)"
    r"|in\s+the\s+(?:mornings?|evenings?)"
    r"|(?:a|one|two|\d+)\s+[\w-]+\s+a\s+(?:day|week|month|year)"
    r"|by\s+(?:day|night)|in\s+(?:my|the)\s+(?:free|spare)\s+time|on\s+the\s+side|for\s+fun"
    r"|everywhere|usually|often|regularly|sometimes|always|normally|generally|occasionally"
    r"|mostly)\b",
    re.I,
)
_PERIOD = re.compile(r"\b(morning|afternoon|evening|night)s?\b", re.I)
_LEADING = re.compile(
    r"^(?:\s*(?:also|usually|still|now|always|often|normally|mostly|generally|just|"
    r"sometimes|regularly|then|even|really|definitely|highly|also)\b)+",
    re.I,
)
_NOT_HABITS = frozenset(
    """am is are was were be been being do does did have has had will would can could should
    might may must not never cannot need needs want wants think guess hope wish know knows
    feel feels like likes love loves mean meant remember understand believe agree appreciate
    doubt bet imagine recommend all both each maybe perhaps probably""".split()  # noqa: SIM905
)
_DRINK = frozenset({"drink", "drinks"})
_SUBORDINATE = re.compile(
    r"\b(?:when(?:ever)?|if|unless|while|because|since|after|before|until|as|though|where|"
    r"who|that|which|(?:every|each|any|the\s+first|the\s+last)\s+time|the\s+moment|once)\s*$",
    re.I,
)
# Advice to the listener (``advises``).
_ADVISES = re.compile(
    r"\byou\s+(?:\w+\s+)?(?:could|can|should|might|may\s+want\s+to)\s+(?:also\s+)?"
    r"(?:try|do|give|start|consider)\b|\bwhy\s+(?:don't|do\s+not)\s+you\b|\bhave\s+you\s+tried\b",
    re.I,
)
_MOST_LEAD_WORDS = 4  # "On weekdays after lunch": longer, it is a clause of its own
# Whose situation a condition is: the user's ("when I travel", "when my back hurts"), the
# weather's ("if it rains"), or a time ("during winter"); "if the input is empty" is code.
_PERSONAL = re.compile(r"^(?:i|we|it|my|our|there)\b|^(?:winter|summer|monsoon|holidays)\b", re.I)
# The situation a clause before the habit puts it in: "When I have a sore throat, ".
_FRAME = re.compile(
    r"(?:^|[.;!?]\s*)(?P<kw>when(?:ever)?|if|during|while|in\s+case\s+of|unless)\s+"
    r"(?P<cond>[^,;.!?]+)[,;]\s*(?P<then>then\s+)?$",
    re.I,
)
_LEAD_FRAME = re.compile(r"^(?P<kw>during|in)\s+(?P<cond>[^,]+?)[,\s]*$", re.I)
_TAIL_FRAME = re.compile(
    r"\s(?P<kw>when(?:ever)?|if|during|in\s+case\s+of|unless)\s+(?P<cond>[^,;.!?]+)$", re.I
)
_END = re.compile(r"[.;!?]|,\s+(?!(?:" + _DAYS + r")s\b)|\s+(?:and|but|so|though)\s+", re.I)
_TRAILING = re.compile(r"(?:\s+(?:instead|now|too|as\s+well|though|anyway))+$", re.I)
_PAST = re.compile(rf"ed$|^(?:{PAST_IRREGULAR})$", re.I)
# A group doing to itself, the listener, the speaker in a third person's phrase.
_RECIPROCAL = re.compile(r"\b(?:each\s+other|one\s+another|ourselves|themselves)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our)\b", re.I)
# Words that may stand before the subject of a habit: openers, or the frequency itself.
_OPENERS = re.compile(
    r"^(?:(?:and|but|so|also|now|well|yes|yeah|no|actually|then|oh|plus|anyway|still|"
    r"usually|always|often|sometimes|normally|generally|mostly|lately|recently|currently|"
    r"nowadays|these\s+days)\b[\s,]*)*$",
    re.I,
)
_INSTEAD_OF = re.compile(r"\s+instead\s+of\s+[^,;.!?]+?(?=\s+(?:in|on|at|every|each)\b|$)", re.I)
# "I usually cook, but lately I order in": a clause after it that changes how often or whether.
# ("I usually play chess, but this time I tried go" keeps the habit.)
_CONTRAST = re.compile(
    r"[,;]?\s*(?:(?:but|though|although|yet)\b[^.;!?]*?\b(?:sometimes|occasionally|lately|"
    r"recently|now|these\s+days|not|never|rarely|anymore|except)\b|except\b)",
    re.I,
)
_PRONOUNS = frozenset({"it", "them", "that", "this", "those", "these"})


def _condition(kw: str, cond: str) -> str:
    tidy = re.sub(r"^(?:i|we|it)\s+", "", tidy_condition(cond), flags=re.I)
    return f"unless {tidy}" if kw.lower() == "unless" else tidy


def _frame(text: str, subject: Subject, phrase: str) -> tuple[str, str]:
    """The condition the habit is under, and the phrase without its tail condition."""
    before = _FRAME.search(text[: subject.start])
    if before and _PERSONAL.match(before["cond"].strip()):
        then = before["then"] or subject.lead.strip().lower() == "then"
        kw = "when" if then else before["kw"]  # "Unless X, then Y": Y is what X brings
        return _condition(kw, before["cond"]), phrase
    lead = _LEAD_FRAME.match(subject.lead.strip())
    if lead and lead["kw"].lower() == "during":
        return _condition("during", lead["cond"]), phrase
    tail = _TAIL_FRAME.search(phrase)
    if tail:
        return _condition(tail["kw"], tail["cond"]), phrase[: tail.start()]
    return "", phrase


def _habit(line: Line, text: str, subject: Subject, earlier: Sequence[RawState]) -> RawState | None:
    if _SUBORDINATE.search(subject.lead) or len(subject.lead.split()) > _MOST_LEAD_WORDS:
        return None  # "When I have a sore throat": the condition, not the habit
    lead = subject.lead.strip()
    if not (_OPENERS.match(lead) or _FREQUENCY.search(lead) or _LEAD_FRAME.match(lead)):
        return None  # "The book I read last year reminds me": a clause inside a noun phrase
    end = _END.search(subject.rest)
    clause = subject.rest[: end.start()] if end else subject.rest
    if end and _CONTRAST.match(subject.rest[end.start() :]):
        return None  # "I usually work late, but sometimes ...": the rest qualifies it
    words = _LEADING.sub("", clause).split()
    if not words:
        return None
    verb = words[0].lower()
    if verb in _NOT_HABITS or _PAST.search(verb) or verb.endswith(("ly", "ing")):
        return None  # no finite verb in the present: "physically after", "disconnecting"
    if subject.about != "user" and not verb.endswith("s"):
        return None  # "she walks", not "she walked" or "she is"
    condition, clause = _frame(text, subject, clause)
    if not condition and _FRAME.search(text[: subject.start]):
        return None  # under a condition that is not the person's: "if the input is empty"
    in_lead = _FREQUENCY.search(subject.lead)
    frequency = in_lead or _FREQUENCY.search(clause)
    if not (frequency or condition):
        return None
    phrase = _TRAILING.sub("", _LEADING.sub("", clause).strip()).strip(" ,")
    if verb in _DRINK:
        return _drink(line, subject, phrase, condition, earlier)
    said = f"{phrase} {condition}"
    if any(w.lower() in _PRONOUNS for w in phrase.split()[1:]) or unresolved(phrase):
        return None  # "I reread it every few years", "we go a few times a week": what, where?
    if felt(phrase):
        return None  # "we always look forward to the trip": a feeling, no doing
    if _RECIPROCAL.search(said) or _SECOND_PERSON.search(said):
        return None
    if subject.about != "user" and _FIRST_PERSON.search(phrase):
        return None  # "she always puts a smile on my face": the speaker's, told of her
    if in_lead:
        phrase = f"{phrase} {in_lead[0].lower()}"
    return RawState(
        line=line.number, about=subject.about, attribute="habit", value=phrase, condition=condition
    )


def _drink(
    line: Line, subject: Subject, phrase: str, condition: str, earlier: Sequence[RawState]
) -> RawState | None:
    """ "I drink black coffee every morning": ``morning_drink: black coffee``.

    What it replaces ("green tea instead of masala chai") is left out: the new
    value supersedes the old one in the slot.
    """
    value = phrase.split(maxsplit=1)[1] if " " in phrase else ""
    frequencies = [m[0] for m in _FREQUENCY.finditer(f"{subject.lead} {value}")]
    for found in frequencies:
        value = value.replace(found, " ")
    value = _INSTEAD_OF.sub("", " ".join(value.split()))
    value = re.sub(r"\s+(?:in\s+the|every|each)\s*$", "", value).strip(" ,")
    if not value:
        return None
    period = next((p for f in frequencies if (p := _PERIOD.search(f))), None)
    attribute = f"{period[1].lower()}_drink" if period else "drink"
    if condition and not period:
        drinks = [
            s.attribute
            for s in earlier
            if s.about == subject.about and s.attribute.endswith("drink") and not s.condition
        ]
        attribute = drinks[-1] if drinks else attribute
    return RawState(
        line=line.number, about=subject.about, attribute=attribute, value=value, condition=condition
    )


def advises(turn: str) -> bool:
    """Whether ``turn`` advises its listener ("When it's hard I walk. You could try that.").

    What the speaker says of their own ways in such a turn is the advice's example,
    shaped for the listener: no habit told for its own sake.
    """
    return _ADVISES.search(spelt_out(turn)) is not None


def habits_in(
    line: Line, text: str, preceding: Sequence[str], earlier: Sequence[RawState]
) -> list[RawState]:
    """The habits ``text`` (contractions spelt out) states, with their conditions."""
    found = []
    for subject in subjects_in(text, preceding):
        habit = _habit(line, text, subject, earlier)
        if habit is not None and habit.value:
            found.append(habit)
    return found
