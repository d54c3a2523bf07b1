"""A full disk under a memory's writer, and the disk freeing up again.

SQLite's ``max_page_count`` on the writer's connection makes it fail exactly as
on a full disk (SQLITE_FULL, "database or disk is full") once the file would
grow past it; raising it again on that connection is the disk freeing up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import orma_proxy.store.writer as writer_module


def fill_disk(monkeypatch: pytest.MonkeyPatch, pages: int) -> list[Any]:
    """Writers opened from now on may not grow their file past ``pages``: their connections,
    filled in as they open (``free_disk`` takes one)."""
    writers: list[Any] = []
    connect = writer_module._connect

    def limited(path: Path, busy_timeout_ms: int, synchronous: str) -> Any:
        conn = connect(path, busy_timeout_ms, synchronous)
        conn.execute(f"PRAGMA max_page_count = {pages}")
        writers.append(conn)
        return conn

    monkeypatch.setattr(writer_module, "_connect", limited)
    return writers


def free_disk(writer: Any) -> None:
    """The disk under ``writer`` (a connection ``fill_disk`` saw open) frees up."""
    writer.execute("PRAGMA max_page_count = 1000000000")
