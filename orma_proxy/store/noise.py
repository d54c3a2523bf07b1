"""The noise floor of a space's embedding geometry.

Small embedding models put unrelated sentences at a similarity well above zero
(bge-small: ~0.5). The floor is a percentile of pairwise similarities between
randomly sampled sentences of the space; a vector hit below it is no better than
chance. It is recomputed when the space has grown by ``noise_floor_regrow``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from orma_proxy.config import OrmaConfig
from orma_proxy.store.connect import Connection

if TYPE_CHECKING:
    import numpy as np


def percentile_floor(vectors: np.ndarray, percentile: float) -> float:
    """The ``percentile`` of pairwise cosine similarities of unit ``vectors``."""
    import numpy as np

    sims = vectors @ vectors.T
    upper = sims[np.triu_indices(len(vectors), k=1)]
    return float(np.percentile(upper, percentile))


def refresh_floor(conn: Connection, space: str, config: OrmaConfig) -> bool:
    """Recompute the space's floor if it grew enough since last time; True if it did.

    Runs as a writer job (inside the write transaction).
    """
    import numpy as np

    row = conn.execute("SELECT embedded FROM space_counts WHERE space = ?", (space,)).fetchone()
    count = int(row[0]) if row else 0
    if count < config.noise_floor_min_sentences:
        return False
    previous = conn.execute(
        "SELECT sampled_count FROM space_stats WHERE space = ?", (space,)
    ).fetchone()
    if previous is not None and count < int(previous[0]) * config.noise_floor_regrow:
        return False
    blobs = [
        r[0]
        for r in conn.execute(
            "SELECT v.embedding FROM sentence_vectors v JOIN sentences s ON s.id = v.sentence_id "
            "WHERE s.space = ? ORDER BY random() LIMIT ?",
            (space, config.noise_floor_sample),
        ).fetchall()
    ]
    vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
    floor = percentile_floor(vectors, config.noise_floor_percentile)
    conn.execute(
        "INSERT INTO space_stats (space, noise_floor, sampled_count, updated_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (space) DO UPDATE SET noise_floor = excluded.noise_floor, "
        "sampled_count = excluded.sampled_count, updated_at = excluded.updated_at",
        (space, floor, count, time.time()),
    )
    return True
