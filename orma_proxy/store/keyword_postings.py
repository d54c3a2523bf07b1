"""One space's keyword postings as numpy arrays: BM25 top-k that a common word does not slow.

FTS5's ``ORDER BY bm25() LIMIT k`` scores every row of every query term's postings,
reading each row's size from its own table: a word in 10,000 of a space's 200,000
sentences costs ~30 ms on its own. Held here as numpy arrays (sentence ids sorted,
term counts; ~50 MB at 100,000 notes), the same BM25 runs as MaxScore: terms are
taken rarest first and scored over their whole postings only until the terms left
could not lift a sentence none of the taken ones found above the k-th best; those
common terms are then scored for the candidates alone, one binary search each.
The scores are FTS5's ``bm25()`` (k1 1.2, b 0.75, every column weighted 1) with the
space's own counts (FTS5 counts the whole table): in a store of one space, the same.
``keyword_index.py`` keeps these for the spaces a process searches often.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Ids = npt.NDArray[np.int64]
Counts = npt.NDArray[np.float64]

K1 = 1.2  # FTS5's bm25() constants
B = 0.75
IDF_FLOOR = 1e-6  # FTS5 scores a term in more than half the rows with this IDF


@dataclass
class SpaceKeywords:
    """One space's postings: per term, its sentences (ids ascending) and counts there."""

    ids: dict[str, Ids] = field(default_factory=dict)
    counts: dict[str, Counts] = field(default_factory=dict)
    length_of: Counts = field(default_factory=lambda: np.zeros(0))  # tokens, by sentence id
    rows: int = 0
    tokens: float = 0.0
    scored: int = 0  # postings the last ``top`` scored (FTS5 scores every one of them)
    _acc: Counts = field(default_factory=lambda: np.zeros(0), repr=False)

    @classmethod
    def build(cls, postings: Iterable[tuple[str, Ids]], members: Ids) -> SpaceKeywords:
        """From each term's occurrences (sentence ids ascending) and the space's ids."""
        held = cls()
        inside = np.zeros(int(members.max(initial=-1)) + 1, dtype=bool)
        inside[members] = True
        for term, docs in postings:
            docs = docs[docs < len(inside)]
            docs = docs[inside[docs]]
            if len(docs):
                starts = np.flatnonzero(np.concatenate(([True], docs[1:] != docs[:-1])))
                counts = np.diff(np.append(starts, len(docs)))  # docs come sorted
                held.ids[term], held.counts[term] = docs[starts], counts.astype(np.float64)
        if held.ids:
            every = np.concatenate(list(held.ids.values()))
            weights = np.concatenate(list(held.counts.values()))
            lengths = np.bincount(every, weights=weights, minlength=len(inside))
            held.length_of = lengths.astype(np.float64)
        held.rows = int(np.count_nonzero(held.length_of))
        held.tokens = float(held.length_of.sum())
        return held

    def holds(self, doc: int) -> bool:
        return doc < len(self.length_of) and self.length_of[doc] > 0

    def remove(self, gone: set[int]) -> None:
        """Take sentences out of every term's postings (ids not held are ignored)."""
        gone = {doc for doc in gone if self.holds(doc)}
        if not gone:
            return
        drop = np.fromiter(sorted(gone), dtype=np.int64)
        for term in list(self.ids):
            ids = self.ids[term]
            keep = ~np.isin(ids, drop, assume_unique=True)
            if keep.all():
                continue
            if not keep.any():
                del self.ids[term], self.counts[term]
            else:
                self.ids[term], self.counts[term] = ids[keep], self.counts[term][keep]
        self.rows -= len(drop)
        self.tokens -= float(self.length_of[drop].sum())
        self.length_of[drop] = 0

    def add(self, docs: dict[int, Counter[str]]) -> None:
        """Put sentences (id -> count of each token) in, none of them held yet."""
        by_term: dict[str, list[tuple[int, int]]] = {}
        for doc, terms in docs.items():
            for term, n in terms.items():
                by_term.setdefault(term, []).append((doc, n))
        for term, pairs in by_term.items():
            new_ids = np.array([d for d, _ in pairs], dtype=np.int64)
            new_counts = np.array([n for _, n in pairs], dtype=np.float64)
            ids = np.concatenate([self.ids.get(term, np.zeros(0, np.int64)), new_ids])
            counts = np.concatenate([self.counts.get(term, np.zeros(0)), new_counts])
            order = np.argsort(ids, kind="stable")
            self.ids[term], self.counts[term] = ids[order], counts[order]
        top = max(docs, default=-1) + 1
        if top > len(self.length_of):  # room for a quarter more, so ids can grow
            grown = np.zeros(max(top, len(self.length_of) * 5 // 4))
            grown[: len(self.length_of)] = self.length_of
            self.length_of = grown
        for doc, terms in docs.items():
            self.length_of[doc] = sum(terms.values())
            self.tokens += self.length_of[doc]
        self.rows += len(docs)

    def top(self, phrases: list[str], k: int) -> list[tuple[int, float]]:
        """The ``k`` best (sentence id, BM25) for one-token ``phrases``, best first (MaxScore).

        Not reentrant (one accumulator per space): ``KeywordIndex`` calls it under its lock.
        """
        rows = self.rows
        if rows == 0 or k < 1:
            return []
        average = self.tokens / rows
        terms: list[tuple[int, str, float]] = []  # (postings length, term, its weight: IDF)
        for term, times in Counter(phrases).items():  # a phrase twice counts twice, as FTS5's
            hits = len(self.ids.get(term, ()))
            if hits:
                idf = max(math.log((rows - hits + 0.5) / (hits + 0.5)), IDF_FLOOR)
                terms.append((hits, term, times * idf))
        if not terms:
            return []
        terms.sort()
        bounds = [w * (K1 + 1) for _, _, w in terms]  # a term's most, however often it occurs
        rest = [sum(bounds[i:]) for i in range(len(bounds) + 1)]
        if len(self._acc) != len(self.length_of):
            self._acc = np.zeros(len(self.length_of))
        acc = self._acc  # each sentence's score so far, by id; all zeros between calls
        self.scored = 0
        taken: list[Ids] = []
        while len(taken) < len(terms):
            _, term, weight = terms[len(taken)]
            ids = self.ids[term]
            acc[ids] += self._score(term, weight, ids, average)
            taken.append(ids)
            self.scored += len(ids)
            if len(taken) < len(terms) and rest[len(taken)] < _kth(acc[_some(taken, k)], k):
                break  # no sentence the common terms alone find can reach the top k
        found = _union(taken, len(acc))
        scores = acc[found]
        acc[found] = 0.0
        if len(taken) < len(terms):
            alive = scores + rest[len(taken)] >= _kth(scores, k)
            found, scores = found[alive], scores[alive]
            for _, term, weight in terms[len(taken) :]:
                ids = self.ids[term]
                at = np.minimum(np.searchsorted(ids, found), len(ids) - 1)
                hit = ids[at] == found
                scores[hit] += self._score(term, weight, found[hit], average, at[hit])
                self.scored += len(found)
        best = (
            np.flatnonzero(scores >= _kth(scores, k)) if len(found) > k else np.arange(len(found))
        )
        order = best[np.lexsort((found[best], -scores[best]))][:k]
        return [(int(found[i]), float(scores[i])) for i in order]

    def _score(
        self,
        term: str,
        idf: float,
        ids: Ids,
        average: float,
        at: npt.NDArray[np.intp] | None = None,
    ) -> Counts:
        counts = self.counts[term] if at is None else self.counts[term][at]
        norm = K1 * (1 - B + B * self.length_of[ids] / average)
        result: Counts = idf * counts * (K1 + 1) / (counts + norm)
        return result


def _kth(scores: Counts, k: int) -> float:
    """The ``k``-th largest score: a floor under the top k (none, 0, with fewer than k)."""
    if len(scores) < k:
        return 0.0
    return float(np.partition(scores, len(scores) - k)[len(scores) - k])


def _some(taken: list[Ids], k: int) -> Ids:
    """Distinct sentences the taken terms found, at least ``k`` when they found that many.

    The k-th best score among any of them is a floor under the k-th best of all.
    """
    if len(taken[-1]) >= k:
        return taken[-1]
    return _unique(np.concatenate(taken[-8:]))  # rare terms: a few short lists


def _union(taken: list[Ids], size: int) -> Ids:
    """Every sentence the taken terms found, ids ascending."""
    total = sum(len(ids) for ids in taken)
    if len(taken) == 1:
        return taken[0]
    if total > size // 8:  # long lists: one pass over a mask beats sorting them
        seen = np.zeros(size, dtype=bool)
        for ids in taken:
            seen[ids] = True
        return np.flatnonzero(seen)
    return _unique(np.concatenate(taken))


def _unique(ids: Ids) -> Ids:
    """Sorted distinct ids (numpy 2.4's ``unique`` hashes: several times slower here)."""
    ids = np.sort(ids)
    keep: Ids = ids[np.concatenate(([True], ids[1:] != ids[:-1]))]
    return keep
