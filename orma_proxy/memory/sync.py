"""``Memory``: the synchronous SDK, a thin wrapper over ``AsyncMemory``.

The engine runs on a private event loop in a daemon thread, so ``Memory`` works
the same from plain scripts, from Jupyter, and from code already running its
own event loop (where ``asyncio.run`` would refuse).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TextIO, TypeVar

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.errors import OrmaError
from orma_proxy.facts import State
from orma_proxy.inputs import DEFAULT_SPACE
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.memory.episodes import When
from orma_proxy.memory.files import StoredPiece
from orma_proxy.memory.stats import Stats

if TYPE_CHECKING:  # the engine loads these with the work that returns them
    from orma_proxy.forget import AuditEntry, ForgetResult
    from orma_proxy.portable.rebuild import RebuildReport
    from orma_proxy.recall.pack import MemoryBlock
    from orma_proxy.recall.search import SearchResult
    from orma_proxy.sleep import SleepReport

T = TypeVar("T")


class _LoopThread:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="orma-loop", daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self.loop.is_closed():
            coro.close()  # never started: close it so Python doesn't warn it was never awaited
            raise OrmaError("this Memory is closed")
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


def _close_before_threads_end(finalizer: weakref.finalize[Any, Memory]) -> None:
    """Run ``finalizer`` at exit before ``concurrent.futures`` refuses new work.

    A ``Memory`` a script never closed is closed at interpreter exit; the
    finaliser's own ``atexit`` hook runs too late, after ``concurrent.futures``
    has shut every pool (closing the database then raises "cannot schedule new
    futures after shutdown"). Hooks registered here run before that, latest
    first, and the pools' own hook was registered when they were imported.
    """
    with contextlib.suppress(RuntimeError):  # a Memory made while Python is exiting
        threading._register_atexit(finalizer)  # type: ignore[attr-defined]


class Memory:
    """Long-term memory on one SQLite file, or in PostgreSQL (synchronous API).

    ``Memory(path=None, upstream=None, model=None, config=None, embedder=None, *, url=None)``;
    the database defaults to ``~/.orma/memory.db`` (or ``$ORMA_DIR/memory.db``, or
    ``$ORMA_DB``); ``url="postgresql://…"`` (or such a ``path``) puts it in PostgreSQL.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        upstream: str | None = None,
        model: str | None = None,
        config: OrmaConfig | None = None,
        embedder: Embedder | None = None,
        *,
        url: str | None = None,
        reindex: bool = False,
    ) -> None:
        self._async = AsyncMemory(path, upstream, model, config, embedder, url=url)
        self._runner = _LoopThread()
        try:
            self._runner.run(self._async.open(reindex=reindex))
        except BaseException:
            self._runner.stop()
            raise
        self._finalizer = weakref.finalize(self, _shutdown, self._async, self._runner)
        _close_before_threads_end(self._finalizer)

    @property
    def config(self) -> OrmaConfig:
        return self._async.config

    @property
    def path(self) -> Path:
        return self._async.path

    @property
    def location(self) -> Path | str:
        """Where the memory lives: its SQLite file, or its PostgreSQL URL."""
        return self._async.location

    @property
    def embedder(self) -> Embedder:
        return self._async.embedder

    def add(
        self,
        text: str,
        space: str = DEFAULT_SPACE,
        role: str = "note",
        at: When = None,
        *,
        speaker: str | None = None,
    ) -> int:
        """Store ``text`` as an episode; returns its id. Durable once returned."""
        return self._runner.run(
            self._async.add(text, space=space, role=role, at=at, speaker=speaker)
        )

    def add_file(
        self,
        path: str | Path,
        space: str = DEFAULT_SPACE,
        *,
        on_piece: Callable[[StoredPiece], None] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> list[int]:
        """Store a text or Markdown file as document episodes (one per piece); their ids.

        ``on_piece`` runs on the memory's own thread; see ``AsyncMemory.add_file``.
        """
        return self._runner.run(
            self._async.add_file(path, space=space, on_piece=on_piece, stop=stop)
        )

    def observe(
        self,
        role: str,
        text: str,
        space: str = DEFAULT_SPACE,
        at: When = None,
        *,
        name: str | None = None,
    ) -> int:
        """Record one chat turn (user, assistant or tool); ``name``: who said it."""
        return self._runner.run(self._async.observe(role, text, space=space, at=at, name=name))

    def embed_episodes(
        self, episode_ids: Iterable[int], *, on_embedded: Callable[[int], None] | None = None
    ) -> None:
        """Embed these episodes' sentences now, without waiting for any other backlog."""
        self._runner.run(self._async.embed_episodes(episode_ids, on_embedded=on_embedded))

    def search(
        self, query: str, space: str = DEFAULT_SPACE, k: int = 10, *, at: When = None
    ) -> SearchResult:
        """Hybrid BM25 + vector search of one space; ``at``: "last week" is as of then."""
        return self._runner.run(self._async.search(query, space=space, k=k, at=at))

    def stats(self, space: str | None = None) -> Stats:
        return self._runner.run(self._async.stats(space))

    def flush(self) -> None:
        """Wait until every stored sentence has its vector."""
        self._runner.run(self._async.flush())

    def warm_up(self) -> None:
        """Load the embedding model now (it loads on first use) and run the query path once."""
        self._runner.run(self._async.warm_up())

    def sleep(
        self, space: str | None = None, model: str | None = None, redo: bool = False
    ) -> SleepReport:
        """Consolidate pending episodes into states and events now."""
        return self._runner.run(self._async.sleep(space, model=model, redo=redo))

    def facts(self, space: str = DEFAULT_SPACE, include_history: bool = False) -> list[State]:
        """Active states of a space (with history: closed ones too)."""
        return self._runner.run(self._async.facts(space, include_history=include_history))

    def recall(
        self,
        query: str,
        space: str = DEFAULT_SPACE,
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
        space: str = DEFAULT_SPACE,
        *,
        budget_tokens: int | None = None,
        at: When = None,
    ) -> list[dict[str, Any]]:
        """``messages`` with the memory block merged into the system prompt."""
        return self._runner.run(
            self._async.build_context(messages, space, budget_tokens=budget_tokens, at=at)
        )

    def forbid(self, rule: str, space: str = DEFAULT_SPACE) -> State:
        """Register ``rule`` as forbidden now (a ``forbidden_<name>`` state)."""
        return self._runner.run(self._async.forbid(rule, space))

    def forget(self, state_id: int, space: str = DEFAULT_SPACE) -> State:
        """Close a state now; it stays in history."""
        return self._runner.run(self._async.forget(state_id, space))

    # --- forgetting on request and portability: see AsyncMemory ---------------------

    def supersede(
        self, old: str | int, new: str, space: str = DEFAULT_SPACE, *, dry_run: bool = False
    ) -> ForgetResult:
        """Correct a fact: what says ``old`` (a text, or a state id) gives way to ``new``."""
        return self._runner.run(self._async.supersede(old, new, space, dry_run=dry_run))

    def release(
        self,
        query: str,
        space: str = DEFAULT_SPACE,
        *,
        threshold: float | None = None,
        max_items: int | None = None,
        dry_run: bool = False,
    ) -> ForgetResult:
        """Stop recalling a topic; nothing is deleted (``unrelease`` undoes it)."""
        return self._runner.run(
            self._async.release(
                query, space, threshold=threshold, max_items=max_items, dry_run=dry_run
            )
        )

    def unrelease(self, release_id: int, space: str = DEFAULT_SPACE) -> ForgetResult:
        """Recall what release ``release_id`` hid again."""
        return self._runner.run(self._async.unrelease(release_id, space))

    def purge(
        self,
        query_or_ids: str | Iterable[int],
        space: str = DEFAULT_SPACE,
        *,
        dry_run: bool = False,
    ) -> ForgetResult:
        """Erase episodes containing a text (or with these ids), down to the file's bytes."""
        return self._runner.run(self._async.purge(query_or_ids, space, dry_run=dry_run))

    def audit(self, space: str | None = None, limit: int | None = None) -> list[AuditEntry]:
        """Audited forgetting actions, newest first."""
        return self._runner.run(self._async.audit(space, limit))

    def export_jsonl(self, target: str | Path | TextIO, space: str | None = None) -> dict[str, int]:
        """Write the ``orma-export`` JSON Lines; returns record counts."""
        return self._runner.run(self._async.export_jsonl(target, space))

    def import_jsonl(self, source: str | Path | TextIO) -> int:
        """Load an ``orma-export`` file into this empty memory."""
        return self._runner.run(self._async.import_jsonl(source))

    def rebuild(self) -> RebuildReport:
        """Re-derive sentences, FTS, vectors and the entity graph from the episodes."""
        return self._runner.run(self._async.rebuild())

    def backup(self, target: str | Path) -> int:
        """A consistent online copy of the database; returns its size in bytes."""
        return self._runner.run(self._async.backup(target))

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
