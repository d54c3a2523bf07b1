"""Where a line mentions a name or a code, and the clauses it is cut into.

The line side of a description (``describe.py`` reads what a person typed): these
answer whether a stored line holds a name as a name, which codes it holds, and where
its clauses start, so one clause about someone can be told from the rest.
"""

from __future__ import annotations

import re

from orma_proxy.text import NOT_NAMES, PREFIX_CHARS, groups_of

__all__ = [
    "CLAUSE_CUT",
    "CODE",
    "ORDINAL",
    "clauses",
    "code_in",
    "codes_of",
    "full_names",
    "may_cut",
    "mentions",
    "naming",
    "unowned",
]

# Tokens a description names exactly: a number (3+ digits) or a code mixing letters and digits
# ("hunter2-blue", "4417zeta"). A line must hold one; a secret-looking one of PREFIX_CHARS or
# more also reaches the longer token it starts ("sk-live-9f3k2" -> "sk-live-9f3k2xq81-prod").
CODE = re.compile(r"(?<![\w-])(?=[\w-]*\d)[^\W_][\w-]*[^\W_](?![\w-])")
ORDINAL = re.compile(r"(\d{1,2})(?:st|nd|rd|th)", re.I)  # a day of the month: "the 14th"
CLAUSE_CUT = re.compile(r"\s*;\s*|,?\s+(?:and|but|while|whereas)\s+(?=\w)", re.I)


def may_cut(text: str) -> bool:
    """Could ``CLAUSE_CUT`` cut ``text``? A plain test first: most lines hold no joiner."""
    if not text.isascii():
        return True  # case folding beyond ASCII: let the pattern decide
    low = text.lower()
    return ";" in low or any(w in low for w in ("and", "but", "while", "whereas"))


def code_in(code: str, tokens: set[str]) -> bool:
    """A code is one of the line's tokens, or a secret-looking one starts with it."""
    if code in tokens:
        return True
    return _secretish(code) and any(t.startswith(code) for t in tokens)


def _secretish(code: str) -> bool:
    """Long enough, and mixing letters and digits (a key, a token) or all digits (a card)."""
    if len(code) < PREFIX_CHARS:
        return False
    digits = sum(c.isdigit() for c in code)
    return digits == len(code.replace("-", "")) or any(c.isalpha() for c in code)


def codes_of(text: str) -> tuple[str, ...]:
    """The numbers (3+ digits) and letter-digit codes (4+ characters) ``text`` names."""
    found = []
    for m in CODE.finditer(text):
        token = m[0]
        if ORDINAL.fullmatch(token):
            continue  # "the 14th": a day of the month, said as a word
        digits = sum(c.isdigit() for c in token)
        if digits >= 3 or (len(token) >= 4 and any(c.isalpha() for c in token)):
            found.append(token.casefold())
    return tuple(dict.fromkeys(found))


def mentions(text: str, name: str) -> bool:
    """``name`` as whole words of ``text``: "Ann" is in "Ann's flat", not in "Anna".

    Case aside, as long as the line writes it capitalised too ("Github" is
    "GitHub", "Will" is never "will").
    """
    pattern = rf"(?<!\w){re.escape(name)}(?!\w)"
    if re.search(pattern, text):
        return True
    return any(m[0][:1].isupper() for m in re.finditer(pattern, text, re.I))


def clauses(text: str) -> list[tuple[int, int]]:
    """Spans of ``text``'s clauses: cut at "and", "but", ";" (the joiner stays with the next)."""
    spans, start = [], 0
    for m in CLAUSE_CUT.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.start() + (len(m[0]) - len(m[0].lstrip()))
    spans.append((start, len(text)))
    return [s for s in spans if text[s[0] : s[1]].strip()]


def naming(text: str, person: str) -> str:
    """``text`` about one person a name stood for: "Sam's phone" -> "Sam Lee's phone",
    "forget Perez" -> "forget Ms Perez"."""
    for part in person.split():
        said = re.compile(rf"(?<!\w){re.escape(part)}(?!\w)")
        if said.search(text):
            return said.sub(person, text, count=1)
    return text


def full_names(name: str, texts: list[str]) -> list[str]:
    """The longer names ``name`` is part of in ``texts`` ("Sam" -> "Sam Lee", "Sam Park"),
    or the tags and titles that tell its people apart ("Sam (work)", "Sam from pilates",
    "Daniel K", "Ms Perez")."""
    found: dict[str, None] = {}
    who = re.escape(name)
    pattern = re.compile(
        rf"(?<!\w){who}\s+(?:([A-Z][\w'-]+|[A-Z]\.?(?![\w']))|(\([^()]{{1,30}}\)"
        rf"|from\s+(?:the\s+)?[\w'-]+(?:\s+(?!and\b|but\b)[a-z][\w'-]*)?))"
    )
    titled = re.compile(rf"(?<!\w)((?:Mr|Mrs|Ms|Miss|Mx|Dr)\.?)\s+{who}(?!\w)")
    for text in texts:
        for m in titled.finditer(text):  # "Ms Perez", "Mr Perez": two people
            found[f"{m[1].removesuffix('.')} {name}"] = None
        for m in pattern.finditer(text):
            if m[2]:  # "Sam (work)", "Sam from pilates": a tag that tells two people apart
                found[f"{name} {m[2]}"] = None
                continue
            surname = m[1].removesuffix("'s")
            if surname.lower() not in NOT_NAMES and not groups_of(surname):
                found[f"{name} {surname}"] = None
    return list(found)


def unowned(token: str) -> str:
    """``token`` without its possessive: "Meera's" and "Thomas'" are Meera and Thomas."""
    if token.endswith(("s'", "s’")):
        return token[:-1]
    return token.removesuffix("'s").removesuffix("’s")
