"""Counts and sizes of a memory database, for ``orma stats`` and ``Memory.stats()``.

``pending_sleep`` counts the episodes above each space's consolidation
watermark: what sleep has not turned into states and events yet;
``sleep_batches`` counts the batches sleep applied by how they were extracted
(``llm``, ``rules``, ``rules-fallback``, ``rules-llm-empty``) and its failed
tries (``failed``). The store counts episodes and sentences, the facts layer
states and events.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from orma_proxy.config import safe_url
from orma_proxy.facts import fact_counts
from orma_proxy.store import (
    Reader,
    batch_outcomes,
    counts,
    database_bytes,
    execute_fn,
)


@dataclass(frozen=True)
class Stats:
    path: str
    space: str | None
    spaces: int
    episodes: int
    sentences: int
    pending_vectors: int
    states_active: int
    states_closed: int
    events: int
    pending_sleep: int
    database_bytes: int
    embedder: str
    dim: int
    sleep_batches: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def collect_stats(
    conn: Reader, path: Path | str, space: str | None, embedder: str, dim: int
) -> Stats:
    """``path``: the SQLite file, or the PostgreSQL URL (shown without its password)."""
    stored, facts, outcomes = await execute_fn(
        conn, lambda c: (counts(c, space), fact_counts(c, space), batch_outcomes(c, space))
    )
    if isinstance(path, str):
        size, shown = await execute_fn(conn, database_bytes), safe_url(path)
    else:
        files = (path, Path(f"{path}-wal"), Path(f"{path}-shm"))
        size, shown = sum(p.stat().st_size for p in files if p.exists()), str(path)
    return Stats(
        path=shown,
        space=space,
        spaces=stored.spaces,
        episodes=stored.episodes,
        sentences=stored.sentences,
        pending_vectors=stored.pending_vectors,
        states_active=facts.states_active,
        states_closed=facts.states_closed,
        events=facts.events,
        pending_sleep=stored.pending_sleep,
        database_bytes=size,
        embedder=embedder,
        dim=dim,
        sleep_batches=outcomes,
    )
