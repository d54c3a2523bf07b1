"""``purge(query_or_ids)``: hard delete, for secrets and personal data.

The one deliberate exception to append-only episodes. In one write
transaction, with ``secure_delete`` on so freed space is zeroed: the matching
episodes, their sentences, FTS5 postings (external-content ``delete`` and the
CJK pairs' rows, then ``optimize`` so no old segment keeps a term), vectors
(bit and float), the states and events drawn from them with their graph links
and access-log rows, entities left with nothing, and whatever sleep kept about
those batches (rejected items, error texts). A release query holding the purged text is
scrubbed. A text purge leaves a tombstone (``forget/tombstones.py``), so a write
begun before it in any process (a reply still streaming) does not store the text
again. Then ``store.compact`` rewrites the file and empties the log, so the
bytes are gone from the ``.db``, ``-wal`` and ``-shm`` files. The audit row
keeps ids and counts, never the text.
"""

from __future__ import annotations

import time
from dataclasses import replace

from orma_proxy.config import OrmaConfig
from orma_proxy.forget.audit import write_audit
from orma_proxy.forget.closest import nothing_matched
from orma_proxy.forget.match import erasure
from orma_proxy.forget.meaning import Described
from orma_proxy.forget.results import ForgetResult
from orma_proxy.forget.tombstones import leave
from orma_proxy.offload import in_thread
from orma_proxy.store import (
    Connection,
    Database,
    Erasure,
    compact,
    erase_episodes,
    secure_delete,
    sentence_texts,
)


async def purge(
    db: Database,
    target: str | list[int],
    space: str,
    config: OrmaConfig,
    *,
    dry_run: bool,
    meaning: Described | None = None,
) -> ForgetResult:
    """Erase the episodes containing ``target`` (or with these ids) from ``space``.

    Nothing matching raises ``NothingMatchedError`` (a dry run too); a text
    purge still leaves its tombstone first, for a turn still on its way.
    """
    if dry_run:

        def find(conn: Connection) -> ForgetResult:
            found = erasure(conn, space, target, meaning)
            if not found.count:
                raise nothing_matched(conn, space, str(target), meaning, "erased")
            preview = tuple(sentence_texts(conn, found.sentences))
            return ForgetResult("purge", space, True, found, preview)

        return await db.reader.execute_fn(find)

    def job(conn: Connection) -> ForgetResult:
        with secure_delete(conn):
            now = time.time()
            found = erasure(conn, space, target, meaning)
            if isinstance(target, str):  # even with nothing stored yet: a turn may be on its way
                leave(conn, space, target, now)
            if not found.count:
                return ForgetResult("purge", space, False, found)
            erase_episodes(
                conn,
                space,
                Erasure(found.episodes, found.sentences, found.states, found.events),
                target if isinstance(target, str) else None,
            )
            audit_id = write_audit(conn, space, "purge", found, now)
            return ForgetResult("purge", space, False, found, audit_id=audit_id)

    result = await db.writer.execute_write_fn(job)
    if not result.count:  # the tombstone is kept (committed); the caller hears nothing went

        def missed(conn: Connection) -> ForgetResult:
            raise nothing_matched(conn, space, str(target), meaning, "erased")

        return await db.reader.execute_fn(missed)
    compacted = await in_thread(
        lambda: compact(db.location, busy_timeout_ms=config.busy_timeout_ms)
    )
    return replace(result, compacted=compacted)
