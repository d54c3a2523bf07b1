"""A space's vectors held in memory, for the k-NN of a long-running process.

Why a space's vectors are held, and how they are searched (sign bits for a Hamming
pass, int8 copies to re-rank, ~450 bytes a sentence), is ``space_vectors.py``'s.
That module is loaded with the first space held: a process that never holds one never
imports numpy for it.

The database stays the truth; this is a cache kept current from ``vector_changes``
(``held_index.py``), looking at each changed sentence's current vector. Until a
space is held (``vector_memory_after`` searches), searches use vec0 on SQLite,
pgvector on PostgreSQL (the same statements read the float32 bytes from either).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from orma_proxy.store.connect import Connection
from orma_proxy.store.held_index import VECTOR_LOG, HeldIndex, Row
from orma_proxy.store.threads import Reader

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors
    from orma_proxy.store.space_vectors import SpaceVectors

_LOAD_BATCH = 20_000  # rows read and quantised at a time when a space loads

_CHANGES_SQL = (
    "SELECT c.seq, c.sentence_id, s.space, v.embedding FROM vector_changes c "
    "LEFT JOIN sentences s ON s.id = c.sentence_id "
    "LEFT JOIN sentence_vectors v ON v.sentence_id = c.sentence_id "
    "WHERE c.seq > ? ORDER BY c.seq LIMIT ?"
)
# A batch of the space's vectors after an id: each batch one seek, and no engine holds more
# than a batch for the reader (a client-side psycopg cursor would hold them all).
_SPACE_SQL = (
    "SELECT v.sentence_id, v.embedding FROM sentences s "
    "CROSS JOIN sentence_vectors v ON v.sentence_id = s.id "
    "WHERE s.space = ? AND s.id > ? ORDER BY s.id LIMIT ?"
)


class VectorIndex(HeldIndex["SpaceVectors"]):
    """The vectors of the spaces this process searches often, kept current."""

    _log = VECTOR_LOG
    _changes_sql = _CHANGES_SQL
    _width = 4
    _name = "vector index"

    def __init__(self, where: Path | str, *, candidate_share: float = 0.0, **options: int) -> None:
        super().__init__(where, **options)  # busy_timeout_ms, load_after, catch_up_max
        self._candidate_share = candidate_share

    def _apply(self, rows: list[Row]) -> None:
        from orma_proxy.store.space_vectors import SpaceVectors

        gone = {int(r[1]) for r in rows}
        fresh: dict[str, dict[int, bytes]] = {}
        for _, sentence_id, space, blob in rows:
            if blob is not None and space in self._spaces:
                fresh.setdefault(space, {})[int(sentence_id)] = blob
        for space, held in list(self._spaces.items()):
            added = fresh.get(space, {})
            self._spaces[space] = held.merged(
                gone, SpaceVectors.build(list(added), list(added.values()))
            )

    def nearest(
        self, space: str, query: Vectors, count: int, k: int
    ) -> list[tuple[int, float]] | None:
        """The ``k`` best (id, cosine) of Hamming candidates (None: not held).

        At least ``count`` candidates, and ``candidate_share`` of the space: the
        exact top 10 sits deeper in the Hamming order as the space grows.
        """
        held = self._spaces.get(space)
        if held is None:
            return None
        return held.nearest(query, max(count, math.ceil(held.size * self._candidate_share)), k)

    def nearest_json(self, space: str, query: bytes, count: int, k: int) -> str:
        """``orma_nearest(space, q, kc, k)``: ``[[id, cosine], ...]`` best first, for ``json_each``.

        Registered on the reader connection, so the k-NN runs in the reader's
        thread inside the search's own statement. A space dropped meanwhile (a
        bulk change) gives no hits for that one search.
        """
        import numpy as np

        found = self.nearest(space, np.frombuffer(query, dtype=np.float32), count, k)
        return json.dumps(found or [])

    async def register(self, reader: Reader) -> None:
        """Make ``orma_nearest`` available to the statements of ``reader``.

        Not when no space is ever held (``load_after`` 0), nor on PostgreSQL, where
        ``store/passages.py`` asks ``nearest`` itself and binds the hits.
        """
        if self._load_after == 0 or isinstance(self._where, str):
            return
        await reader.create_function("orma_nearest", 4, self.nearest_json)

    def _read(self, conn: Connection, space: str) -> SpaceVectors:
        from orma_proxy.store.space_vectors import SpaceVectors

        parts, after = [], 0
        # A batch at a time: the float blobs of a million sentences are 1.5 GB.
        while rows := conn.execute(_SPACE_SQL, (space, after, _LOAD_BATCH)).fetchall():
            self._check_open()
            parts.append(SpaceVectors.build([r[0] for r in rows], [r[1] for r in rows]))
            after = int(rows[-1][0])
        return SpaceVectors.joined(parts)

    def _describe(self, held: SpaceVectors) -> str:
        return f"{held.size} vectors ({held.nbytes / 1e6:.1f} MB)"
