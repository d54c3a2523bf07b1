"""``orma export``: the memory as ``orma-export`` JSON Lines (see ``records``).

The whole export reads one snapshot (a single read transaction on a
connection of its own), so a proxy writing meanwhile never yields a file whose
states cite episodes it does not hold. Rows stream straight to the output.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from orma_proxy.portable.records import KINDS, dump, header, to_record
from orma_proxy.store import count_rows, read_rows, snapshot


def export_records(
    path: Path | str, out: TextIO, space: str | None, *, busy_timeout_ms: int
) -> dict[str, int]:
    """Write the export of ``path`` (one space, or all) to ``out``; returns the counts."""
    with snapshot(path, busy_timeout_ms=busy_timeout_ms) as conn:
        counts = {kind.name: count_rows(conn, kind.table, space) for kind in KINDS}
        out.write(dump(header(space, counts)) + "\n")
        for kind in KINDS:
            for row in read_rows(conn, kind.table, kind.columns, kind.key, space):
                out.write(dump(to_record(kind, row)) + "\n")
        return counts


def export_to(
    path: Path | str, target: Path | TextIO, space: str | None, *, busy_timeout_ms: int
) -> dict[str, int]:
    """Export into a file (replaced whole only once written) or an open text stream."""
    if not isinstance(target, Path):
        return export_records(path, target, space, busy_timeout_ms=busy_timeout_ms)
    partial = target.with_name(target.name + ".partial")
    with partial.open("w", encoding="utf-8", newline="\n") as out:
        counts = export_records(path, out, space, busy_timeout_ms=busy_timeout_ms)
    partial.replace(target)
    return counts
