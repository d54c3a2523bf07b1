"""``orma rebuild``: re-derive the whole index from the episodes.

Sentences are split again (a changed splitter or ``max_sentence_chars``), the
FTS index is rebuilt from them, every vector is dropped for the indexer to
embed again (with the model in use), and the entity graph is re-linked from
the states and events. States and events themselves survive: a sentence they
cite that was split differently hands its citations to the new sentence where
its text starts, and a correction or release mark to every new sentence
overlapping it. ``orma sleep --redo`` re-derives them instead, if wanted.

Episodes are re-split in batches of ``rebuild_batch_episodes`` per write
transaction, so a proxy sharing the file keeps writing in between.
"""

from __future__ import annotations

import bisect
import json
import time
from dataclasses import dataclass
from functools import partial

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import link_event, link_state
from orma_proxy.store import (
    Connection,
    Database,
    NewSentence,
    delete_sentences,
    insert_sentences,
    move_citations,
    reindex_sentences,
    space_tag,
)
from orma_proxy.text.segment import Segment, split_sentences
from orma_proxy.text.speaker import split_said


@dataclass(frozen=True)
class RebuildReport:
    """What a rebuild did."""

    episodes: int
    resplit: int  # episodes whose sentences changed
    sentences: int
    links: int


@dataclass(frozen=True)
class _Old:
    id: int
    start: int
    end: int
    superseded_by: int | None
    released_by: int | None


async def rebuild(db: Database, config: OrmaConfig) -> RebuildReport:
    """Re-split, re-index and re-link everything; the indexer re-embeds afterwards."""
    rows = list(await db.reader.execute_fetchall("SELECT id FROM episodes ORDER BY id"))
    ids = [int(r[0]) for r in rows]
    size = config.rebuild_batch_episodes
    resplit = 0
    for at in range(0, len(ids), size):
        chunk = ids[at : at + size]
        resplit += await db.writer.execute_write_fn(
            partial(_resplit, episode_ids=chunk, max_chars=config.max_sentence_chars)
        )
    sentences, links = await db.writer.execute_write_fn(_reindex)
    return RebuildReport(len(ids), resplit, sentences, links)


def _resplit(conn: Connection, episode_ids: list[int], max_chars: int) -> int:
    """Split these episodes again; returns how many came out differently."""
    changed = 0
    for episode_id in episode_ids:
        row = conn.execute(
            "SELECT space, text, json_extract(metadata, '$.speaker') FROM episodes WHERE id = ?",
            (episode_id,),
        ).fetchone()
        if row is None:  # purged meanwhile
            continue
        space, text = str(row[0]), str(row[1])
        # Split as add() did: a turn stored with its speaker leaves the "Name:" out.
        speaker = row[2] if isinstance(row[2], str) else None
        new = (
            split_said(text, max_chars, speaker)[1] if speaker else split_sentences(text, max_chars)
        )
        old = conn.execute(
            "SELECT id, position, start, text, superseded_by, released_by FROM sentences "
            "WHERE episode_id = ? ORDER BY position",
            (episode_id,),
        ).fetchall()
        if [(int(r[1]), int(r[2]), str(r[3])) for r in old] == [
            (s.position, s.start, s.text) for s in new
        ]:
            continue
        olds = [_Old(int(r[0]), int(r[2]), int(r[2]) + len(str(r[3])), r[4], r[5]) for r in old]
        _replace(conn, episode_id, space, olds, new)
        changed += 1
    return changed


def _replace(
    conn: Connection, episode_id: int, space: str, olds: list[_Old], new: list[Segment]
) -> None:
    """Swap an episode's sentences for ``new``, moving citations and marks across."""
    tag = space_tag(space)
    ids = insert_sentences(
        conn,
        [
            NewSentence(
                episode_id, space, tag, seg.position, seg.start, seg.text, *_marks(olds, seg)
            )
            for seg in new
        ],
    )
    starts = [seg.start for seg in new]
    for old in olds:
        move_citations(conn, old.id, ids[max(bisect.bisect_right(starts, old.start) - 1, 0)])
    delete_sentences(conn, [old.id for old in olds])


def _marks(olds: list[_Old], seg: Segment) -> tuple[int | None, int | None]:
    """A new sentence overlapping a corrected or released old one stays so."""
    end = seg.start + len(seg.text)
    overlapping = [o for o in olds if o.start < end and seg.start < o.end]
    superseded = next((o.superseded_by for o in overlapping if o.superseded_by), None)
    released = next((o.released_by for o in overlapping if o.released_by), None)
    return superseded, released


def _reindex(conn: Connection) -> tuple[int, int]:
    """FTS rebuilt from the sentences, vectors dropped, graph re-linked: (sentences, links)."""
    reindex_sentences(conn)
    _relink(conn)
    counts = conn.execute(
        "SELECT (SELECT count(*) FROM sentences), (SELECT count(*) FROM entity_links)"
    ).fetchone()
    return int(counts[0]), int(counts[1])


def _relink(conn: Connection) -> None:
    """The entity graph linked again from every state and event."""
    conn.execute("DELETE FROM entity_links")
    now = time.time()
    for r in conn.execute("SELECT id, space, entity_id, value FROM states").fetchall():
        link_state(conn, str(r[1]), int(r[2]), int(r[0]), str(r[3]), now)
    for r in conn.execute("SELECT id, space, what, who FROM events").fetchall():
        link_event(conn, str(r[1]), int(r[0]), str(r[2]), _names(str(r[3])), now)


def _names(who: str) -> list[str]:
    return [str(name) for name in json.loads(who)]
