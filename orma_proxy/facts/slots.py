"""A state's slot: its holder, attribute and condition, the place one value holds at a time.

Sleep's apply step reads a slot before it writes one: what is active there,
what the user forgot from the very line read again, what was already drawn
from that line (a rule set by hand, or a fact or rule drawn as the line was
recorded: the same line read again is not said again). Plain sync functions
of the connection, run inside the write job that applies a batch; and
``forget_state``, a state closed by hand (``orma forget ID``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from orma_proxy.errors import InputError
from orma_proxy.facts.marks import CORRECTED, FORGOTTEN
from orma_proxy.facts.removed import missing_state_error
from orma_proxy.facts.rules import CARRIED_SQL, FORBIDDEN_PREFIX, INSTEAD_PREFIX
from orma_proxy.facts.states import close_state
from orma_proxy.store import Connection
from orma_proxy.store.select import Row, Select

__all__ = [
    "LineRule",
    "Slot",
    "SlotState",
    "active_in_slot",
    "alternatives_of",
    "drawn_in_slot",
    "forget_state",
    "forgotten_values",
    "is_active",
    "redraw",
    "rehearse",
    "rules_from_line",
]


@dataclass(frozen=True)
class Slot:
    """Where a state sits: ``holder`` (an entity id), ``attribute``, ``condition``."""

    space: str
    holder: int
    attribute: str
    condition: str


@dataclass(frozen=True)
class SlotState:
    """A state of a slot: its value, when it was said and last said again, when stored."""

    id: int
    value: str
    stated_at: float
    rehearsed_at: float | None = None
    created_at: float = 0.0

    @property
    def said_until(self) -> float:
        """When it was last said (first said, or said again)."""
        return max(self.stated_at, self.rehearsed_at or 0.0)


@dataclass(frozen=True)
class LineRule:
    """An active rule (``prohibited``) or rule's alternative drawn from a line."""

    id: int
    attribute: str
    prohibited: bool
    created_at: float


_ACTIVE = Select.of(
    {
        "id": "id",
        "value": "value",
        "stated_at": "stated_at",
        "rehearsed_at": "rehearsed_at",
        "created_at": "created_at",
    },
    "FROM states WHERE space = ? AND entity_id = ? AND attribute = ? AND condition = ? ",
)


def _params(slot: Slot) -> tuple[str, int, str, str]:
    return slot.space, slot.holder, slot.attribute, slot.condition


def _slot_state(r: Row) -> SlotState:
    rehearsed = r["rehearsed_at"]
    return SlotState(
        id=int(r["id"]),
        value=str(r["value"]),
        stated_at=float(r["stated_at"]),
        rehearsed_at=None if rehearsed is None else float(rehearsed),
        created_at=float(r["created_at"]),
    )


def active_in_slot(conn: Connection, slot: Slot) -> list[SlotState]:
    """The active states of ``slot``, the most recently said first."""
    rows = conn.execute(_ACTIVE.sql + "AND active = 1 ORDER BY stated_at DESC", _params(slot))
    return [_slot_state(r) for r in _ACTIVE.all_named(rows)]


def closed_in_slot(conn: Connection, slot: Slot) -> list[SlotState]:
    """The closed states of ``slot`` (its history), the most recently said first."""
    rows = conn.execute(_ACTIVE.sql + "AND active = 0 ORDER BY stated_at DESC", _params(slot))
    return [_slot_state(r) for r in _ACTIVE.all_named(rows)]


def drawn_in_slot(conn: Connection, slot: Slot, sentence_id: int, before: float) -> list[SlotState]:
    """The states of ``slot`` stored before ``before`` citing this line, active or closed.

    The user's own closings (``orma forget``, ``supersede``) are left out: they
    are the user's word on the line, not a reading of it.
    """
    rows = conn.execute(
        _ACTIVE.sql + "AND sentence_id = ? AND created_at < ? "
        "AND coalesce(end_reason, '') NOT IN (?, ?) ORDER BY active DESC, id",
        (*_params(slot), sentence_id, before, FORGOTTEN, CORRECTED),
    )
    return [_slot_state(r) for r in _ACTIVE.all_named(rows)]


def redraw(conn: Connection, state_id: int, value: str) -> None:
    """The same line read again, better: state ``state_id`` holds ``value`` instead."""
    conn.execute("UPDATE states SET value = ? WHERE id = ?", (value, state_id))


def forgotten_values(conn: Connection, slot: Slot, sentence_id: int) -> list[str]:
    """The values of ``slot`` the user forgot (``orma forget``) as drawn from this line."""
    rows = conn.execute(
        _ACTIVE.sql + "AND sentence_id = ? AND end_reason = ?",
        (*_params(slot), sentence_id, FORGOTTEN),
    )
    return [str(r["value"]) for r in _ACTIVE.all_named(rows)]


def rehearse(conn: Connection, state_id: int, said_at: float) -> None:
    """The same value said again (at ``said_at``): one more rehearsal of the state."""
    conn.execute(
        "UPDATE states SET rehearsals = rehearsals + 1, "
        "rehearsed_at = max(coalesce(rehearsed_at, 0), ?) WHERE id = ?",
        (said_at, state_id),
    )


def rules_from_line(conn: Connection, space: str, holder: int, sentence_id: int) -> list[LineRule]:
    """The active rules and alternatives of ``holder`` drawn from this line, oldest first.

    Whoever drew them (``orma_forbid``, the line as it was recorded, an earlier
    batch), a rule read again from its line is the same rule, however worded.
    """
    rows = conn.execute(
        "SELECT s.id, s.attribute, s.prohibited, s.created_at FROM states s "
        "WHERE s.space = ? AND s.entity_id = ? AND s.sentence_id = ? AND s.active = 1 "
        f"AND {CARRIED_SQL} ORDER BY s.id",
        (space, holder, sentence_id),
    )
    return [LineRule(int(r[0]), str(r[1]), bool(r[2]), float(r[3])) for r in rows]


def alternatives_of(conn: Connection, rule_id: int) -> list[int]:
    """The active alternatives beside rule ``rule_id`` (its ``instead_of_<name>``)."""
    rows = conn.execute(
        "SELECT a.id FROM states r JOIN states a ON a.space = r.space "
        "AND a.entity_id = r.entity_id AND a.active = 1 "
        "AND a.attribute = ? || substr(r.attribute, ?) "
        "WHERE r.id = ? AND substr(r.attribute, 1, ?) = ?",
        (
            INSTEAD_PREFIX,
            len(FORBIDDEN_PREFIX) + 1,
            rule_id,
            len(FORBIDDEN_PREFIX),
            FORBIDDEN_PREFIX,
        ),
    )
    return [int(r[0]) for r in rows]


def is_active(conn: Connection, space: str, state_id: int) -> bool | None:
    """Whether state ``state_id`` of ``space`` is active; None if ``space`` has no such state."""
    row = conn.execute("SELECT space, active FROM states WHERE id = ?", (state_id,)).fetchone()
    if row is None or row[0] != space:
        return None
    return bool(row[1])


def forget_state(conn: Connection, space: str, state_id: int) -> None:
    """Close an active state of ``space`` now; an unknown id, or another space's, is refused.

    A removed id (a redo did not find its fact again, a purge) says it no longer exists.
    """
    active = is_active(conn, space, state_id)
    if active is None:
        raise missing_state_error(conn, space, state_id)
    if not active:
        raise InputError(f"state #{state_id} is already closed (it stays in the history)")
    now = time.time()
    close_state(conn, state_id, None, now, FORGOTTEN)
    for alternative in alternatives_of(conn, state_id):  # nothing to do instead of no rule
        close_state(conn, alternative, None, now, FORGOTTEN)
