"""What to say when a forgetting request matched nothing: the closest lines, and an error.

A person who asked to forget a secret must never be told it went while it
stays. Nothing matched is ``NothingMatchedError`` on every surface (the CLI's
exit 2, the proxy's 404, an MCP error), naming the shown lines nearest the
description by meaning and by words, so the request can be said again exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.errors import NothingMatchedError
from orma_proxy.forget.meaning import Described
from orma_proxy.store import Connection, SentenceRow, keyword_passages, nearest_passages

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

__all__ = ["closest", "nearest_lines", "nothing_matched"]

_EACH = 3  # lines by meaning, then as many by words
_OVERSAMPLE = 16  # SQLite's Hamming candidates re-ranked by cosine for a handful of hits


def closest(conn: Connection, space: str, text: str, meaning: Described | None) -> list[str]:
    """Up to 2 x 3 shown lines of ``space``: nearest ``text`` in meaning, then in words."""
    found: dict[str, None] = {}
    if meaning is not None:
        found.update((row.text, None) for row in nearest_lines(conn, space, meaning.vector, _EACH))
    worded = [row.text for row in keyword_passages(conn, text, space, _EACH * 2)]
    found.update((t, None) for t in worded if t not in found and len(found) < _EACH * 2)
    return list(found)


def nearest_lines(conn: Connection, space: str, vector: Vectors, k: int) -> list[SentenceRow]:
    """The ``k`` shown lines of ``space`` nearest ``vector``, each with its similarity."""
    return nearest_passages(conn, vector, space, k=k, oversample=_OVERSAMPLE, use_floor=False)


def nothing_matched(
    conn: Connection, space: str, text: str, meaning: Described | None, what: str
) -> NothingMatchedError:
    """The error for ``text`` matching nothing in ``space`` (``what``: nothing was <what>)."""
    near = closest(conn, space, text, meaning)
    tail = "; closest lines: " + " | ".join(near) if near else "; the space holds no line near it"
    return NothingMatchedError(
        f"nothing in space {space!r} matches {text!r}; nothing was {what}{tail}", near
    )
