"""Purge's hard delete: the episodes and everything that holds or cites their text.

The one deliberate exception to append-only episodes (``forget/purge.py`` finds
what to erase, leaves the tombstone and the audit row, and compacts the file
afterwards). Runs inside the purge's write job, with ``secure_delete`` on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.sentences import delete_sentences, optimize_sentence_indexes

# What replaces a scrubbed text (a release query, a sleep error) that held purged text.
PURGED = "(purged)"
_IN_IDS = "IN (SELECT value FROM json_each(?))"


@dataclass(frozen=True)
class Erasure:
    """The ids to erase: the episodes, their sentences, and the states and events they back."""

    episodes: Sequence[int]
    sentences: Sequence[int]
    states: Sequence[int]
    events: Sequence[int]


def _listed(ids: Iterable[int]) -> str:
    return json.dumps(sorted(set(ids)))


def erase_episodes(conn: Connection, space: str, found: Erasure, text: str | None) -> None:
    """Delete every row holding or citing the episodes, children before parents.

    ``text``: what a text purge matched, scrubbed from the release queries that hold it.
    """
    episodes, sentences = _listed(found.episodes), _listed(found.sentences)
    states, events = _listed(found.states), _listed(found.events)
    conn.execute(
        f"DELETE FROM recall_history WHERE space = ? AND ((kind = 'passage' AND item_id {_IN_IDS}) "
        f"OR (kind = 'state' AND item_id {_IN_IDS}) OR (kind = 'event' AND item_id {_IN_IDS}))",
        (space, sentences, states, events),
    )
    links = f"(kind = 'state' AND target_id {_IN_IDS}) OR (kind = 'event' AND target_id {_IN_IDS})"
    linked = _listed(
        int(r[0])
        for r in conn.execute(
            f"SELECT DISTINCT entity_id FROM entity_links WHERE {links}", (states, events)
        ).fetchall()
    )
    conn.execute(f"DELETE FROM entity_links WHERE {links}", (states, events))
    conn.execute(f"UPDATE states SET superseded_by = NULL WHERE superseded_by {_IN_IDS}", (states,))
    _remove_state_ids(conn, space, states, sentences)
    conn.execute(f"DELETE FROM states WHERE id {_IN_IDS}", (states,))
    conn.execute(f"DELETE FROM events WHERE id {_IN_IDS}", (events,))
    conn.execute(
        f"DELETE FROM entities WHERE id {_IN_IDS} AND kind != 'user' "
        "AND NOT EXISTS (SELECT 1 FROM entity_links l WHERE l.entity_id = entities.id) "
        "AND NOT EXISTS (SELECT 1 FROM states s WHERE s.entity_id = entities.id)",
        (linked,),
    )
    delete_sentences(conn, found.sentences)  # FTS postings, CJK pairs, vectors, the rows
    _scrub_sleep(conn, space, episodes)
    # A consolidation of this space may be reading the episodes right now: take its lease
    # away (expired, held by nobody), so a batch extracted before this purge is refused
    # when it comes to be applied (sleep.lease.check_held) instead of quoting them again.
    conn.execute(
        "UPDATE sleep_leases SET holder = 'purge', expires_at = 0 WHERE space = ?", (space,)
    )
    if text is not None:
        conn.execute(
            "UPDATE releases SET query = ? WHERE space = ? AND instr(lower(query), lower(?)) > 0",
            (PURGED, space, text),
        )
    conn.execute(f"DELETE FROM episodes WHERE id {_IN_IDS}", (episodes,))
    optimize_sentence_indexes(conn)


def _remove_state_ids(conn: Connection, space: str, states: str, sentences: str) -> None:
    """The erased states' ids answer "no longer exists" (``facts/removed.py``), text-free.

    What a redo kept of a state citing an erased line loses its words too.
    """
    conn.execute(
        "INSERT INTO removed_states (id, space, reason, removed_at) "
        f"SELECT id, space, 'purge', ? FROM states WHERE id {_IN_IDS}",
        (time.time(), states),
    )
    conn.execute(
        "UPDATE removed_states SET reason = 'purge', entity = NULL, attribute = NULL, "
        "value = NULL, condition = NULL, sentence_id = NULL "
        f"WHERE space = ? AND sentence_id {_IN_IDS}",
        (space, sentences),
    )


def _scrub_sleep(conn: Connection, space: str, episodes: str) -> None:
    """Sleep's records of the batches that read these episodes may quote them: drop them."""
    batches = (
        "SELECT id FROM sleep_batches b WHERE b.space = ? AND EXISTS (SELECT 1 FROM "
        "json_each(?) j WHERE j.value BETWEEN b.first_episode_id AND b.last_episode_id)"
    )
    conn.execute(f"DELETE FROM sleep_rejections WHERE batch_id IN ({batches})", (space, episodes))
    conn.execute(
        f"UPDATE sleep_batches SET error = ? WHERE error IS NOT NULL AND id IN ({batches})",
        (PURGED, space, episodes),
    )
