"""How far sleep has consolidated each space: its watermark, and the episodes waiting above it.

A space's episodes are consolidated in id order behind a watermark
(``sleep_progress``): every episode at or below it is done, every one above
it waits. The watermark moves in the transaction that applies a batch, so a
crash leaves the batch pending, never half applied. Each batch tried is
logged in ``store/batches.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.store.connect import Connection

__all__ = [
    "Backlog",
    "EpisodeSize",
    "backlog",
    "backlogs",
    "clear_consolidation",
    "episode_spaces",
    "episodes_after",
    "move_watermark",
    "watermark_of",
]


@dataclass(frozen=True)
class Backlog:
    """The episodes of ``space`` waiting above its watermark."""

    space: str
    episodes: int
    newest_at: float | None  # when the newest of them was stored; None when none waits


@dataclass(frozen=True)
class EpisodeSize:
    """An episode and how many sentences it has (a batch is cut at whole episodes)."""

    episode_id: int
    sentences: int


def watermark_of(conn: Connection, space: str) -> int:
    """The last episode of ``space`` consolidated (0 before the first batch)."""
    row = conn.execute(
        "SELECT last_episode_id FROM sleep_progress WHERE space = ?", (space,)
    ).fetchone()
    return int(row[0]) if row else 0


def move_watermark(conn: Connection, space: str, last_episode_id: int, now: float) -> None:
    """Mark every episode of ``space`` up to ``last_episode_id`` consolidated."""
    conn.execute(
        "INSERT INTO sleep_progress (space, last_episode_id, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (space) DO UPDATE SET last_episode_id = excluded.last_episode_id, "
        "updated_at = excluded.updated_at",
        (space, last_episode_id, now),
    )


def backlog(conn: Connection, space: str) -> Backlog:
    """How many episodes of ``space`` wait, and when the newest of them was stored."""
    count, newest = conn.execute(
        "SELECT count(*), max(created_at) FROM episodes WHERE space = ? AND id > "
        "coalesce((SELECT last_episode_id FROM sleep_progress WHERE space = ?), 0)",
        (space, space),
    ).fetchone()
    return Backlog(space, int(count), None if newest is None else float(newest))


def backlogs(conn: Connection) -> list[Backlog]:
    """The backlog of every space with episodes waiting, by space."""
    rows = conn.execute(
        "SELECT e.space, count(*), max(e.created_at) FROM episodes e "
        "LEFT JOIN sleep_progress p ON p.space = e.space "
        "WHERE e.id > coalesce(p.last_episode_id, 0) GROUP BY e.space ORDER BY e.space"
    ).fetchall()
    return [Backlog(str(space), int(count), float(newest)) for space, count, newest in rows]


def episode_spaces(conn: Connection) -> list[str]:
    """Every space holding an episode, sorted."""
    return sorted(str(r[0]) for r in conn.execute("SELECT DISTINCT space FROM episodes"))


def episodes_after(conn: Connection, space: str, after: int, limit: int) -> list[EpisodeSize]:
    """The first ``limit`` episodes of ``space`` after episode ``after``, in id order."""
    rows = conn.execute(
        "SELECT e.id, (SELECT count(*) FROM sentences s WHERE s.episode_id = e.id) "
        "FROM episodes e WHERE e.space = ? AND e.id > ? ORDER BY e.id LIMIT ?",
        (space, after, limit),
    ).fetchall()
    return [EpisodeSize(int(episode_id), int(count)) for episode_id, count in rows]


def clear_consolidation(conn: Connection, space: str) -> None:
    """Forget every batch of ``space`` and its watermark: all its episodes wait again."""
    for table in ("sleep_rejections", "sleep_batches", "sleep_progress"):
        conn.execute(f"DELETE FROM {table} WHERE space = ?", (space,))
