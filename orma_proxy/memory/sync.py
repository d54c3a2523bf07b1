"""``Memory``: the synchronous SDK, a thin wrapper over ``AsyncMemory``.

The engine runs on a private event loop in a daemon thread, so ``Memory`` works
the same from plain scripts, from Jupyter, and from code already running its
own event loop (where ``asyncio.run`` would refuse).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Coroutine
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.memory.engine import AsyncMemory, When
from orma_proxy.memory.stats import Stats
from orma_proxy.recall.pack import MemoryBlock
from orma_proxy.recall.search import SearchResult
from orma_proxy.recall.states import State
from orma_proxy.sleep import SleepReport

T = TypeVar("T")


class _LoopThread:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="orma-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


def _shutdown(memory: AsyncMemory, runner: _LoopThread) -> None:
    try:
        runner.run(memory.close())
    finally:
        runner.stop()


class Memory:
    """Long-term memory on one SQLite file (synchronous API).

    ``Memory(path=None, upstream=None, model=None, config=None, embedder=None)``;
    the database defaults to ``~/.orma/memory.db`` (or ``$ORMA_DIR/memory.db``).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        upstream: str | None = None,
        model: str | None = None,
        config: OrmaConfig | None = None,
        embedder: Embedder | None = None,
        *,
        reindex: bool = False,
    ) -> None:
        self._async = AsyncMemory(path, upstream, model, config, embedder)
        self._runner = _LoopThread()
        try:
            self._runner.run(self._async.open(reindex=reindex))
        except BaseException:
            self._runner.stop()
            raise
        self._finalizer = weakref.finalize(self, _shutdown, self._async, self._runner)

    @property
    def config(self) -> OrmaConfig:
        return self._async.config

    @property
    def path(self) -> Path:
        return self._async.path

    @property
    def embedder(self) -> Embedder:
        return self._async.embedder

    def add(self, text: str, space: str = "default", role: str = "note", at: When = None) -> int:
        """Store ``text`` as an episode; returns its id. Durable once returned."""
        return self._runner.run(self._async.add(text, space=space, role=role, at=at))

    def add_file(self, path: str | Path, space: str = "default") -> int:
        """Store a text or Markdown file as one document episode."""
        return self._runner.run(self._async.add_file(path, space=space))

    def observe(self, role: str, text: str, space: str = "default", at: When = None) -> int:
        """Record one chat turn (user, assistant or tool)."""
        return self._runner.run(self._async.observe(role, text, space=space, at=at))

    def search(self, query: str, space: str = "default", k: int = 10) -> SearchResult:
        """Hybrid BM25 + vector search of one space."""
        return self._runner.run(self._async.search(query, space=space, k=k))

    def stats(self, space: str | None = None) -> Stats:
        return self._runner.run(self._async.stats(space))

    def flush(self) -> None:
        """Wait until every stored sentence has its vector."""
        self._runner.run(self._async.flush())

    def sleep(
        self, space: str | None = None, model: str | None = None, redo: bool = False
    ) -> SleepReport:
        """Consolidate pending episodes into states and events now."""
        return self._runner.run(self._async.sleep(space, model=model, redo=redo))

    def facts(self, space: str = "default", include_history: bool = False) -> list[State]:
        """Active states of a space (with history: closed ones too)."""
        return self._runner.run(self._async.facts(space, include_history=include_history))

    def recall(
        self,
        query: str,
        space: str = "default",
        budget_tokens: int | None = None,
        *,
        at: When = None,
    ) -> MemoryBlock:
        """The memory block the proxy would inject for ``query`` (forbidden rules first)."""
        return self._runner.run(
            self._async.recall(query, space, budget_tokens=budget_tokens, at=at)
        )

    def build_context(
        self,
        messages: list[dict[str, Any]],
        space: str = "default",
        *,
        budget_tokens: int | None = None,
        at: When = None,
    ) -> list[dict[str, Any]]:
        """``messages`` with the memory block merged into the system prompt."""
        return self._runner.run(
            self._async.build_context(messages, space, budget_tokens=budget_tokens, at=at)
        )

    def forbid(self, rule: str, space: str = "default") -> State:
        """Register ``rule`` as forbidden now (a ``forbidden_<name>`` state)."""
        return self._runner.run(self._async.forbid(rule, space))

    def forget(self, state_id: int, space: str = "default") -> State:
        """Close a state now; it stays in history."""
        return self._runner.run(self._async.forget(state_id, space))

    def close(self) -> None:
        """Close the database. Safe to call twice."""
        self._finalizer()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
