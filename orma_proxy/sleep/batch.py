"""Pending episodes, cut into batches of numbered lines the model can cite.

A space's episodes are consolidated in id order behind a watermark
(``sleep_progress``): everything at or below it is done, everything above is
pending. A batch is a run of whole pending episodes, about
``sleep_batch_lines`` sentences; its lines are numbered s1, s2... in order.
Only lines spoken by the user, notes, documents and tools can be cited;
assistant lines are shown as context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

import aiosqlite

from orma_proxy.config import OrmaConfig

CITABLE_ROLES = frozenset({"user", "note", "document", "tool"})


@dataclass(frozen=True)
class Line:
    """One sentence of a batch, numbered for citation."""

    number: int
    sentence_id: int
    episode_id: int
    role: str
    text: str
    said_at: float

    @property
    def citable(self) -> bool:
        return self.role in CITABLE_ROLES

    def said(self, tz: tzinfo) -> datetime:
        return datetime.fromtimestamp(self.said_at, tz)

    def numbered(self, tz: tzinfo) -> str:
        return f"[s{self.number} {self.said(tz).date().isoformat()} {self.role}] {self.text}"


@dataclass(frozen=True)
class Batch:
    """Whole episodes to consolidate together, with the sentences said just before them."""

    space: str
    after: int  # the watermark this batch starts from
    episode_ids: tuple[int, ...]
    lines: tuple[Line, ...]
    context: tuple[str, ...]

    @property
    def last_episode_id(self) -> int:
        return self.episode_ids[-1]

    def line(self, number: int) -> Line | None:
        if 1 <= number <= len(self.lines):
            return self.lines[number - 1]
        return None

    def preceding(self, line: Line) -> list[str]:
        """Text said before ``line`` (context, then earlier lines of the batch), oldest first."""
        return [*self.context, *(x.text for x in self.lines[: line.number - 1])]

    def chunks(self, size: int) -> list[Sequence[Line]]:
        """Lines in groups of at most ``size`` (one LLM call each)."""
        return [self.lines[i : i + size] for i in range(0, len(self.lines), size)]


async def watermark(conn: aiosqlite.Connection, space: str) -> int:
    cursor = await conn.execute(
        "SELECT last_episode_id FROM sleep_progress WHERE space = ?", (space,)
    )
    row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def pending(conn: aiosqlite.Connection, space: str) -> tuple[int, float | None]:
    """How many episodes of ``space`` wait, and when the newest of them was stored."""
    cursor = await conn.execute(
        "SELECT count(*), max(created_at) FROM episodes WHERE space = ? AND id > "
        "coalesce((SELECT last_episode_id FROM sleep_progress WHERE space = ?), 0)",
        (space, space),
    )
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0]), (float(row[1]) if row[1] is not None else None)


async def spaces_with_pending(conn: aiosqlite.Connection) -> list[tuple[str, int, float]]:
    """(space, pending episodes, newest pending episode's created_at) for every space."""
    cursor = await conn.execute(
        "SELECT e.space, count(*), max(e.created_at) FROM episodes e "
        "LEFT JOIN sleep_progress p ON p.space = e.space "
        "WHERE e.id > coalesce(p.last_episode_id, 0) GROUP BY e.space ORDER BY e.space"
    )
    return [(r[0], int(r[1]), float(r[2])) for r in await cursor.fetchall()]


def is_due(count: int, newest: float, now: float, config: OrmaConfig) -> bool:
    """Enough pending, or quiet long enough with anything pending."""
    return count >= config.sleep_after_episodes or (
        count > 0 and now - newest >= config.sleep_idle_seconds
    )


async def next_batch(
    conn: aiosqlite.Connection, space: str, after: int, config: OrmaConfig
) -> Batch | None:
    """The next run of whole pending episodes after ``after``, or None if none is pending."""
    cursor = await conn.execute(
        "SELECT e.id, (SELECT count(*) FROM sentences s WHERE s.episode_id = e.id) "
        "FROM episodes e WHERE e.space = ? AND e.id > ? ORDER BY e.id LIMIT ?",
        (space, after, config.sleep_batch_lines),
    )
    chosen: list[int] = []
    total = 0
    for episode_id, count in await cursor.fetchall():
        if chosen and total + int(count) > config.sleep_batch_lines:
            break
        chosen.append(int(episode_id))
        total += int(count)
    if not chosen:
        return None
    marks = ",".join("?" * len(chosen))
    # A line the user corrected or released before sleep read it yields no state:
    # the old value must not come back as current through consolidation. Nor does
    # a turn the upstream never answered (its retry, if any, is the one that counts).
    cursor = await conn.execute(
        "SELECT s.id, s.episode_id, e.role, s.text, e.said_at FROM sentences s "
        f"JOIN episodes e ON e.id = s.episode_id WHERE s.episode_id IN ({marks}) "
        "AND s.superseded_by IS NULL AND s.released_by IS NULL "
        "AND json_extract(e.metadata, '$.failed') IS NULL ORDER BY s.episode_id, s.position",
        chosen,
    )
    lines = tuple(
        Line(n, int(r[0]), int(r[1]), r[2], r[3], float(r[4]))
        for n, r in enumerate(await cursor.fetchall(), start=1)
    )
    context: tuple[str, ...] = ()
    if lines and config.sleep_context_lines:
        cursor = await conn.execute(
            "SELECT text FROM sentences WHERE space = ? AND id < ? ORDER BY id DESC LIMIT ?",
            (space, lines[0].sentence_id, config.sleep_context_lines),
        )
        context = tuple(r[0] for r in reversed(list(await cursor.fetchall())))
    return Batch(space, after, tuple(chosen), lines, context)
