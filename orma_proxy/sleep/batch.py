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

from orma_proxy.config import OrmaConfig
from orma_proxy.context_window import estimate_tokens
from orma_proxy.store import (
    Backlog,
    Connection,
    Reader,
    backlog,
    episodes_after,
    execute_fn,
    said_before,
    transcript,
    watermark_of,
)

CITABLE_ROLES = frozenset({"user", "note", "document", "tool"})
# The roles whose lines are the user's own statements (what is drawn as it is recorded).
OWN_WORDS = frozenset({"user", "note"})
# The most lines a line is read against (a person "she" may stand for, the line a
# correction corrects): above a default batch and its context (40 + 6), so no batch of
# the usual size reads less than all of it.
PRECEDING_LINES = 64


@dataclass(frozen=True)
class Line:
    """One sentence of a batch, numbered for citation."""

    number: int
    sentence_id: int
    episode_id: int
    role: str
    text: str
    said_at: float
    speaker: str | None = None  # "Asha: I moved to Mumbai": Asha said it, not the user

    @property
    def citable(self) -> bool:
        return self.role in CITABLE_ROLES

    def said(self, tz: tzinfo) -> datetime:
        return datetime.fromtimestamp(self.said_at, tz)

    def numbered(self, tz: tzinfo) -> str:
        """``[s3 2026-10-21 user] text``; a named speaker's line shows the name instead."""
        who = self.speaker if self.speaker and self.citable else self.role
        return f"[s{self.number} {self.said(tz).date().isoformat()} {who}] {self.text}"


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
        """Text said just before ``line`` (context, then earlier lines of the batch), oldest
        first: the last ``PRECEDING_LINES`` of it, so reading every line of a batch costs in
        proportion to its length, never its square (a 40,000-sentence paste)."""
        end = line.number - 1
        earlier = [x.text for x in self.lines[max(0, end - PRECEDING_LINES) : end]]
        room = PRECEDING_LINES - len(earlier)
        return [*(self.context[-room:] if room > 0 else ()), *earlier]

    def head(self, episodes: int) -> Batch:
        """This batch's first ``episodes`` episodes alone, their lines numbered anew."""
        if episodes >= len(self.episode_ids):
            return self
        kept = self.episode_ids[: max(1, episodes)]
        lines = tuple(
            Line(n, x.sentence_id, x.episode_id, x.role, x.text, x.said_at, x.speaker)
            for n, x in enumerate((x for x in self.lines if x.episode_id in kept), start=1)
        )
        return Batch(self.space, self.after, kept, lines, self.context)


def fitted(texts: Sequence[str], size: int, room: int | None) -> list[list[str]]:
    """``texts`` in runs of at most ``size``, each run within ``room`` estimated tokens (None:
    no bound). A text past ``room`` alone goes alone: the server says whether it fits, and a
    refused try is retried on fewer episodes (``retry.plan_try``)."""
    runs: list[list[str]] = []
    used = 0
    for text in texts:
        cost = estimate_tokens(text) + 1  # its line break
        if not runs or len(runs[-1]) >= size or (room is not None and used + cost > room):
            runs.append([])
            used = 0
        runs[-1].append(text)
        used += cost
    return runs


async def watermark(reader: Reader, space: str) -> int:
    """The last episode of ``space`` consolidated (0 before the first batch)."""
    return await execute_fn(reader, lambda conn: watermark_of(conn, space))


async def pending(reader: Reader, space: str) -> tuple[int, float | None]:
    """How many episodes of ``space`` wait, and when the newest of them was stored."""
    waiting = await execute_fn(reader, lambda conn: backlog(conn, space))
    return waiting.episodes, waiting.newest_at


def is_due(waiting: Backlog, now: float, config: OrmaConfig) -> bool:
    """Enough pending, or quiet long enough with anything pending."""
    return waiting.episodes >= config.sleep_after_episodes or (
        waiting.episodes > 0
        and waiting.newest_at is not None
        and now - waiting.newest_at >= config.sleep_idle_seconds
    )


def next_batch(conn: Connection, space: str, after: int, config: OrmaConfig) -> Batch | None:
    """The next run of whole pending episodes after ``after``, or None if none is pending.

    A chain of dependent reads: run in the reader's thread (``Reader.execute_fn``).
    """
    chosen: list[int] = []
    total = 0
    for episode in episodes_after(conn, space, after, config.sleep_batch_lines):
        if chosen and total + episode.sentences > config.sleep_batch_lines:
            break
        chosen.append(episode.episode_id)
        total += episode.sentences
    if not chosen:
        return None
    lines = tuple(
        Line(n, r.sentence_id, r.episode_id, r.role, r.text, r.said_at, r.speaker)
        for n, r in enumerate(transcript(conn, chosen), start=1)
    )
    context: tuple[str, ...] = ()
    if lines and config.sleep_context_lines:
        context = tuple(said_before(conn, space, lines[0].sentence_id, config.sleep_context_lines))
    return Batch(space, after, tuple(chosen), lines, context)
