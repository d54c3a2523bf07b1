"""Episodes as they were split into sentences: what ``orma rebuild`` reads to split them again."""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.rows import ids_of, named_rows


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
    return ids_of(conn, "SELECT id FROM episodes ORDER BY id")


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
    r = rows[0]
    speaker = r["speaker"] if isinstance(r["speaker"], str) else None
    return SplitEpisode(int(r["id"]), str(r["space"]), str(r["text"]), speaker)


def episode_sentences(conn: Connection, episode_id: int) -> list[SplitSentence]:
    """The sentences of episode ``episode_id``, in their order in it."""
    rows = named_rows(
        conn,
        "SELECT id, position, start, text, superseded_by, released_by FROM sentences "
        "WHERE episode_id = ? ORDER BY position",
        (episode_id,),
    )
    return [
        SplitSentence(
            int(r["id"]), int(r["position"]), int(r["start"]), str(r["text"]),
            r["superseded_by"], r["released_by"],
        )
        for r in rows
    ]  # fmt: skip


def count_sentences(conn: Connection) -> int:
    """How many sentences there are, in every space."""
    return ids_of(conn, "SELECT count(*) FROM sentences")[0]
