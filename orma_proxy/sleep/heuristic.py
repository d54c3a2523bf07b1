"""Consolidation without an LLM: common first-person patterns, found by rules.

When no upstream is configured or it cannot be reached, sleep still turns
"I live in Pune", "I moved to Bangalore", "I work as a backend engineer",
"I work at Zerodha", "my dentist is Dr. Rao", "I'm allergic to peanuts",
"never chain commands with semicolons, use newlines" (a rule, its alternative
split off by verification) and "I prefer tabs" into states. The
rules emit the same ``Extraction`` the model would, so the same verification
and apply steps run after them: a rule is a proposer, not an authority.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from orma_proxy.sleep import clock, holder
from orma_proxy.sleep.batch import Batch, Line
from orma_proxy.sleep.extract import Extraction, RawState
from orma_proxy.sleep.names import normalise_attribute
from orma_proxy.text import said_rule

# A value runs to the end of its clause, without a trailing time phrase.
_VALUE = r"(?P<value>(?:(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s+)?[^,;.!?]+?)"
_END = r"(?=\s*(?:[,;.!?]|\band\b|\bbut\b|\bsince\b|\bfor\b\s+\d|$))"
_PLACE = r"(?P<value>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
_ARTICLE = r"(?:an?\s+|the\s+)?"
_NAME = r"(?P<value>[A-Z][a-z][\w'-]*)"

# (attribute, pattern); case-insensitive except where names must be capitalised.
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("name", re.compile(rf"\b(?i:my name is|call me|i'm|i am)\s+{_NAME}(?=\s*(?:[,.!?]|"
                        rf"\band\b|$))")),
    ("home_city", re.compile(
        rf"\b(?i:(?:i|we)(?:'ve| have)?\s+(?:just\s+)?(?:moved|relocated|shifted)"
        rf"(?:\s+from\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)?\s+to)\s+{_PLACE}")),
    ("home_city", re.compile(
        rf"\b(?i:i(?:'m| am)?\s+(?:now\s+|currently\s+|still\s+)?(?:live|living|based|staying)"
        rf"\s+in)\s+{_PLACE}")),
    ("home_city", re.compile(rf"\b(?i:my\s+(?:new\s+)?home\s+is(?:\s+now)?\s+in)\s+{_PLACE}")),
    ("job_title", re.compile(rf"\b(?i:(?:i|and)\s+(?:now\s+)?work\s+as)\s+{_ARTICLE}{_VALUE}"
                             rf"(?=\s+(?:at|for|in)\b|{_END})", re.I)),
    ("job_title", re.compile(rf"\b(?i:i'm|i am)\s+(?i:now\s+)?(?i:an?)\s+{_VALUE}"
                             rf"(?=\s+(?i:at|for)\s+[A-Z])")),
    ("employer", re.compile(rf"\b(?i:(?:i|and)\s+(?:now\s+)?work\s+(?:at|for))\s+{_PLACE}")),
    ("employer", re.compile(
        rf"\b(?i:(?:i|and)\s+(?:now\s+)?work\s+as\s+[^,;.!?]+?\s+(?:at|for))\s+{_PLACE}")),
    ("employer", re.compile(
        rf"\b(?i:(?:i'm|i am)\s+(?:now\s+)?an?\s+[^,;.!?]+?\s+(?:at|for))\s+{_PLACE}")),
    ("allergy", re.compile(rf"\bi(?:'m| am)\s+allergic\s+to\s+{_VALUE}{_END}", re.I)),
    ("prefers", re.compile(rf"\bi\s+(?:really\s+)?prefer\s+{_VALUE}{_END}", re.I)),
    ("morning_drink", re.compile(
        r"\bi\s+(?:(?:usually|now|always|mostly|normally|often)\s+)?drink\s+"
        r"(?P<value>[^,;.!?]+?)(?:\s+instead\s+of\s+[^,;.!?]+?)?\s+(?:in\s+the|every|each)"
        r"\s+morning", re.I)),
)  # fmt: skip
_MY_X_IS = re.compile(
    rf"\bmy\s+(?:new\s+|current\s+)?(?P<attr>[a-z][a-z ]{{1,30}}?)\s+(?:is|are)\s+{_VALUE}{_END}",
    re.IGNORECASE,
)
# "my X is Y" where X is a relation with a name ("my sister Asha is ...") is not a slot.
_NOT_SLOTS = frozenset({"name"})
_MAX_SLOT_WORDS = 3


def _matches(line: Line) -> Iterator[RawState]:
    text = line.text
    rule = said_rule(text)  # split into what is forbidden and the alternative by verification
    if rule:
        yield RawState(
            line=line.number, about="user", attribute="rule", value=rule, prohibited=True
        )
    slots = set()
    for attribute, pattern in _RULES:
        if rule and attribute == "prefers":
            continue  # "never X, I prefer Y": Y is the rule's alternative
        for m in pattern.finditer(text):
            value = _trim(m["value"])
            if value:
                slots.add(attribute)
                yield RawState(line=line.number, about="user", attribute=attribute, value=value)
    for m in _MY_X_IS.finditer(text):
        attribute, value = m["attr"].strip().lower(), _trim(m["value"])
        words = attribute.split()
        if len(words) > 1 and re.fullmatch(holder.RELATIONS, words[0]):
            continue  # "my sister Asha is ...": a person, not a slot of the user's
        if normalise_attribute(attribute) in slots:
            continue  # "my home is in Pune": said better by its own pattern
        if value and attribute not in _NOT_SLOTS and len(words) <= _MAX_SLOT_WORDS:
            yield RawState(line=line.number, about="user", attribute=attribute, value=value)


def _trim(value: str) -> str:
    """The value without a trailing time phrase ('Bangalore last week' -> 'Bangalore')."""
    value = value.strip()
    phrase = clock.find_date_phrase(value)
    if phrase:
        value = value[: value.lower().find(phrase.lower())].strip()
    return value.strip(" ,;")


def extract_by_rules(batch: Batch) -> Extraction:
    """States for the common first-person patterns on the batch's citable lines."""
    result = Extraction()
    for line in batch.lines:
        if line.citable:
            # "Asha: I moved to Mumbai": the first person of a named speaker's line is them.
            about = line.speaker or "user"
            result.states.extend(s.model_copy(update={"about": about}) for s in _matches(line))
    names = [s for s in result.states if s.attribute == "name"]
    if names:
        result.user_name = names[-1].value
        result.states = [s for s in result.states if s.attribute != "name"]
    return result


def rule_attributes(text: str) -> list[str]:
    """The attributes the rules find stated in ``text`` ("I live in Pune." -> home_city).

    What recall previews before sleep has run: which of the user's lines state a
    core fact (``recall/core.py``).
    """
    return [raw.attribute for raw in _matches(Line(0, 0, 0, "user", text, 0.0))]
