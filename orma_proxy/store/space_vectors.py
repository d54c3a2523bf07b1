"""One space's vectors as numpy arrays: sign bits for a Hamming search, int8 copies to re-rank.

sqlite-vec's vec0 k-NN keeps its top-k by scanning each chunk's distances once
per result, so asking it for the 120 coarse candidates of a 30-result search
cost 7-8 ms at 20,000 sentences. The same Hamming search over the same
binary-quantised vectors held as numpy words takes about 0.5 ms there, ~6 ms
at a million.

A fixed 120 candidates stop holding the exact top 10 as a space grows (0.89 of
it at 100,000 sentences of the bench's corpus), so the candidates are at least
``vector_candidate_share`` of the space, re-ranked by cosine against int8
copies (each row scaled to its largest component): a cosine within ~1e-3 of
the float one, at a quarter of float32's memory. A sentence costs ~450 bytes
(bits, int8, id, norm): 450 MB for a million, and up to a quarter more as room
to grow. ``vector_index.py`` keeps these for the spaces a process searches often.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

_WORD_BYTES = 8
_MIN_CAPACITY = 64
_GROWTH = 4  # room added when full: a quarter of the space
_RERANK_BLOCK = 1_024  # candidates re-ranked at a time (their int8 rows stay in cache)


def pack_bits(vectors: Vectors) -> np.ndarray:
    """Sign bits of each row (1 where > 0, as vec_quantize_binary), as uint64 words."""
    bits = np.packbits(np.asarray(vectors) > 0, axis=-1)
    pad = -bits.shape[-1] % _WORD_BYTES
    if pad:
        bits = np.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, pad)])
    return np.ascontiguousarray(bits).view(np.uint64)


def quantise(floats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 codes of each row (scaled to its largest component) and 1 / each code row's norm.

    A row's cosine with a query is ``(codes @ q) * inverse_norm / |q|``: the scale
    cancels, and rounding moves a cosine by ~1e-3 at 384 dimensions.
    """
    floats = np.asarray(floats, dtype=np.float32)
    peak = np.abs(floats).max(axis=1, keepdims=True) if len(floats) else np.ones((0, 1))
    codes = np.rint(floats * (127.0 / np.where(peak > 0, peak, 1.0))).astype(np.int8)
    norms = np.linalg.norm(codes.astype(np.float32), axis=1)
    inverse = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return codes, inverse.astype(np.float32)


@dataclass(frozen=True)
class SpaceVectors:
    """One space's sentence ids, bit vectors (word-major, for XOR) and int8 vectors.

    The arrays are buffers with room at the end and a snapshot reads only its
    first ``size`` entries, so appending a turn's sentences writes past them and
    returns a new snapshot on the same buffers: no copy of the whole space per
    turn, and a search still running on the old snapshot in the reader's thread
    sees exactly what it saw.
    """

    ids_buffer: np.ndarray  # int64 (capacity,)
    words_buffer: np.ndarray  # uint64 (words, capacity)
    codes_buffer: np.ndarray  # int8 (capacity, dim)
    inverse_buffer: np.ndarray  # float32 (capacity,): 1 / the norm of each code row
    size: int

    @classmethod
    def build(cls, ids: list[int], blobs: list[bytes]) -> SpaceVectors:
        dim = len(blobs[0]) // 4 if blobs else 0
        floats = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
        return cls.of(np.asarray(ids, dtype=np.int64), floats)

    @classmethod
    def of(cls, ids: np.ndarray, floats: np.ndarray, capacity: int = 0) -> SpaceVectors:
        """A snapshot holding ``ids`` and ``floats`` in buffers of at least ``capacity``."""
        codes, inverse = quantise(floats)
        return cls._filled(ids, pack_bits(floats).T, codes, inverse, capacity)

    @classmethod
    def joined(cls, parts: list[SpaceVectors]) -> SpaceVectors:
        """The parts one after the other (a space read in batches), copied once."""
        if not parts:
            return cls.build([], [])
        size = sum(p.size for p in parts)
        dim = parts[0].codes.shape[1]
        into = cls(
            np.zeros(size, np.int64),
            np.zeros((parts[0].words.shape[0], size), np.uint64),
            np.zeros((size, dim), np.int8),
            np.zeros(size, np.float32),
            size,
        )
        at = 0
        for part in parts:
            end = at + part.size
            into.ids_buffer[at:end], into.words_buffer[:, at:end] = part.ids, part.words
            into.codes_buffer[at:end], into.inverse_buffer[at:end] = part.codes, part.inverse
            at = end
        return into

    @classmethod
    def _filled(
        cls,
        ids: np.ndarray,
        words: np.ndarray,
        codes: np.ndarray,
        inverse: np.ndarray,
        capacity: int = 0,
    ) -> SpaceVectors:
        """A snapshot of these arrays, copied into new buffers of at least ``capacity``."""
        size = len(ids)
        capacity = max(capacity, size)
        ids_buffer = np.zeros(capacity, np.int64)
        words_buffer = np.zeros((words.shape[0], capacity), np.uint64)
        codes_buffer = np.zeros((capacity, codes.shape[1]), np.int8)
        inverse_buffer = np.zeros(capacity, np.float32)
        ids_buffer[:size], words_buffer[:, :size] = ids, words
        codes_buffer[:size], inverse_buffer[:size] = codes, inverse
        return cls(ids_buffer, words_buffer, codes_buffer, inverse_buffer, size)

    @property
    def ids(self) -> np.ndarray:
        return self.ids_buffer[: self.size]

    @property
    def words(self) -> np.ndarray:
        return self.words_buffer[:, : self.size]

    @property
    def codes(self) -> np.ndarray:
        return self.codes_buffer[: self.size]

    @property
    def inverse(self) -> np.ndarray:
        return self.inverse_buffer[: self.size]

    @property
    def nbytes(self) -> int:
        """Memory held, spare room included."""
        buffers = (self.ids_buffer, self.words_buffer, self.codes_buffer, self.inverse_buffer)
        return sum(b.nbytes for b in buffers)

    def coarse(self, query: Vectors, count: int) -> np.ndarray:
        """Positions of the ``count`` vectors nearest to ``query`` by Hamming distance.

        Distances are small integers (at most the width), so the cut-off comes from
        their histogram: two linear passes, where ``argpartition`` costs several times
        more at a million vectors.
        """
        words = self.words
        wanted = pack_bits(np.asarray(query, dtype=np.float32)[None, :])[0]
        if self.size == 0 or len(wanted) != words.shape[0]:
            return np.zeros(0, np.intp)
        if count >= self.size:
            return np.arange(self.size)
        distance = np.bitwise_count(words[0] ^ wanted[0]).astype(np.uint16)
        for row, word in zip(words[1:], wanted[1:], strict=True):
            distance += np.bitwise_count(row ^ word)
        cut = int(np.searchsorted(np.cumsum(np.bincount(distance)), count))
        closer = np.flatnonzero(distance < cut)
        level = np.flatnonzero(distance == cut)[: count - len(closer)]
        return np.concatenate([closer, level])

    def nearest(self, query: Vectors, count: int, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (id, cosine) of the ``count`` Hamming candidates, best first.

        Re-ranked by cosine against the int8 copies, in blocks that stay in cache.
        """
        query = np.asarray(query, dtype=np.float32)
        picked = self.coarse(query, count)
        if not len(picked) or self.codes.shape[1] != len(query):
            return []
        length = float(np.linalg.norm(query))
        sims = np.empty(len(picked), np.float32)
        for start in range(0, len(picked), _RERANK_BLOCK):
            block = picked[start : start + _RERANK_BLOCK]
            sims[start : start + len(block)] = self.codes[block].astype(np.float32) @ query
        sims *= self.inverse[picked] / (length if length > 0 else 1.0)
        best = np.argpartition(-sims, k)[:k] if k < len(sims) else np.arange(len(sims))
        order = best[np.argsort(-sims[best], kind="stable")]
        ids = self.ids[picked[order]]
        return [(int(i), float(s)) for i, s in zip(ids, sims[order], strict=True)]

    def merged(self, gone: set[int], added: SpaceVectors) -> SpaceVectors:
        """This space without ``gone`` and ``added``'s ids, plus ``added``."""
        if not added.size:
            return self._without(gone)
        if self.size and added.codes.shape[1] != self.codes.shape[1]:
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
        return SpaceVectors._filled(
            self.ids[keep], self.words[:, keep], self.codes[keep], self.inverse[keep]
        )

    def _appended(self, added: SpaceVectors) -> SpaceVectors:
        size = self.size + added.size
        capacity = max(_MIN_CAPACITY, size + size // _GROWTH)  # O(1) amortised, <= 25% spare
        if not self.size:
            return SpaceVectors._filled(
                added.ids, added.words, added.codes, added.inverse, capacity
            )
        into = self
        if size > len(self.ids_buffer):  # full: move to bigger buffers
            into = SpaceVectors._filled(self.ids, self.words, self.codes, self.inverse, capacity)
        # Past ``self.size``: no snapshot reads there, so no search can see it change.
        into.ids_buffer[self.size : size] = added.ids
        into.words_buffer[:, self.size : size] = added.words
        into.codes_buffer[self.size : size] = added.codes
        into.inverse_buffer[self.size : size] = added.inverse
        return SpaceVectors(
            into.ids_buffer, into.words_buffer, into.codes_buffer, into.inverse_buffer, size
        )
