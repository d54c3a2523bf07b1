"""When to ask the LLM again about a batch it failed, with how much of it, and when to stop.

A bad upstream (an answer that is no JSON, 500s, a request that hangs until its
timeout) must not be asked about the same episodes again and again. The batch
log (``sleep_batches``) already records every failed try with the requests it
cost, so the policy is read from it, the same in every process:

- **budget**: the LLM requests spent on a batch's episodes by failed tries in
  the last ``sleep_attempt_window_seconds``; at ``sleep_max_attempts`` the rule
  extractor consolidates the batch instead (outcome ``rules-fallback``);
- **backoff**: after the n-th failure in a row, the next try waits
  ``sleep_backoff_seconds * 2**(n-1)`` (at most ``sleep_backoff_max_seconds``)
  from that failure;
- **split**: each try after a failure takes the first half of the episodes
  the last failed try at the same place took, down to one episode, so one
  episode the model chokes on cannot sink the episodes around it.

Time comes from a ``Clock``, so tests run an hour of backoff in no time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from orma_proxy.config import OrmaConfig
from orma_proxy.store import BatchTry

APPLIED = "applied"
FAILED = "failed"


class Clock(Protocol):
    """Wall-clock time and waiting, as the retry policy sees them."""

    def now(self) -> float: ...

    async def wait(self, seconds: float) -> None: ...


class RealClock:
    """``time.time()`` and ``asyncio.sleep``."""

    def now(self) -> float:
        return time.time()

    async def wait(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass(frozen=True)
class TryPlan:
    """What to do next about a pending batch."""

    spent: int  # LLM requests failed tries spent on its episodes within the window
    left: int  # requests the next try may still make (0: consolidate by rules now)
    wait: float  # seconds to wait before the next try
    episodes: int  # how many of its first episodes the next try takes
    failures: int  # failed tries in a row (since the space's last applied batch)


def plan_try(
    history: Sequence[BatchTry],
    first_episode_id: int,
    episode_ids: Sequence[int],
    now: float,
    config: OrmaConfig,
) -> TryPlan:
    """The next try at the pending batch of ``episode_ids`` (ascending), given the log.

    ``history`` is the space's batch log in order, at least the window's worth.
    """
    last = episode_ids[-1]
    since = now - config.sleep_attempt_window_seconds
    spent = sum(
        t.attempts
        for t in history
        if t.status == FAILED
        and t.finished_at >= since
        and t.first_episode_id <= last
        and t.last_episode_id >= first_episode_id
    )
    streak: list[BatchTry] = []
    for t in reversed(history):
        if t.status != FAILED:
            break
        streak.append(t)
    wait = 0.0
    if streak:
        delay = config.sleep_backoff_seconds * 2 ** (len(streak) - 1)
        delay = min(delay, config.sleep_backoff_max_seconds)
        wait = max(0.0, streak[0].finished_at + delay - now)
    size = len(episode_ids)
    if config.sleep_split_failing_batches:
        here = [t.episodes for t in streak if t.first_episode_id == first_episode_id]
        if here:
            size = min(size, max(1, (min(here) + 1) // 2))
    left = max(0, config.sleep_max_attempts - spent)
    return TryPlan(spent, left, wait, size, len(streak))
