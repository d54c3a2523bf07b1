"""How a rule is said: "never ...", "don't ...", "do not ...", and what to do instead.

"Don't use semicolons in PowerShell, use newlines instead." forbids the
semicolons and asks for newlines: read whole as one prohibition, the block
would forbid the newlines too. ``read_rule`` splits a rule into what it
forbids and the alternative (a clause after a comma, semicolon, dash or full
stop that starts with a verb of doing, "I prefer ..." or says "instead");
``said_rule`` finds a rule in a line of chat: an imperative that opens with the
negation ("Never ...", "Please don't ..."), never a statement ("I don't ...")
or a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Prohibition", "encourages", "read_rule", "said_rule"]

_APOSTROPHE = "['\u2019]"
# What may come before the negation of a rule said in chat: a clause, a courtesy.
_LEAD = (
    r"(?:^|(?<=[,;:])\s+)(?:(?:please|also|and|so|oh|ok|okay|from\s+now\s+on|going\s+forward|"
    r"in\s+(?:the\s+)?future)\b[\s,]*)*"
)
_SAID = re.compile(
    _LEAD + rf"(?:never(?:\s+ever)?|don{_APOSTROPHE}?t(?:\s+ever)?|do\s+not(?:\s+ever)?)\s+"
    r"(?P<rest>\w.*?)[\s.!]*$",
    re.IGNORECASE,
)
# "Don't worry", "never mind", "don't forget the milk", "don't know": no rule on replies.
# "Never been there", "never had the chance": a participle, so "I have" was left out, and
# the line tells what has not happened, not what must not.
_NOT_RULES = re.compile(
    r"^(?:worry|mind|know|think|care|understand|bother|feel|forget|remember|have|need|want|"
    r"like|hesitate|been|had|done|gone|seen|heard|met|got|gotten|tried)\b|^(?:be\s+)?sorry\b",
    re.I,
)
# Encouragement: "Don't give up!", "Never let one bad review stop you". What the
# listener should not give up or fear is their own life, no instruction on replies.
_ENCOURAGING = re.compile(
    r"\b(?:give\s+up|quit|lose\s+(?:hope|heart|faith)|doubt\s+yourself|hang\s+in\s+there"
    r"|stop\s+(?:believing|trying|dreaming|pushing|fighting)"
    r"|be\s+(?:so\s+|too\s+)?(?:afraid|scared|discouraged|hard\s+on\s+yourself)"
    r"|let\s+(?:\w+\s+){0,6}?(?:stop|hold\s+back|get|bring|keep|drag)\s+you\b"
    r"|miss\s+a\s+beat|keep\s+(?:going|it\s+up|pushing|at\s+it|trying|fighting|shining)"
    r"|stay(?:ing)?\s+(?:strong|positive|motivated|focused))\b",  # "quite" is no "quit"
    re.I,
)
# A rule as declared (``orma_forbid``, an anti-pattern): a label, then maybe a negation.
_LABEL = re.compile(
    r"^\s*\[?\s*(?:forbidden|prohibited|rule|anti[-_ ]?pattern|constraint)\s*:\s*", re.I
)
_NEGATION = re.compile(
    rf"^(?:please\s+)?(?:never\s+ever|never|don{_APOSTROPHE}?t\s+ever|don{_APOSTROPHE}?t|"
    r"do\s+not(?:\s+ever)?|avoid|no)\b[\s,:-]*",
    re.IGNORECASE,
)
# Where an alternative may begin, and the words that may open it.
_BREAK = re.compile(
    r"\s*(?:[,;]|[:.!](?=\s)|\s[-\u2013\u2014]|[\u2013\u2014])\s*|\s+(?:but|instead)\s+"
)
_FILLER = re.compile(
    r"^(?:(?:please|just|instead|rather|but|and|so|always|simply|then)\b[\s,]*)+", re.I
)
_PREFER = re.compile(
    rf"^(?:i(?:{_APOSTROPHE}d|\s+would)?\s+(?:much\s+)?(?:rather|prefer)|prefer)\b(?:\s+to\b)?\s*",
    re.I,
)
_DOING = frozenset(
    """use prefer try write put give say call run choose pick go stick keep send show indent
    separate switch opt take make reply answer respond format add leave ask suggest recommend
    stay wait let tell list spell speak type return convert quote wrap print log book order
    stop start begin end chain join split break place set pass name refer address sign
    drink eat cook walk ride mask hide redact escape encrypt check test confirm explain
    describe""".split()  # noqa: SIM905
)
# "..., mask them": an imperative whose object is the rule's own thing.
_DO_IT = re.compile(r"^[a-z]+\s+(?:it|them|those|that|these|this|one)\b", re.I)
_INSTEAD = re.compile(r"\b(?:instead|rather)\b", re.I)
_TRAILING_INSTEAD = re.compile(
    r"[\s,]+(?:instead|rather)(?:\s+of\s+(?:it|that|those|them))?$", re.I
)
_NEGATED = re.compile(rf"^(?:never|don{_APOSTROPHE}?t|do\s+not|no)\b", re.I)
_WORD = re.compile(r"[\w']+")


@dataclass(frozen=True)
class Prohibition:
    """What a rule forbids, and what to do instead ("" when it says nothing of that)."""

    forbidden: str
    instead: str = ""


def _tidy(text: str) -> str:
    return " ".join(text.split()).strip(" ,;:.!-\u2013\u2014]")


def _alternative(clause: str) -> str | None:
    """The alternative a clause after a break states, or None if it states none."""
    first = re.split(r"[,;.!]", clause, maxsplit=1)[0]
    bare = _FILLER.sub("", clause).strip()
    if not bare or _NEGATED.match(bare):
        return None  # another prohibition, not an alternative
    preferred = _PREFER.match(bare)
    if preferred:
        bare = bare[preferred.end() :]
    else:
        words = _WORD.findall(bare.lower())
        doing = bool(words) and (words[0] in _DOING or _DO_IT.match(bare) is not None)
        if not doing and not _INSTEAD.search(first):
            return None
    bare = _tidy(_TRAILING_INSTEAD.sub("", _tidy(bare)))
    if any(w in _DOING for w in _WORD.findall(bare.lower())[:1]):
        bare = bare[:1].lower() + bare[1:]  # "Use httpx." after a full stop
    return bare or None


def read_rule(rule: str) -> Prohibition:
    """``"Don't use X in Y, use Z instead."`` -> forbidden ``"use X in Y"``, instead ``"use Z"``.

    A label ("forbidden: eval()") and the negation are dropped: the
    ``[FORBIDDEN: ...]`` mark says no by itself.
    """
    text = " ".join(rule.split())
    while (label := _LABEL.match(text)) is not None:
        text = text[label.end() :]
    text = _tidy(text)
    rest = _NEGATION.sub("", text, count=1) or text
    for found in _BREAK.finditer(rest):
        forbidden = _tidy(rest[: found.start()])
        instead = _alternative(rest[found.end() :])
        if forbidden and instead:
            return Prohibition(forbidden, instead)
    return Prohibition(_tidy(rest) or text)


def said_rule(sentence: str) -> str | None:
    """The rule a chat sentence sets ("Never use X, use Y" -> "use X, use Y"), or None.

    Only an imperative that opens with the negation (after a courtesy or a
    clause: "Thanks, and please never ..."); a question sets no rule.
    """
    text = " ".join(sentence.split())
    if not text or text.rstrip().endswith("?"):
        return None
    found = _SAID.search(text)
    if found is None or _NOT_RULES.match(found["rest"]) or encourages(found["rest"]):
        return None
    return _tidy(found["rest"]) or None


def encourages(text: str) -> bool:
    """Whether ``text`` cheers its listener on ("never give up", "don't let it stop you").

    Said to anyone, it is about the listener's own life: a fact about neither
    person and no rule for an assistant's replies.
    """
    return _ENCOURAGING.search(text) is not None
