"""Purge tombstones as stored: a purged text's length, a salt and a hash, never the text.

A tombstone answers "does this text hold the purged one?" exactly as the
store's text match does (``instr(lower(text), lower(?))``: a substring, ASCII
letters folded), so it lives beside that match. ``forget/tombstones.py`` says
when one is left and which ones bind a write.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.rows import as_record, named_rows

# What SQLite's lower() folds, and nothing else: the store's text match uses it.
_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _hash(salt: bytes, folded: str) -> bytes:
    return hashlib.sha256(salt + folded.encode("utf-8")).digest()


@dataclass(frozen=True)
class Tombstone:
    """A purged text as kept: its length, a salt and the hash of its folded form."""

    chars: int
    salt: bytes
    digest: bytes

    @classmethod
    def of(cls, text: str) -> Tombstone:
        """The tombstone of ``text``, with a fresh salt."""
        salt = os.urandom(16)
        return cls(len(text), salt, _hash(salt, text.translate(_FOLD)))

    def found_in(self, text: str) -> bool:
        """Whether ``text`` holds the purged text, as ``instr(lower(text), lower(?))`` would say."""
        folded, size = text.translate(_FOLD), self.chars
        return any(
            _hash(self.salt, folded[start : start + size]) == self.digest
            for start in range(len(folded) - size + 1)
        )


def insert_tombstone(conn: Connection, space: str, tombstone: Tombstone, now: float) -> None:
    """Keep ``tombstone`` for ``space``, inside the purge's own write job."""
    conn.execute(
        "INSERT INTO purge_tombstones (space, chars, salt, digest, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (space, tombstone.chars, tombstone.salt, tombstone.digest, now),
    )


def expire_tombstones(conn: Connection, before: float) -> None:
    """Drop the tombstones left before ``before`` (Unix time), in every space."""
    conn.execute("DELETE FROM purge_tombstones WHERE created_at < ?", (before,))


def tombstones_since(conn: Connection, space: str, since: float) -> list[Tombstone]:
    """The tombstones of ``space`` left at ``since`` or later, oldest first."""
    rows = named_rows(
        conn,
        "SELECT chars, salt, digest FROM purge_tombstones WHERE space = ? AND created_at >= ? "
        "ORDER BY id",
        (space, since),
    )
    return [as_record(Tombstone, r) for r in rows]
