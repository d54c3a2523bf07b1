"""Progress on stderr for long commands: a bar with sentences/s and ETA, shown after a second.

The work runs in a worker thread while the command's own thread waits in short
steps: it draws the bar, and Ctrl-C reaches it at once (never stuck behind a
call into the memory's thread), so the command can say what was kept.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from types import TracebackType
from typing import TYPE_CHECKING, Self, TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

if TYPE_CHECKING:
    from orma_proxy.memory.sync import Memory

T = TypeVar("T")

SHOW_AFTER_SECONDS = 1.0
_WAIT_SECONDS = 0.1
_POLL_SECONDS = 0.5  # ``poll`` may count rows: not too often


class _Rate(ProgressColumn):
    """How many sentences (or other units) so far, and how many a second."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self._unit = unit

    def render(self, task: Task) -> Text:
        count = int(task.fields.get("sentences", 0))
        elapsed = task.elapsed or 0.0
        rate = count / elapsed if elapsed > 0 else 0.0
        return Text(f"{count:,} {self._unit}, {rate:,.0f}/s", style="progress.data.speed")


class Meter:
    """One progress bar on ``console``, drawn only once the work has run ``SHOW_AFTER_SECONDS``.

    ``advance`` may be called from any thread; the bar appears on the next
    ``tick`` after the delay, from the thread that waits (``run_polled``).
    """

    def __init__(
        self, console: Console, description: str, total: float | None, unit: str = "sentences"
    ) -> None:
        self._progress = Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            _Rate(unit),
            TimeRemainingColumn(),
            console=console,
        )
        self._task = self._progress.add_task(description, total=total, sentences=0)
        self._lock = threading.Lock()
        self._completed = 0.0
        self._sentences = 0
        self._since = time.monotonic()
        self._shown = False

    def advance(self, amount: float, *, sentences: int = 0) -> None:
        self.set(self._completed + amount, sentences=self._sentences + sentences)

    def set(self, completed: float, *, sentences: int) -> None:
        with self._lock:
            self._completed, self._sentences = completed, sentences
            self._progress.update(self._task, completed=completed, sentences=sentences)

    @property
    def sentences(self) -> int:
        return self._sentences

    def tick(self) -> None:
        if not self._shown and time.monotonic() - self._since >= SHOW_AFTER_SECONDS:
            self._shown = True
            self._progress.start()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._shown:
            self._progress.stop()


def start(call: Callable[[], T]) -> Future[T]:
    """Run ``call`` in a worker thread of its own (never waited for on Ctrl-C)."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="orma-cli-work")
    future = pool.submit(call)
    pool.shutdown(wait=False)
    return future


def run_polled(future: Future[T], meter: Meter, poll: Callable[[], None] | None = None) -> T:
    """Wait for ``future`` in short steps, drawing ``meter`` (and calling ``poll``) between."""
    polled = time.monotonic()
    while not wait([future], timeout=_WAIT_SECONDS).done:
        if poll is not None and time.monotonic() - polled >= _POLL_SECONDS:
            poll()
            polled = time.monotonic()
        meter.tick()
    return future.result()


def counting_down(
    console: Console,
    call: Callable[[], T],
    description: str,
    remaining: Callable[[], int],
    total: int,
    unit: str = "sentences",
) -> T:
    """Run ``call`` under a bar whose progress is ``total - remaining()``, polled.

    For work that reports no progress of its own but leaves a count in the
    database going down (pending vectors, episodes waiting for sleep). Ctrl-C
    stops waiting at once; the work left stays pending for the next time.
    """
    meter = Meter(console, description, total, unit)

    def poll() -> None:
        done = max(0, total - remaining())
        meter.set(done, sentences=done)

    with meter:
        result = run_polled(start(call), meter, poll)
        poll()
    return result


def embed_pending(console: Console, memory: Memory, description: str, total: int | None) -> None:
    """``memory.flush()`` under a bar counting down the pending vectors.

    ``total`` is how many sentences are to be embedded (None: those pending now).
    """

    def pending() -> int:
        return memory.stats().pending_vectors

    memory.warm_up()  # the model loads on first use: not on the bar's clock
    counting_down(
        console, memory.flush, description, pending, pending() if total is None else total
    )
