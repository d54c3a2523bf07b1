"""Short forms and the words they stand for: "pw" is a password, "Passport no. K88..." a number.

People write notes in short forms ("gmail pw: ...", "Gym locker combo 17-32-05",
"My SSN is ...") and ask in full words ("my email password", "locker
combination"), or the other way round. ``expanded`` adds each short form's words
beside it, so both sides meet on the same stems. The table is data
(``abbreviations.tsv``): general written English, never a labelled set's phrasing.
"No." and "nr." stand for "number" only before something with a digit ("no. K8830215"),
never as the answer "No.".
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["expanded", "in_full"]

_TOKEN = re.compile(r"[\w/#-]+\.?(?:\w+\.)*")
_BEFORE_DIGITS_BARE = frozenset({"no", "nr"})


@cache
def _table() -> dict[str, tuple[str, ...]]:
    text = resources.files(__package__).joinpath("abbreviations.tsv").read_text("utf-8")
    table: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        short, _, words = line.partition("\t")
        table[short.strip().lower()] = tuple(words.split())
    return table


def _long_forms(text: str) -> list[tuple[re.Match[str], tuple[str, ...]]]:
    table = _table()
    tokens = list(_TOKEN.finditer(text))
    found = []
    for i, m in enumerate(tokens):
        low = m[0].lower()
        words = table.get(low) or table.get(low.rstrip("."))
        if words is None:
            continue
        if low.rstrip(".") in _BEFORE_DIGITS_BARE:
            after = tokens[i + 1][0] if i + 1 < len(tokens) else ""
            if not low.endswith(".") or not any(c.isdigit() for c in after):
                continue
        found.append((m, words))
    return found


def expanded(text: str) -> str:
    """``text`` with the words of each short form it holds added after it (a note's side)."""
    added = [w for _, words in _long_forms(text) for w in words]
    return f"{text} {' '.join(added)}" if added else text


def in_full(text: str) -> str:
    """``text`` with each short form written out in its place (a request's side: "my SSN")."""
    out = text
    for m, words in reversed(_long_forms(text)):
        out = f"{out[: m.start()]}{' '.join(words)}{out[m.end() :]}"
    return out
