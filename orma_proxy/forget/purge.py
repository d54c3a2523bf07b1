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

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.forget.audit import write_audit
from orma_proxy.forget.match import IN_IDS, erasure, ids_json, sentence_texts
from orma_proxy.forget.results import Affected, ForgetResult
from orma_proxy.forget.tombstones import leave
from orma_proxy.offload import in_thread
from orma_proxy.store import (
    Connection,
    Database,
    compact,
    connection_of,
    delete_sentences,
    optimize_sentence_indexes,
)

# What replaces a scrubbed text (a release query, a sleep error) that held purged text.
PURGED = "(purged)"


async def purge(
    db: Database, target: str | list[int], space: str, config: OrmaConfig, *, dry_run: bool
) -> ForgetResult:
    """Erase the episodes containing ``target`` (or with these ids) from ``space``."""
    if dry_run:
        found = await erasure(db.reader, space, target)
        preview = await sentence_texts(db.reader, found.sentences)
        return ForgetResult("purge", space, True, found, preview)

    async def job(conn: aiosqlite.Connection) -> ForgetResult:
        row = await (await conn.execute("PRAGMA secure_delete")).fetchone()
        previous = int(row[0]) if row else 0
        await conn.execute("PRAGMA secure_delete = ON")
        try:
            now = time.time()
            found = await erasure(conn, space, target)
            if isinstance(target, str):  # even with nothing stored yet: a turn may be on its way
                await leave(conn, space, target, now)
            if not found.count:
                return ForgetResult("purge", space, False, found)
            _erase(connection_of(conn), space, found, target if isinstance(target, str) else None)
            audit_id = await write_audit(conn, space, "purge", found, now)
            return ForgetResult("purge", space, False, found, audit_id=audit_id)
        finally:
            await conn.execute(f"PRAGMA secure_delete = {previous}")

    result = await db.writer.submit(job)
    if not result.count:
        return result
    compacted = await in_thread(lambda: compact(db.path, busy_timeout_ms=config.busy_timeout_ms))
    return replace(result, compacted=compacted)


def _erase(conn: Connection, space: str, found: Affected, text: str | None) -> None:
    """Delete every row holding or citing the episodes, children before parents."""
    episodes, sentences = ids_json(found.episodes), ids_json(found.sentences)
    states, events = ids_json(found.states), ids_json(found.events)
    conn.execute(
        f"DELETE FROM recall_history WHERE space = ? AND ((kind = 'passage' AND item_id {IN_IDS}) "
        f"OR (kind = 'state' AND item_id {IN_IDS}) OR (kind = 'event' AND item_id {IN_IDS}))",
        (space, sentences, states, events),
    )
    links = f"(kind = 'state' AND target_id {IN_IDS}) OR (kind = 'event' AND target_id {IN_IDS})"
    linked = ids_json(
        int(r[0])
        for r in conn.execute(
            f"SELECT DISTINCT entity_id FROM entity_links WHERE {links}", (states, events)
        ).fetchall()
    )
    conn.execute(f"DELETE FROM entity_links WHERE {links}", (states, events))
    conn.execute(f"UPDATE states SET superseded_by = NULL WHERE superseded_by {IN_IDS}", (states,))
    conn.execute(f"DELETE FROM states WHERE id {IN_IDS}", (states,))
    conn.execute(f"DELETE FROM events WHERE id {IN_IDS}", (events,))
    conn.execute(
        f"DELETE FROM entities WHERE id {IN_IDS} AND kind != 'user' "
        "AND NOT EXISTS (SELECT 1 FROM entity_links l WHERE l.entity_id = entities.id) "
        "AND NOT EXISTS (SELECT 1 FROM states s WHERE s.entity_id = entities.id)",
        (linked,),
    )
    delete_sentences(conn, found.sentences)  # FTS postings, CJK pairs, vectors, the rows
    _scrub_sleep(conn, space, episodes)
    # A consolidation of this space may be reading the episodes right now: take its lease
    # away (expired, held by nobody), so a batch extracted before this purge is refused
    # when it comes to be applied (sleep.lease.check_held) instead of quoting them again.
    conn.execute(
        "UPDATE sleep_leases SET holder = 'purge', expires_at = 0 WHERE space = ?", (space,)
    )
    if text is not None:
        conn.execute(
            "UPDATE releases SET query = ? WHERE space = ? AND instr(lower(query), lower(?)) > 0",
            (PURGED, space, text),
        )
    conn.execute(f"DELETE FROM episodes WHERE id {IN_IDS}", (episodes,))
    optimize_sentence_indexes(conn)


def _scrub_sleep(conn: Connection, space: str, episodes: str) -> None:
    """Sleep's records of the batches that read these episodes may quote them: drop them."""
    batches = (
        "SELECT id FROM sleep_batches b WHERE b.space = ? AND EXISTS (SELECT 1 FROM "
        "json_each(?) j WHERE j.value BETWEEN b.first_episode_id AND b.last_episode_id)"
    )
    conn.execute(f"DELETE FROM sleep_rejections WHERE batch_id IN ({batches})", (space, episodes))
    conn.execute(
        f"UPDATE sleep_batches SET error = ? WHERE error IS NOT NULL AND id IN ({batches})",
        (PURGED, space, episodes),
    )
