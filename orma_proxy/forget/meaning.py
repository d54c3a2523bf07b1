"""Which of a person's lines a description means when no line holds its words: by meaning.

"Omar's sport" names Omar and a kind of fact no word list has; "Omar plays
squash twice a week" says it in other words. A small model's similarity is
ruled by the name both share, so the name's own direction is taken out of the
description's embedding and of each line's before they are compared. Only a
*clear winner* is taken: the best line, when the next best stands well below it
relative to the best's lead over a typical line of the space (the median
similarity of the person's lines and the space's newest ones), never a fixed
cosine, since models differ in where unrelated text lands. Otherwise nothing is
chosen: ``AmbiguousDescriptionError`` names the closest lines, so the caller
can quote the one meant.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orma_proxy.embed.base import Vectors
from orma_proxy.errors import AmbiguousDescriptionError
from orma_proxy.store import Connection, StoredLine, float_vectors, recent_vectors

__all__ = ["Described", "clear_winners"]

# Lines of the space a typical similarity is taken from, besides the person's own (the newest).
_SAMPLE = 64
_CANDIDATES = 5
_MIN_SAMPLE = 5
# The best line must stand this many deviations above the space's typical line to mean
# anything at all, and the next best at least APART of the best's lead below it to win.
STANDS_OUT = 3.0
APART = 0.45


@dataclass(frozen=True)
class Described:
    """A description's embedding, and its anchor's (the names it holds), if it has any."""

    vector: Vectors
    anchor: Vectors | None = None

    def without_anchor(self, vectors: Vectors) -> Vectors:
        """``vectors`` (rows) with the anchor's direction taken out, each of unit length."""
        rows = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if self.anchor is not None:
            unit = self.anchor / (np.linalg.norm(self.anchor) or 1.0)
            rows = rows - np.outer(rows @ unit, unit)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        unit_rows: Vectors = (rows / np.where(norms == 0, 1.0, norms)).astype(np.float32)
        return unit_rows


def clear_winners(
    conn: Connection, space: str, text: str, lines: list[StoredLine], described: Described
) -> list[StoredLine]:
    """The line of ``lines`` that ``text`` clearly means, or an ambiguity naming the closest."""
    found = float_vectors(conn, [line.id for line in lines])
    mine = [line for line in lines if line.id in found]
    if not mine:
        return []
    query = described.without_anchor(described.vector)[0]
    sims = described.without_anchor(np.stack([found[line.id] for line in mine])) @ query
    order = np.argsort(-sims, kind="stable")
    sample = [v for i, v in recent_vectors(conn, space, _SAMPLE).items() if i not in found]
    others = described.without_anchor(np.stack(sample)) @ query if sample else np.zeros(0)
    typical = float(np.median(np.concatenate([sims, others])))
    best = float(sims[order[0]])
    if len(others) >= _MIN_SAMPLE:
        spread = float(np.std(others))
        if spread > 0 and best - float(np.median(others)) < STANDS_OUT * spread:
            return []  # no line of the person is about it more than any line of the space
    lead = best - typical
    if len(mine) > 1 and lead > 0 and float(sims[order[1]]) <= best - APART * lead:
        return [mine[order[0]]]
    closest = [mine[i].text for i in order[:_CANDIDATES]]
    raise AmbiguousDescriptionError(
        f"{text!r} could mean any of {len(closest)} lines and none stands out; "
        "nothing was changed: quote the one meant",
        closest,
    )
