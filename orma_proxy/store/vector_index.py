"""A space's vectors held in memory, for the k-NN of a long-running process.

The Hamming search and its int8 re-rank over one space's arrays are
``space_vectors.py``'s (loaded with the first space held: a process that never
holds one, ``orma stats``, never imports numpy for it); this module keeps them
for the spaces this process searches often.

SQLite stays the truth; this is a cache that any process can keep correct:
every write to ``sentence_vectors`` logs the sentence id in ``vector_changes``
(migration 0005, by trigger), and before each search the index reads the
changes after the last one it applied and looks at those sentences' current
vectors. A space is loaded (in a worker thread, on its own connection) once it
has been searched ``vector_memory_after`` times, so a one-shot ``orma search``
never pays for loading; until then searches use vec0.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from orma_proxy.offload import in_thread
from orma_proxy.store.connect import Connection, DatabaseError, open_sync
from orma_proxy.store.threads import Reader

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors
    from orma_proxy.store.space_vectors import SpaceVectors

log = logging.getLogger(__name__)

_LOAD_BATCH = 20_000  # rows read and quantised at a time when a space loads

_CHANGES_SQL = (
    "SELECT c.seq, c.sentence_id, s.space, v.embedding FROM vector_changes c "
    "LEFT JOIN sentences s ON s.id = c.sentence_id "
    "LEFT JOIN sentence_vectors v ON v.sentence_id = c.sentence_id "
    "WHERE c.seq > ? ORDER BY c.seq LIMIT ?"
)
_SPACE_SQL = (
    "SELECT v.sentence_id, v.embedding FROM sentence_vectors v "
    "JOIN sentences s ON s.id = v.sentence_id WHERE s.space = ?"
)
_LAST_SQL = "SELECT coalesce(max(seq), 0) FROM vector_changes"


class _Closing(Exception):
    """The index closed while a space was loading."""


class VectorIndex:
    """The vectors of the spaces this process searches often, kept current."""

    def __init__(
        self,
        path: Path,
        *,
        busy_timeout_ms: int,
        load_after: int,
        catch_up_max: int,
        candidate_share: float = 0.0,
    ):
        self._path = path
        self._candidate_share = candidate_share
        self._busy_timeout_ms = busy_timeout_ms
        self._load_after = load_after
        self._catch_up_max = catch_up_max
        self._spaces: dict[str, SpaceVectors] = {}
        self._searches: Counter[str] = Counter()
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._applied = 0  # the last vector_changes.seq every held space reflects
        self._lock = asyncio.Lock()
        self._closing = threading.Event()  # stops a load's worker thread early

    def holds(self, space: str) -> bool:
        """Whether ``space``'s k-NN runs in memory now."""
        return space in self._spaces

    async def settle(self) -> None:
        """Wait for the loads in flight (benchmarks and tests start timing after)."""
        await asyncio.gather(*self._loading.values(), return_exceptions=True)

    async def catch_up(self, reader: Reader) -> None:
        """Apply what any process changed since the last call (one read, usually empty)."""
        if not self._spaces:
            return
        async with self._lock:
            # Read and applied in the reader's thread, in one trip: growing a held space
            # copies it (~450 bytes a sentence) and dropping changed ids scans it; the event
            # loop must not wait on either.
            await reader.execute_fn(self._read_and_apply)

    def _read_and_apply(self, conn: Connection) -> None:
        rows = conn.execute(_CHANGES_SQL, (self._applied, self._catch_up_max + 1)).fetchall()
        if not rows:
            return
        if len(rows) > self._catch_up_max:
            # A reindex or a bulk import: reloading beats patching row by row.
            log.info("vector index: %d+ changes, reloading spaces", self._catch_up_max)
            self._spaces.clear()
            return
        self._apply([(int(r[0]), int(r[1]), r[2], r[3]) for r in rows])

    def _apply(self, changes: list[tuple[int, int, str | None, bytes | None]]) -> None:
        """Each changed sentence leaves every held space, and returns with its current vector."""
        from orma_proxy.store.space_vectors import SpaceVectors

        gone = {sentence_id for _, sentence_id, _, _ in changes}
        fresh: dict[str, dict[int, bytes]] = {}
        for _, sentence_id, space, blob in changes:
            if blob is not None and space in self._spaces:
                fresh.setdefault(space, {})[sentence_id] = blob
        for space, held in list(self._spaces.items()):
            added = fresh.get(space, {})
            self._spaces[space] = held.merged(
                gone, SpaceVectors.build(list(added), list(added.values()))
            )
        self._applied = changes[-1][0]

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

    def use(self, space: str) -> bool:
        """Count a search of ``space``; True if its k-NN can run in memory now.

        Counting is what starts a background load once a space has been searched
        ``load_after`` times.
        """
        if space in self._spaces:
            return True
        self._searches[space] += 1
        if 0 < self._load_after <= self._searches[space] and space not in self._loading:
            self._loading[space] = asyncio.create_task(self._load(space))
        return False

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

        Not when no space is ever held (``load_after`` 0, and always on PostgreSQL).
        """
        if self._load_after == 0:
            return
        await reader.create_function("orma_nearest", 4, self.nearest_json)

    async def _load(self, space: str) -> None:
        try:
            seq, held = await in_thread(lambda: self._read_space(space))
            async with self._lock:
                if not self._spaces:
                    self._applied = seq
                # Changes between an older point and ``seq`` are applied again on the
                # next catch-up; applying a change twice gives the same result.
                self._applied = min(self._applied, seq)
                self._spaces[space] = held
            log.info(
                "vector index: %d vectors of space %r in memory (%.1f MB)",
                held.size,
                space,
                held.nbytes / 1e6,
            )
        except _Closing:
            return
        except (DatabaseError, OSError) as exc:
            log.warning("vector index: loading space %r failed (%s); using vec0", space, exc)
        finally:
            self._loading.pop(space, None)

    def _read_space(self, space: str) -> tuple[int, SpaceVectors]:
        """One snapshot of ``space``: the change it reflects and its vectors."""
        from orma_proxy.store.space_vectors import SpaceVectors

        conn = open_sync(self._path, busy_timeout_ms=self._busy_timeout_ms, read_only=True)
        try:
            conn.execute("BEGIN")
            seq = int(conn.execute(_LAST_SQL).fetchone()[0])
            cursor = conn.execute(_SPACE_SQL, (space,))
            parts = []
            while rows := cursor.fetchmany(_LOAD_BATCH):
                if self._closing.is_set():
                    raise _Closing
                # A batch at a time: the float blobs of a million sentences are 1.5 GB.
                parts.append(SpaceVectors.build([r[0] for r in rows], [r[1] for r in rows]))
            conn.execute("COMMIT")
            return seq, SpaceVectors.joined(parts)
        finally:
            conn.close()

    async def close(self) -> None:
        """Stop loads in flight and wait for their threads.

        Not ``Task.cancel``: the worker thread would run on and finish into a
        closed event loop.
        """
        self._closing.set()
        await self.settle()
