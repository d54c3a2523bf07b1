"""Who a clause is about, for the rule extractor: I, my sister Asha, she, Leela.

The rules read a predicate after its subject ("lives in Bergen"), so one
pattern serves everyone; this module finds the subjects. "I" and "we" are
the user; "my sister Asha" is Asha and "my mom" the user's mom (named by
``persons``' convention); "she" and "he" carry over to the last person of
their gender said before them (``persons.antecedent``: never a place);
a capitalised name that opens a clause is that person when the text shows
it is a name (capitalised where no sentence starts, or introduced as a
person: "Art helps us" and "Meal times are fun" open with no one); "they"
after two people joined by "and" is each of them. Contractions are spelt out first
("she's" -> "she is"), so the patterns need one form of each verb.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from orma_proxy.facts import USER
from orma_proxy.sleep import holder, persons
from orma_proxy.sleep.rule_patterns import RELATION_NAMED
from orma_proxy.text import NOT_NAMES

__all__ = ["Subject", "spelt_out", "subjects_in"]

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
_CONTRACTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), repl)
    for pattern, repl in (
        (r"\bI'm\b", "I am"),
        (r"\bcan't\b", "cannot"),
        (r"\bwon't\b", "will not"),
        (r"\b(\w+)n't\b", r"\1 not"),
        (r"\b(\w+)'re\b", r"\1 are"),
        (r"\b(\w+)'ve\b", r"\1 have"),
        (r"\b(\w+)'ll\b", r"\1 will"),
        (r"\b(I|you|he|she|we|they)'d\b", r"\1 would"),
        (r"\b(he|she|it|that|there|what|who|where|here)'s\s+been\b", r"\1 has been"),
        (r"\b(he|she|it|that|there|what|who|where|here)'s\b", r"\1 is"),
    )
)
# Where a clause begins, and words that may open it before its subject.
_CLAUSE = re.compile(
    r"[,;:]\s*|[.!?]\s+|\s+(?:and|but|so|then|while|because|though|whereas|although)\s+", re.I
)
_OPENING = re.compile(
    r"^(?:(?:and|but|so|also|now|well|yes|no|actually|then|oh|ok|okay|btw|anyway|plus|"
    r"today|yesterday|recently|lately|currently|still)\b[\s,]*)*"
)
_PRONOUN = re.compile(r"(?<![\w'])(?P<word>I|[Ww]e|[Ss]he|[Hh]e|[Tt]hey)\b(?!')")
_RELATION = re.compile(
    r"(?i:my|our)\s+(?:(?i:older|younger|little|big|elder|best|eldest|youngest|twin)\s+)?"
    rf"(?P<rel>(?i:{holder.RELATIONS}|parents|kids|children|grandparents))\b(?!\s+(?i:is|are|was)\s+[A-Z])"
)
# "and avoids sugar", "but grew up in Delhi": a clause that opens with its verb.
_ELLIPSIS = re.compile(
    r"\s(?:and|but)\s+(?:also\s+|then\s+|now\s+)?(?=(?!(?:i|we|he|she|they|it|my|our|his|her|"
    r"their|the|a|an|this|that|there|then|so|not|no)\b)[a-z]+(?:s|ed)?\b\s+(?:up\s+)?"
    r"(?:in|to|at|from|for|as|a|an|the|my|[a-z]+)\b)"
)
_NAME = re.compile(r"(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z][\w'-]*)(?=\s+[a-z])")


@dataclass(frozen=True)
class Subject:
    """A clause's subject: who it is (``about``), the words before it, the text after it."""

    about: str
    lead: str
    rest: str
    start: int  # where the subject's clause starts in the text


def spelt_out(text: str) -> str:
    """``"She's at Infosys, I'm not"`` -> ``"She is at Infosys, I am not"``."""
    text = text.translate(_APOSTROPHES)
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text


def _clause_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _CLAUSE.finditer(text))]


def subjects_in(text: str, preceding: Sequence[str]) -> list[Subject]:
    """The subjects of ``text``'s clauses, in order (``preceding``: the lines before)."""
    found: dict[float, Subject] = {}
    starts = _clause_starts(text)
    for m in _PRONOUN.finditer(text):
        word = m["word"]
        clause = max(s for s in starts if s <= m.start())
        lead = text[clause : m.start()]
        if word.lower() in ("i", "we"):
            found[m.start()] = Subject(USER, lead, text[m.end() :], clause)
            continue
        person = persons.antecedent(word, text[: m.start()], preceding)
        if person is None:
            continue
        # "They live in Chennai", after "Leela and her husband Arjun": each of them.
        members = person.members if person.kind == "group" else (person.name,)
        for n, member in enumerate(members):
            found[m.start() + n / 10] = Subject(member, lead, text[m.end() :], clause)
    for start in starts:
        at = start + _OPENING.match(text[start:]).end()  # type: ignore[union-attr]
        if at in found or any(start <= k < _clause_end(text, start) for k in found):
            continue
        named = RELATION_NAMED.match(text, at)
        if named:
            name = named["name"].removesuffix("'s")
            if name.split()[-1].lower() not in NOT_NAMES:
                found[at] = Subject(name, "", text[named.end() :], start)
                continue
        relation = _RELATION.match(text, at)
        if relation:
            about = f"{USER}'s {relation['rel'].lower()}"
            found[at] = Subject(about, "", text[relation.end() :], start)
            continue
        bare = _NAME.match(text, at)
        if (
            bare
            and bare["name"].split()[-1].lower() not in NOT_NAMES
            and _a_name(bare["name"], (*preceding, text))
        ):
            found[at] = Subject(bare["name"], "", text[bare.end() :], start)
    for m in _ELLIPSIS.finditer(text):
        # "I was born in Jaipur but grew up in Delhi": the clause shares the subject before it.
        earlier = [k for k in found if k < m.start()]
        if earlier and m.end() not in found:
            last = found[max(earlier)]
            found[m.end()] = Subject(last.about, "", " " + text[m.end() :], m.end())
    return [found[k] for k in sorted(found)]


def _a_name(word: str, texts: Sequence[str]) -> bool:
    """Whether ``word`` is a name in ``texts``: a person introduced, or capitalised mid-sentence.

    A sentence's first word is capitalised whatever it is; a name is capitalised
    wherever it stands ("Thanks, Leela", "I met Ravi").
    """
    bare = word.split()[-1]
    mid = re.compile(rf"(?<![.!?:\s])\s+{re.escape(bare)}\b|[,;]\s+{re.escape(bare)}\b")
    for text in texts:
        if mid.search(text) or any(bare in p.name.split() for p in persons.people_in(text)):
            return True
    return False


def _clause_end(text: str, start: int) -> int:
    m = _CLAUSE.search(text, start + 1)
    return m.start() if m else len(text)
