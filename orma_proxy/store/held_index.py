"""An index held in memory per space: loaded at a point of a change log, kept current from it.

The keyword postings (``keyword_index.py``) and the k-NN vectors (``vector_index.py``) are
caches each process holds of what the database stores, SQLite or PostgreSQL. A trigger logs
every change of a sentence in the index's log (``keyword_changes``, migration 0014;
``vector_changes``, 0005; on PostgreSQL both in migration 0007: ids in commit order, never
reused). A space is loaded once searched ``load_after`` times (never for a one-shot
``orma search``), in a worker thread, in one snapshot with the log's newest ``seq``. Before a
search, the changes after the point applied are read and each changed sentence is taken out and
put back as it is now; applying a change twice gives the same index, so spaces loaded at
different points share the oldest. More than ``catch_up_max`` changes, or a row for
``EVERY_SENTENCE`` (``orma reindex``), drop the held spaces to load again. A crash loses
nothing: a change and its log row commit together; a new process loads from the record.

Pruning: processes on one file each hold their own index at their own point, and none knows
the others', so no rule can wait for all of them; none needs to. A process reads a log row only
to patch, and patches only when at most ``catch_up_max`` rows behind the newest. So the writer
keeps each log's newest ``catch_up_max`` rows (``prune_change_logs``, run with each batch of
vectors the indexer stores, deleting once a log holds twice that: at most 2 x ``catch_up_max``
rows stay, and those logged since the indexer's last batch, such as a purge's). A process whose
point lies before the oldest row left (idle while many writes landed, loading meanwhile, or with
a larger ``catch_up_max`` than the pruner's) cannot tell what it missed and reloads in full:
rows go oldest first, so that is when the oldest row is past its point + 1. With the pruner's
``catch_up_max`` it would have reloaded anyway: pruning changes no answer, and costs at most a
reload where a larger ``catch_up_max`` could have patched. Gaps in ``seq`` (a rolled-back
transaction's, PostgreSQL's sequences) only make a process look up the oldest row.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import threading
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import StoreError
from orma_proxy.offload import in_thread
from orma_proxy.store.connect import Connection, DatabaseError
from orma_proxy.store.postgres.connection import is_postgres
from orma_proxy.store.sentences import EVERY_SENTENCE
from orma_proxy.store.tables import snapshot
from orma_proxy.store.threads import Reader

log = logging.getLogger(__name__)

T = TypeVar("T")
Row = tuple[Any, ...]  # a change: (seq, sentence id, then what the index reads of it now)

KEYWORD_LOG = "keyword_changes"
VECTOR_LOG = "vector_changes"


class _Closing(Exception):
    """The index closed while a space was loading."""


class HeldIndex(ABC, Generic[T]):
    """The spaces this process searches often, each a ``T``, kept current from ``log``.

    A subclass reads a space (``_read``) and applies changes (``_apply``); ``_changes_sql``
    selects ``(seq, sentence_id, ...)`` after ``?``, by ``seq``, at most ``?`` rows.
    ``where``: the memory's file, or its PostgreSQL URL (``Database.location``).
    """

    _log: str
    _changes_sql: str
    _width: int  # the columns ``_changes_sql`` selects
    _name: str  # for the log messages

    def __init__(
        self, where: Path | str, *, busy_timeout_ms: int, load_after: int, catch_up_max: int
    ):
        self._where = where
        self._busy_timeout_ms = busy_timeout_ms
        self._load_after = load_after
        self._catch_up_max = catch_up_max
        self._spaces: dict[str, T] = {}
        self._searches: Counter[str] = Counter()
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._applied = 0  # the last seq of the log every held space reflects
        self._lock = threading.RLock()  # catch-ups, loads and searches run in threads
        self._closing = threading.Event()  # stops a load's worker thread early

    def holds(self, space: str) -> bool:
        """Whether ``space`` is searched in memory now."""
        return space in self._spaces

    async def settle(self) -> None:
        """Wait for the loads in flight (benchmarks and tests start timing after)."""
        await asyncio.gather(*self._loading.values(), return_exceptions=True)

    def use(self, space: str) -> bool:
        """Count a search of ``space`` (on the event loop); True if it can run in memory now.

        Counting is what starts a background load once ``space`` has been searched
        ``load_after`` times.
        """
        if space in self._spaces:
            return True
        self._searches[space] += 1
        if 0 < self._load_after <= self._searches[space] and space not in self._loading:
            self._loading[space] = asyncio.create_task(self._load(space))
        return False

    def caught_up(self, conn: Connection) -> None:
        """Apply what any process changed since the last call (one read, usually empty)."""
        with self._lock:
            if not self._spaces:
                return
            rows = conn.execute(self._changes_sql, self._after()).fetchall()
            if rows:
                self._patch_or_drop(conn, rows)

    def _after(self) -> tuple[int, int]:
        """``_changes_sql``'s parameters: the rows after the point applied, one past the most
        patched."""
        return self._applied, self._catch_up_max + 1

    def _patch_or_drop(self, conn: Connection, rows: list[Row]) -> None:
        if (
            len(rows) > self._catch_up_max
            or self._missed(conn, int(rows[0][0]))
            or any(r[1] == EVERY_SENTENCE for r in rows)
        ):
            log.info("%s: many changes, some pruned, or rebuilt; reloading spaces", self._name)
            self._spaces.clear()
            return
        self._apply(rows)
        self._applied = int(rows[-1][0])

    def _missed(self, conn: Connection, first: int) -> bool:
        """Whether changes after the point applied may have been pruned (the log starts later)."""
        if first <= self._applied + 1:
            return False
        oldest = conn.execute(f"SELECT min(seq) FROM {self._log}").fetchone()[0]
        return oldest is None or int(oldest) > self._applied + 1

    @abstractmethod
    def _apply(self, rows: list[Row]) -> None:
        """Take each changed sentence out of every held space and put it back as it is now."""

    @abstractmethod
    def _read(self, conn: Connection, space: str) -> T:
        """``space`` as ``conn``'s snapshot has it (calling ``_check_open`` as it goes)."""

    @abstractmethod
    def _describe(self, held: T) -> str:
        """What a loaded space holds, for the log."""

    def _check_open(self) -> None:
        if self._closing.is_set():
            raise _Closing

    async def _load(self, space: str) -> None:
        try:
            held = await in_thread(lambda: self._install(space))
            log.info("%s: %s of space %r in memory", self._name, self._describe(held), space)
        except _Closing:
            return
        except (DatabaseError, StoreError, OSError) as exc:
            log.warning(
                "%s: loading space %r failed (%s); searching without", self._name, space, exc
            )
        finally:
            self._loading.pop(space, None)

    def _install(self, space: str) -> T:
        seq, held = self._snapshot(space)
        with self._lock:
            # Changes between an older point and ``seq`` are applied again on the next
            # catch-up: taking a sentence out and back gives the same index.
            self._applied = seq if not self._spaces else min(self._applied, seq)
            self._spaces[space] = held
        return held

    def _snapshot(self, space: str) -> tuple[int, T]:
        """One snapshot of ``space``: the change it reflects and what it holds."""
        opened = snapshot(
            self._where, busy_timeout_ms=self._busy_timeout_ms, application_name="orma-index"
        )
        with opened as conn:
            seq = int(conn.execute(f"SELECT coalesce(max(seq), 0) FROM {self._log}").fetchone()[0])
            return seq, self._read(conn, space)

    async def close(self) -> None:
        """Stop loads in flight and wait for their threads.

        Not ``Task.cancel``: the worker thread would run on and finish into a
        closed event loop.
        """
        self._closing.set()
        await self.settle()


async def catch_up(reader: Reader, *indexes: HeldIndex[Any] | None) -> None:
    """Apply what any process changed to each of ``indexes`` (None: not searched) since they
    last caught up, in the reader's thread: growing a held space copies it and dropping changed
    ids scans it, which the event loop must not wait on."""
    live = [index for index in indexes if index is not None and index._spaces]
    if live:
        await reader.execute_fn(lambda conn: caught_up(conn, live))


def caught_up(conn: Connection, indexes: Sequence[HeldIndex[Any]]) -> None:
    """``HeldIndex.caught_up`` for each of ``indexes``, on PostgreSQL in one round trip.

    A search reads every log it holds a space from; on SQLite each read is a call in the
    process, on PostgreSQL a trip to the server, so there the logs are read by one statement
    (``_changes_union``), each index's rows taken as its own read would return them. Each
    index's lock is held from before the read to after its patch, as its own catch-up holds it.
    """
    live = [index for index in indexes if index._spaces]
    if len(live) < 2 or not is_postgres(conn):
        for index in live:
            index.caught_up(conn)
        return
    with contextlib.ExitStack() as locks:
        for index in live:
            locks.enter_context(index._lock)
        params = [value for index in live for value in index._after()]
        union = _changes_union(tuple((index._changes_sql, index._width) for index in live))
        found: list[list[Row]] = [[] for _ in live]
        starts = list(itertools.accumulate((index._width - 2 for index in live), initial=3))
        for row in conn.execute(union, params).fetchall():
            n = int(row[0])
            found[n].append((row[1], row[2], *row[starts[n] : starts[n + 1]]))
        for index, rows in zip(live, found, strict=True):
            if rows:
                index._patch_or_drop(conn, rows)


@functools.lru_cache(maxsize=8)
def _changes_union(reads: tuple[tuple[str, int], ...]) -> str:
    """The rows of several ``(changes_sql, width)`` reads in one statement, by read then seq:
    ``(n, seq, sentence_id, ...)``, read ``n``'s other columns in its own slots, NULL in the
    others' (PostgreSQL types a NULL from the read whose column it shares)."""
    extra = [width - 2 for _, width in reads]
    parts = []
    for n, (sql, width) in enumerate(reads):
        names = [f"x{i}" for i in range(width - 2)]
        before, after = ["NULL"] * sum(extra[:n]), ["NULL"] * sum(extra[n + 1 :])
        slots = [*before, *(f"c.{x}" for x in names), *after]
        parts.append(
            f"SELECT {n} AS log, c.seq, c.sentence_id, {', '.join(slots)} "
            f"FROM ({sql}) AS c(seq, sentence_id, {', '.join(names)})"
        )
    return " UNION ALL ".join(parts) + " ORDER BY 1, 2"


def prune_change_logs(conn: Connection, config: OrmaConfig) -> None:
    """Keep each change log's newest ``catch_up_max`` rows (a write job; the module's docstring
    says why no held index needs older ones): once it holds twice that, so a delete runs once
    per ``catch_up_max`` changes, and two replicas' writes seldom meet on its rows."""
    logs = [(VECTOR_LOG, config.vector_catch_up_max), (KEYWORD_LOG, config.keyword_catch_up_max)]
    for table, keep in logs:
        ends = f"SELECT (SELECT min(seq) FROM {table}), (SELECT max(seq) FROM {table})"
        oldest, newest = conn.execute(ends).fetchone()
        if newest is not None and newest - oldest >= 2 * keep:
            conn.execute(f"DELETE FROM {table} WHERE seq <= ?", (newest - keep,))
