"""Sentences read back in the order they were said, with who said them and when.

Sleep numbers them into the lines of a batch and cites them; a rule set by
hand cites the first line of the episode that records it.
"""

from __future__ import annotations

from collections.abc import Sequence

from orma_proxy.store.connect import Connection
from orma_proxy.store.episodes import SENTENCE, SentenceRow

__all__ = ["first_sentence_id", "said_before", "sentence_row", "transcript"]


def transcript(conn: Connection, episode_ids: Sequence[int]) -> list[SentenceRow]:
    """The sentences of these episodes in order, each episode's in its own order.

    Left out: a line the user corrected or released before sleep read it (the
    old value must not come back as current through consolidation), and a turn
    the upstream never answered (its retry, if any, is the one that counts).
    """
    marks = ",".join("?" * len(episode_ids))
    rows = conn.execute(
        SENTENCE.sql + f"WHERE s.episode_id IN ({marks}) "
        "AND s.superseded_by IS NULL AND s.released_by IS NULL "
        "AND json_extract(e.metadata, '$.failed') IS NULL ORDER BY s.episode_id, s.position",
        list(episode_ids),
    )
    return [SentenceRow(**r) for r in SENTENCE.all_named(rows)]


def said_before(conn: Connection, space: str, sentence_id: int, limit: int) -> list[str]:
    """The text of the ``limit`` sentences of ``space`` before ``sentence_id``, oldest first."""
    rows = conn.execute(
        "SELECT text FROM sentences WHERE space = ? AND id < ? ORDER BY id DESC LIMIT ?",
        (space, sentence_id, limit),
    ).fetchall()
    return [str(r[0]) for r in reversed(rows)]


def sentence_row(conn: Connection, sentence_id: int) -> SentenceRow | None:
    """Sentence ``sentence_id``, whatever its marks; None if there is none."""
    rows = conn.execute(SENTENCE.sql + "WHERE s.id = ?", (sentence_id,))
    return next((SentenceRow(**r) for r in SENTENCE.all_named(rows)), None)


def first_sentence_id(conn: Connection, space: str, episode_id: int) -> int | None:
    """The first sentence of episode ``episode_id`` if it belongs to ``space``."""
    row = conn.execute(
        "SELECT min(s.id) FROM sentences s JOIN episodes e ON e.id = s.episode_id "
        "WHERE s.episode_id = ? AND e.space = ?",
        (episode_id, space),
    ).fetchone()
    return None if row is None or row[0] is None else int(row[0])
