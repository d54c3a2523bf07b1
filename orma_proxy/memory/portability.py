"""Portability: a memory as JSON Lines out and in, rebuilt from its episodes, or copied whole.

``AsyncMemory``'s side of ``orma_proxy.portable`` and the store's backup: the
file work runs off the event loop, and what writes sentences wakes the indexer.
``orma_proxy.portable`` loads with the first of them, not with every memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from orma_proxy.inputs import check_space
from orma_proxy.memory.lifecycle import Lifecycle
from orma_proxy.offload import in_thread
from orma_proxy.store.backup import backup

if TYPE_CHECKING:
    from orma_proxy.portable.rebuild import RebuildReport


class Portability(Lifecycle):
    """``AsyncMemory``'s whole-file operations, kept apart from its work turn by turn."""

    async def export_jsonl(
        self, target: str | Path | TextIO, space: str | None = None
    ) -> dict[str, int]:
        """Write the ``orma-export`` JSON Lines of one space (or all); returns record counts."""
        db = self._opened()
        space = None if space is None else check_space(space)
        out = Path(target) if isinstance(target, str | Path) else target
        timeout = self.config.busy_timeout_ms
        from orma_proxy.portable import export_to

        return await in_thread(lambda: export_to(db.location, out, space, busy_timeout_ms=timeout))

    async def import_jsonl(self, source: str | Path | TextIO) -> int:
        """Load an ``orma-export`` file into this (empty) memory; returns the records written."""
        db = self._opened()
        given = Path(source) if isinstance(source, str | Path) else source
        from orma_proxy.portable import import_records, read_export

        records = await in_thread(lambda: read_export(given))
        count = await db.writer.execute_write_fn(lambda conn: import_records(conn, records))
        self._index_new()
        return count

    async def rebuild(self) -> RebuildReport:
        """Re-derive sentences, FTS, vectors and the entity graph from the episodes."""
        from orma_proxy.portable import rebuild

        report = await rebuild(self._opened(), self.config)
        self._index_new()
        return report

    async def backup(self, target: str | Path) -> int:
        """A consistent copy of the database at ``target`` while it is in use; returns its size."""
        db, timeout = self._opened(), self.config.busy_timeout_ms
        return await in_thread(lambda: backup(db.location, Path(target), busy_timeout_ms=timeout))
