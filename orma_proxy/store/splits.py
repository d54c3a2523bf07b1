"""Episodes as they were split into sentences: what ``orma rebuild`` reads to split them again."""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.rows import as_record, int_column, named_rows


@dataclass(frozen=True)
class SplitEpisode:
    """An episode's text, its space and the speaker it was stored with (if any)."""

    id: int
    space: str
    text: str
    speaker: str | None


@dataclass(frozen=True)
class SplitSentence:
    """A stored sentence: where it sits in its episode, and its correction and release marks."""

    id: int
    position: int
    start: int
    text: str
    superseded_by: int | None
    released_by: int | None

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def episode_ids(conn: Connection) -> list[int]:
    """Every episode's id, in order."""
    return int_column(conn, "SELECT id FROM episodes ORDER BY id")


def split_episode(conn: Connection, episode_id: int) -> SplitEpisode | None:
    """Episode ``episode_id`` as a splitter needs it; None if there is none (purged)."""
    rows = named_rows(
        conn,
        "SELECT id, space, text, json_extract(metadata, '$.speaker') AS speaker "
        "FROM episodes WHERE id = ?",
        (episode_id,),
    )
    if not rows:
        return None
    speaker = rows[0]["speaker"]  # JSON may hold anything there
    return as_record(SplitEpisode, rows[0], speaker=speaker if isinstance(speaker, str) else None)


def episode_sentences(conn: Connection, episode_id: int) -> list[SplitSentence]:
    """The sentences of episode ``episode_id``, in their order in it."""
    rows = named_rows(
        conn,
        "SELECT id, position, start, text, superseded_by, released_by FROM sentences "
        "WHERE episode_id = ? ORDER BY position",
        (episode_id,),
    )
    return [as_record(SplitSentence, r) for r in rows]


def count_sentences(conn: Connection) -> int:
    """How many sentences there are, in every space."""
    return int_column(conn, "SELECT count(*) FROM sentences")[0]
