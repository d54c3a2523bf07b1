"""Split text into sentences: the unit of recall and of citation.

A regex splitter, tuned so that citations stay whole: titles and initials
("Dr. Rao", "J. R. R. Tolkien") do not end a sentence, CJK full stops do, line
breaks always do, and a sentence longer than the configured size is cut at the
last space before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# End punctuation (Latin and CJK) followed by closing quotes/brackets, then space.
_BOUNDARY = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？])\s*|\s*\n\s*")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|etc|e\.g|i\.e|approx|No|Inc|Ltd|Co|Jan|Feb|"
    r"Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)|\b[A-Z])\.$"
)


@dataclass(frozen=True)
class Segment:
    """One sentence: its order in the episode, where it starts, and its text."""

    position: int
    start: int
    text: str


def split_sentences(text: str, max_chars: int) -> list[Segment]:
    """Sentences of ``text`` with their character offsets; blank pieces are dropped."""
    pieces: list[tuple[int, str]] = []
    start = 0
    pending_start: int | None = None
    for match in _BOUNDARY.finditer(text):
        end = match.start()
        chunk_start = start if pending_start is None else pending_start
        chunk = text[chunk_start:end]
        if "\n" not in match.group() and _ABBREVIATION.search(chunk):
            pending_start = chunk_start  # "Dr." is not the end of a sentence
        else:
            pieces.append((chunk_start, chunk))
            pending_start = None
        start = match.end()
    tail_start = start if pending_start is None else pending_start
    pieces.append((tail_start, text[tail_start:]))

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
