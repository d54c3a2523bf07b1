"""The states and events drawn from some lines or episodes, and the release mark they carry.

Forgetting touches what a line backs along with the line: a release hides
them too, a purge erases them. These find them by what they cite and mark
them released (or shown again), as ``store/releases.py`` does for sentences.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from orma_proxy.store import IN_IDS, Connection, id_list, int_column

__all__ = [
    "Drawn",
    "drawn_from_episodes",
    "drawn_from_lines",
    "mark_drawn_released",
    "released_drawn",
]

# Both tables cite a sentence and an episode, and carry ``released_by``.
_TABLES = ("states", "events")


class Drawn(NamedTuple):
    """State ids and event ids, each in id order."""

    states: Sequence[int]
    events: Sequence[int]


def _each(conn: Connection, where: str, arg: object) -> Drawn:
    states, events = (
        int_column(conn, f"SELECT id FROM {table} WHERE {where} ORDER BY id", (arg,))
        for table in _TABLES
    )
    return Drawn(states, events)


def drawn_from_lines(conn: Connection, sentence_ids: Iterable[int]) -> Drawn:
    """The unreleased states and events citing these sentences."""
    return _each(conn, f"sentence_id {IN_IDS} AND released_by IS NULL", id_list(sentence_ids))


def drawn_from_episodes(conn: Connection, episode_ids: Iterable[int]) -> Drawn:
    """Every state and event drawn from these episodes, released or not."""
    return _each(conn, f"episode_id {IN_IDS}", id_list(episode_ids))


def released_drawn(conn: Connection, release_id: int) -> Drawn:
    """The states and events release ``release_id`` hides."""
    return _each(conn, "released_by = ?", release_id)


def mark_drawn_released(conn: Connection, drawn: Drawn, release_id: int | None) -> None:
    """Mark these states and events hidden by ``release_id`` (None: shown again)."""
    for table, ids in zip(_TABLES, drawn, strict=True):
        conn.execute(
            f"UPDATE {table} SET released_by = ? WHERE id {IN_IDS}", (release_id, id_list(ids))
        )
