"""The one writer: a task fed by a queue, grouping queued writes in one transaction.

Every write in a process goes through here, so SQLite sees a single writer per
process. Jobs queued while a transaction runs are committed together (group
commit), each inside its own savepoint, so one failing job never takes the
others down and never leaves half its rows behind.

A transaction runs whole in the writer's own thread, on its own connection
(``store/threads.py``): one trip from the event loop per batch, not one per
statement, and the loop never waits on SQLite. A job is a plain sync
``fn(conn)`` of the DB-API connection (``execute_write_fn``).

Some errors (``INSERT OR ROLLBACK``, a full disk, an I/O error) make SQLite
roll back the whole transaction, not just the failing statement. The writer
notices, drops the failing job and runs the others again in a fresh
transaction, so jobs must only write to the database (running one twice after
a rollback must be harmless) and must not COMMIT or ROLLBACK themselves.

On a file this process may not write, the writer refuses every job at once
with a ``ReadOnlyError``, and SQLite's own "readonly database" errors become one.

On PostgreSQL, where replicas write at once, the whole batch runs again from
its start (after a short random wait, at most ``retries`` times, each logged)
when PostgreSQL aborted it for a deadlock or a serialization failure (two
replicas' transactions locked the same rows, such as a space's counters, in
opposite orders), or when the connection was lost before ``COMMIT`` was sent:
in both cases the server kept nothing of it. A connection lost *during*
``COMMIT`` is not retried, since the write may have been stored: its callers
get an ``UnsureWriteError`` saying so, and the next batch opens a new connection.

The writer outlives any failure of a batch: a server still down after the
retries, a full disk, a lock held too long fail that batch's callers with a
``DatabaseUnavailableError`` (nothing stored, the same write may succeed later),
and the next batch tries again. ``failing`` says why writes fail meanwhile
(``/health``); the next batch committed clears it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from orma_proxy.errors import (
    DatabaseUnavailableError,
    ReadOnlyError,
    StoreError,
    UnsureWriteError,
)
from orma_proxy.store.connect import Connection, DatabaseError, is_read_only, open_sync
from orma_proxy.store.postgres.connection import conflict, connection_lost
from orma_proxy.store.threads import ConnectionThread

log = logging.getLogger(__name__)

T = TypeVar("T")
WriteFn = Callable[[Connection], T]
_Item = tuple[WriteFn[Any], "asyncio.Future[Any]"]
_Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]

# How often a batch PostgreSQL aborted (a deadlock, a lost connection) runs again, unless
# ``write_retries`` says otherwise; the first wait is up to RETRY_WAIT_SECONDS, doubling.
RETRIES = 5
RETRY_WAIT_SECONDS = 0.05

# SQLite's result codes (low byte) that say the database, not the job, refused a write:
# BUSY, LOCKED, NOMEM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN.
_STORAGE_CODES = frozenset({5, 6, 7, 8, 10, 11, 13, 14})
# PostgreSQL's SQLSTATE classes of the same kind: a connection exception, insufficient
# resources (a full disk), operator intervention (a shutdown), a system error.
_STORAGE_CLASSES = frozenset({"08", "53", "57", "58"})


class _Aborted(Exception):
    """SQLite rolled back the whole transaction while ``item`` ran."""

    def __init__(self, item: _Item, error: BaseException) -> None:
        super().__init__(str(error))
        self.item = item
        self.error = error


def refusal(reason: str) -> ReadOnlyError:
    """The one line a write to a read-only database gets; ``reason`` says which file and why."""
    return ReadOnlyError(
        f"{reason}: search, recall, facts, stats and export work, but nothing can be "
        "stored or changed"
    )


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (or an error it came from) says the database could not take a write
    now, rather than that the write itself was wrong: the same write may succeed later."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, DatabaseUnavailableError):
            return True
        code = getattr(error, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF in _STORAGE_CODES:
            return True
        state = getattr(error, "sqlstate", None)
        if isinstance(state, str) and state[:2] in _STORAGE_CLASSES:
            return True
        error = error.__cause__ or error.__context__
    return False


class Writer:
    """Serialises writes on one connection, in one thread, under ``BEGIN IMMEDIATE``."""

    def __init__(
        self,
        path: Path | str,
        thread: ConnectionThread,
        *,
        batch_max: int,
        read_only: str | None = None,
        retries: int = RETRIES,
    ) -> None:
        self.read_only = read_only  # why this process may not write the file, if it may not
        self._path = path
        self._thread = thread
        self._batch_max = batch_max
        self._retries = retries
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        # Why the last batch the database refused failed (None once one commits).
        self.failing: str | None = None

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        busy_timeout_ms: int,
        synchronous: str,
        batch_max: int,
        read_only: str | None = None,
    ) -> Writer:
        """Open the writing connection in the writer's thread and start taking jobs.

        ``read_only`` (why the file cannot be written) makes a writer that refuses every job.
        """
        connect = functools.partial(_connect, path, busy_timeout_ms, synchronous)
        if read_only is not None:  # a connection that can never write, for a writer that won't
            connect = functools.partial(
                open_sync, path, busy_timeout_ms=busy_timeout_ms, read_only=True
            )
        return await cls.start(connect, path, batch_max=batch_max, read_only=read_only)

    @classmethod
    async def start(
        cls,
        connect: Callable[[], Connection],
        where: Path | str,
        *,
        batch_max: int,
        read_only: str | None = None,
        retries: int = RETRIES,
    ) -> Writer:
        """The writer of what ``connect`` opens (in the writer's thread); ``where`` names it.

        ``retries``: how often a batch PostgreSQL aborted may run again (``write_retries``).
        """
        thread = await ConnectionThread.open(connect, "orma-writer")
        writer = cls(where, thread, batch_max=batch_max, read_only=read_only, retries=retries)
        writer._task = asyncio.create_task(writer._run(), name="orma-writer")
        return writer

    async def execute_write_fn(self, fn: WriteFn[T]) -> T:
        """Run ``fn(conn)`` in the writer's thread inside a write transaction; once committed,
        return what it returned."""
        if self.read_only is not None:
            raise refusal(self.read_only)
        if self._closing or self._task is None or self._task.done():
            raise StoreError("the database writer is not running (memory closed?)")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((fn, future))
        try:
            return await future
        except (DatabaseError, StoreError) as exc:
            # The OS said the file was writable, SQLite says not (a mount turned read-only...).
            if not any(is_read_only(e) for e in (exc, exc.__cause__) if e is not None):
                raise
            raise refusal(f"{self._path} is read-only ({exc})") from exc

    async def close(self) -> None:
        """Finish what is queued, close the connection, then stop. Later submits are refused."""
        self._closing = True
        try:
            if self._task is not None:
                self._queue.put_nowait(None)
                await asyncio.wait([self._task])  # its own end, even cancelled, is no error here
                if not self._task.cancelled() and (error := self._task.exception()) is not None:
                    log.warning("the database writer had stopped: %r", error)
                self._task = None
        finally:
            await self._thread.close()

    async def _run(self) -> None:
        try:
            while True:
                item = await self._queue.get()
                if item is None:
                    return
                batch = [item]
                stop = False
                while len(batch) < self._batch_max and not self._queue.empty():
                    more = self._queue.get_nowait()
                    if more is None:
                        stop = True
                        break
                    batch.append(more)
                await self._commit(batch)
                if stop:
                    return
        finally:
            # Cancelled, or stopped with work queued: nobody may wait forever.
            while not self._queue.empty():
                left = self._queue.get_nowait()
                if left is not None:
                    _fail(left[1], StoreError("the database writer stopped before this write"))

    async def _commit(self, batch: list[_Item]) -> None:
        """Run the batch in the writer's thread and answer each caller.

        Cancelling the writer does not stop a transaction under way in its
        thread, so the callers are answered with what really happened to it.
        """
        thread, retries = self._thread, self._retries
        work = asyncio.ensure_future(thread.run_bare(lambda: _apply(thread, batch, retries)))
        try:
            try:
                outcomes = await asyncio.shield(work)
            except asyncio.CancelledError:
                _answer(await work)
                raise
            _answer(outcomes)
        except Exception as exc:  # the batch fails, the writer lives on for the next one
            log.exception("a write of %d jobs failed whole", len(batch))
            error = DatabaseUnavailableError(f"write failed: {exc!r}")
            for _, future in batch:
                _fail(future, error)
            self._note(error)
            return
        except BaseException as exc:  # cancelled: nobody waits forever
            for _, future in batch:
                _fail(future, StoreError(f"write failed: {exc!r}"))
            raise
        self._note(next((e for _, _, e in outcomes if e is not None and unavailable(e)), None))

    def _note(self, error: BaseException | None) -> None:
        """Keep ``failing`` true to the last batch: why the database refused it, or None."""
        if error is not None:
            if self.failing is None:
                log.warning("the database refuses writes: %s", error)
            self.failing = str(error)
        elif self.failing is not None:
            log.warning("the database takes writes again")
            self.failing = None


def _apply(thread: ConnectionThread, batch: list[_Item], retries: int) -> list[_Outcome]:
    """Commit the batch; a failed job is left out and reported, the rest are kept.

    Runs in the writer's thread and touches no future: the loop answers.
    A batch PostgreSQL aborted whole runs again (``_again``), at most ``retries`` times.
    """
    failed: list[_Outcome] = []
    tries = 0
    while batch:
        try:
            raw = thread.live()  # a new connection if the last one was lost
            return failed + _transaction(raw, batch)
        except _Aborted as aborted:
            log.warning("a write aborted its whole transaction; retrying the others")
            failed.append((aborted.item[1], None, aborted.error))
            batch = [item for item in batch if item is not aborted.item]
        except Exception as exc:
            why = _again(thread, exc)
            if why is not None and tries < retries:
                tries += 1
                wait = random.uniform(0, RETRY_WAIT_SECONDS * 2**tries)
                log.warning(
                    "a write of %d jobs was rolled back by %s; running it again in %.0f ms "
                    "(try %d of %d)",
                    len(batch),
                    why,
                    wait * 1000,
                    tries,
                    retries,
                )
                time.sleep(wait)
                continue
            if why is not None:
                exc = DatabaseUnavailableError(
                    f"write failed after {tries + 1} tries, the last rolled back by {why}: {exc}"
                )
            error = exc if isinstance(exc, StoreError) else StoreError(f"write failed: {exc}")
            return failed + [(future, None, error) for _, future in batch]
    return failed


def _again(thread: ConnectionThread, exc: BaseException) -> str | None:
    """Why a batch that raised ``exc`` may run again whole (None: it may not).

    PostgreSQL kept nothing of a transaction it aborted for a conflict, nor of one whose
    connection broke before ``COMMIT`` (``UnsureWriteError``: during it, it may have kept it all).
    """
    if isinstance(exc, UnsureWriteError):
        return None
    if (why := conflict(exc)) is not None:
        return why
    return "a lost connection" if thread.lost else None


def _transaction(raw: Connection, batch: list[_Item]) -> list[_Outcome]:
    """Run every job in one transaction, each in a savepoint, and commit.

    A job alone (a user's single ``add()``) needs no savepoint: if it fails,
    the whole transaction is rolled back instead. A job that failed because
    PostgreSQL aborted the transaction, or lost the connection, fails it whole.
    """
    try:
        raw.execute("BEGIN IMMEDIATE")
    except Exception as exc:  # a lock held past busy_timeout, disk full, a server gone...
        raise _refused("could not start a write", exc) from exc
    alone = len(batch) == 1
    try:
        outcomes: list[_Outcome] = []
        for item in batch:
            job, future = item
            if not alone:
                raw.execute("SAVEPOINT job")
            try:
                result = job(raw)
            except Exception as exc:
                if conflict(exc) is not None or connection_lost(raw):
                    raise
                if not raw.in_transaction:
                    raise _Aborted(item, exc) from exc
                if alone:
                    raw.execute("ROLLBACK")
                    return [(future, None, exc)]
                raw.execute("ROLLBACK TO job")
                outcomes.append((future, None, exc))
            else:
                outcomes.append((future, result, None))
            if not alone:
                raw.execute("RELEASE job")
        try:
            raw.execute("COMMIT")
        except Exception as exc:
            if connection_lost(raw):
                raise UnsureWriteError(
                    f"the connection to the database broke while {len(batch)} writes were "
                    f"being committed: they may or may not have been stored ({exc})"
                ) from exc
            log.warning("commit failed, rolling back %d writes: %s", len(batch), exc)
            raise _refused("could not commit", exc) from exc
        return outcomes
    except BaseException:
        if not connection_lost(raw) and raw.in_transaction:
            raw.execute("ROLLBACK")
        raise


def _refused(what: str, exc: BaseException) -> StoreError:
    """``what`` failed because of ``exc``: a ``DatabaseUnavailableError`` when the database
    refused it (the same batch may succeed later), else a plain ``StoreError``."""
    kind = DatabaseUnavailableError if unavailable(exc) else StoreError
    return kind(f"{what}: {exc}")


def _connect(path: Path, busy_timeout_ms: int, synchronous: str) -> Any:
    conn = open_sync(path, busy_timeout_ms=busy_timeout_ms)
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    return conn


def _answer(outcomes: list[_Outcome]) -> None:
    for future, result, error in outcomes:
        if future.done():  # the caller stopped waiting
            continue
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
