"""Sleep in the background, on the server's own event loop.

The proxy's lifespan (and the MCP server) own one ``SleepScheduler``:
``start()`` when serving begins, ``close()`` when it ends. It wakes every
``sleep_poll_seconds`` (or at once on ``notify()``), finds the spaces that are
due (``sleep_after_episodes`` pending, or ``sleep_idle_seconds`` quiet with
anything pending) and consolidates them one at a time. A failed LLM try is
retried within the run after its backoff (``retry``), down to the rules; a
space whose batch could not be applied waits ``sleep_retry_seconds`` before it
is tried again. Pending work lives in the database, so episodes stored by
another process are found too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from orma_proxy.config import OrmaConfig
from orma_proxy.sleep.consolidate import Sleeper
from orma_proxy.sleep.gate import UpstreamGate
from orma_proxy.sleep.report import SleepReport

log = logging.getLogger(__name__)


class SleepScheduler:
    """A background task that consolidates due spaces while the server runs."""

    def __init__(self, sleeper: Sleeper, config: OrmaConfig) -> None:
        self._sleeper = sleeper
        self._config = config
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._retry_at: dict[str, float] = {}
        self.last_report: SleepReport | None = None
        self.runs = 0

    @property
    def gate(self) -> UpstreamGate | None:
        """The hook the proxy marks chat requests with (``with scheduler.gate.chat():``)."""
        return self._sleeper.gate

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Begin the background loop (idempotent; does nothing when consolidation is off)."""
        if self.running or not self._config.enable_semantic:
            return
        if self._sleeper.read_only is not None:
            log.warning("background sleep is off: %s", self._sleeper.read_only)
            return
        self._task = asyncio.create_task(self._run(), name="orma-sleep")

    def notify(self) -> None:
        """Episodes were stored: look for due spaces now rather than at the next poll."""
        self._wake.set()

    async def close(self) -> None:
        """Stop at once. A batch being extracted is abandoned and stays pending."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def run_once(self) -> SleepReport:
        """Consolidate every space that is due now (what one wake-up of the loop does)."""
        now = time.time()
        report = SleepReport()
        for space in await self._sleeper.due_spaces(now):
            if self._retry_at.get(space, 0.0) > now:
                continue
            result = await self._sleeper.sleep(space)
            if result.errors:
                self._retry_at[space] = time.time() + self._config.sleep_retry_seconds
            else:
                self._retry_at.pop(space, None)
            report.merge(result)
        self.runs += 1
        self.last_report = report
        if report.batches or report.errors:
            log.info("%s", report)
        return report

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._config.sleep_poll_seconds)
            self._wake.clear()
            try:
                await self.run_once()
            except Exception as exc:  # logged; the loop must outlive one bad run
                log.warning("sleep run failed, will try again: %s", exc, exc_info=True)
