"""``supersede(old, new)``: the user corrects a fact.

The correction is stored as a normal note episode; every line saying ``old``
is marked ``superseded_by`` it (recall never shows those lines again), and the
active states holding ``old`` are closed as ``corrected``. A state named by id,
or whose value is ``old`` itself, is replaced at once by a state of the same
slot with the new text as its value, so the next recall already answers with
it; ``orma facts --history`` keeps the old one. A second correction of the new
value closes that state in turn, so only the last value stays current.
"""

from __future__ import annotations

import time

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import InputError
from orma_proxy.facts import (
    CORRECTED,
    SUPERSEDE_MARK,
    NewState,
    close_state,
    insert_state,
    link_state,
)
from orma_proxy.forget.audit import write_audit
from orma_proxy.forget.match import IN_IDS, Correction, StateTarget, correction, ids_json
from orma_proxy.forget.match import sentence_texts as texts
from orma_proxy.forget.results import ForgetResult
from orma_proxy.store import connection_of
from orma_proxy.store.database import Database
from orma_proxy.store.episodes import NewEpisode, insert_episode
from orma_proxy.text.segment import split_sentences


async def supersede(
    db: Database, old: str | int, new: str, space: str, config: OrmaConfig, *, dry_run: bool
) -> ForgetResult:
    """Correct ``old`` (a text, or a state id) to ``new`` in ``space``; see the module docstring."""
    if dry_run:
        found = await correction(db.reader, space, old)
        preview = await texts(db.reader, found.sentences)
        return ForgetResult("supersede", space, True, found.affected, preview)
    now = time.time()
    episode = NewEpisode(
        space=space,
        role="note",
        text=new,
        said_at=now,
        created_at=now,
        metadata={"orma": SUPERSEDE_MARK},
    )
    segments = split_sentences(new, config.max_sentence_chars)

    async def job(conn: aiosqlite.Connection) -> ForgetResult:
        found = await correction(conn, space, old)
        if not found.sentences and not found.states:
            raise InputError(
                f"nothing in space {space!r} says {old!r}; nothing was changed "
                "(`orma add` stores a new fact)"
            )
        preview = await texts(conn, found.sentences)
        episode_id = await insert_episode(conn, episode, segments)
        await _mark(conn, space, found, episode_id, " ".join(new.split()), now)
        audit_id = await write_audit(
            conn, space, "supersede", found.affected, now, extra={"corrected_by": [episode_id]}
        )
        return ForgetResult(
            "supersede",
            space,
            False,
            found.affected,
            preview,
            audit_id=audit_id,
            episode_id=episode_id,
        )

    return await db.writer.submit(job)


async def _mark(
    conn: aiosqlite.Connection,
    space: str,
    found: Correction,
    episode_id: int,
    value: str,
    now: float,
) -> None:
    """Lines superseded by the correction, states closed (or replaced by the new value)."""
    await conn.execute(
        f"UPDATE sentences SET superseded_by = ? WHERE id {IN_IDS}",
        (episode_id, ids_json(found.sentences)),
    )
    rows = list(
        await conn.execute_fetchall(
            "SELECT min(id) FROM sentences WHERE episode_id = ?", (episode_id,)
        )
    )
    first_line = int(rows[0][0])
    for state in found.states:
        successor = None
        if state.replace:
            successor = await _replacement(conn, space, state, value, first_line, episode_id, now)
        close_state(connection_of(conn), state.id, successor, now, CORRECTED)


async def _replacement(
    conn: aiosqlite.Connection,
    space: str,
    state: StateTarget,
    value: str,
    sentence_id: int,
    episode_id: int,
    now: float,
) -> int:
    """The same slot (holder, attribute, condition) holding the new value, citing the correction."""
    new = NewState(
        space=space,
        entity_id=state.entity_id,
        attribute=state.attribute,
        value=value,
        condition=state.condition,
        prohibited=state.prohibited,
        active=True,
        since=None,
        stated_at=now,
        valid_from=now,
        sentence_id=sentence_id,
        episode_id=episode_id,
        created_at=now,
    )
    new_id = insert_state(connection_of(conn), new)
    link_state(connection_of(conn), space, state.entity_id, new_id, value, now)
    return new_id
