"""A clock for sleep's retry policy that waits without waiting: an hour of backoff in no time."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field


@dataclass
class FakeClock:
    """Starts at the real time; ``wait`` moves it on at once and records how long."""

    at: float = field(default_factory=time.time)
    waits: list[float] = field(default_factory=list)
    stop_after: int | None = None  # waits before one raises CancelledError (a stopped process)

    def now(self) -> float:
        return self.at

    async def wait(self, seconds: float) -> None:
        if self.stop_after is not None and len(self.waits) >= self.stop_after:
            raise asyncio.CancelledError
        self.waits.append(round(seconds, 3))
        self.at += seconds
        await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        self.at += seconds
