"""Whose fact is it? The holder of a state, decided from the cited line by code.

Small models attribute "my sister Asha is allergic to nuts" to the user most
of the time. The grammatical subject of the clause that carries the value
decides: first person on the user's own line is the user, on a line with a
named speaker ("Asha: I moved to Mumbai") that speaker; "my <relation>
<Name> ..." is that person; she/he/they carry over (anuvṛtti) to the last
*person* of their gender and number named before them, in this line or the
lines just before it, never to a place or a thing (``persons``). The model's
``about`` picks among the clauses and the people "they" stands for; an item
that says the user where the line is about someone else is refused, not
moved onto that person: the model misread the line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from orma_proxy.facts import USER
from orma_proxy.sleep import persons
from orma_proxy.text.names import NOT_NAMES, clean_name, names_in
from orma_proxy.text.stopwords import STOPWORDS

# A question about the person asked ("Which is your favourite?"), or about a thing it points at.
_ABOUT_YOU = re.compile(r"\b(?:you|your|yours|you're|you've)\b", re.I)
_POINTS_AT = re.compile(
    r"\b(?:the|that|this|those|these|it|its|it's|he|she|his|her|they|their|them)\b", re.I
)
_USER_WORDS = frozenset({"", USER, "i", "me", "myself", "the user"})

RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|son|daughter|friend|"
    "boss|manager|colleague|coworker|cousin|aunt|uncle|grandmother|grandma|grandfather|"
    "grandpa|roommate|flatmate|girlfriend|boyfriend|fiancee|fiance|neighbour|neighbor|"
    "niece|nephew|teacher|mentor|landlord|doctor|dentist"
)
_LEAD = re.compile(
    r"^(?:(?:and|but|so|also|then|now|actually|well|oh|btw|anyway|plus|today|yesterday|"
    r"recently|lately|currently)\b[\s,]*)+",
    re.IGNORECASE,
)
_RELATION_SUBJECT = re.compile(
    rf"^(?i:my|our)\s+(?i:(?:older|younger|little|big|elder|best|new|old)\s+)?"
    rf"(?P<rel>(?i:{RELATIONS}))(?:'s)?\b(?:,?\s+(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?"
    rf"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))?",
)
_COPULA = re.compile(r"^\s*(?:is|was|are|were|:|=)\s", re.I)
_LABEL = re.compile(r"^[\w ]{1,40}:\s*")
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|i'd|i'll|im|me|my|mine|we|we're|our)\b", re.I)
# "my parents" is first person, but the line is about them.
_MY_RELATION = re.compile(
    rf"\b(?:my|our)\s+(?:\w+\s+)?(?:{RELATIONS}|parents|kids|children|grandparents)\b", re.I
)
_FIRST_PERSON_ANYWHERE = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", re.I)
# "We had a blast at the fair": the speaker is one of "we".
_WE = re.compile(r"\b(?:we|we're|we've|we'd|we'll|us|our)\b", re.I)
_IMPERATIVE = re.compile(
    r"^(?:please\s+)?(?:never|don't|do not|dont|always|avoid|stop|no more|make sure)\b", re.I
)
_PRONOUN = re.compile(r"^(?:she|he|they|her|his|their|them|she's|he's|they're)\b", re.I)
# A capitalised first word is a name only when a verb follows ("Asha lives", "Ravi moved")...
_NAMED_SUBJECT = re.compile(
    r"^(?P<name>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'-]+)(?:'s\b|\s+(?:is|was|are|were|"
    r"has|had|does|did|will|can|\w+s|\w+ed)\b)"
)
# ...a verb of people, unless the lines before introduced the name as a person: "Mostly
# weddings" and "Cute name" are no one.
_PERSON_VERB = re.compile(
    r"(?:'s\b|\s+(?:is|was|are|were|has|had|does|did|will|would|can|could|lives|lived|works|"
    r"worked|moved|loves|loved|likes|liked|hates|hated|eats|drinks|teaches|taught|plays|wants|"
    r"needs|got|gets|went|goes|became|started|studies|studied|runs|ran|owns|uses|prefers|"
    r"said|says|thinks|knows|married|joined|left|quit)\b)"
)
# A clause that starts with its verb ("and avoids sugar") has the subject of the one before.
_ELLIPSIS = re.compile(r"^[a-z]+(?:s|ed)\b(?<!\bis)(?<!\bwas)(?<!\bhas)")
_STEM = 5
_MIN_WORD = 3
_CLAUSE_SPLIT = re.compile(r"[,;:]\s*|\s+\b(?:and|but|while|whereas|because)\b\s+", re.I)


@dataclass(frozen=True)
class Holder:
    """The entity a fact is about, and how that was decided (for reports and tests)."""

    name: str
    how: str

    @property
    def is_user(self) -> bool:
        return self.name == USER


def clauses_with(line: str, value: str) -> list[tuple[str, str]]:
    """Each clause of ``line`` that holds ``value``, with the text before it.

    A value the line words otherwise ("history teacher" for "he teaches
    history") is in the clauses sharing most of its words.
    """
    lowered, needle = line.lower(), value.lower().strip()
    found: list[tuple[str, str]] = []
    at = lowered.find(needle) if needle else -1
    while at >= 0:
        start = _clause_start(line, at)
        if (line[start:], line[:start]) not in found:
            found.append((line[start:], line[:start]))
        at = lowered.find(needle, at + 1)
    if found:
        return found
    starts = [0, *(m.end() for m in _CLAUSE_SPLIT.finditer(line))]
    ends = [*starts[1:], len(line)]
    shared = [len(_stems(value) & _stems(line[s:e])) for s, e in zip(starts, ends, strict=True)]
    best = max(shared)
    if not best:
        return [(line, "")]
    return [(line[s:], line[:s]) for s, n in zip(starts, shared, strict=True) if n == best]


def _clause_start(line: str, at: int) -> int:
    start = 0
    for m in _CLAUSE_SPLIT.finditer(line):
        if m.end() <= at:
            start = m.end()
    return start


def _stems(text: str) -> set[str]:
    """Word stems, crudely: 'teacher' and 'teaches' share 'teach'."""
    words = re.findall(r"[a-z]+", text.lower())
    return {w[:_STEM] for w in words if len(w) >= _MIN_WORD and w not in STOPWORDS}


def resolve_holder(
    line: str,
    value: str,
    claimed: str,
    preceding: Sequence[str],
    *,
    user_name: str | None = None,
    speaker: str | None = None,
) -> Holder | str:
    """The holder of ``value`` as said in ``line``, or the reason it cannot be told.

    ``claimed`` is the model's ``about``; ``preceding`` are earlier lines, oldest
    first; ``user_name`` maps the user's own name back to the user; ``speaker``
    is who said the line when it names them ("Asha: ..."), its "I" and "my".
    """
    claimed = claimed.strip()
    if user_name and claimed.lower() == user_name.lower():
        claimed = USER
    wanted = USER if claimed.lower() in _USER_WORDS else claimed.lower()
    me = _speaker(speaker, user_name)
    decisions = [
        _decide(line, clause, before, value, claimed, preceding, me)
        for clause, before in clauses_with(line, value)
    ]
    holders = [d for d in decisions if isinstance(d, Holder)]
    if not holders:
        return decisions[0]
    holder = next((h for h in holders if h.name.lower() == wanted), holders[0])
    if user_name and holder.name.lower() == user_name.lower():
        return Holder(USER, holder.how + " (the user's own name)")
    if wanted == USER and not holder.is_user:
        # The model read someone else's fact as the user's: it misread the line.
        return f"about {holder.name} ({holder.how}), not the user"
    return holder


def _speaker(speaker: str | None, user_name: str | None) -> str:
    """Whose "I" a line's is: the user's, unless it names another speaker."""
    if not speaker or (user_name and speaker.strip().lower() == user_name.lower()):
        return USER
    return clean_name(speaker)


def _decide(
    line: str,
    clause: str,
    before: str,
    value: str,
    claimed: str,
    preceding: Sequence[str],
    me: str = USER,
) -> Holder | str:
    subject = _LEAD.sub("", clause.strip())
    relation = _RELATION_SUBJECT.match(subject)
    whose = "the user's" if me == USER else f"{me}'s"
    if relation:
        rel, name = relation["rel"].lower(), relation["name"]
        said_of = value.lower()
        rest = subject[relation.end() :]
        copula = None if name else _COPULA.match(rest)
        names_value = copula and rest[copula.end() :].lower().startswith(said_of.strip())
        if rel in said_of or (name and name.lower() in said_of) or names_value:
            return Holder(me, f"'my {rel} is ...' names {whose} {rel}")
        if name and name.split()[-1].lower() not in NOT_NAMES:
            return Holder(clean_name(name), f"subject 'my {rel} {name}'")
        return Holder(f"{me}'s {rel}", f"subject 'my {rel}'")
    if _FIRST_PERSON.match(subject):
        return Holder(me, "first person" if me == USER else f"first person, said by {me}")
    if _IMPERATIVE.match(subject):
        return Holder(me, "a rule the user sets" if me == USER else f"a rule {me} sets")
    if _PRONOUN.match(subject):
        return _carried(subject.split()[0], before, claimed, preceding)
    named = _NAMED_SUBJECT.match(subject)
    if (
        named
        and named["name"].split()[-1].lower() not in NOT_NAMES
        and named["name"].lower() not in value.lower()
        and (_PERSON_VERB.match(subject, named.end("name")) or _a_person(named["name"], preceding))
    ):
        return Holder(clean_name(named["name"]), "named subject")
    if _ELLIPSIS.match(subject) and before.strip():
        # "she walks every evening and avoids sugar": the clause shares the subject before it.
        start = _clause_start(before, len(before.rstrip()))
        return _decide(line, before[start:], before[:start], value, claimed, preceding, me)
    if me != USER and claimed.lower() in (*_USER_WORDS, me.lower()):
        return Holder(me, f"said by {me}")
    return _fallback(line, value, claimed, preceding)


def _a_person(name: str, preceding: Sequence[str]) -> bool:
    """Whether the lines before introduce ``name`` as a person ('my roommate Kiri')."""
    wanted = clean_name(name).lower()
    return any(p.name.lower() == wanted for text in preceding for p in persons.people_in(text))


def _carried(word: str, before: str, claimed: str, preceding: Sequence[str]) -> Holder | str:
    """The person a pronoun subject stands for (anuvṛtti): never a place or a thing."""
    person = persons.antecedent(word, before, preceding)
    if person is None:
        return f"'{word}' refers to nobody named before it"
    how = f"'{word}' carried to {person.name}"
    if person.kind != "group":
        return Holder(person.name, how)
    member = next((m for m in person.members if m.lower() == claimed.lower()), None)
    if member is None:  # "they" are two people: the item must say which
        return f"'{word}' is {person.name}, and the item names neither"
    return Holder(member, how)


def _fallback(line: str, value: str, claimed: str, preceding: Sequence[str]) -> Holder | str:
    """No clear subject ("Dentist: Dr. Rao"): believe the model only where the text agrees."""
    if claimed.lower() in _USER_WORDS:
        # People, not capitalised words: "In Antwerp, near the zoo." names nobody.
        before = [p for text in preceding for p in persons.people_in(text)]
        mentioned = persons.people_in(_LABEL.sub("", line), before)
        others = [p.name for p in mentioned if p.name.lower() not in value.lower()]
        if _FIRST_PERSON_ANYWHERE.search(_MY_RELATION.sub(" ", line)) or not others:
            return Holder(USER, "the user's own line")
        return f"the line names {others[0]}, not the user"
    wanted = claimed.lower().removeprefix("my ").removeprefix(f"{USER}'s ")
    if re.fullmatch(RELATIONS, wanted) and re.search(rf"\b(?:my|our)\s+{wanted}\b", line, re.I):
        # "My dad cooks for her, low-carb stuff": the item names the relation the line says.
        return Holder(f"{USER}'s {wanted}", f"'my {wanted}' in the line")
    for text in (line, *reversed(preceding)):
        for name in names_in(text):
            if name.lower() == wanted or name.lower().split()[-1] == wanted.split()[-1]:
                return Holder(name, "named in the text")
    return f"{claimed!r} is not named in the line or before it"


def asks_about_else(question: str) -> bool:
    """Whether ``question`` asks about a thing it points at, not the person asked.

    A reply with no subject of its own is about what it answers: after "What's
    the error?", "A KeyError on user_id." is the bug's, not a fact of the
    user's; after "Which one is your favourite?", "Any favourite authors?" or
    a bare "Where?", the reply is the user's.
    """
    text = question.strip()
    return text.endswith("?") and not _ABOUT_YOU.search(text) and bool(_POINTS_AT.search(text))


def resolve_people(
    line: str,
    who: Sequence[str],
    preceding: Sequence[str],
    *,
    user_name: str | None,
    speaker: str | None = None,
) -> list[str]:
    """The participants of an event that the text supports (others are dropped)."""
    me = _speaker(speaker, user_name)
    people: list[str] = []
    for raw in who:
        person = raw.strip()
        lowered = person.lower()
        if lowered == me.lower():
            resolved: str | None = me
        elif lowered in _USER_WORDS or (user_name and lowered == user_name.lower()):
            resolved = USER if me == USER else None  # "I" on Asha's line is not the user
        elif _PRONOUN.match(person):
            carried = persons.antecedent(person.split()[0], line, preceding)
            if carried is not None and carried.kind == "group":
                people += [m for m in carried.members if m not in people]
                continue
            resolved = carried.name if carried is not None else None
        else:
            texts = (line, *preceding)
            resolved = clean_name(person) if any(lowered in t.lower() for t in texts) else None
        if resolved and resolved not in people:
            people.append(resolved)
    if (_FIRST_PERSON_ANYWHERE.search(line) or _WE.search(line)) and me not in people:
        people.insert(0, me)
    return people
