"""Consolidation without an LLM: common personal facts, found by rules.

When no upstream is configured or it cannot be reached (or its answer yields
nothing verified), sleep still turns what people commonly say about themselves
and the people around them into states and events: "I live in Pune", "I work
at Flipkart as a data engineer", "I'm vegetarian", "my sister Asha is allergic
to peanuts" (about Asha, and "she" after it), "every morning I drink black
coffee", "when I have a sore throat, I drink ginger tea instead" (a condition
beside the habit), "never chain commands with semicolons" (a rule), "actually
it's 14 May" (a correction of the value just said) and "my manager gave me a
Swiss knife yesterday" (an event of that day). Lines that assert nothing (a
question, a guess, a hypothetical, reported speech, a wish: ``text.moods``)
give nothing, and a value the clause denies ("I don't live in Pune") is no
fact. The rules emit the same ``Extraction`` the model would, so the same
verification and apply steps run after them: a rule is a proposer, not an
authority.

They abstain where a careful reader would write nothing (precision first: a
wrong fact costs more than a missing one). An imperative is an instruction
only when the user gives it to the assistant and says it stands ("always",
"never", "from now on", "whenever"): "Keep answers short" asks once, and
"Keep it up!" or "Don't give up!" on a named speaker's line is said to the
other person, a fact about neither. A value is a whole phrase: an address
with its dots, a name without its possessive, a clause not cut at an "and"
inside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from orma_proxy.sleep import clock, holder, persons
from orma_proxy.sleep.batch import Batch, Line
from orma_proxy.sleep.extract import Extraction, RawState
from orma_proxy.sleep.names import normalise_attribute
from orma_proxy.sleep.rule_events import events_in
from orma_proxy.sleep.rule_habits import advises, habits_in
from orma_proxy.sleep.rule_patterns import (
    CLAUSE_END,
    NUMBER,
    OCCUPATION,
    PLACE,
    PREDICATES,
    VALUE,
)
from orma_proxy.sleep.subjects import Subject, spelt_out, subjects_in
from orma_proxy.sleep.verify import content_words
from orma_proxy.text import encourages, said_rule, standing, unasserted, unresolved

__all__ = ["extract_by_rules"]

_NAME = r"(?P<value>[A-Z][a-z][\w'-]*)"
_NAMING = re.compile(rf"\b(?i:my name is|call me|i am)\s+{_NAME}(?=\s*(?:[,.!?]|\band\b|$))")
# "I'm Noor, a graphic designer from Lahore": what the name is said with.
_APPOSITION = re.compile(
    rf"\b(?i:my name is|i am)\s+[A-Z][a-z][\w'-]*,\s+(?i:an?)\s+(?P<title>{OCCUPATION})"
    rf"(?:\s+(?i:from)\s+(?P<place>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))?"
)
_HOME_IS = re.compile(rf"\b(?i:my\s+(?:new\s+)?home\s+is(?:\s+now)?\s+in)\s+{PLACE}")
_MY_X_IS = re.compile(
    rf"\b(?P<owner>my|her|his)\s+(?:new\s+|current\s+)?(?P<attr>[a-z][a-z ]{{1,30}}?)\s+"
    rf"(?:is|are)\s+(?:on\s+)?{VALUE}{CLAUSE_END}",
    re.IGNORECASE,
)
# "my daughter Asha's birthday is 3 March": a slot of the person named, possessive resolved.
_NAMED_X_IS = re.compile(
    rf"(?:\b(?i:my|our)\s+(?:[a-z]+\s+)?(?i:{holder.RELATIONS})\s+)?(?P<name>[A-Z][a-z][\w-]*)"
    rf"['\u2019]s\s+(?P<attr>[a-z][a-z ]{{1,30}}?)\s+(?:is|are)\s+(?:on\s+)?{VALUE}{CLAUSE_END}"
)
# What may stand before "my X is" in its clause: the slot's owner must be the clause's subject
# ("diversity in my art is important" says nothing of the art's).
_CLAUSE_OPENING = re.compile(
    r"(?:^|[,;:.!?]\s*|\s(?:and|but|so|because)\s+)(?:(?:and|but|so|also|now|well|oh|yes|"
    r"actually|btw|anyway|plus)\b[\s,]*)*$",
    re.I,
)
# A slot's value names something ("Dr. Rao", "14 May", "to open a bakery"); a judgement ("key",
# "important to me", "the main focus"), a likeness ("like a second family"), a progressive
# ("going well") or an adverb ("always there for me") is how the speaker feels about it.
_NOT_A_VALUE = re.compile(
    r"^(?:like|as|so|very|really|always|never|still|just|quite|pretty|super|too|also|such|"
    r"key|important|crucial|essential|vital|everything|awesome|amazing|great|good|bad|"
    r"the\s+(?:most|best|main|key|biggest|worst)|(?:going|doing|getting|feeling|coming|paying|"
    r"looking|starting|taking|growing)\b|[a-z]+ing\s+(?:well|off|up|out|great|better|fine|"
    r"strong|smoothly|badly))\b|\b(?:me|myself|us)\b",
    re.I,
)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
# "my X is Y" where X is a relation with a name ("my sister Asha is ...") is not a slot.
_NOT_SLOTS = frozenset({"name", "favourite", "favorite", "plan", "idea", "question", "guess"})
_MAX_SLOT_WORDS = 3
# A standing instruction: "Always give me temperatures in Celsius", "Use rebase instead of merge".
_ALWAYS = re.compile(
    r"^(?:(?:and|also|so|please|from now on|going forward)\b[\s,]*)*always\s+(?P<value>\w.*?)"
    r"[\s.!]*$",
    re.I,
)
_IMPERATIVE = re.compile(
    r"^(?:(?:and|also|so|please|from now on|going forward|in future)\b[\s,]*)*"
    r"(?P<value>(?:use|keep|write|answer|reply|respond|format|speak|stick|put)\b.*?)[\s.!]*$",
    re.I,
)
_UNLESS_TAIL = re.compile(r"\s+unless\s+(?P<cond>[^,;.!?]+)$", re.I)
# A correction: the value said just before, said again right ("Sorry, it's 14 May").
_CORRECTING = re.compile(
    r"\b(?:actually|sorry|oops|correction|wait|mistyped|typo|i meant|i mean|rather)\b", re.I
)
_CORRECTED = re.compile(
    r"(?:^|[,.;]\s*|\b(?:actually|no)\s+)(?:it\s+is|i\s+meant|i\s+mean|make\s+that)\s+"
    r"(?P<value>[^,;.!?]+?)(?:\s+now)?(?=\s*(?:[,;.!?]|$))",
    re.I,
)
# "I have two kids." ... "Wait, three kids": a count said again, right (its noun, if any).
_COUNT = re.compile(rf"\b(?P<n>{NUMBER})\b(?:\s+(?P<noun>[a-z]{{3,}}))?", re.I)
_CORRECTION_LINES = 3  # how far back the count corrected may have been said
_MONTH = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{1,2}(?:st|nd|rd|th)?\b",
    re.I,
)
_TRAILING = re.compile(
    r"(?:\s+(?:there|here|now|too|as\s+well|though|anyway|instead|anymore|any\s+more))+$", re.I
)
# "I don't live in Pune anymore", "I'm no longer vegetarian": the fact has ended.
_NO_LONGER = re.compile(
    r"^(?P<be>\s+(?:am|is|are))?(?:\s+(?:do|does))?\s+(?:not|(?P<longer>no\s+longer))\b", re.I
)
_ANYMORE = re.compile(r"\b(?:anymore|any\s+more)\b", re.I)
# "My art is about ...", "My family is my motivation": what a thing is about or is to its
# holder, said of it; no value the attribute holds.
_NO_VALUE = re.compile(r"^(?:about|my|our|his|her|their)\b", re.I)
_PRONOUN_VALUE = frozenset({"it", "that", "this", "them", "those", "these", "him", "her"})


def _trim(value: str) -> str:
    """The value without a trailing time phrase ('Bangalore last week' -> 'Bangalore')."""
    value = value.strip()
    phrase = clock.find_date_phrase(value)
    if phrase and value.lower().find(phrase.lower()) > 0:  # a date alone is the value
        value = value[: value.lower().find(phrase.lower())].strip()
    return _TRAILING.sub("", value).strip(" ,;")


def _state(
    line: Line, about: str, attribute: str, value: str, *, ended: bool = False, condition: str = ""
) -> RawState | None:
    """The state, unless its value is no whole phrase of its own.

    A value that speaks of "you" is the listener's, not the holder's, unless it is
    an instruction to the assistant (``_instructions``: "always tell me when you
    are unsure").
    """
    value = _trim(value)
    if not value or value.lower() in _PRONOUN_VALUE or unresolved(value) or _NO_VALUE.match(value):
        return None  # "my plan is to go there": where, the value does not say
    if attribute != "prefers" and _SECOND_PERSON.search(f"{value} {condition}"):
        return None
    return RawState(
        line=line.number, about=about, attribute=attribute, value=value, ended=ended,
        condition=condition,
    )  # fmt: skip


def _predicates(line: Line, subject: Subject) -> Iterator[RawState]:
    """The facts said after ``subject``; "no longer ..." and "not ... anymore" end them.

    Any other denial ("I don't live in Pune") matches no pattern: they start at the verb.
    """
    rest, ended = subject.rest, False
    no_longer = _NO_LONGER.match(rest)
    if no_longer and (no_longer["longer"] or _ANYMORE.search(rest)):
        rest, ended = (no_longer["be"] or "") + rest[no_longer.end() :], True
    for predicate in PREDICATES:
        if predicate.first_person and subject.about != "user":
            continue
        m = predicate.pattern.match(rest)
        if m is None:
            continue
        values = [m["value"]]
        if predicate.attribute == "language":
            values = re.split(r",\s*|\s+and\s+", m["value"])
        groups = m.groupdict()
        named = [(predicate.attribute, v) for v in values]
        named += [(a, groups.get(g)) for a, g in (("job_title", "title"), ("employer", "org"))]
        for attribute, value in named:
            said = _state(
                line, subject.about, attribute, value or "", ended=predicate.ended or ended
            )
            if said:
                yield said


def _owned_slots(line: Line, text: str, preceding: Sequence[str]) -> Iterator[RawState]:
    """ "my dentist is Dr. Rao", "her teacher is Ms. Kapoor": a slot of the owner's."""
    yield from _named_slots(line, text, preceding)
    for m in _MY_X_IS.finditer(text):
        attribute, value = m["attr"].strip().lower(), m["value"]
        if not _CLAUSE_OPENING.search(text[: m.start()]) or _NOT_A_VALUE.search(value):
            continue
        words = attribute.split()
        if (len(words) > 1 and re.fullmatch(holder.RELATIONS, words[0])) or attribute in _NOT_SLOTS:
            continue  # "my sister Asha is ...": a person, not a slot
        if len(words) > _MAX_SLOT_WORDS or normalise_attribute(attribute) == "name":
            continue
        about = "user"
        if m["owner"].lower() != "my":
            person = persons.antecedent(m["owner"], text[: m.start()], preceding)
            if person is None or person.kind == "group":
                continue
            about = person.name
        found = _state(line, about, attribute, value)
        if found:
            yield found


def _named_slots(line: Line, text: str, preceding: Sequence[str]) -> Iterator[RawState]:
    """ "My daughter Asha's birthday is 3 March": Asha's, when Asha is someone the text names."""
    known = {p.name for t in (*preceding, text) for p in persons.people_in(t)}
    for m in _NAMED_X_IS.finditer(text):
        attribute, value = m["attr"].strip().lower(), m["value"]
        if not _CLAUSE_OPENING.search(text[: m.start()]) or _NOT_A_VALUE.search(value):
            continue
        if m["name"] not in known or len(attribute.split()) > _MAX_SLOT_WORDS:
            continue
        found = _state(line, m["name"], attribute, value)
        if found:
            yield found


def _instructions(line: Line, text: str) -> Iterator[RawState]:
    """A standing instruction that forbids nothing: what the user prefers, always.

    "Use rebase instead of merge" asks for one thing; "Always use rebase",
    "From now on, use rebase" and "Keep answers short unless I ask for detail"
    (an exception presupposes the rule) set how it is done.
    """
    if said_rule(text) or line.speaker or encourages(text):
        return  # "Chin up, never give up on the shop!": cheering on, no instruction
    holds = standing(text) or _UNLESS_TAIL.search(text.rstrip(" .!")) is not None
    m = _ALWAYS.match(text) or (_IMPERATIVE.match(text) if holds else None)
    if m is None:
        return
    value, condition = m["value"], ""
    if value.split()[0].lower().endswith("ing"):
        return  # "Always staying calm.": no verb said to anyone, a fragment
    unless = _UNLESS_TAIL.search(value)
    if unless:
        value, condition = value[: unless.start()], f"unless {unless['cond'].strip()}"
    found = _state(line, "user", "prefers", value, condition=condition)
    if found:
        yield found


def _shape(value: str) -> str:
    if _MONTH.search(value) and re.search(r"\d", value):
        return "date"
    if re.fullmatch(OCCUPATION, value.lower()):
        return "occupation"
    if value[:1].isupper():
        return "name"
    return "other"


def _correction(line: Line, text: str, before: str, earlier: Sequence[RawState]) -> RawState | None:
    """ "Sorry, I mistyped. It's 14 May.": the latest value of the same kind, said right."""
    if not (_CORRECTING.search(text) or _CORRECTING.search(before)):
        return None
    m = _CORRECTED.search(spelt_out(text))
    if m is None:
        return None
    value = _trim(m["value"])
    shape = _shape(value)
    for state in reversed(earlier):
        if state.about == "user" and not state.ended and _shape(state.value) == shape:
            if shape == "occupation" and state.attribute != "job_title":
                continue
            return _state(line, "user", state.attribute, value)
    return None


def _count_correction(
    line: Line, text: str, preceding: Sequence[str], earlier: Sequence[RawState]
) -> RawState | None:
    """ "I have two kids." then "Wait, three kids!": the user's count just said, made right.

    The number said before with the same noun (any number when the correction
    names none: "Actually, 4.") is the value of a state of the user's; the new
    number replaces it in that slot.
    """
    if not _CORRECTING.search(text):
        return None
    for m in _COUNT.finditer(text):
        noun = rf"\s+{re.escape(m['noun'])}\b" if m["noun"] else r"\b"
        said = re.compile(rf"\b(?P<n>{NUMBER}){noun}", re.I)
        for before in reversed(preceding[-_CORRECTION_LINES:]):
            old = said.search(before)
            if old is None or content_words(old["n"]) == content_words(m["n"]):
                continue
            for state in reversed(earlier):
                same = content_words(state.value) == content_words(old["n"])
                if state.about == "user" and not state.ended and same:
                    return _state(line, "user", state.attribute, m["n"])
            return None
    return None


def _read_line(
    line: Line, preceding: Sequence[str], following: str, earlier: Sequence[RawState]
) -> Extraction:
    result = Extraction()
    text = line.text
    # Split into what is forbidden and the alternative by verification; a named speaker's
    # "Don't give up!" is said to someone else, no rule of anyone's.
    rule = None if line.speaker else said_rule(text)
    if rule:
        result.states.append(
            RawState(line=line.number, about="user", attribute="rule", value=rule, prohibited=True)
        )
    spelt = spelt_out(text)
    for m in _NAMING.finditer(spelt):
        result.user_name = m["value"]
    for m in _APPOSITION.finditer(spelt):
        for attribute, value in (("job_title", m["title"]), ("hometown", m["place"])):
            found = _state(line, "user", attribute, value) if value else None
            if found:
                result.states.append(found)
    for subject in subjects_in(spelt, preceding):
        # "Never suggest taxis, I prefer the metro": the metro is the rule's alternative.
        result.states.extend(
            s for s in _predicates(line, subject) if not rule or s.attribute != "prefers"
        )
    for m in _HOME_IS.finditer(spelt):
        found = _state(line, "user", "home_city", m["value"])
        if found:
            result.states.append(found)
    result.states.extend(habits_in(line, spelt, preceding, [*earlier, *result.states]))
    slots = {normalise_attribute(s.attribute) for s in result.states}
    result.states.extend(
        s for s in _owned_slots(line, text, preceding) if normalise_attribute(s.attribute)
        not in slots
    )  # fmt: skip
    result.states.extend(_instructions(line, text))
    if not result.states:
        corrected = _correction(
            line, text, preceding[-1] if preceding else "", earlier
        ) or _count_correction(line, text, preceding, earlier)
        if corrected:
            result.states.append(corrected)
    result.events.extend(events_in(line, spelt, preceding, spelt_out(following)))
    # "I left Zenbridge and I'm now a pharmacist at Ardent Robotics": the new value
    # replaces the old one, which stays history marked "now Ardent Robotics".
    current = {(s.about, s.attribute) for s in result.states if not s.ended}
    result.states = [
        s for s in result.states if not (s.ended and (s.about, s.attribute) in current)
    ]
    return result


def _unique(states: list[RawState]) -> list[RawState]:
    seen: set[tuple[int, str, str, str]] = set()
    kept = []
    for s in states:
        key = (s.line, s.about.lower(), normalise_attribute(s.attribute), s.value.lower())
        if key not in seen:
            seen.add(key)
            kept.append(s)
    return kept


def extract_by_rules(batch: Batch, known: Sequence[RawState] = ()) -> Extraction:
    """States and events for the common patterns on the batch's citable, asserting lines.

    ``known`` are facts stored before the batch: "When I have a sore throat I
    drink ginger tea" said in a later chat is the exception of the morning drink
    said in an earlier one.
    """
    result = Extraction()
    turns: dict[int, list[str]] = {}
    for line in batch.lines:
        turns.setdefault(line.episode_id, []).append(line.text)
    advising = {episode for episode, said in turns.items() if advises(" ".join(said))}
    for n, line in enumerate(batch.lines):
        if not line.citable or unasserted(line.text):
            continue
        after = batch.lines[n + 1] if n + 1 < len(batch.lines) else None
        following = after.text if after and after.episode_id == line.episode_id else ""
        found = _read_line(line, batch.preceding(line), following, [*known, *result.states])
        if line.episode_id in advising:
            found.states = [s for s in found.states if s.attribute != "habit"]
        if line.speaker:
            # "Asha: I moved to Mumbai": the first person of a named speaker's line is them.
            found.states = [
                s.model_copy(update={"about": line.speaker}) if s.about == "user" else s
                for s in found.states
            ]
            found.user_name = ""
        result.states.extend(found.states)
        result.events.extend(found.events)
        if found.user_name:
            result.user_name = found.user_name
    result.states = _unique(result.states)
    return result
