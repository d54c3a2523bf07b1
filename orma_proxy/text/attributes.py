"""What an attribute is called in plain English: "employer", "where she works", "her job".

People describe a fact by its kind ("Meera's employer", "my diet", "Arjun's
medical record"), and the line that said it uses other words ("Meera works at
Zoho", "I'm vegetarian", "diagnosed with asthma"). Each group below is the
general English vocabulary of one kind of personal fact; ``groups_of`` reads a
word's groups through a light stemmer, so "works", "worked" and "working" meet
"work". Groups also name the state attributes sleep writes for them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache

from orma_proxy.text.abbreviations import expanded
from orma_proxy.text.identifiers import find_identifiers

__all__ = [
    "EVIDENCE",
    "GROUPS",
    "SHARED_ATTRIBUTES",
    "STATE_ATTRIBUTES",
    "evidence_of",
    "group_stems",
    "groups_of",
    "kinds_by_shape",
    "kinds_shown",
    "state_attributes",
    "stem",
    "stems",
]

_WORD = re.compile(r"[\w'-]+")
_BRITISH = re.compile(r"(?<=[^aeouy])our")


def _table(words: dict[str, str]) -> dict[str, frozenset[str]]:
    return {name: frozenset(line.split()) for name, line in words.items()}


# Words that name a kind of fact: in a description they say which kind is meant.
GROUPS = _table(
    {
        "work": "work job employer employ employee company office workplace hire join career "
        "profession occupation position role salary firm",
        "home": "home address live reside residence move relocate city town house flat "
        "apartment hometown neighbourhood neighborhood street",
        "diet": "diet eat food meal cuisine dish cook recipe breakfast lunch dinner "
        "restaurant menu",
        "drink": "drink beverage",
        "health": "medical health diagnose diagnosis condition illness disease allergy allergic "
        "medication medicine prescribe prescription doctor hospital surgery symptom therapy "
        "injury",
        "phone": "phone number mobile cell landline whatsapp call",
        "email": "email e-mail mail inbox",
        "credential": "password passcode passphrase pin key token secret credential api login "
        "combination code cvv",
        "birthday": "birthday born birth birthdate",
        "hobby": "hobby pastime practise practice weekend",
        "likes": "like love enjoy prefer favourite favorite hate dislike fan",
        "relationship": "married marry wife husband partner girlfriend boyfriend dating divorce",
        "travel": "trip travel vacation holiday flight visit journey",
        "bank": "bank account card iban loan debt mortgage",
        "income": "salary pay wage income earn bonus",
        "name": "name called nickname",
    }
)
# Values that show a line is about a kind ("I'm vegetarian" is about diet); in a
# description they are what must be present ("does not drink coffee").
EVIDENCE = _table(
    {
        "diet": "vegetarian vegan meat sugar gluten dairy keto fast snack egg allergy allergic "
        "intolerance intolerant",
        "drink": "coffee tea chai latte juice beer wine alcohol soda smoothie milk water",
        "health": "asthma diabetes diabetic cancer pregnant blood pressure fever flu migraine "
        "insulin inhaler pill tablet dose clinic pharmacy vaccine chemo cholesterol thyroid "
        "arthritis depression anxiety pain",
        "hobby": "chess baking painting hiking gardening knitting photography guitar piano "
        "violin yoga running cycling climbing bouldering birdwatching reading pottery "
        "swimming dancing fishing surfing trekking drawing sketching woodworking",
        "work": "engineer analyst developer designer teacher nurse lawyer accountant architect "
        "consultant scientist researcher intern founder freelancer",
    }
)

# The state attributes (as sleep names them) each group covers; the first is the
# one a correction by description writes.
STATE_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "work": ("employer", "job_title"),
    "home": ("home_city", "hometown", "address"),
    "diet": ("diet", "likes", "prefers"),
    "drink": ("drink", "likes", "prefers"),
    "health": ("medical_condition", "allergy", "condition", "medication"),
    "phone": ("phone_number", "phone"),
    "email": ("email",),
    "birthday": ("birthday", "date_of_birth"),
    "hobby": ("hobby", "likes"),
    "name": ("name",),
}


# Attributes several kinds share ("likes": food, drink, hobbies): none of them alone shows a line
# to be about one kind.
SHARED_ATTRIBUTES = frozenset(
    a
    for a in {a for names in STATE_ATTRIBUTES.values() for a in names}
    if sum(a in names for names in STATE_ATTRIBUTES.values()) > 1
)


def state_attributes(group: str) -> tuple[str, ...]:
    """The state attributes a kind of fact covers; a kind sleep never names is its own."""
    return STATE_ATTRIBUTES.get(group, (group,))


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude English stem that both sides share: lives, lived, living -> liv."""
    w = word.lower().strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) >= 6 and "our" in w[1:]:
        w = w[0] + _BRITISH.sub("or", w[1:])  # colour, favourite -> color, favorite
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif (len(w) > 4 and w.endswith("ed")) or (len(w) > 3 and w.endswith("es") and w[-3] in "sxz"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]  # planned -> plann -> plan
    return w


def stems(text: str) -> set[str]:
    """The stems of ``text`` and of the words its short forms stand for ("pw": password)."""
    return {stem(w) for w in _WORD.findall(expanded(text))}


# A token mixing letters and digits ("Lantern88", "K8830215", "Grape!771") is a secret or a
# code, unless it is a count with its unit or an ordinal ("27in", "88mcg", "2nd", "7pm").
_MIXED = re.compile(r"(?<![\w])(?=[\w!#$%&*@^-]*\d)(?=[\w!#$%&*@^-]*[A-Za-z])[\w!#$%&*@^-]{5,}")
_MEASURE = re.compile(r"^\d+(?:[.,]\d+)?[a-z]{1,3}$|^[a-z]+-\d{4}$", re.I)
_AMOUNT = re.compile(
    r"[£$€₹¥]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp|inr|dollars|pounds|euros)\b", re.I
)


_IDENTIFIER_KINDS = {"key": "credential", "number": "phone", "email": "email"}


def kinds_by_shape(text: str) -> frozenset[str]:
    """The kinds ``text``'s values show by their shape: a secret, a phone number, an email
    address, an amount of money. "Spotify pw is Lantern88" holds a credential whatever its
    words; "Owe Tanvir £300" is about money."""
    kinds = {
        _IDENTIFIER_KINDS[i.kind] for i in find_identifiers(text) if i.kind in _IDENTIFIER_KINDS
    }
    if any(not _MEASURE.match(m[0]) for m in _MIXED.finditer(text)):
        kinds.add("credential")
    if _AMOUNT.search(text):
        kinds.add("bank")
    return frozenset(kinds)


@cache
def _by_stem() -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    for group, words in GROUPS.items():
        for word in words:
            table[stem(word)] = table.get(stem(word), frozenset()) | {group}
    return table


@cache
def _evidence_by_stem() -> dict[str, frozenset[str]]:
    table = dict(_by_stem())
    for group, words in EVIDENCE.items():
        for word in words:
            table[stem(word)] = table.get(stem(word), frozenset()) | {group}
    return table


def groups_of(word: str) -> frozenset[str]:
    """The kinds of fact ``word`` names ("works" -> work; "address" -> home)."""
    return _by_stem().get(stem(word), frozenset())


def evidence_of(word: str) -> frozenset[str]:
    """The kinds ``word`` shows a line to be about: its names and values ("coffee" -> drink)."""
    return _evidence_by_stem().get(stem(word), frozenset())


def kinds_shown(words: Iterable[str]) -> frozenset[str]:
    """The kinds of fact ``words`` show a text to be about ("allergy" -> health, diet)."""
    return frozenset(kind for word in words for kind in evidence_of(word))


@cache
def group_stems(groups: frozenset[str]) -> frozenset[str]:
    """Every stem that shows a line to be about one of ``groups``."""
    return frozenset(s for s, kinds in _evidence_by_stem().items() if kinds & groups)
