"""A space's vectors held in memory, for the k-NN of a long-running process.

sqlite-vec's vec0 k-NN keeps its top-k by scanning each chunk's distances once
per result, so asking it for the 120 coarse candidates of a 30-result search
cost 7-8 ms at 20,000 sentences, and re-ranking them exactly in SQL (120 row
lookups of the float copies) another ~1.3 ms. The same Hamming search over the
same binary-quantised vectors held as numpy words takes about 0.5 ms, and the
exact cosine re-rank of its candidates against float32 copies held beside them
about 0.02 ms. The cost is memory: ~1.6 KB a sentence (32 MB for a space of
20,000 sentences, and up to a quarter more as room to grow), for the spaces this
process searches often.

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
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from orma_proxy.embed.base import Vectors
from orma_proxy.offload import in_thread
from orma_proxy.store.connect import Connection, DatabaseError, open_sync
from orma_proxy.store.threads import Reader

log = logging.getLogger(__name__)

_WORD_BYTES = 8
_MIN_CAPACITY = 64
_GROWTH = 4  # room added when full: a quarter of the space

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
class SpaceVectors:
    """One space's sentence ids, bit vectors (word-major, for XOR) and float vectors.

    The arrays are buffers with room at the end and a snapshot reads only its
    first ``size`` entries, so appending a turn's sentences writes past them and
    returns a new snapshot on the same buffers: no copy of the whole space per
    turn, and a search still running on the old snapshot in the reader's thread
    sees exactly what it saw.
    """

    ids_buffer: np.ndarray  # int64 (capacity,)
    words_buffer: np.ndarray  # uint64 (words, capacity)
    floats_buffer: np.ndarray  # float32 (capacity, dim)
    size: int

    @classmethod
    def build(cls, ids: list[int], blobs: list[bytes]) -> SpaceVectors:
        dim = len(blobs[0]) // 4 if blobs else 0
        floats = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
        return cls._of(np.asarray(ids, dtype=np.int64), floats)

    @classmethod
    def _of(cls, ids: np.ndarray, floats: np.ndarray, capacity: int = 0) -> SpaceVectors:
        """A snapshot holding ``ids`` and ``floats`` in buffers of at least ``capacity``."""
        return cls._filled(ids, pack_bits(floats).T, floats, capacity)

    @classmethod
    def _filled(
        cls, ids: np.ndarray, words: np.ndarray, floats: np.ndarray, capacity: int = 0
    ) -> SpaceVectors:
        """A snapshot of these arrays, copied into new buffers of at least ``capacity``."""
        size = len(ids)
        capacity = max(capacity, size)
        ids_buffer = np.zeros(capacity, np.int64)
        words_buffer = np.zeros((words.shape[0], capacity), np.uint64)
        floats_buffer = np.zeros((capacity, floats.shape[1]), np.float32)
        ids_buffer[:size], words_buffer[:, :size], floats_buffer[:size] = ids, words, floats
        return cls(ids_buffer, words_buffer, floats_buffer, size)

    @property
    def ids(self) -> np.ndarray:
        return self.ids_buffer[: self.size]

    @property
    def words(self) -> np.ndarray:
        return self.words_buffer[:, : self.size]

    @property
    def floats(self) -> np.ndarray:
        return self.floats_buffer[: self.size]

    @property
    def nbytes(self) -> int:
        """Memory held, spare room included."""
        return self.ids_buffer.nbytes + self.words_buffer.nbytes + self.floats_buffer.nbytes

    def coarse(self, query: Vectors, count: int) -> np.ndarray:
        """Positions of the ``count`` vectors nearest to ``query`` by Hamming distance."""
        words = self.words
        wanted = pack_bits(np.asarray(query, dtype=np.float32)[None, :])[0]
        if self.size == 0 or len(wanted) != words.shape[0]:
            return np.zeros(0, np.intp)
        distance = np.bitwise_count(words[0] ^ wanted[0]).astype(np.uint16)
        for row, word in zip(words[1:], wanted[1:], strict=True):
            distance += np.bitwise_count(row ^ word)
        if count < self.size:
            return np.argpartition(distance, count)[:count]
        return np.arange(self.size)

    def nearest(self, query: Vectors, count: int, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (id, cosine) of the ``count`` Hamming candidates, best first.

        The same answer as vec0's candidates re-ranked by ``vec_distance_cosine``
        on the float copies (``store/vectors.py``).
        """
        query = np.asarray(query, dtype=np.float32)
        picked = self.coarse(query, count)
        if not len(picked) or self.floats.shape[1] != len(query):
            return []
        candidates = self.floats[picked]
        norms = np.linalg.norm(candidates, axis=1) * np.linalg.norm(query)
        sims = (candidates @ query) / np.where(norms > 0, norms, 1.0)
        order = np.argsort(-sims, kind="stable")[:k]
        ids = self.ids[picked[order]]
        return [(int(i), float(s)) for i, s in zip(ids, sims[order], strict=True)]

    def merged(self, gone: set[int], added: SpaceVectors) -> SpaceVectors:
        """This space without ``gone`` and ``added``'s ids, plus ``added``."""
        if not added.size:
            return self._without(gone)
        if self.size and added.floats.shape[1] != self.floats.shape[1]:
            return added  # another model's width: only the new vectors are comparable
        drop = gone | {int(i) for i in added.ids}
        # Sentence ids only grow, so a turn's new sentences are past every held one: the
        # common catch-up appends into the spare room without matching each held id.
        kept = self._without(drop)
        return kept._appended(added)

    def _without(self, drop: set[int]) -> SpaceVectors:
        if not self.size or min(drop, default=0) > int(self.ids.max()):
            return self
        keep = ~np.isin(self.ids, np.fromiter(drop, np.int64, len(drop)))
        if keep.all():
            return self
        return SpaceVectors._filled(self.ids[keep], self.words[:, keep], self.floats[keep])

    def _appended(self, added: SpaceVectors) -> SpaceVectors:
        size = self.size + added.size
        capacity = max(_MIN_CAPACITY, size + size // _GROWTH)  # O(1) amortised, <= 25% spare
        if not self.size:
            return SpaceVectors._of(added.ids, added.floats, capacity)
        into = self
        if size > len(self.ids_buffer):  # full: move to bigger buffers, bits as they are
            into = SpaceVectors._filled(self.ids, self.words, self.floats, capacity)
        # Past ``self.size``: no snapshot reads there, so no search can see it change.
        into.ids_buffer[self.size : size] = added.ids
        into.words_buffer[:, self.size : size] = added.words
        into.floats_buffer[self.size : size] = added.floats
        return SpaceVectors(into.ids_buffer, into.words_buffer, into.floats_buffer, size)


class _Closing(Exception):
    """The index closed while a space was loading."""


class VectorIndex:
    """The vectors of the spaces this process searches often, kept current."""

    def __init__(self, path: Path, *, busy_timeout_ms: int, load_after: int, catch_up_max: int):
        self._path = path
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
            # copies it (~1.6 KB a sentence) and dropping changed ids scans it; the event
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
        """The ``k`` best (id, cosine) of ``count`` Hamming candidates (None: not held)."""
        held = self._spaces.get(space)
        return None if held is None else held.nearest(query, count, k)

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
            return seq, SpaceVectors.build(ids, blobs)
        finally:
            conn.close()

    async def close(self) -> None:
        """Stop loads in flight and wait for their threads.

        Not ``Task.cancel``: the worker thread would run on and finish into a
        closed event loop.
        """
        self._closing.set()
        await self.settle()
