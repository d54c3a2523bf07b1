"""The audit trail of forgetting: one row per real action, never any text.

A purge's row must not keep what it removed, so only ids and counts are
written; the release query lives in ``releases`` (a purge scrubs it there too).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import cast

import aiosqlite

from orma_proxy.forget.results import Affected, AuditEntry, Operation


async def write_audit(
    conn: aiosqlite.Connection,
    space: str,
    operation: Operation,
    affected: Affected,
    now: float,
    *,
    extra: dict[str, list[int]] | None = None,
) -> int:
    """Record a real action inside its own write transaction; returns the audit id.

    ``extra`` adds ids beyond ``affected`` (the release undone, the correction's episode).
    """
    ids = {**affected.as_dict(), **(extra or {})}
    row = await conn.execute_insert(
        "INSERT INTO audit (at, space, operation, ids, count) VALUES (?, ?, ?, ?, ?)",
        (now, space, operation, json.dumps(ids, separators=(",", ":")), affected.count),
    )
    assert row is not None
    return int(row[0])


async def read_audit(
    conn: aiosqlite.Connection, space: str | None, limit: int | None
) -> list[AuditEntry]:
    """Audited actions, newest first (of one space, or of all)."""
    where, args = ("WHERE space = ?", [space]) if space is not None else ("", [])
    rows = await conn.execute_fetchall(
        f"SELECT id, at, space, operation, count, ids FROM audit {where} ORDER BY id DESC LIMIT ?",
        (*args, -1 if limit is None else limit),
    )
    return [
        AuditEntry(
            id=int(r[0]),
            at=datetime.fromtimestamp(float(r[1]), UTC),
            space=str(r[2]),
            operation=cast(Operation, r[3]),
            count=int(r[4]),
            ids=json.loads(r[5]),
        )
        for r in rows
    ]
