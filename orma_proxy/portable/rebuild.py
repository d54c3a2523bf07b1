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
import time
from dataclasses import dataclass
from functools import partial

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import (
    clear_links,
    count_links,
    events_to_link,
    link_event,
    link_state,
    states_to_link,
)
from orma_proxy.store import (
    Connection,
    Database,
    NewSentence,
    SplitSentence,
    count_sentences,
    delete_sentences,
    episode_ids,
    episode_sentences,
    insert_sentences,
    move_citations,
    reindex_sentences,
    space_tag,
    split_episode,
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


async def rebuild(db: Database, config: OrmaConfig) -> RebuildReport:
    """Re-split, re-index and re-link everything; the indexer re-embeds afterwards."""
    ids = await db.reader.execute_fn(episode_ids)
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
        episode = split_episode(conn, episode_id)
        if episode is None:  # purged meanwhile
            continue
        # Split as add() did: a turn stored with its speaker leaves the "Name:" out.
        new = (
            split_said(episode.text, max_chars, episode.speaker)[1]
            if episode.speaker
            else split_sentences(episode.text, max_chars)
        )
        olds = episode_sentences(conn, episode_id)
        if [(o.position, o.start, o.text) for o in olds] == [
            (s.position, s.start, s.text) for s in new
        ]:
            continue
        _replace(conn, episode_id, episode.space, olds, new)
        changed += 1
    return changed


def _replace(
    conn: Connection, episode_id: int, space: str, olds: list[SplitSentence], new: list[Segment]
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


def _marks(olds: list[SplitSentence], seg: Segment) -> tuple[int | None, int | None]:
    """A new sentence overlapping a corrected or released old one stays so."""
    end = seg.start + len(seg.text)
    overlapping = [o for o in olds if o.start < end and seg.start < o.end]
    superseded = next((o.superseded_by for o in overlapping if o.superseded_by), None)
    released = next((o.released_by for o in overlapping if o.released_by), None)
    return superseded, released


def _reindex(conn: Connection) -> tuple[int, int]:
    """FTS rebuilt from the sentences, vectors dropped, graph re-linked: (sentences, links)."""
    reindex_sentences(conn)
    clear_links(conn)
    now = time.time()
    for st in states_to_link(conn):
        link_state(conn, st.space, st.entity_id, st.id, st.value, now)
    for ev in events_to_link(conn):
        link_event(conn, ev.space, ev.id, ev.what, ev.who, now)
    return count_sentences(conn), count_links(conn)
