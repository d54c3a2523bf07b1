"""Who said a line: the leading ``Name:`` of a transcript line, note or observed turn.

"Asha: I moved to Pune" is Asha saying "I moved to Pune". Indexed as text, the
name would match every question about Asha equally (it starts every line she
said), so the name is the speaker, kept as the episode's metadata, and the
sentences indexed start after it; recall then treats a name in the query as a
speaker to favour (``recall/search.py``). The episode keeps its text whole.
"""

from __future__ import annotations

import re

from orma_proxy.text.names import NOT_NAMES
from orma_proxy.text.segment import Segment, split_sentences

__all__ = ["leading_speaker", "split_said"]

# One to three capitalised words, a colon, then the line (never a URL's "http:").
_LEADING = re.compile(r"([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):[ \t]+(?=\S)")
# Capitalised words that label a line rather than name who said it.
_LABELS = frozenset(
    """note notes todo to-do update re fwd fw subject question answer q a warning error summary
    tip edit ps nb p.s step task reminder idea important date time title example""".split()  # noqa: SIM905
)


def leading_speaker(text: str) -> tuple[str, int] | None:
    """The speaker a line starts with and where what they said starts, or None.

    >>> leading_speaker("Asha: I moved to Pune")
    ('Asha', 6)
    >>> leading_speaker("Note: buy milk") is None
    True
    """
    match = _LEADING.match(text)
    if match is None:
        return None
    words = match[1].lower().split()
    if words[0] in NOT_NAMES or words[-1] in _LABELS or words[0] in _LABELS:
        return None
    return match[1], match.end()


def split_said(
    text: str, max_chars: int, speaker: str | None = None, *, detect: bool = True
) -> tuple[str | None, list[Segment]]:
    """The speaker of ``text`` and the sentences of what they said.

    With ``speaker`` given, a leading ``"{speaker}:"`` is what is left out; without,
    any leading name. ``detect=False`` (a document: "Chapter One: ..." is a heading)
    leaves the text whole. Offsets stay those of ``text``.
    """
    found = leading_speaker(text) if detect else None
    if found is None or (speaker is not None and found[0] != speaker):
        return speaker, split_sentences(text, max_chars)
    name, start = found
    body = [
        Segment(s.position, s.start + start, s.text)
        for s in split_sentences(text[start:], max_chars)
    ]
    return name, body
