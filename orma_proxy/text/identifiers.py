"""Identifiers in text, in every common spelling: emails, phone numbers, keys, URLs.

A purge of ``kavya.rao@mailbox.org`` must also erase the note that wrote
``"kavya.rao"@mailbox.org`` or ``kavya dot rao at mailbox dot org``, and a purge
of ``98450 12345`` the one that wrote ``+91 98450-12345``. Each identifier found
gets a canonical form (emails and URLs lower case, numbers as their digits, keys
as written) and two identifiers are the same when ``same()`` says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["PREFIX_CHARS", "Identifier", "find_identifiers", "same", "starts"]

Kind = Literal["email", "number", "key", "url"]

_DOT = r"(?:\s*(?:\[dot\]|\(dot\)|\{dot\}|<dot>)\s*|\s+dot\s+|\.)"
_AT = r"(?:\s*(?:\[at\]|\(at\)|\{at\}|<at>)\s*|\s+at\s+|\s*@\s*)"
_LOCAL = rf"(?:\"[^\"@\s]+\"|[\w+-]+(?:{_DOT}[\w+-]+)*)"
_DOMAIN = rf"[a-z0-9-]+(?:{_DOT}[a-z0-9-]+)*{_DOT}[a-z]{{2,12}}\b"
_EMAIL = re.compile(rf"(?<![\w.]){_LOCAL}{_AT}{_DOMAIN}", re.I)
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+", re.I)
_NUMBER = re.compile(r"(?<![\w])\+?\(?\d[\d\s().-]{5,}\d(?![\w])")
# Tokens shaped like secrets: a known prefix, or long runs mixing letters and digits.
_KEY = re.compile(
    r"\b(?:sk|pk|rk|ghp|gho|xox[abp]|AKIA|AIza)[-_]?[A-Za-z0-9_-]{12,}"
    r"|\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}\b"
)
MIN_DIGITS = 7  # fewer digits are a year, a price or a house number, not an identifier
PREFIX_CHARS = 8  # a key's or card's leading part this long names the whole of it
_COUNTRY_CODE = 3  # digits a number may carry in front (+91, 0, 001) and still be the same


@dataclass(frozen=True)
class Identifier:
    kind: Kind
    canonical: str
    start: int  # where it was written in the text
    end: int


def _email(written: str) -> str:
    text = written.replace('"', "")
    text = re.sub(_AT, "@", text, count=1, flags=re.I) if "@" not in text else text
    local, _, domain = text.rpartition("@") if "@" in text else (text, "", "")
    local = re.sub(_DOT, ".", local.strip(), flags=re.I)
    domain = re.sub(_DOT, ".", domain.strip(), flags=re.I)
    return f"{local}@{domain}".lower().replace(" ", "")


def _url(written: str) -> str:
    text = re.sub(r"^(?:https?://)?(?:www\.)?", "", written.lower())
    return text.rstrip("/.,;:!?")


def find_identifiers(text: str) -> list[Identifier]:
    """Every identifier in ``text``, in order, each once (an email is not also a URL)."""
    found: list[Identifier] = []
    taken: list[tuple[int, int]] = []

    def add(kind: Kind, canonical: str, m: re.Match[str]) -> None:
        if any(m.start() < end and start < m.end() for start, end in taken):
            return
        taken.append((m.start(), m.end()))
        found.append(Identifier(kind, canonical, m.start(), m.end()))

    for m in _URL.finditer(text):
        add("url", _url(m[0]), m)
    for m in _EMAIL.finditer(text):
        add("email", _email(m[0]), m)
    for m in _KEY.finditer(text):
        add("key", m[0], m)
    for m in _NUMBER.finditer(text):
        digits = re.sub(r"\D", "", m[0])
        if len(digits) >= MIN_DIGITS:
            add("number", digits, m)
    return sorted(found, key=lambda i: i.start)


def same(a: Identifier, b: Identifier) -> bool:
    """One identifier in two spellings; a number may differ by a country code or trunk 0."""
    if a.kind != b.kind:
        return False
    if a.kind != "number":
        return a.canonical == b.canonical
    # A trunk 0 ("0825...") is dropped where a country code stands ("+27 825...").
    short, long = sorted((a.canonical.lstrip("0"), b.canonical.lstrip("0")), key=len)
    return long.endswith(short) and len(long) - len(short) <= _COUNTRY_CODE


def starts(part: Identifier, whole: Identifier) -> bool:
    """``part`` is the leading part of a key or a long number ``whole`` ("sk-live-9f3k2...")."""
    if part.kind != whole.kind or part.kind not in ("key", "number"):
        return False
    return len(part.canonical) >= PREFIX_CHARS and whole.canonical.startswith(part.canonical)
