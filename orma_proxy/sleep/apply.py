"""Applying a verified batch: one writer job, so a batch lands whole or not at all.

Rules (defeasible where asked): a categorical state with a different value
closes the active one (``active = 0``, ``superseded_by``, ``valid_to``) and
opens the new one; a value said as ended ("I used to live in Tartu") closes
it or, not known yet, is stored as history; the same value again is a
rehearsal; a conditional state lives beside the baseline and never closes it;
an older statement that arrives late (a redo, a retried batch) becomes history
behind the newer active state instead of overturning it. Events are stored with their
resolved dates. Every state and event is linked to its entities for
spreading activation. The watermark moves in the same transaction.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import InputError, LeaseHeldError
from orma_proxy.facts import (
    FORBIDDEN_PREFIX,
    INSTEAD_PREFIX,
    NewEvent,
    NewState,
    Slot,
    SlotState,
    active_in_slot,
    alternative_attribute,
    close_state,
    closed_in_slot,
    drawn_in_slot,
    entity_id,
    forgotten_values,
    insert_event,
    insert_state,
    link_event,
    link_state,
    redraw,
    rehearse,
    rules_from_line,
)
from orma_proxy.sleep.batch import Batch
from orma_proxy.sleep.lease import check_held
from orma_proxy.sleep.names import value_key
from orma_proxy.sleep.report import BatchOutcome, Rejection
from orma_proxy.sleep.verify import Verified, VerifiedEvent, VerifiedState
from orma_proxy.store import (
    BatchRecord,
    Connection,
    RejectedItem,
    move_watermark,
    record_batch,
    record_rejections,
    watermark_of,
)


@dataclass(frozen=True)
class BatchRun:
    """How a batch was extracted, recorded with it."""

    holder: str
    extractor: str
    attempts: int
    llm_seconds: float


def apply_batch(
    conn: Connection, batch: Batch, verified: Verified, run: BatchRun, config: OrmaConfig
) -> BatchOutcome:
    """Write one verified batch (runs inside the writer's transaction)."""
    check_held(conn, batch.space, run.holder)
    if watermark_of(conn, batch.space) != batch.after:
        raise LeaseHeldError(f"space {batch.space!r} moved on while this batch was extracted")
    now = time.time()
    batch_id = _record(conn, batch, run, "applied", None, now)
    outcome = BatchOutcome()
    # Lines drawn from as they were recorded are read again here (``sleep/awake.py``).
    reread = config.enable_facts_on_record
    for state in verified.states:
        _apply_state(conn, batch.space, state, config, outcome, now, reread=reread)
    for event in verified.events:
        _apply_event(conn, batch.space, event, outcome, now)
    rejections = verified.rejections + outcome.rejections
    record_rejections(
        conn, batch_id, batch.space, [RejectedItem(r.kind, r.item, r.reason) for r in rejections]
    )
    outcome.rejections = rejections
    move_watermark(conn, batch.space, batch.last_episode_id, now)
    return outcome


def record_failure(
    conn: Connection, batch: Batch, run: BatchRun, error: str, now: float | None = None
) -> None:
    """Keep a failed batch's error (and the requests it cost); its episodes stay pending."""
    _record(conn, batch, run, "failed", error, time.time() if now is None else now)


def _record(
    conn: Connection, batch: Batch, run: BatchRun, status: str, error: str | None, now: float
) -> int:
    record = BatchRecord(
        space=batch.space,
        first_episode_id=batch.episode_ids[0],
        last_episode_id=batch.last_episode_id,
        episodes=len(batch.episode_ids),
        status=status,
        extractor=run.extractor,
        attempts=run.attempts,
        error=error,
        llm_seconds=run.llm_seconds,
        finished_at=now,
    )
    return record_batch(conn, record)


def apply_drawn(
    conn: Connection, space: str, verified: Verified, config: OrmaConfig
) -> BatchOutcome:
    """Write states drawn outside a batch (a line as it is recorded): no watermark moves."""
    now = time.time()
    outcome = BatchOutcome()
    for state in verified.states:
        _apply_state(conn, space, state, config, outcome, now)
    return outcome


def apply_state(conn: Connection, space: str, state: VerifiedState, config: OrmaConfig) -> int:
    """Write one state at once, outside any batch (``orma_forbid``), by the rules above.

    Returns the id of the state now holding it (an existing one if this was a rehearsal).
    """
    state_id = _apply_state(conn, space, state, config, BatchOutcome(), time.time())
    if state_id is None:
        raise InputError("an ended or forgotten state cannot be registered")
    return state_id


def _apply_state(
    conn: Connection,
    space: str,
    state: VerifiedState,
    config: OrmaConfig,
    outcome: BatchOutcome,
    now: float,
    *,
    reread: bool = False,
) -> int | None:
    """Write one state by the rules of the module docstring; the id now holding it.

    ``reread``: the line may have been drawn from as it was recorded, so a
    rehearsal it made then is not made again.
    """
    holder = entity_id(conn, space, state.entity, "person", now)
    slot = Slot(space, holder, state.attribute, state.condition)
    if not state.ended and _forgotten(conn, slot, state):
        # The same line read again (``sleep --redo``): what the user forgot stays forgotten.
        outcome.rejections.append(_rejection(state, "the user forgot this fact"))
        return None
    single = not (
        state.attribute in config.multi_valued_attributes
        or state.attribute.startswith(FORBIDDEN_PREFIX)
        or state.joins
    )
    if not state.ended:
        if state.prohibited or state.attribute.startswith(INSTEAD_PREFIX):
            drawn, slot = _rule_drawn(conn, slot, state, now)
            state = replace(state, attribute=slot.attribute)
        else:
            drawn = _fact_drawn(conn, slot, state, now, single=single)
        if drawn is not None:
            return drawn
    active = active_in_slot(conn, slot)
    same = [a for a in active if value_key(a.value) == value_key(state.value)]
    said_at = state.line.said_at
    if state.ended:
        for old in same:
            close_state(conn, old.id, None, said_at, "ended")
        outcome.states_ended += len(same)
        if not same:
            return _past(conn, space, holder, slot, state, outcome, now)
        return None
    if same:
        if reread and _counted(same[0], said_at, now):
            return same[0].id  # said again on this line, and counted as it was recorded
        rehearse(conn, same[0].id, said_at)
        outcome.states_rehearsed += 1
        return same[0].id
    newer = [a for a in active if a.stated_at > said_at] if single else []
    if newer:
        # Old news arriving late: history behind the state that replaced it.
        new_id = _insert_state(conn, space, holder, state, now, active=False)
        close_state(conn, new_id, newer[-1].id, None, "superseded")
    else:
        new_id = _insert_state(conn, space, holder, state, now, active=True)
        if single:
            for old in active:
                close_state(conn, old.id, new_id, state.valid_from, "superseded")
            outcome.states_superseded += len(active)
    outcome.states_added += 1
    link_state(conn, space, holder, new_id, state.value, now)
    return new_id


def _past(
    conn: Connection,
    space: str,
    holder: int,
    slot: Slot,
    state: VerifiedState,
    outcome: BatchOutcome,
    now: float,
) -> int | None:
    """A fact said as past and not known ("I used to live in Tartu"): history, never current."""
    if any(value_key(c.value) == value_key(state.value) for c in closed_in_slot(conn, slot)):
        return None  # already history (this line read again, or said before)
    new_id = _insert_state(conn, space, holder, state, now, active=False)
    close_state(conn, new_id, None, state.line.said_at, "ended")
    outcome.states_added += 1
    link_state(conn, space, holder, new_id, state.value, now)
    return new_id


def _counted(state: SlotState, said_at: float, now: float) -> bool:
    """Whether a line said at ``said_at`` is within what ``state`` already counts.

    Drawn as they were recorded, the lines saying a value again each rehearsed it;
    sleep reading them again must not count them twice.
    """
    return state.created_at < now and state.stated_at <= said_at <= state.said_until


def _rule_drawn(
    conn: Connection, slot: Slot, state: VerifiedState, now: float
) -> tuple[int | None, Slot]:
    """A rule (or alternative) already drawn from this line, else the slot to write it in.

    A rule ``orma_forbid`` registered, or drawn as its line was recorded, is worded
    by sleep its own way; it is still the same rule: the same utterance read again,
    not said again (no rehearsal). An alternative goes beside its line's rule.
    """
    drawn = rules_from_line(conn, slot.space, slot.holder, state.line.sentence_id)
    earlier = [d for d in drawn if d.prohibited == state.prohibited and d.created_at < now]
    if earlier:
        return earlier[0].id, slot
    rule = next((d for d in drawn if d.prohibited), None)
    if not state.prohibited and rule is not None:
        slot = replace(slot, attribute=alternative_attribute(rule.attribute))
    return None, slot


def _fact_drawn(
    conn: Connection, slot: Slot, state: VerifiedState, now: float, *, single: bool
) -> int | None:
    """A state of the slot already drawn from this very line: confirmed, or read better.

    A line drawn from as it was recorded (``sleep/awake.py``) is read again by sleep:
    the same value is that state, not a rehearsal; another value of a single-valued
    slot repairs it in place.
    """
    drawn = drawn_in_slot(conn, slot, state.line.sentence_id, now)
    for earlier in drawn:
        if value_key(earlier.value) == value_key(state.value):
            return earlier.id
    if drawn and single:
        redraw(conn, drawn[0].id, state.value)
        link_state(conn, slot.space, slot.holder, drawn[0].id, state.value, now)
        return drawn[0].id
    return None


def _insert_state(
    conn: Connection, space: str, holder: int, state: VerifiedState, now: float, *, active: bool
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
    return insert_state(conn, new)


def _apply_event(
    conn: Connection, space: str, event: VerifiedEvent, outcome: BatchOutcome, now: float
) -> None:
    new = NewEvent(
        space=space,
        what=event.what,
        when_text=event.when_text,
        date=event.date.date.isoformat() if event.date else None,
        precision=event.date.precision if event.date else None,
        who=tuple(event.who),
        sentence_id=event.line.sentence_id,
        episode_id=event.line.episode_id,
        created_at=now,
    )
    event_id = insert_event(conn, new)
    if event_id is None:
        return
    outcome.events_added += 1
    link_event(conn, space, event_id, event.what, event.who, now)


def _forgotten(conn: Connection, slot: Slot, state: VerifiedState) -> bool:
    """Whether the user forgot this very fact as drawn from this very line."""
    forgotten = forgotten_values(conn, slot, state.line.sentence_id)
    return any(value_key(value) == value_key(state.value) for value in forgotten)


def _rejection(state: VerifiedState, reason: str) -> Rejection:
    item = {"about": state.entity, "attribute": state.attribute, "value": state.value}
    return Rejection("state", state.line.text, item, reason)
