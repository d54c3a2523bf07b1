"""Append-only episodes and their sentences, written in one transaction.

An episode and every sentence of it land in the same commit, indexed in FTS5 at
once, so a search right after ``add()`` returns finds it by BM25. Vectors follow
from the background indexer (``store/vectors.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from orma_proxy.store.connect import Connection
from orma_proxy.store.select import Select
from orma_proxy.store.sentences import NewSentence, insert_sentences
from orma_proxy.text.segment import Segment


def space_tag(space: str) -> str:
    """One opaque FTS token per space (letters and digits only, never stemmed away)."""
    return "sp" + hashlib.sha256(space.encode("utf-8")).hexdigest()[:20] + "x"


@dataclass(frozen=True)
class NewEpisode:
    space: str
    role: str
    text: str
    said_at: float
    created_at: float
    source: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def insert_episode(conn: Connection, episode: NewEpisode, segments: list[Segment]) -> int:
    """Write the episode, its sentences and their FTS rows; returns the episode id.

    A write job's step (``Writer.execute_write_fn``).
    """
    cursor = conn.execute(
        "INSERT INTO episodes (space, role, text, source, said_at, created_at, metadata) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            episode.space,
            episode.role,
            episode.text,
            episode.source,
            episode.said_at,
            episode.created_at,
            json.dumps(episode.metadata, ensure_ascii=False),
        ),
    )
    episode_id = int(cursor.fetchone()[0])
    tag = space_tag(episode.space)
    insert_sentences(
        conn,
        [
            NewSentence(episode_id, episode.space, tag, s.position, s.start, s.text)
            for s in segments
        ],
    )
    return episode_id


def stored_at(
    conn: Connection, space: str, said_at: float, turns: Sequence[tuple[str, str]]
) -> list[int | None] | None:
    """The ids of these turns (role, text) of ``space`` stored at exactly ``said_at``, in
    order (None for one not there), or None when none is: a write retried after its
    ``COMMIT`` was cut off finds what the first try stored rather than storing it twice."""
    rows = conn.execute(
        "SELECT id, role, text FROM episodes WHERE space = ? AND said_at = ? ORDER BY id",
        (space, said_at),
    ).fetchall()
    found: dict[tuple[str, str], list[int]] = {}
    for episode_id, role, text in rows:
        found.setdefault((str(role), str(text)), []).append(int(episode_id))
    ids = [found[turn].pop(0) if found.get(turn) else None for turn in turns]
    return ids if any(i is not None for i in ids) else None


def sentence_ranges(conn: Connection, episode_ids: list[int]) -> list[tuple[int, int]]:
    """The sentence ids of these episodes as inclusive (first, last) ranges, in id order.

    An episode's sentences are inserted in one statement of one transaction, so
    their ids are consecutive; neighbouring episodes' ranges are merged.
    """
    cursor = conn.execute(
        "SELECT min(id), max(id) FROM sentences "
        "WHERE episode_id IN (SELECT value FROM json_each(?)) GROUP BY episode_id ORDER BY 1",
        (json.dumps(episode_ids),),
    )
    ranges: list[tuple[int, int]] = []
    for first, last in cursor.fetchall():
        if ranges and ranges[-1][1] + 1 == first:
            ranges[-1] = (ranges[-1][0], int(last))
        else:
            ranges.append((int(first), int(last)))
    return ranges


@dataclass(frozen=True)
class SentenceRow:
    """A sentence with what a caller needs to show and cite it."""

    sentence_id: int
    episode_id: int
    space: str
    role: str
    text: str
    said_at: float
    speaker: str | None = None  # the episode's ``metadata.speaker``, where it was read
    score: float = 0.0  # a search channel's own score of it (BM25, similarity), where read
    dates: str = ""  # its date terms (``text/dates.py``), where read


def fetch_sentences(conn: Connection, ids: list[int], space: str) -> dict[int, SentenceRow]:
    """Sentences by id, restricted to ``space`` (the last isolation check).

    Sentences the user released or corrected are left out: recall never shows them;
    nor those of a turn the upstream never answered (``metadata.failed``).
    """
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT s.id, s.episode_id, s.space, e.role, s.text, e.said_at "
        "FROM sentences s JOIN episodes e ON e.id = s.episode_id "
        f"WHERE s.id IN ({marks}) AND s.space = ? "
        "AND s.released_by IS NULL AND s.superseded_by IS NULL "
        "AND json_extract(e.metadata, '$.failed') IS NULL",
        (*ids, space),
    ).fetchall()
    return {
        int(r[0]): SentenceRow(int(r[0]), int(r[1]), r[2], r[3], r[4], float(r[5])) for r in rows
    }


# A sentence ``s`` and the episode ``e`` it belongs to, by SentenceRow's fields.
SENTENCE = Select.of(
    {
        "sentence_id": "s.id",
        "episode_id": "s.episode_id",
        "space": "s.space",
        "role": "e.role",
        "text": "s.text",
        "said_at": "e.said_at",
        "speaker": "json_extract(e.metadata, '$.speaker')",
    },
    "FROM sentences s JOIN episodes e ON e.id = s.episode_id ",
)


def cited_sentence(conn: Connection, space: str, sentence_id: int) -> SentenceRow | None:
    """Sentence ``sentence_id`` of ``space`` whatever became of it: the line a fact cites.

    Unlike ``fetch_sentences``, a released or corrected line is still shown, since
    the state or event that cites it is shown too.
    """
    rows = conn.execute(SENTENCE.sql + "WHERE s.id = ? AND s.space = ?", (sentence_id, space))
    found = SENTENCE.all_named(rows)
    return SentenceRow(**found[0]) if found else None


@dataclass(frozen=True)
class RecentEpisode:
    """An episode as a list of the latest ones shows it."""

    id: int
    role: str
    text: str
    said_at: float


_RECENT = Select.of(
    {"id": "id", "role": "role", "text": "text", "said_at": "said_at"}, "FROM episodes "
)


def recent_episodes(conn: Connection, space: str, limit: int) -> list[RecentEpisode]:
    """The newest ``limit`` episodes of ``space``, newest first."""
    rows = conn.execute(_RECENT.sql + "WHERE space = ? ORDER BY id DESC LIMIT ?", (space, limit))
    return [
        RecentEpisode(int(r["id"]), str(r["role"]), str(r["text"]), float(r["said_at"]))
        for r in _RECENT.all_named(rows)
    ]
