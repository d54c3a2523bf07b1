"""Sleep's log of the batches it attempted: applied, or failed with the error kept.

Each batch is recorded with the items verification refused in it, in the
transaction that applies it (or records its failure).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from orma_proxy.store.connect import Connection
from orma_proxy.store.select import Select


@dataclass(frozen=True)
class SleepBatch:
    """How one batch of episodes went: ``applied`` or ``failed``, by which extractor, when."""

    status: str
    extractor: str
    episodes: int
    finished_at: float
    error: str | None


_BATCHES = Select.of(
    {
        "status": "status",
        "extractor": "extractor",
        "episodes": "episodes",
        "finished_at": "finished_at",
        "error": "error",
    },
    "FROM sleep_batches ",
)


def last_batch(conn: Connection, space: str) -> SleepBatch | None:
    """The batch of ``space`` sleep attempted last; None before its first."""
    rows = conn.execute(_BATCHES.sql + "WHERE space = ? ORDER BY id DESC LIMIT 1", (space,))
    found = _BATCHES.all_named(rows)
    if not found:
        return None
    r = found[0]
    error = r["error"]
    return SleepBatch(
        str(r["status"]),
        str(r["extractor"]),
        int(r["episodes"]),
        float(r["finished_at"]),
        None if error is None else str(error),
    )


@dataclass(frozen=True)
class BatchRecord:
    """One batch sleep tried: its episodes, how it went, and what extracted it."""

    space: str
    first_episode_id: int
    last_episode_id: int
    episodes: int
    status: str  # 'applied' or 'failed'
    extractor: str
    attempts: int
    error: str | None
    llm_seconds: float
    finished_at: float


@dataclass(frozen=True)
class RejectedItem:
    """An extracted item verification refused, and why (kept with its batch)."""

    kind: str  # 'state', 'event' or 'name'
    item: Mapping[str, Any]
    reason: str


def record_batch(conn: Connection, batch: BatchRecord) -> int:
    """Keep a batch's record; returns its id."""
    cursor = conn.execute(
        "INSERT INTO sleep_batches (space, first_episode_id, last_episode_id, episodes, status, "
        "extractor, attempts, error, llm_seconds, finished_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (batch.space, batch.first_episode_id, batch.last_episode_id, batch.episodes,
         batch.status, batch.extractor, batch.attempts, batch.error, batch.llm_seconds,
         batch.finished_at),
    )  # fmt: skip
    return int(cursor.fetchone()[0])


def record_rejections(
    conn: Connection, batch_id: int, space: str, rejected: Iterable[RejectedItem]
) -> None:
    """Keep what verification refused in batch ``batch_id``, each item as JSON."""
    conn.executemany(
        "INSERT INTO sleep_rejections (batch_id, space, kind, sentence_id, item, reason) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (batch_id, space, r.kind, None, json.dumps(r.item, default=str), r.reason)
            for r in rejected
        ],
    )


@dataclass(frozen=True)
class BatchTry:
    """One row of the batch log, as sleep's retry policy reads it."""

    first_episode_id: int
    last_episode_id: int
    episodes: int
    status: str  # 'applied' or 'failed'
    attempts: int
    finished_at: float


def batch_tries(conn: Connection, space: str, since: float) -> list[BatchTry]:
    """The batches of ``space`` tried (applied or failed) at or after ``since``, in order."""
    rows = conn.execute(
        "SELECT first_episode_id, last_episode_id, episodes, status, attempts, finished_at "
        "FROM sleep_batches WHERE space = ? AND finished_at >= ? ORDER BY id",
        (space, since),
    ).fetchall()
    return [
        BatchTry(int(first), int(last), int(n), str(status), int(attempts), float(at))
        for first, last, n, status, attempts, at in rows
    ]


def batch_outcomes(conn: Connection, space: str | None) -> dict[str, int]:
    """Applied batches by how they were extracted, and failed tries as ``failed``.

    Of ``space``, or of the whole database when None; the most frequent first.
    """
    where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
    rows = conn.execute(
        "SELECT CASE status WHEN 'failed' THEN 'failed' ELSE extractor END AS outcome, "
        f"count(*) FROM sleep_batches {where} GROUP BY outcome ORDER BY count(*) DESC, outcome",
        args,
    ).fetchall()
    return {str(outcome): int(count) for outcome, count in rows}
