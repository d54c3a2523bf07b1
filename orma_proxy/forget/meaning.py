"""Which of a person's lines a description means when no line holds its words: by meaning.

"Omar's sport" names Omar and a kind of fact no word list has; "Omar plays
squash twice a week" says it in other words. A small model's similarity is
ruled by the name both share, so the name's own direction is taken out of the
description's embedding and of each line's before they are compared.
Similarities are measured in deviations of the space's typical line (its newest
lines), never as a fixed cosine, since models differ in where unrelated text
lands; which line that makes the one meant is the fitted choice's to say
(``forget/choice.py``). A correction is as near as the lines it replaced, so a
chain of corrections stays findable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from orma_proxy.store import (
    Connection,
    StoredLine,
    corrected_lines,
    float_vectors,
    recent_vectors,
)

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

__all__ = [
    "MIN_SAMPLE",
    "Described",
    "others_sample",
    "similarities",
    "standing_out",
]

# Lines of the space a typical similarity is taken from, besides the person's own (the newest).
_SAMPLE = 64
MIN_SAMPLE = 5
_CHAIN = 8  # corrections of corrections followed back at most
# A line chosen by some of a description's words must stand this many deviations above the
# space's typical line (set on the development set, bench/data/forgetting_dev.jsonl).
STANDS_OUT = 2.0


@dataclass(frozen=True)
class Described:
    """A description's embedding, its anchor's (the names it holds) if it has any, and
    for a correction the new text's (``forget/corrected.py``)."""

    vector: Vectors
    anchor: Vectors | None = None
    correction: Described | None = None

    def without_anchor(self, vectors: Vectors) -> Vectors:
        """``vectors`` (rows) with the anchor's direction taken out, each of unit length."""
        rows = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        if self.anchor is not None:
            unit = self.anchor / (np.linalg.norm(self.anchor) or 1.0)
            rows = rows - np.outer(rows @ unit, unit)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        unit_rows: Vectors = (rows / np.where(norms == 0, 1.0, norms)).astype(np.float32)
        return unit_rows


def similarities(
    conn: Connection, space: str, lines: list[StoredLine], described: Described
) -> tuple[list[StoredLine], Vectors, dict[int, Vectors]]:
    """The lines with a vector, their similarity to the description, and the vectors.

    A correction stands for what it corrected ("Hiroshi moved to Nagoya" for
    "Hiroshi lives in Osaka"): its similarity is the best of its own and theirs.
    """
    found = float_vectors(conn, [line.id for line in lines])
    mine = [line for line in lines if line.id in found]
    if not mine:
        return [], np.zeros(0, dtype=np.float32), found
    query = described.without_anchor(described.vector)[0]
    sims = described.without_anchor(np.stack([found[line.id] for line in mine])) @ query
    for i, line in enumerate(mine):
        if line.corrects is not None:
            earlier = _stood_for(conn, space, line.episode_id)
            if earlier:
                rows = described.without_anchor(np.stack(list(earlier.values())))
                sims[i] = max(float(sims[i]), float(np.max(rows @ query)))
    return mine, sims, found


def _stood_for(conn: Connection, space: str, episode: int) -> dict[int, Vectors]:
    """The vectors of the lines a correction replaced, and of those they replaced (a chain)."""
    ids: list[int] = []
    frontier, seen = [episode], {episode}
    for _ in range(_CHAIN):
        lines = [
            pair for found in corrected_lines(conn, space, frontier).values() for pair in found
        ]
        ids += [sentence for sentence, _ in lines]
        frontier = [e for _, e in lines if e not in seen]
        seen.update(frontier)
        if not frontier:
            break
    return float_vectors(conn, ids)


def others_sample(
    conn: Connection, space: str, found: dict[int, Vectors], described: Described
) -> Vectors:
    """The description's similarity to the space's newest lines outside ``found``: what a
    line that is not about it scores, the scale its candidates are measured on."""
    query = described.without_anchor(described.vector)[0]
    sample = [v for i, v in recent_vectors(conn, space, _SAMPLE).items() if i not in found]
    if not sample:
        return np.zeros(0, dtype=np.float32)
    scores: Vectors = described.without_anchor(np.stack(sample)) @ query
    return scores


def standing_out(
    conn: Connection, space: str, lines: list[StoredLine], described: Described
) -> list[StoredLine]:
    """Those of ``lines`` whose meaning stands STANDS_OUT deviations above the space's typical
    line: a check on lines chosen by some of a description's words ("my shoe size" is not
    "My hat size is 58")."""
    mine, sims, found = similarities(conn, space, lines, described)
    if not mine:
        return []
    others = others_sample(conn, space, found, described)
    if len(others) < MIN_SAMPLE:
        return mine  # too few lines to say what is typical: the words decide
    typical, spread = float(np.median(others)), float(np.std(others)) or 1.0
    return [
        line for line, sim in zip(mine, sims, strict=True) if sim - typical >= STANDS_OUT * spread
    ]
