"""Whether a state lasts: a feeling, hunger, the weather or a reaction of the moment is no memory.

"I'm so hungry right now", "Pretty good." (to "how are you?"), "the weather
is great", "Haha, that's terrible." and "She fell asleep halfway" were true
when said and say nothing about anyone by the next chat: a careful reader
keeps none of them as a fact. ``passing`` names why a proposed state (its
attribute, its value, the sentence it cites) is of the moment. A sentence that
says it recurs ("I'm always tired after lunch", "it usually rains in June")
is a habit or a climate and lasts, and a feeling said in the simple present
of another verb ("I fall asleep faster now") is a habit too, and a taste ("I
love rainy days") is no weather. Only the derived
state is refused: the words stay in their episode, and recall finds them.
"""

from __future__ import annotations

import re

from orma_proxy.text.fragments import EVALUATIVE

__all__ = ["passing"]

_APOSTROPHE = "['\u2019]"
# What a body or a mind is for a while: said with "be", "feel" or a past verb, it is of the moment.
_BODILY = (
    r"(?:hungry|starving|thirsty|sleepy|asleep|drowsy|tired|exhausted|bored|stuffed|"
    r"grumpy|cranky)"
)
_BODILY_SAID = re.compile(
    rf"(?:\b(?:am|is|are|was|were|be|been|being|feel|feels|felt|feeling|fell|got|getting|"
    rf"became)|{_APOSTROPHE}(?:m|s|re))\s+(?:\w+\s+){{0,2}}?{_BODILY}\b",
    re.I,
)
# The state's own words for it ("slept: on the sofa" from "He fell asleep on the sofa").
_BODILY_WORD = re.compile(
    rf"\b(?:{_BODILY}|sleep|slept|sleeping|nap\w*|dozed|hunger|thirst|fatigue)\b", re.I
)
_WEATHER = re.compile(
    r"\b(?:weather|sunny|rainy|raining|cloudy|windy|humid|drizzl\w*|snowing|forecast)\b", re.I
)
# Attributes that hold a state of mind by name.
_MOOD = re.compile(r"\b(?:mood|feeling|feelings|emotion|emotions|vibe|spirits)\b", re.I)
_EVALUATIVE = f"(?:{'|'.join(sorted(EVALUATIVE))})"
_DEGREE = r"(?:pretty|very|really|so|quite|too|super|not|a\s+bit|kind\s+of|kinda|rather)"
_ONLY_EVALUATIVE = re.compile(rf"^(?:{_DEGREE}\s+)*{_EVALUATIVE}(?:\s+{_EVALUATIVE})*$", re.I)
# "Haha, that's terrible.": a judgement of what was just said or shown.
_REACTION = re.compile(
    rf"^(?:(?:ha(?:ha)*|lol|wow|oh|ugh|hmm+|yeah|yes|no|ok|okay|well|omg)\b[\s,!.]*)*"
    rf"(?:that|this|it)(?:{_APOSTROPHE}s|\s+is|\s+was|\s+sounds|\s+looks|\s+seems)\s+"
    rf"(?:{_DEGREE}\s+)*{_EVALUATIVE}[\s.!]*$",
    re.I,
)
# "I love rainy days", "I like it sunny": a taste, which lasts.
_TASTE = re.compile(
    rf"\b(?:love|loves|like|likes|prefer|prefers|hate|hates|enjoy|enjoys|can{_APOSTROPHE}?t\s+stand)\b",
    re.I,
)
# A sentence with a subject of its own says whose the judgement is ("My German is pretty good").
_OWN_SUBJECT = re.compile(r"\b(?:i|my|me|we|our|he|she|his|her|they|their)\b", re.I)
# "I hate not being on the court": a taste for an absence is how a circumstance feels now.
_ABSENCE = re.compile(r"^(?:not|never)\s+(?:being|having|getting|seeing|doing|able)\b", re.I)
_RECURS = re.compile(
    r"\b(?:always|usually|often|every|whenever|each|generally|normally|tends?\s+to|"
    r"most\s+days|all\s+the\s+time|all\s+year|easily|chronic\w*)\b",
    re.I,
)


def passing(attribute: str, value: str, sentence: str) -> str | None:
    """Why a state (``attribute``: ``value``, cited from ``sentence``) is passing; else None."""
    said = " ".join(sentence.split()).strip(" \"'\u201c\u201d")
    if _REACTION.match(said):
        return "a reaction to what was just said, no lasting fact"
    if _RECURS.search(said):
        return None
    words = f"{attribute.replace('_', ' ')} {value}"
    if _BODILY_WORD.search(words) and _BODILY_SAID.search(said):
        return "how someone feels at the moment, no lasting fact"
    if _ABSENCE.match(value.strip()):
        return "how a circumstance of the moment feels, no lasting taste"
    if _TASTE.search(said):
        return None
    if _WEATHER.search(words):
        return "the weather of the day, no lasting fact"
    bare = " ".join(value.lower().strip(" .!").split())
    if _MOOD.search(attribute.replace("_", " ")) or (
        _ONLY_EVALUATIVE.match(bare) and not _OWN_SUBJECT.search(said)
    ):
        return "a passing mood or judgement, no lasting fact"
    return None
