"""Attribute and entity names: normalised, then merged with the names a space already has.

A small model calls the same slot ``home_city`` one night and
``city_of_residence`` the next; unmerged, the second would never supersede the
first. Names are made snake_case, common synonyms map to one canonical name
(embedding similarity alone cannot tell "home city" from "work city" with a
small embedder), and what is left is merged with an existing name whose
embedding is closer than the configured threshold.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

import numpy as np

from orma_proxy.embed.base import Vectors
from orma_proxy.facts import FORBIDDEN_PREFIX

EmbedTexts = Callable[[list[str]], Awaitable[Vectors]]

MAX_ATTRIBUTE_CHARS = 48
_FORBIDDEN_WORDS = 3  # words of a rule kept in its forbidden_<name>

_NON_WORD = re.compile(r"[^0-9a-z]+")
_DROP_PREFIXES = ("user_", "users_", "my_", "the_", "current_", "is_", "has_")
_RULE_PREFIXES = ("forbidden_", "avoid_", "never_", "no_", "dont_", "do_not_", "not_")
_RULE_FILLER = frozenset("a an the to of with in on for and or any ever use using".split())  # noqa: SIM905
# Slot names that say nothing of what the value is ("state: Pune", "info: Pune"): the line decides.
VAGUE_ATTRIBUTES = frozenset(
    {"state", "status", "info", "fact", "detail", "update", "news", "note", "other", "data"}
)
# Canonical slot names for synonyms small models keep producing.
ALIASES = {
    "city_of_residence": "home_city", "residence": "home_city", "current_city": "home_city",
    "city": "home_city", "location": "home_city", "lives_in": "home_city", "home": "home_city",
    "living_in": "home_city", "place_of_residence": "home_city", "resides_in": "home_city",
    "home_town": "hometown", "occupation": "job_title", "job": "job_title",
    "profession": "job_title", "role": "job_title", "position": "job_title",
    "works_as": "job_title", "work_as": "job_title", "title": "job_title",
    "company": "employer", "workplace": "employer", "works_at": "employer",
    "work_at": "employer", "works_for": "employer", "employer_name": "employer",
    "allergic_to": "allergy", "allergies": "allergy", "first_name": "name",
    "full_name": "name", "username": "name", "preference": "prefers", "preferences": "prefers",
    "prefer": "prefers", "likes_to": "likes", "like": "likes", "number": "phone_number",
    "phone": "phone_number", "mobile": "phone_number", "mobile_number": "phone_number",
    "cell_number": "phone_number", "contact_number": "phone_number",
    "telephone_number": "phone_number",
}  # fmt: skip


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def normalise_attribute(raw: str) -> str:
    """``"City of Residence"`` -> ``home_city``; ``"My favourite colours"`` -> ``favourite_colour``.

    Prefixes that say nothing (user_, my_, current_) go; the last word is singular.
    """
    name = _NON_WORD.sub("_", raw.lower()).strip("_")
    changed = True
    while changed:
        changed = False
        for prefix in _DROP_PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix):
                name, changed = name[len(prefix) :], True
    name = ALIASES.get(name, name)
    parts = name.split("_")
    parts[-1] = _singular(parts[-1])
    name = ALIASES.get("_".join(parts), "_".join(parts))
    return name[:MAX_ATTRIBUTE_CHARS].strip("_")


def forbidden_attribute(raw_attribute: str, rule: str) -> str:
    """``forbidden_<name>``: from the attribute if it says something, else the rule's words."""
    name = _NON_WORD.sub("_", raw_attribute.lower()).strip("_")
    for prefix in _RULE_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
    if name in ("", "rule", "forbidden", "prohibited", "prohibition", "constraint", "never"):
        words = [w for w in _NON_WORD.split(rule.lower()) if w and w not in _RULE_FILLER]
        words = [w for w in words if w not in ("never", "don", "t", "dont", "not", "do")]
        name = "_".join(words[:_FORBIDDEN_WORDS]) or "rule"
    return (FORBIDDEN_PREFIX + name)[:MAX_ATTRIBUTE_CHARS].strip("_")


def normalise_value(raw: str) -> str:
    """Whitespace collapsed, surrounding quotes and end punctuation dropped.

    A quote the value opens keeps its close: 'watch "Elf"' is a title, not 'watch "Elf'.
    """
    value = " ".join(raw.split()).strip(" \"'.,;:!")
    return f'{value}"' if value.count('"') % 2 else value


def value_key(value: str) -> str:
    """Comparison key: 'Black coffee.' and 'black coffee' are the same value."""
    words = [w for w in _NON_WORD.split(value.lower()) if w and w not in ("a", "an", "the")]
    return " ".join(words)


def entity_key(name: str) -> str:
    return " ".join(name.lower().split())


class NameMerger:
    """Maps new names onto a space's existing ones, by exact key or embedding similarity.

    One merger serves one batch: it is seeded with the space's names and learns
    the names the batch adds, so two synonyms in one batch merge too.
    """

    def __init__(self, embed: EmbedTexts, known: list[str], threshold: float) -> None:
        self._embed = embed
        self._threshold = threshold
        self._known: list[str] = list(dict.fromkeys(known))
        self._vectors: Vectors | None = None
        self._memo: dict[str, str] = {}

    async def merge(self, name: str, *, key: Callable[[str], str] = entity_key) -> str:
        """The existing name ``name`` stands for, or ``name`` itself (then remembered)."""
        if name in self._memo:
            return self._memo[name]
        wanted = key(name)
        for known in self._known:
            if key(known) == wanted:
                self._memo[name] = known
                return known
        chosen = name
        if self._known:
            if self._vectors is None or len(self._vectors) != len(self._known):
                self._vectors = await self._embed([_readable(k) for k in self._known])
            query = (await self._embed([_readable(name)]))[0]
            sims = self._vectors @ query
            best = int(np.argmax(sims))
            if float(sims[best]) >= self._threshold:
                chosen = self._known[best]
        if chosen == name:
            self._known.append(name)
            self._vectors = None
        self._memo[name] = chosen
        return chosen


def _readable(name: str) -> str:
    return name.replace("_", " ")
