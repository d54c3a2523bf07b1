"""Whether a sentence asserts anything: a question, a guess or a wish states no fact.

"How do I set up a venv?", "I guess the bug is in the parser", "If I move to
Berlin, would my rent double?", "My friend says I should move to Munich" and
"I wish I lived by the sea" all hold words a fact could be read from ("venv",
"Berlin", "Munich"), and none says anything true about the user. ``mood``
names what a sentence does; ``unasserted`` is the reason sleep gives for
drawing nothing from it, whoever proposed the fact (the rules or a model).
A conditional with a present-tense main clause ("If it rains, I take the
metro") is a habit, not a hypothetical: only a modal or a question makes an
"if" hypothetical. A denial ("I'm not vegetarian") is a statement; the rules
read no value from it because their patterns start at the verb.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Mood", "felt", "mood", "sought", "standing", "unasserted"]

Mood = Literal["statement", "question", "request", "guess", "hypothetical", "reported", "wish"]

_APOSTROPHE = "['\u2019]"
# Words that open a sentence without changing what it does.
_LEAD = re.compile(
    r"^(?:(?:and|but|so|well|oh|hmm+|ok|okay|also|btw|by the way|anyway|actually|then|"
    r"now|hey|hi|right|yeah|yes|no)\b[\s,!.]*)+",
    re.I,
)
_SUBJECT = r"(?:i|you|we|it|they|he|she|there|this|that|these|those|my|your|the|a|an|any)"
_AUX = r"(?:do|does|did|can|could|would|should|will|shall|is|are|was|were|have|has|may|might|am)"
# "When is ..." asks; "When I have a cold, ..." does not.
_QUESTION = re.compile(
    rf"^(?:(?:what|who|whom|whose|where|when|why|how|which)(?:{_APOSTROPHE}s\b|\s+{_AUX}\b|"
    rf"\s+(?:much|many|long|often|about|else)\b)"
    rf"|{_AUX}(?:n{_APOSTROPHE}t)?\s+{_SUBJECT}\b"
    r"|any\s+(?:tips|ideas|advice|suggestions|recommendations|thoughts)\b)",
    re.I,
)
# A declaration before a closing question ("I live in Pune, what about you?").
_DECLARED = re.compile(rf"^(?:i|i{_APOSTROPHE}m|i{_APOSTROPHE}ve|my|we|we{_APOSTROPHE}re)\s", re.I)
_TAIL_QUESTION = re.compile(r",\s*(?P<tail>[^,]+)\?\s*$")
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:tell|show|give|suggest|recommend|help|explain|find|list|write|"
    r"draft|translate|summari[sz]e|send|check|fix|book|plan)\b",
    re.I,
)
# What makes an imperative a standing instruction rather than a one-off request.
_STANDING = re.compile(
    r"\b(?:always|never|from now on|going forward|in (?:the )?future|every time|whenever)\b",
    re.I,
)
_HEDGE_LEAD = re.compile(
    rf"^(?:i\s+(?:think|guess|suppose|believe|reckon|suspect|assume|bet|wonder|doubt|"
    rf"imagine)\b|i{_APOSTROPHE}m\s+not\s+sure\b|not\s+sure\b|i\s+don{_APOSTROPHE}?t\s+know\s+if\b)",
    re.I,
)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly)\b"
    r"|\b(?:i|we|it|he|she|they|that|this)\s+(?:might|may|could)\b(?!\s+you\b)",
    re.I,
)
_HEDGE_TAIL = re.compile(
    rf"(?:,|\s)\s*(?:i\s+(?:think|guess|suppose|believe|reckon)|not\s+sure|or\s+something"
    rf"|i{_APOSTROPHE}m\s+not\s+sure)[\s.!]*$",
    re.I,
)
_IF = re.compile(r"\b(?:if|suppose|supposing|imagine|hypothetically)\b", re.I)
_MODAL = re.compile(rf"\b(?:would|could|should|might|will|shall)\b|{_APOSTROPHE}(?:d|ll)\b", re.I)
_SAYING = (
    r"(?:says|said|thinks|thought|tells\s+me|told\s+me|suggests|suggested|recommends|"
    r"recommended|believes|reckons|claims|claimed|insists|insisted|advised|warned|"
    r"wants\s+me\s+to|keeps\s+saying)"
)
_REPORTED = re.compile(
    rf"^(?:(?i:my|our|his|her|their)\s+(?:[\w'-]+\s+){{0,2}}?|(?i:he|she|they|everyone|"
    rf"people|someone)\s+|(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z][\w'-]*\s+)"
    rf"(?i:{_SAYING})\b",
)
_FIRST_CLAUSE = re.compile(r"[,;]\s*|\s+(?:but|and|so|though|although)\s+", re.I)
_WHAT_IF = re.compile(r"^what\s+if\b", re.I)
_ACCORDING = re.compile(r"^according\s+to\b", re.I)
_WISH = re.compile(
    rf"^(?:i\s+wish\b|if\s+only\b|i(?:{_APOSTROPHE}d|\s+would)\s+(?:really\s+)?(?:love|like)\s+to\b"
    r"|i\s+(?:hope|dream)\s+(?:to|of)\b|(?:some\s?day|one\s+day)\b)",
    re.I,
)
# "I'm looking for product manager roles": what follows is wanted, not had.
_SEEKING = re.compile(
    r"\b(?:looking|searching|hunting|applying|interviewing|hoping|aiming)\s+(?:for|to|at)\b",
    re.I,
)
# Feeling towards or looking ahead to something is no doing of it: "we always look forward to
# our camping trip" is no habit of camping, "I'm hoping to attend a conference" no event.
_FEELING = re.compile(
    rf"\b(?:look(?:s|ed|ing)?\s+forward\s+to|can(?:not|{_APOSTROPHE}t|\s+not)\s+wait"
    r"|(?:hope|hopes|hoped|hoping)\s+(?:to|for|that|so)|(?:wish|wishes|wished|wishing)\b"
    r"|(?:feel|feels|felt|feeling)\s+like|dream(?:s|ed|t|ing)?\s+(?:of|about)"
    r"|longing\s+(?:to|for)|(?:think|thinks|thinking)\s+(?:about|of)\s+\w+ing"
    rf"|consider(?:s|ing)?\s+\w+ing|(?:will|would|{_APOSTROPHE}ll)\s+(?:always\s+)?remember)\b",
    re.I,
)
# Clause boundaries: what is sought in one clause says nothing of the next.
_CLAUSE_BREAK = re.compile(r"[;.!?]|,\s*(?:but|and|so)\b|\s+but\s+", re.I)
_REASONS: dict[Mood, str] = {
    "question": "the line asks a question",
    "request": "the line asks for something",
    "guess": "the line is a guess",
    "hypothetical": "the line is hypothetical",
    "reported": "the line reports what someone else said",
    "wish": "the line is a wish",
}


def _bare(sentence: str) -> str:
    text = " ".join(sentence.split()).strip(" \"'\u201c\u201d")
    return _LEAD.sub("", text).strip()


def mood(sentence: str) -> Mood:
    """What ``sentence`` does: states something, asks, guesses, supposes, reports or wishes."""
    text = _bare(sentence)
    if not text:
        return "statement"
    if _REPORTED.match(text) or _ACCORDING.match(text):
        return "reported"
    if _WISH.match(text):
        return "wish"
    # A hedge or an "if" decides the sentence from its first clause: "I live in Pune, maybe
    # I'll move next year" still says where the user lives.
    first = _FIRST_CLAUSE.split(text, maxsplit=1)[0]
    if (_IF.search(first) and (_MODAL.search(text) or text.endswith("?"))) or _WHAT_IF.match(text):
        return "hypothetical"
    if _HEDGE_LEAD.match(text) or _HEDGE.search(first) or _HEDGE_TAIL.search(text):
        return "guess"
    if text.endswith("?") or _QUESTION.match(text):
        tail = _TAIL_QUESTION.search(text)
        if text.endswith("?") and tail and _DECLARED.match(text) and not _QUESTION.match(text):
            return "statement"  # "I live in Pune, what about you?"
        return "question"
    if _REQUEST.match(text) and not _STANDING.search(text):
        return "request"
    return "statement"


def standing(sentence: str) -> bool:
    """Whether ``sentence`` says it holds from now on ("always", "never", "whenever", ...).

    An imperative is a standing instruction only so: "Keep answers short" asks
    once, "Always keep answers short" sets how every answer is.
    """
    return _STANDING.search(sentence) is not None


def unasserted(sentence: str) -> str | None:
    """Why no fact may be drawn from ``sentence`` (a question, a guess...), or None."""
    found = mood(sentence)
    return None if found == "statement" else _REASONS[found]


def felt(phrase: str) -> bool:
    """Whether ``phrase`` tells a feeling towards or a hope of something, not a doing of it.

    "We look forward to our camping trip", "I can't wait to see it", "I'm
    hoping to attend a book fair", "we're thinking about going camping", "I'll
    always remember that trip": no habit, event or state is drawn from such a
    phrase (the thing hoped for may never happen; the thing remembered is told
    elsewhere, with its own verb).
    """
    return _FEELING.search(phrase) is not None


def sought(value: str, sentence: str) -> bool:
    """Whether ``sentence`` says ``value`` is wanted rather than had.

    "I'm looking for product manager roles" names no job title, "we're
    hunting for a flat in Pune" no home: a value after "looking for",
    "applying to", "hoping for" in its clause is a wish, whatever slot a reader
    might file it under. "I work at Zenbridge but I'm looking for a new job"
    still works at Zenbridge: only the seeking clause is read. "She wants a
    summary first" is a standing preference, not a search.
    """
    where = sentence.lower().find(value.lower().strip())
    if where < 0:
        return False
    clause_start = 0
    for m in _CLAUSE_BREAK.finditer(sentence[:where]):
        clause_start = m.end()
    return _SEEKING.search(sentence[clause_start:where]) is not None
