"""The truth ``bench.latency``'s recall is measured against: brute-force cosine over every
float vector of a space, and the share of its top ``k`` a k-NN found."""

from __future__ import annotations

import numpy as np

from bench.latency_report import Recall
from orma_proxy.embed.base import Vectors
from orma_proxy.store.connect import Connection

# Cosines this close to the exact k-th count as tied with it (float32 sums).
TIE_TOLERANCE = 1e-5


class Exact:
    """Brute-force cosine over every float vector of the space: the truth recall is
    measured against."""

    def __init__(self, ids: np.ndarray, matrix: np.ndarray, queries: Vectors, k: int) -> None:
        self.ids = ids
        self.row = {int(i): n for n, i in enumerate(self.ids)}
        self.matrix = matrix
        self.queries = queries
        self.top: list[set[int]] = []
        self.kth: list[float] = []
        for start in range(0, len(queries), 10):  # 10 queries' cosines at a time
            sims = queries[start : start + 10] @ self.matrix.T
            best = np.argpartition(-sims, k, axis=1)[:, :k]
            for row, picked in zip(sims, best, strict=True):
                self.top.append({int(i) for i in self.ids[picked]})
                self.kth.append(float(row[picked].min()))

    @classmethod
    def of_space(cls, conn: Connection, space: str, queries: Vectors, k: int) -> Exact:
        """The truth for every float vector stored for ``space``."""
        rows = conn.execute(
            "SELECT v.sentence_id, v.embedding FROM sentence_vectors v "
            "JOIN sentences s ON s.id = v.sentence_id WHERE s.space = ?",
            (space,),
        ).fetchall()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        return cls(ids, matrix.reshape(len(rows), -1), queries, k)

    def recall(self, found: list[list[int]]) -> Recall:
        """Share of the exact top ``k`` in ``found`` (per query): by id, and with ties."""
        k = len(next(iter(self.top), ()))
        by_id = ties = 0
        for query, kth, exact, ids in zip(self.queries, self.kth, self.top, found, strict=True):
            ids = ids[:k]
            by_id += len(exact & set(ids))
            sims = self.matrix[[self.row[i] for i in ids]] @ query if ids else np.zeros(0)
            ties += int((sims >= kth - TIE_TOLERANCE).sum())
        return Recall(by_id / (k * len(self.top)), ties / (k * len(self.top)))
