"""The audit trail of forgetting: one row per real action, never any text.

A purge's row must not keep what it removed, so only ids and counts are
written; the release query lives in ``releases`` (a purge scrubs it there too).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from orma_proxy.forget.results import Affected, AuditEntry, Operation, counted
from orma_proxy.store import Connection, Reader, audit_rows, insert_audit


def write_audit(
    conn: Connection,
    space: str,
    operation: Operation,
    affected: Affected,
    now: float,
    *,
    extra: dict[str, list[int]] | None = None,
) -> int:
    """Record a real action inside its own write job; returns the audit id.

    ``extra`` adds ids beyond ``affected`` (the release undone, the correction's episode).
    """
    ids = {**affected.as_dict(), **(extra or {})}
    return insert_audit(conn, space, operation, ids, counted(operation, affected), now)


async def read_audit(reader: Reader, space: str | None, limit: int | None) -> list[AuditEntry]:
    """Audited actions, newest first (of one space, or of all)."""
    rows = await reader.execute_fn(lambda conn: audit_rows(conn, space, limit))
    return [
        AuditEntry(
            id=r.id,
            at=datetime.fromtimestamp(r.at, UTC),
            space=r.space,
            operation=cast(Operation, r.operation),
            count=r.count,
            ids=r.ids,
        )
        for r in rows
    ]
