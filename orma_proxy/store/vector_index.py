"""A space's bit vectors held in memory, for the coarse k-NN of a long-running process.

sqlite-vec's vec0 k-NN keeps its top-k by scanning each chunk's distances once
per result, so asking it for the 120 coarse candidates of a 30-result search
cost 7-8 ms at 20,000 sentences. The same Hamming search over the same
binary-quantised vectors held as numpy words takes about 0.5 ms, and the exact
cosine re-rank stays in SQL on the float copies (``store/vectors.py``).

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
import sqlite3
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import aiosqlite
import numpy as np

from orma_proxy.embed.base import Vectors
from orma_proxy.store.connect import open_sync

log = logging.getLogger(__name__)

_WORD_BYTES = 8

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


def pack_bits(vectors: Vectors) -> np.ndarray:
    """Sign bits of each row (1 where > 0, as vec_quantize_binary), as uint64 words."""
    bits = np.packbits(np.asarray(vectors) > 0, axis=-1)
    pad = -bits.shape[-1] % _WORD_BYTES
    if pad:
        bits = np.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, pad)])
    return np.ascontiguousarray(bits).view(np.uint64)


@dataclass(frozen=True)
class SpaceBits:
    """One space's sentence ids and their bit vectors, word-major for fast XOR."""

    ids: np.ndarray  # int64 (n,)
    words: np.ndarray  # uint64 (words, n)

    @classmethod
    def build(cls, ids: list[int], blobs: list[bytes]) -> SpaceBits:
        if not ids:
            return cls(np.zeros(0, np.int64), np.zeros((0, 0), np.uint64))
        floats = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
        return cls(np.asarray(ids, dtype=np.int64), np.ascontiguousarray(pack_bits(floats).T))

    def nearest(self, query: Vectors, count: int) -> list[int]:
        """The ids of the ``count`` vectors nearest to ``query`` by Hamming distance."""
        n = len(self.ids)
        if n == 0:
            return []
        wanted = pack_bits(np.asarray(query, dtype=np.float32)[None, :])[0]
        if len(wanted) != self.words.shape[0]:
            return []
        distance = np.bitwise_count(self.words[0] ^ wanted[0]).astype(np.uint16)
        for row, word in zip(self.words[1:], wanted[1:], strict=True):
            distance += np.bitwise_count(row ^ word)
        if count < n:
            picked = np.argpartition(distance, count)[:count]
            return [int(i) for i in self.ids[picked]]
        return [int(i) for i in self.ids]

    def merged(self, gone: set[int], added: SpaceBits) -> SpaceBits:
        """This space without ``gone`` and ``added``'s ids, plus ``added``."""
        drop = gone | {int(i) for i in added.ids}
        if len(added.ids) and self.words.size and added.words.shape[0] != self.words.shape[0]:
            return added  # another model's width: only the new vectors are comparable
        ids, words = self.ids, self.words
        # Sentence ids only grow, so a turn's new sentences are past every held one: the
        # common catch-up appends without matching each held id against the changes.
        if len(ids) and min(drop, default=0) <= int(ids.max()):
            keep = ~np.isin(ids, np.fromiter(drop, np.int64, len(drop)))
            ids, words = ids[keep], words[:, keep]
        if not len(added.ids):
            return SpaceBits(ids, words)
        if not words.size:
            return added
        return SpaceBits(
            np.concatenate([ids, added.ids]), np.concatenate([words, added.words], axis=1)
        )


class _Closing(Exception):
    """The index closed while a space was loading."""


class VectorIndex:
    """The bit vectors of the spaces this process searches often, kept current."""

    def __init__(self, path: Path, *, busy_timeout_ms: int, load_after: int, catch_up_max: int):
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._load_after = load_after
        self._catch_up_max = catch_up_max
        self._spaces: dict[str, SpaceBits] = {}
        self._searches: Counter[str] = Counter()
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._applied = 0  # the last vector_changes.seq every held space reflects
        self._lock = asyncio.Lock()
        self._closing = threading.Event()  # stops a load's worker thread early

    def holds(self, space: str) -> bool:
        """Whether ``space``'s coarse k-NN runs in memory now."""
        return space in self._spaces

    async def settle(self) -> None:
        """Wait for the loads in flight (benchmarks and tests start timing after)."""
        await asyncio.gather(*self._loading.values(), return_exceptions=True)

    async def catch_up(self, conn: aiosqlite.Connection) -> None:
        """Apply what any process changed since the last call (one read, usually empty)."""
        if not self._spaces:
            return
        async with self._lock:
            rows = list(
                await conn.execute_fetchall(_CHANGES_SQL, (self._applied, self._catch_up_max + 1))
            )
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
        gone = {sentence_id for _, sentence_id, _, _ in changes}
        fresh: dict[str, dict[int, bytes]] = {}
        for _, sentence_id, space, blob in changes:
            if blob is not None and space in self._spaces:
                fresh.setdefault(space, {})[sentence_id] = blob
        for space, held in list(self._spaces.items()):
            added = fresh.get(space, {})
            self._spaces[space] = held.merged(
                gone, SpaceBits.build(list(added), list(added.values()))
            )
        self._applied = changes[-1][0]

    def nearest(self, space: str, query: Vectors, count: int) -> list[int] | None:
        """The ``count`` Hamming-nearest sentence ids, or None while ``space`` isn't held."""
        held = self._spaces.get(space)
        return None if held is None else held.nearest(query, count)

    def use(self, space: str) -> bool:
        """Count a search of ``space``; True if its coarse k-NN can run in memory now.

        Counting is what starts a background load once a space has been searched
        ``load_after`` times.
        """
        if space in self._spaces:
            return True
        self._searches[space] += 1
        if 0 < self._load_after <= self._searches[space] and space not in self._loading:
            self._loading[space] = asyncio.create_task(self._load(space))
        return False

    def coarse_json(self, space: str, query: bytes, count: int) -> str:
        """``orma_coarse(space, q, kc)``: the candidates as a JSON array, for ``json_each``.

        Registered on the reader connection, so the Hamming k-NN runs in the
        reader's thread inside the search's own statement. A space dropped
        meanwhile (a bulk change) gives no candidates for that one search.
        """
        found = self.nearest(space, np.frombuffer(query, dtype=np.float32), count)
        return json.dumps(found or [])

    async def register(self, conn: aiosqlite.Connection) -> None:
        """Make ``orma_coarse`` available to the statements of ``conn``."""
        await conn.create_function("orma_coarse", 3, self.coarse_json)

    async def _load(self, space: str) -> None:
        try:
            seq, bits = await asyncio.to_thread(self._read_space, space)
            async with self._lock:
                if not self._spaces:
                    self._applied = seq
                # Changes between an older point and ``seq`` are applied again on the
                # next catch-up; applying a change twice gives the same result.
                self._applied = min(self._applied, seq)
                self._spaces[space] = bits
            log.info("vector index: %d vectors of space %r in memory", len(bits.ids), space)
        except _Closing:
            return
        except (sqlite3.Error, OSError) as exc:
            log.warning("vector index: loading space %r failed (%s); using vec0", space, exc)
        finally:
            self._loading.pop(space, None)

    def _read_space(self, space: str) -> tuple[int, SpaceBits]:
        """One snapshot of ``space``: the change it reflects and its bit vectors."""
        conn = open_sync(self._path, busy_timeout_ms=self._busy_timeout_ms, read_only=True)
        try:
            conn.execute("BEGIN")
            seq = int(conn.execute(_LAST_SQL).fetchone()[0])
            ids, blobs = [], []
            for sentence_id, blob in conn.execute(_SPACE_SQL, (space,)):
                if self._closing.is_set():
                    raise _Closing
                ids.append(int(sentence_id))
                blobs.append(blob)
            conn.execute("COMMIT")
            return seq, SpaceBits.build(ids, blobs)
        finally:
            conn.close()

    async def close(self) -> None:
        """Stop loads in flight and wait for their threads.

        Not ``Task.cancel``: the worker thread would run on and finish into a
        closed event loop.
        """
        self._closing.set()
        await self.settle()
