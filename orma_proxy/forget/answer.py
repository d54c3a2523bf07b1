"""The value a correction gives its slot: the phrase that answers it, not the whole sentence.

``supersede("Meera's employer", "Meera is at Zoho as of 2025.")`` makes
``Meera · employer: Zoho``. Sleep's rules read the sentence first
(``sleep.stated_value``); when they say nothing of the slot, the phrase is what
follows the holder and the words linking it to the value ("is at", "switched
to", "uses"), without words of time ("now", "as of 2025"). When nothing is left,
the sentence stays the value: a value is never invented.
"""

from __future__ import annotations

import re

__all__ = ["answer"]

_TIME = re.compile(
    r"(?i)(?:\s*,?\s*\b(?:now|nowadays|these days|currently|instead|anymore|from now on|"
    r"(?:as of|since|starting|from) [\w ,'-]+?)\s*)+$"
)
_LEAD_TIME = re.compile(r"(?i)^(?:now|nowadays|these days|currently|actually|update)\b[,:]?\s*")
_LINKS = frozenset(
    "is are was were am be been 's at in to for with as on from by into of".split()  # noqa: SIM905
)
_SELF = re.compile(r"(?i)^(?:i'm|i am|i've|i|my|we|we're|he|she|they|he's|she's|they're)\b\s*")


def answer(new: str, holder: str, attribute: str) -> str:
    """The phrase of ``new`` that answers ``holder``'s ``attribute`` (else ``new`` itself)."""
    from orma_proxy.sleep import stated_value  # sleep's rule tables: only when superseding

    whole = " ".join(new.split())
    phrase = _phrase(whole, holder)
    ruled = stated_value(whole, attribute)
    if ruled and ruled not in phrase:
        return ruled  # the rules read another phrase of it: theirs is the reading
    return phrase or ruled or whole


def _phrase(whole: str, holder: str) -> str:
    """What follows the holder and its linking words, without words of time."""
    text = _TIME.sub("", whole.rstrip(" .!;")).strip()
    text = _LEAD_TIME.sub("", text)
    own = re.match(rf"(?i)^{re.escape(holder)}(?:'s|’s)?\s+", text) if holder else None
    own = own or _SELF.match(text)
    if own is None or not own.group(0):
        return ""  # no holder leads it: a bare value ("Dr. Shah") is its own answer
    words = text[own.end() :].split()
    first = next((i for i, w in enumerate(words) if w.lower() in _LINKS), None)
    if first is None:
        rest = words[1:]  # "uses Helix": the verb goes
    else:
        end = first
        while end < len(words) and words[end].lower() in _LINKS:
            end += 1
        rest = words[end:]
    return " ".join(rest).strip(" ,")
