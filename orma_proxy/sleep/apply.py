"""Applying a verified batch: one writer job, so a batch lands whole or not at all.

Rules (defeasible where asked): a categorical state with a different value
closes the active one (``active = 0``, ``superseded_by``, ``valid_to``) and
opens the new one; the same value again is a rehearsal; a conditional state
lives beside the baseline and never closes it; an older statement that
arrives late (a redo, a retried batch) becomes history behind the newer
active state instead of overturning it. Events are stored with their
resolved dates. Every state and event is linked to its entities for
spreading activation. The watermark moves in the same transaction.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import InputError, LeaseHeldError
from orma_proxy.facts import (
    FORBID_MARK,
    FORBIDDEN_PREFIX,
    FORGOTTEN,
    NewState,
    close_state,
    entity_id,
    insert_state,
    link_event,
    link_state,
)
from orma_proxy.sleep.batch import Batch, watermark
from orma_proxy.sleep.lease import check_held
from orma_proxy.sleep.names import value_key
from orma_proxy.sleep.report import BatchOutcome, Rejection
from orma_proxy.sleep.verify import Verified, VerifiedEvent, VerifiedState


@dataclass(frozen=True)
class BatchRun:
    """How a batch was extracted, recorded with it."""

    holder: str
    extractor: str
    attempts: int
    llm_seconds: float


@dataclass(frozen=True)
class _Active:
    id: int
    value: str
    stated_at: float


async def apply_batch(
    conn: aiosqlite.Connection,
    batch: Batch,
    verified: Verified,
    run: BatchRun,
    config: OrmaConfig,
) -> BatchOutcome:
    """Write one verified batch (runs inside the writer's transaction)."""
    await check_held(conn, batch.space, run.holder)
    if await watermark(conn, batch.space) != batch.after:
        raise LeaseHeldError(f"space {batch.space!r} moved on while this batch was extracted")
    now = time.time()
    batch_id = await _insert_batch(conn, batch, run, "applied", None, now)
    outcome = BatchOutcome()
    for state in verified.states:
        await _apply_state(conn, batch.space, state, config, outcome, now)
    for event in verified.events:
        await _apply_event(conn, batch.space, event, outcome, now)
    rejections = verified.rejections + outcome.rejections
    await conn.executemany(
        "INSERT INTO sleep_rejections (batch_id, space, kind, sentence_id, item, reason) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (batch_id, batch.space, r.kind, None, json.dumps(r.item, default=str), r.reason)
            for r in rejections
        ],
    )
    outcome.rejections = rejections
    await conn.execute(
        "INSERT INTO sleep_progress (space, last_episode_id, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (space) DO UPDATE SET last_episode_id = excluded.last_episode_id, "
        "updated_at = excluded.updated_at",
        (batch.space, batch.last_episode_id, now),
    )
    return outcome


async def record_failure(
    conn: aiosqlite.Connection, batch: Batch, run: BatchRun, error: str
) -> None:
    """Keep a failed batch's error; its episodes stay pending."""
    await _insert_batch(conn, batch, run, "failed", error, time.time())


async def reset_space(conn: aiosqlite.Connection, space: str) -> None:
    """Forget every state, event, entity and batch of ``space`` (for ``redo``); episodes stay."""
    for table in ("entity_links", "sleep_rejections", "states", "events", "entities"):
        await conn.execute(f"DELETE FROM {table} WHERE space = ?", (space,))
    for table in ("sleep_batches", "sleep_progress"):
        await conn.execute(f"DELETE FROM {table} WHERE space = ?", (space,))


async def _insert_batch(
    conn: aiosqlite.Connection,
    batch: Batch,
    run: BatchRun,
    status: str,
    error: str | None,
    now: float,
) -> int:
    row = await conn.execute_insert(
        "INSERT INTO sleep_batches (space, first_episode_id, last_episode_id, episodes, status, "
        "extractor, attempts, error, llm_seconds, finished_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            batch.space,
            batch.episode_ids[0],
            batch.last_episode_id,
            len(batch.episode_ids),
            status,
            run.extractor,
            run.attempts,
            error,
            run.llm_seconds,
            now,
        ),
    )
    assert row is not None
    return int(row[0])


async def apply_state(
    conn: aiosqlite.Connection, space: str, state: VerifiedState, config: OrmaConfig
) -> int:
    """Write one state at once, outside any batch (``orma_forbid``), by the rules above.

    Returns the id of the state now holding it (an existing one if this was a rehearsal).
    """
    state_id = await _apply_state(conn, space, state, config, BatchOutcome(), time.time())
    if state_id is None:
        raise InputError("an ended or forgotten state cannot be registered")
    return state_id


async def _apply_state(
    conn: aiosqlite.Connection,
    space: str,
    state: VerifiedState,
    config: OrmaConfig,
    outcome: BatchOutcome,
    now: float,
) -> int | None:
    holder = await entity_id(conn, space, state.entity, "person", now)
    if not state.ended and await _forgotten(conn, space, holder, state):
        # The same line read again (``sleep --redo``): what the user forgot stays forgotten.
        outcome.rejections.append(_rejection(state, "the user forgot this fact"))
        return None
    if state.prohibited and not state.ended:
        registered = await _rule_from_line(conn, space, holder, state.line.sentence_id)
        if registered is not None:
            return registered  # the same utterance read again, not said again: no rehearsal
    cursor = await conn.execute(
        "SELECT id, value, stated_at FROM states WHERE space = ? AND entity_id = ? "
        "AND attribute = ? AND condition = ? AND active = 1 ORDER BY stated_at DESC",
        (space, holder, state.attribute, state.condition),
    )
    active = [_Active(int(r[0]), r[1], float(r[2])) for r in await cursor.fetchall()]
    same = [a for a in active if value_key(a.value) == value_key(state.value)]
    said_at = state.line.said_at
    if state.ended:
        for old in same:
            await close_state(conn, old.id, None, said_at, "ended")
        outcome.states_ended += len(same)
        if not same:
            reason = "says it ended, but no such state is active"
            outcome.rejections.append(_rejection(state, reason))
        return None
    if same:
        await conn.execute(
            "UPDATE states SET rehearsals = rehearsals + 1, "
            "rehearsed_at = max(coalesce(rehearsed_at, 0), ?) WHERE id = ?",
            (said_at, same[0].id),
        )
        outcome.states_rehearsed += 1
        return same[0].id
    single = not (
        state.attribute in config.multi_valued_attributes
        or state.attribute.startswith(FORBIDDEN_PREFIX)
    )
    newer = [a for a in active if a.stated_at > said_at] if single else []
    if newer:
        # Old news arriving late: history behind the state that replaced it.
        new_id = await _insert_state(conn, space, holder, state, now, active=False)
        await close_state(conn, new_id, newer[-1].id, None, "superseded")
    else:
        new_id = await _insert_state(conn, space, holder, state, now, active=True)
        if single:
            for old in active:
                await close_state(conn, old.id, new_id, state.valid_from, "superseded")
            outcome.states_superseded += len(active)
    outcome.states_added += 1
    await link_state(conn, space, holder, new_id, state.value, now)
    return new_id


async def _rule_from_line(
    conn: aiosqlite.Connection, space: str, holder: int, sentence_id: int
) -> int | None:
    """The active rule ``orma_forbid`` registered from this line before sleep read it.

    Sleep words the rule its own way; it is still the same rule, said once.
    """
    cursor = await conn.execute(
        "SELECT s.id FROM states s JOIN episodes e ON e.id = s.episode_id "
        "WHERE s.space = ? AND s.entity_id = ? AND s.sentence_id = ? AND s.prohibited = 1 "
        "AND s.active = 1 AND json_extract(e.metadata, '$.orma') = ? ORDER BY s.id LIMIT 1",
        (space, holder, sentence_id, FORBID_MARK),
    )
    row = await cursor.fetchone()
    return None if row is None else int(row[0])


async def _insert_state(
    conn: aiosqlite.Connection,
    space: str,
    holder: int,
    state: VerifiedState,
    now: float,
    *,
    active: bool,
) -> int:
    new = NewState(
        space=space,
        entity_id=holder,
        attribute=state.attribute,
        value=state.value,
        condition=state.condition,
        prohibited=state.prohibited,
        active=active,
        since=state.since.label() if state.since else None,
        stated_at=state.line.said_at,
        valid_from=state.valid_from,
        sentence_id=state.line.sentence_id,
        episode_id=state.line.episode_id,
        created_at=now,
    )
    return await insert_state(conn, new)


async def _apply_event(
    conn: aiosqlite.Connection,
    space: str,
    event: VerifiedEvent,
    outcome: BatchOutcome,
    now: float,
) -> None:
    cursor = await conn.execute(
        "SELECT 1 FROM events WHERE space = ? AND sentence_id = ? AND what = ?",
        (space, event.line.sentence_id, event.what),
    )
    if await cursor.fetchone() is not None:
        return
    row = await conn.execute_insert(
        "INSERT INTO events (space, what, when_text, date, precision, who, sentence_id, "
        "episode_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            space,
            event.what,
            event.when_text,
            event.date.date.isoformat() if event.date else None,
            event.date.precision if event.date else None,
            json.dumps(list(event.who), ensure_ascii=False),
            event.line.sentence_id,
            event.line.episode_id,
            now,
        ),
    )
    assert row is not None
    event_id = int(row[0])
    outcome.events_added += 1
    await link_event(conn, space, event_id, event.what, event.who, now)


async def _forgotten(
    conn: aiosqlite.Connection, space: str, holder: int, state: VerifiedState
) -> bool:
    """Whether the user forgot this very fact as drawn from this very line."""
    rows = await conn.execute_fetchall(
        "SELECT value FROM states WHERE space = ? AND entity_id = ? AND attribute = ? "
        "AND condition = ? AND sentence_id = ? AND end_reason = ?",
        (space, holder, state.attribute, state.condition, state.line.sentence_id, FORGOTTEN),
    )
    return any(value_key(r[0]) == value_key(state.value) for r in rows)


def _rejection(state: VerifiedState, reason: str) -> Rejection:
    item = {"about": state.entity, "attribute": state.attribute, "value": state.value}
    return Rejection("state", state.line.text, item, reason)
