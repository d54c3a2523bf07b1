"""Purge tombstones: a text purge binds the turns that began before it, in every process.

A reply streaming through the proxy while ``orma purge`` runs in another process
is recorded after the purge. Each text purge leaves a tombstone in the database
(``purge_tombstones``), and the proxy's recording (``AsyncMemory.add_exchange``)
checks them inside its own write transaction: an episode holding a text purged
since its request began is left out, as the purge would have erased it had it
been stored a moment earlier. Turns begun after a purge are new statements and
are kept whole. (A plain ``add()`` takes its text at once: it is not bound.)

The match is purge's own (``forget/match.py``): a substring, case-insensitive
for ASCII letters (SQLite's ``lower()``). The tombstone keeps no text, only its
length in characters and a salted SHA-256 of it folded that way; a write hashes
each window of that length of its folded text (about 2 microseconds a character
per tombstone, paid only by turns begun before a purge of their space). A short
secret (a PIN) can still be found from its hash by trying every value: the row
lives an hour.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from orma_proxy.store.episodes import NewEpisode, insert_episode
from orma_proxy.text.segment import Segment

# How long a text purge binds writes that began before it (a stream running
# longer than this is not covered).
TOMBSTONE_SECONDS = 3600.0
# What SQLite's lower() folds, and nothing else: purge matches with it.
_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _hash(salt: bytes, folded: str) -> bytes:
    return hashlib.sha256(salt + folded.encode("utf-8")).digest()


@dataclass(frozen=True)
class Tombstone:
    """A purged text as kept: its length, a salt and the hash of its folded form."""

    chars: int
    salt: bytes
    digest: bytes

    def found_in(self, text: str) -> bool:
        """Whether ``text`` holds the purged text, as ``instr(lower(text), lower(?))`` would say."""
        folded, size = text.translate(_FOLD), self.chars
        return any(
            _hash(self.salt, folded[start : start + size]) == self.digest
            for start in range(len(folded) - size + 1)
        )


async def _expire(conn: aiosqlite.Connection, now: float) -> None:
    await conn.execute(
        "DELETE FROM purge_tombstones WHERE created_at < ?", (now - TOMBSTONE_SECONDS,)
    )


async def leave(conn: aiosqlite.Connection, space: str, text: str, now: float) -> None:
    """Record a purge of ``text`` from ``space``, inside the purge's own transaction."""
    await _expire(conn, now)
    salt = os.urandom(16)
    await conn.execute(
        "INSERT INTO purge_tombstones (space, chars, salt, digest, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (space, len(text), salt, _hash(salt, text.translate(_FOLD)), now),
    )


async def binding(conn: aiosqlite.Connection, space: str, since: float) -> list[Tombstone]:
    """The text purges of ``space`` made at ``since`` or later (and within the hour)."""
    await _expire(conn, time.time())
    rows = await conn.execute_fetchall(
        "SELECT chars, salt, digest FROM purge_tombstones WHERE space = ? AND created_at >= ? "
        "ORDER BY id",
        (space, since),
    )
    return [Tombstone(int(r[0]), bytes(r[1]), bytes(r[2])) for r in rows]


async def add_unless_purged(
    conn: aiosqlite.Connection,
    space: str,
    since: float,
    episodes: Sequence[tuple[NewEpisode, list[Segment]]],
) -> list[int | None]:
    """Store the episodes of ``space`` whose text was taken at ``since``: their ids.

    One holding a text purged from ``space`` since then is not stored (None).
    Runs as one write job, so no purge can commit between the check and the insert.
    """
    purged = await binding(conn, space, since)
    ids: list[int | None] = []
    for episode, segments in episodes:
        if any(tombstone.found_in(episode.text) for tombstone in purged):
            ids.append(None)
        else:
            ids.append(await insert_episode(conn, episode, segments))
    return ids
