"""The audit trail of forgetting as stored: one row per real action, ids and counts only.

``forget/audit.py`` decides what a row says; this is where rows are written and read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.rows import as_record, named_rows


@dataclass(frozen=True)
class AuditRow:
    """One audited action as stored: when (Unix time), where, which operation, which ids."""

    id: int
    at: float
    space: str
    operation: str
    count: int
    ids: dict[str, list[int]]


def insert_audit(
    conn: Connection,
    space: str,
    operation: str,
    ids: Mapping[str, Sequence[int]],
    count: int,
    at: float,
) -> int:
    """Write one audit row inside the action's own write job; returns its id."""
    cursor = conn.execute(
        "INSERT INTO audit (at, space, operation, ids, count) VALUES (?, ?, ?, ?, ?) RETURNING id",
        (at, space, operation, json.dumps(ids, separators=(",", ":")), count),
    )
    return int(cursor.fetchone()[0])


def audit_rows(conn: Connection, space: str | None, limit: int | None) -> list[AuditRow]:
    """Audited actions, newest first (of one space, or of all; all of them without ``limit``)."""
    where, args = ("WHERE space = ?", [space]) if space is not None else ("", [])
    most = "" if limit is None else "LIMIT ?"
    rows = named_rows(
        conn,
        f"SELECT id, at, space, operation, count, ids FROM audit {where} ORDER BY id DESC {most}",
        args if limit is None else [*args, limit],
    )
    return [as_record(AuditRow, r, ids=json.loads(r["ids"])) for r in rows]
