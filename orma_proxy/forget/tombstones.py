"""Purge tombstones: a text purge binds the turns that began before it, in every process.

A reply streaming through the proxy while ``orma purge`` runs in another process
is recorded after the purge. Each text purge leaves a tombstone in the database
(``purge_tombstones``), and the proxy's recording (``AsyncMemory.add_exchange``)
checks them inside its own write transaction: an episode holding a text purged
since its request began is left out, as the purge would have erased it had it
been stored a moment earlier. Turns begun after a purge are new statements and
are kept whole. (A plain ``add()`` takes its text at once: it is not bound.)

The match is purge's own (``store/passages.py``): a substring, case-insensitive
for ASCII letters (SQLite's ``lower()``). The tombstone (``store/tombstones.py``)
keeps no text, only its length in characters and a salted SHA-256 of it folded
that way; a write hashes each window of that length of its folded text (about 2
microseconds a character per tombstone, paid only by turns begun before a purge
of their space). A short secret (a PIN) can still be found from its hash by
trying every value: the row lives an hour.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from orma_proxy.store import (
    Connection,
    NewEpisode,
    Tombstone,
    expire_tombstones,
    insert_episode,
    insert_tombstone,
    tombstones_since,
)
from orma_proxy.text.segment import Segment

# How long a text purge binds writes that began before it (a stream running
# longer than this is not covered).
TOMBSTONE_SECONDS = 3600.0


def leave(conn: Connection, space: str, text: str, now: float) -> None:
    """Record a purge of ``text`` from ``space``, inside the purge's own write job."""
    expire_tombstones(conn, now - TOMBSTONE_SECONDS)
    insert_tombstone(conn, space, Tombstone.of(text), now)


def binding(conn: Connection, space: str, since: float) -> list[Tombstone]:
    """The text purges of ``space`` made at ``since`` or later (and within the hour)."""
    expire_tombstones(conn, time.time() - TOMBSTONE_SECONDS)
    return tombstones_since(conn, space, since)


def add_unless_purged(
    conn: Connection,
    space: str,
    since: float,
    episodes: Sequence[tuple[NewEpisode, list[Segment]]],
) -> list[int | None]:
    """Store the episodes of ``space`` whose text was taken at ``since``: their ids.

    One holding a text purged from ``space`` since then is not stored (None).
    Runs as one write job, so no purge can commit between the check and the insert.
    """
    purged = binding(conn, space, since)
    ids: list[int | None] = []
    for episode, segments in episodes:
        if any(tombstone.found_in(episode.text) for tombstone in purged):
            ids.append(None)
        else:
            ids.append(insert_episode(conn, episode, segments))
    return ids
