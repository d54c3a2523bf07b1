"""Split text into sentences: the unit of recall and of citation.

A regex splitter, tuned so that citations stay whole: titles and initials
("Dr. Rao", "J. R. R. Tolkien") do not end a sentence, CJK full stops do, line
breaks always do, closing quotes and brackets stay with the sentence they close,
and a sentence longer than the configured size is cut at the last space before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Quotes and brackets that close a sentence and belong to it (Latin, then CJK:
# corner, white corner, lenticular, double angle, angle and fullwidth brackets,
# written as escapes since some look like ASCII brackets).
_CLOSERS = "\"'”’)\\]\u300d\u300f\u3011\u300b\u3009\uff09"
# A sentence ends after Latin end punctuation that is followed by space, after a
# CJK one whatever follows, or at a line break. The pattern starts with one
# character class so the regex engine skips straight to candidates: 4x faster
# than three plain alternatives on a 10 MB text.
_BOUNDARY = re.compile(
    rf"[.!?…。！？\n](?:(?<=[.!?…])[.!?…]*[{_CLOSERS}]*(?=\s)"
    rf"|(?<=[。！？])[。！？]*[{_CLOSERS}]*|(?<=\n))"
)
_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|etc|e\.g|i\.e|approx|No|Inc|Ltd|Co|Jan|Feb|"
    r"Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)|\b[A-Z])\.$"
)
# "no." before a number ("account no. 40871123") is its sign, not a sentence's end.
_NUMBER_SIGN = re.compile(r"(?i)\bno\.$")
_DIGIT_NEXT = re.compile(r"\s+[A-Za-z]{0,3}\d")
# The longest abbreviation above ("approx.") is 7 characters; looking further
# back than this only costs time.
_ABBREVIATION_REACH = 10


@dataclass(frozen=True)
class Segment:
    """One sentence: its order in the episode, where it starts, and its text."""

    position: int
    start: int
    text: str


def split_sentences(text: str, max_chars: int) -> list[Segment]:
    """Sentences of ``text`` with their character offsets; blank pieces are dropped.

    ``text[s.start : s.start + len(s.text)] == s.text`` for every segment.
    """
    pieces: list[tuple[int, str]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if match.group() == "\n":
            end, resume = match.start(), match.end()
        else:
            end = resume = match.end()
            # "Dr." is not the end of a sentence. ``pos`` keeps \b honest: the
            # regex still sees the character before it.
            if _ABBREVIATION.search(text, max(start, end - _ABBREVIATION_REACH), end):
                continue
            if _NUMBER_SIGN.search(text, max(start, end - 4), end) and _DIGIT_NEXT.match(text, end):
                continue  # "Passport no. K8812345": the number follows its sign
        pieces.append((start, text[start:end]))
        start = resume
    pieces.append((start, text[start:]))

    segments: list[Segment] = []
    for offset, piece in pieces:
        for sub_offset, sub in _cut(piece, max_chars):
            stripped = sub.strip()
            if stripped:
                lead = len(sub) - len(sub.lstrip())
                segments.append(Segment(len(segments), offset + sub_offset + lead, stripped))
    return segments


def _cut(piece: str, max_chars: int) -> list[tuple[int, str]]:
    """Cut an over-long sentence at spaces (or hard, if it has none) into <= max_chars parts."""
    parts = []
    offset = 0
    while len(piece) - offset > max_chars:
        window = piece[offset : offset + max_chars]
        space = window.rfind(" ")
        cut = space if space > max_chars // 2 else max_chars
        parts.append((offset, piece[offset : offset + cut]))
        offset += cut
    parts.append((offset, piece[offset:]))
    return parts
