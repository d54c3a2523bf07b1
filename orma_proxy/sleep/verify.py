"""Deterministic verification of what the model proposed: nothing unchecked reaches the store.

Each state and event must cite a line of this batch that may be cited; its
value must be in that line (word overlap) or closely paraphrase it (embedding
similarity), and a name the line never says is never accepted; the holder is
decided by ``holder``; dates by ``clock``; a conditional frame ("when I have
a sore throat, ...") is found in the line even when the model missed it.
Every refusal keeps its reason for the report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, time, tzinfo

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import USER, alternative_attribute
from orma_proxy.sleep import clock, holder, persons
from orma_proxy.sleep.batch import Batch, Line
from orma_proxy.sleep.extract import Extraction, RawEvent, RawState
from orma_proxy.sleep.names import (
    VAGUE_ATTRIBUTES,
    EmbedTexts,
    forbidden_attribute,
    normalise_attribute,
    normalise_value,
    value_key,
)
from orma_proxy.sleep.report import RejectedKind, Rejection
from orma_proxy.text import passing, read_rule, sought, unasserted
from orma_proxy.text.stopwords import STOPWORDS

_WORD = re.compile(r"[\w']+")
_EXTRA_STOPWORDS = frozenset({"am", "i'm", "im", "i've", "i'd", "i'll", "not", "no"})
_SUFFIXES = ("'s", "ing", "ed", "es", "s")
_MIN_STEM = 3
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                 "ten", "eleven", "twelve")  # fmt: skip
_NUMBERS = {word: str(n) for n, word in enumerate(_NUMBER_WORDS)}
_MAX_RAW_ATTRIBUTE = 64  # longer "attribute names" are sentences, not slots
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*")
_CONDITION_LEAD = re.compile(
    r"^\s*(?:when(?:ever)?|if|unless|during|in case of|while)\s+(?P<cond>[^,;]+)[,;]\s*", re.I
)
_CONDITION_TAIL = re.compile(
    r"\s(?:when(?:ever)?|if|unless|during|in case of)\s+(?P<cond>[^,;.]+)[.!]?\s*$", re.I
)
# "I work from home on Fridays": the days it holds on are its condition.
_DAYS_TAIL = re.compile(
    r"\s(?:on|at)\s+(?P<cond>week(?:end|day)s|(?:mon|tues|wednes|thurs|fri|satur|sun)days)"
    r"[.!]?\s*$",
    re.I,
)
_HALF = 0.5
# A condition never takes "will": "if I'll ever ..." asks whether.
_WHETHER = re.compile(r"\b(?:will|won't|would)\b|'ll\b", re.I)
_UNLESS = re.compile(r"\bunless\s+(?P<cond>[^,;.!?]+)", re.I)
_CONDITION_FILLER = re.compile(
    r"^(?:i\s+(?:have|get|feel|am|'m)|i'm|i've got|it's|it is|there's|there is|"
    r"i\s+(?:have|get)\s+got)\s+|^(?:a|an|the|my)\s+",
    re.I,
)
# How far back a line may leave its time to (``_carried_date``): the turn before it.
_CARRY_LINES = 3
_ENDING = re.compile(
    r"\b(?:quit|stopped|gave up|give up|no longer|not any ?more|used to|dropped|ended)\b", re.I
)
# A value said as an addition to what holds: "I do eat eggs though", "I also work at ...".
_ADDS = re.compile(r"\b(?:also|too|as well|though|besides)\b", re.I)
_LIVING = re.compile(
    r"\b(?:live[sd]?|living|moved|moving|relocated|relocating|shifted|based|staying|home)\b", re.I
)
# "She walks every evening": what recurs is a state of someone's, not a dated event.
_RECURRING = re.compile(
    r"\b(?:every|each)\s+(?:\w+\s+)?(?:day|night|morning|evening|week|weekend|month|year|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
    r"\b(?:daily|weekly|usually|always|most days|on weekdays)\b",
    re.I,
)
_PRONOUN_WORD = re.compile(r"\b(?:she|he|her|him|his|she's|he's)\b", re.I)
_SUBJECT = re.compile(r"\b(?:i|i'm|i've|we|we're|he|she|they|it|it's|you|my|our)\b", re.I)
# Slots that hold what someone wants ("job_search: product manager roles"), not what they have.
_WANTING = re.compile(r"search|seek|look|goal|plan|want|wish|target|hope|aim|apply|interest", re.I)
_NAMING = re.compile(r"\b(?:i'm|i am|my name is|call me|this is|name's|name is)\s+", re.I)


@dataclass(frozen=True)
class VerifiedState:
    entity: str
    attribute: str
    value: str
    condition: str
    prohibited: bool
    ended: bool
    since: clock.ResolvedDate | None
    valid_from: float
    line: Line
    joins: bool = False  # "I do eat eggs too": beside the slot's value, not replacing it


@dataclass(frozen=True)
class VerifiedEvent:
    what: str
    when_text: str
    date: clock.ResolvedDate | None
    who: tuple[str, ...]
    line: Line


@dataclass
class Verified:
    states: list[VerifiedState] = field(default_factory=list)
    events: list[VerifiedEvent] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The words that carry meaning, stemmed; a number is its digits ('two' is '2')."""
    words = [_NUMBERS.get(w, w) for w in (w.lower() for w in _WORD.findall(text))]
    kept = {_stem(w) for w in words if w not in STOPWORDS and w not in _EXTRA_STOPWORDS}
    return kept or {_stem(w) for w in words}


def overlap(value: str, line: str) -> float:
    """Share of the value's content words that the line contains."""
    wanted = content_words(value)
    return len(wanted & content_words(line)) / len(wanted) if wanted else 0.0


def unsaid_name(value: str, line: str) -> str | None:
    """A capitalised word of ``value`` the line never says: a name can't be paraphrased."""
    said = {_stem(w) for w in _WORD.findall(line)}
    for word in _CAPITALISED.findall(value):
        word = str(word)
        bare = word.lower().removesuffix("'s")
        if _stem(bare) not in said and bare not in STOPWORDS and bare != "i":
            return word
    return None


def conditional_frame(line: str, value: str) -> str:
    """The condition a line puts on its value ('When I have a sore throat, ...'), or ''.

    "Keep answers short unless I ask for detail": short is the rule, and
    "unless" after it names when it does not hold, so it is no condition of it.
    "I work from home on Fridays": Fridays are when home holds (the office,
    said otherwise, is the rest of the week), so a weekday plural is one.
    """
    for pattern in (_CONDITION_LEAD, _CONDITION_TAIL, _DAYS_TAIL):
        m = pattern.search(line)
        if m and _WHETHER.search(m["cond"]):
            continue  # "who knows if I'll ever get a pet": whether, not a condition
        if m and value.lower() not in m["cond"].lower():
            if pattern is _CONDITION_TAIL and m[0].strip().lower().startswith("unless"):
                return ""
            return tidy_condition(m["cond"])
    return ""


def _excepted(condition: str, value: str, line: str) -> bool:
    """Whether ``condition`` is what the line says after "<value> unless": when it fails."""
    return any(
        overlap(condition, m["cond"]) >= _HALF and value.lower() in line[: m.start()].lower()
        for m in _UNLESS.finditer(line)
    )


def tidy_condition(text: str) -> str:
    cond = normalise_value(text)
    for _ in range(2):
        cond = _CONDITION_FILLER.sub("", cond)
    return cond


class Verifier:
    """Checks one batch's extraction against the batch itself."""

    def __init__(self, batch: Batch, config: OrmaConfig, embed: EmbedTexts, tz: tzinfo) -> None:
        self._batch = batch
        self._config = config
        self._embed = embed
        self._tz = tz

    async def run(self, extraction: Extraction, *, user_name: str | None = None) -> Verified:
        result = Verified()
        for kind, raw, reason in extraction.malformed:
            result.rejections.append(Rejection(kind, "", raw, reason))
        name = self._user_name(extraction.user_name, result) or user_name
        candidates: list[tuple[RawState, Line, float]] = []
        for state in extraction.states:
            checked = self._check_state(state, result)
            if checked is not None:
                candidates.append(checked)
        for event in extraction.events:
            self._check_event(event, name, result)
        ungrounded = [(s.value, line.text) for s, line, score in candidates if score < _GROUNDED]
        similarities = iter(await self._similarities(ungrounded))
        for state, line, score in candidates:
            if score < _GROUNDED:
                similarity = next(similarities)
                if similarity < self._config.grounding_min_similarity:
                    reason = f"value is not in the cited line (similarity {similarity:.2f})"
                    result.rejections.append(_reject(state, line, reason))
                    continue
            self._accept_state(state, line, name, result)
        result.states.sort(key=lambda s: (s.line.said_at, s.line.number))
        return result

    def _cited(
        self, item: RawState | RawEvent, kind: RejectedKind, result: Verified
    ) -> Line | None:
        line = self._batch.line(item.line)
        if line is None:
            reason = f"cites s{item.line}, which is not a line of this batch"
        elif not line.citable:
            reason = f"cites s{item.line}, an {line.role} line (context only)"
        elif (unsaid := unasserted(line.text)) is not None:
            reason = f"cites s{item.line}: {unsaid}, no fact"
        else:
            return line
        result.rejections.append(Rejection(kind, "", item.model_dump(), reason))
        return None

    def _check_state(
        self, state: RawState, result: Verified
    ) -> tuple[RawState, Line, float] | None:
        """Citation, non-empty fields, names; returns the word overlap for grounding."""
        line = self._cited(state, "state", result)
        if line is None:
            return None
        value = normalise_value(state.value)
        if not value or (not state.attribute.strip() and not state.prohibited):
            result.rejections.append(_reject(state, line, "empty attribute or value"))
            return None
        if len(state.attribute) > _MAX_RAW_ATTRIBUTE:
            result.rejections.append(_reject(state, line, "attribute is not a name"))
            return None
        why = passing(state.attribute, value, line.text)
        if why is None and not _WANTING.search(state.attribute) and sought(value, line.text):
            why = "the line says it is wanted, not had"
        if why is not None:
            result.rejections.append(_reject(state, line, why))
            return None
        name = unsaid_name(value, line.text)
        if name is not None and not self._said_by_pronoun(name, line):
            result.rejections.append(_reject(state, line, f"the line never says {name!r}"))
            return None
        if state.condition.strip() and overlap(state.condition, line.text) < self._min_overlap:
            result.rejections.append(_reject(state, line, "condition is not in the cited line"))
            return None
        score = overlap(value, line.text)
        if score < self._min_overlap and state.ended and _ENDING.search(line.text):
            # "I tried keto." ... "I quit, it made me tired.": what ended is said just before.
            score = max(score, overlap(value, " ".join(x.text for x in self._window(line))))
        return state, line, (_GROUNDED if score >= self._min_overlap else score)

    def _window(self, line: Line) -> tuple[Line, ...]:
        """The lines just before ``line`` it may leave its time or its object to."""
        return self._batch.lines[max(0, line.number - 1 - _CARRY_LINES) : line.number - 1]

    def _answers_about_else(self, line: Line) -> bool:
        """Whether ``line`` replies to the assistant's question about something else."""
        before = self._batch.line(line.number - 1)
        if before is None or before.role != "assistant" or _SUBJECT.search(line.text):
            return False
        return holder.asks_about_else(before.text)

    def _said_by_pronoun(self, name: str, line: Line) -> bool:
        """Whether a she/he of the line stands for ``name`` ('I visited her' -> Dagny)."""
        wanted = name.lower().removesuffix("'s")
        preceding = self._batch.preceding(line)
        for m in _PRONOUN_WORD.finditer(line.text):
            person = persons.antecedent(m[0], line.text[: m.start()], preceding)
            if person is not None and wanted in person.name.lower().split():
                return True
        return False

    @property
    def _min_overlap(self) -> float:
        return self._config.grounding_min_overlap

    def _accept_state(
        self, state: RawState, line: Line, user_name: str | None, result: Verified
    ) -> None:
        value = normalise_value(state.value)
        who = holder.resolve_holder(
            line.text,
            value,
            state.about,
            self._batch.preceding(line),
            user_name=user_name,
            speaker=line.speaker,
        )
        if isinstance(who, str) or (who.name == USER and self._answers_about_else(line)):
            reason = who if isinstance(who, str) else "a reply about something else, not the user"
            result.rejections.append(_reject(state, line, reason))
            return
        condition = ""
        if self._config.enable_defeasible_logic:
            condition = tidy_condition(state.condition) or conditional_frame(line.text, value)
            condition = "" if _excepted(condition, value, line.text) else condition
            value = _without_days(value, condition)
        said = line.said(self._tz)
        since = self._date(state.since, line, said)
        if since is not None and since.date > said.date() and not state.ended:
            result.rejections.append(
                _reject(state, line, f"not true yet: it starts {since.label()}")
            )
            self._add_event(value, since, (who.name,), line, result)
            return
        instead = ""
        if state.prohibited:
            # "Don't use X, use Y instead": X is forbidden, Y is what to do (``read_rule``).
            rule = read_rule(value)
            value, instead = rule.forbidden, "" if state.ended else rule.instead
            attribute = forbidden_attribute(state.attribute, value)
        else:
            attribute = normalise_attribute(state.attribute)
        if not attribute:
            result.rejections.append(_reject(state, line, "attribute has no usable name"))
            return
        if attribute in VAGUE_ATTRIBUTES and _moved_to(value, line.text):
            attribute = "home_city"  # "state: Pune" for "I moved to Pune last week"
        if attribute == "home_city" and _from_place(value, line.text):
            attribute = "hometown"  # "I'm Noor, from Lahore": where one comes from
        valid_from = line.said_at
        if since is not None:
            valid_from = min(line.said_at, _start_of(since, self._tz))
        found = VerifiedState(
            who.name, attribute, value, condition, state.prohibited, state.ended, since,
            valid_from, line, _ADDS.search(_clause_of(line.text, value)) is not None,
        )  # fmt: skip
        _add_state(result, found)
        if instead:
            alternative = alternative_attribute(attribute)
            _add_state(
                result, replace(found, attribute=alternative, value=instead, prohibited=False)
            )

    def _check_event(self, event: RawEvent, user_name: str | None, result: Verified) -> None:
        line = self._cited(event, "event", result)
        if line is None:
            return
        what = normalise_value(event.what)
        if not what:
            result.rejections.append(Rejection("event", line.text, event.model_dump(), "empty"))
            return
        name = unsaid_name(what, line.text)
        if name is not None and self._said_by_pronoun(name, line):
            name = None
        if name is not None or overlap(what, line.text) < self._min_overlap:
            reason = f"the line never says {name!r}" if name else "not what the cited line says"
            result.rejections.append(Rejection("event", line.text, event.model_dump(), reason))
            return
        date = self._date(event.when, line, line.said(self._tz)) or self._carried_date(
            event.when, line, result
        )
        if date is None:
            # What recurs is a habit; a one-off with no time said is no point on the timeline
            # ("Done, ordered."): its line stays in the episode for recall to find.
            recurs = _RECURRING.search(line.text)
            reason = "a habit (it recurs), not a happening" if recurs else "no date is said"
            result.rejections.append(Rejection("event", line.text, event.model_dump(), reason))
            return
        people = holder.resolve_people(
            line.text,
            event.who,
            self._batch.preceding(line),
            user_name=user_name,
            speaker=line.speaker,
        )
        self._add_event(what, date, tuple(people), line, result)

    def _add_event(
        self,
        what: str,
        date: clock.ResolvedDate | None,
        who: Sequence[str],
        line: Line,
        result: Verified,
    ) -> None:
        if any(e.line == line and value_key(e.what) == value_key(what) for e in result.events):
            return
        when_text = date.phrase if date else ""
        result.events.append(VerifiedEvent(what, when_text, date, tuple(who), line))

    def _date(self, phrase: str, line: Line, said: datetime) -> clock.ResolvedDate | None:
        """Resolve the line's own time words; a date the model computed is not trusted."""
        phrase = phrase.strip()
        if not phrase or phrase.lower() not in line.text.lower():
            found = clock.find_date_phrase(line.text)
            if found is None:
                return None
            phrase = found
        return clock.resolve(phrase, said, future=clock.prefers_future(line.text))

    def _carried_date(self, phrase: str, line: Line, result: Verified) -> clock.ResolvedDate | None:
        """A date the line leaves to the lines just before it, or None.

        "On Monday I had my review." then "Really well, I got a raise.": the
        model's time words are in a line just before, resolved when that line was
        said. "I have a dentist appointment on Friday." then "A root canal.": a
        fragment with no subject of its own is part of the event just before it.
        """
        earlier = self._window(line)
        phrase = phrase.strip().lower()
        if phrase:
            for before in reversed(earlier):
                if before.citable and phrase in before.text.lower():
                    return self._date(phrase, before, before.said(self._tz))
        if _SUBJECT.search(line.text) is None:
            for found in reversed(result.events):
                if found.date is not None and found.line in earlier:
                    return found.date
        return None

    def _user_name(self, claimed: str, result: Verified) -> str | None:
        """The user's name, if a citable line of the user's says it ('I'm Sahil')."""
        name = normalise_value(claimed)
        if not name:
            return None
        pattern = re.compile(rf"{_NAMING.pattern}{re.escape(name)}\b", re.I)
        for line in self._batch.lines:
            if line.role in ("user", "note") and not line.speaker and pattern.search(line.text):
                result.states.append(
                    VerifiedState(USER, "name", name, "", False, False, None, line.said_at, line)
                )
                return name
        result.rejections.append(
            Rejection("name", "", {"user_name": name}, "no line of the user's gives this name")
        )
        return None

    async def _similarities(self, pairs: list[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        vectors = await self._embed([text for pair in pairs for text in pair])
        return [float(vectors[2 * i] @ vectors[2 * i + 1]) for i in range(len(pairs))]


_GROUNDED = 2.0  # marks a value whose words are in the line: no similarity needed


def _from_place(place: str, line: str) -> bool:
    """Whether the line says the user is *from* ``place``, not living there."""
    said_from = re.search(rf"\bfrom\s+{re.escape(place)}\b", line, re.I) is not None
    return said_from and _LIVING.search(line) is None


def _moved_to(place: str, line: str) -> bool:
    """Whether the line says its speaker lives in or moved to ``place``."""
    verb = r"(?:live[sd]?|living|moved|moving|relocated|relocating|shifted|based|settled)"
    return re.search(rf"\b{verb}\s+(?:in|to)\s+{re.escape(place)}\b", line, re.I) is not None


def _without_days(value: str, condition: str) -> str:
    """ "home on Fridays" under the condition "Fridays" is "home"."""
    m = _DAYS_TAIL.search(value)
    if m and condition and m["cond"].lower() == condition.lower() and value[: m.start()].strip():
        return value[: m.start()].strip()
    return value


def _clause_of(line: str, value: str) -> str:
    """The clause of ``line`` that says ``value`` (the whole line if none does alone)."""
    found = holder.clauses_with(line, value)
    return found[0][0] if len(found) == 1 else line


def _state_key(state: VerifiedState) -> tuple[str, str, str, str, bool]:
    """A state and its ending are two facts: "I tried keto" ... "I quit"."""
    key = (state.entity, state.attribute, state.condition.lower(), value_key(state.value))
    return (*key, state.ended)


def _add_state(result: Verified, state: VerifiedState) -> None:
    """Keep ``state`` unless the batch already has it."""
    if all(_state_key(s) != _state_key(state) for s in result.states):
        result.states.append(state)


def _reject(state: RawState, line: Line, reason: str) -> Rejection:
    return Rejection("state", line.text, state.model_dump(), reason)


def _start_of(resolved: clock.ResolvedDate, tz: tzinfo) -> float:
    return datetime.combine(resolved.date, time.min, tz).timestamp()
