"""``release(query)`` and ``unrelease(id)``: soft forgetting of a topic, undone at will.

A release hides the passages on a topic, and the states and events drawn from
them, from every recall, search and fact listing; nothing is deleted. The
topic is found by meaning and by words (``match.topic``), so releasing "my old
job" leaves "my dentist" alone. Each release is a row of ``releases``; its id
brings everything back.
"""

from __future__ import annotations

import time

import aiosqlite

from orma_proxy.embed.base import Vectors
from orma_proxy.errors import InputError
from orma_proxy.forget.audit import write_audit
from orma_proxy.forget.match import IN_IDS, ids_json, sentence_texts, topic
from orma_proxy.forget.results import Affected, ForgetResult
from orma_proxy.store.database import Database

# Tables with a ``released_by`` column; each is also a field of ``Affected``.
_TABLES = ("sentences", "states", "events")


async def release(
    db: Database,
    query: str,
    vector: Vectors,
    space: str,
    *,
    threshold: float,
    max_items: int,
    dry_run: bool,
) -> ForgetResult:
    """Hide the topic of ``query`` in ``space``; nothing matching means nothing written."""

    async def find(conn: aiosqlite.Connection) -> tuple[Affected, tuple[str, ...]]:
        found = await topic(conn, space, query, vector, threshold=threshold, max_items=max_items)
        return found, await sentence_texts(conn, found.sentences)

    if dry_run:
        found, preview = await find(db.reader)
        return ForgetResult("release", space, True, found, preview)

    async def job(conn: aiosqlite.Connection) -> ForgetResult:
        found, preview = await find(conn)
        if not found.count:
            return ForgetResult("release", space, False, found)
        now = time.time()
        row = await conn.execute_insert(
            "INSERT INTO releases (space, query, created_at) VALUES (?, ?, ?)",
            (space, query, now),
        )
        assert row is not None
        release_id = int(row[0])
        for table in _TABLES:
            await conn.execute(
                f"UPDATE {table} SET released_by = ? WHERE id {IN_IDS}",
                (release_id, ids_json(getattr(found, table))),
            )
        audit_id = await write_audit(
            conn, space, "release", found, now, extra={"releases": [release_id]}
        )
        return ForgetResult(
            "release", space, False, found, preview, audit_id=audit_id, release_id=release_id
        )

    return await db.writer.submit(job)


async def unrelease(db: Database, release_id: int, space: str) -> ForgetResult:
    """Bring back everything release ``release_id`` hid; another space's id is refused."""

    async def job(conn: aiosqlite.Connection) -> ForgetResult:
        rows = list(
            await conn.execute_fetchall(
                "SELECT restored_at FROM releases WHERE id = ? AND space = ?", (release_id, space)
            )
        )
        if not rows:
            raise InputError(f"no release #{release_id} in space {space!r}")
        if rows[0][0] is not None:
            raise InputError(f"release #{release_id} was already undone")
        ids = {
            table: [
                int(r[0])
                for r in await conn.execute_fetchall(
                    f"SELECT id FROM {table} WHERE released_by = ? ORDER BY id", (release_id,)
                )
            ]
            for table in _TABLES
        }
        restored = Affected.of(**ids)
        for table in _TABLES:
            await conn.execute(
                f"UPDATE {table} SET released_by = NULL WHERE released_by = ?", (release_id,)
            )
        now = time.time()
        await conn.execute("UPDATE releases SET restored_at = ? WHERE id = ?", (now, release_id))
        preview = await sentence_texts(conn, restored.sentences)
        audit_id = await write_audit(
            conn, space, "unrelease", restored, now, extra={"releases": [release_id]}
        )
        return ForgetResult(
            "unrelease",
            space,
            False,
            restored,
            preview,
            audit_id=audit_id,
            release_id=release_id,
        )

    return await db.writer.submit(job)
