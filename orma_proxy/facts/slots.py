"""A state's slot: its holder, attribute and condition, the place one value holds at a time.

Sleep's apply step reads a slot before it writes one: what is active there,
what the user forgot from the very line read again, a rule already set by
hand from that line. Plain sync functions of the connection, run inside the
write job that applies a batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.facts.marks import FORBID_MARK, FORGOTTEN
from orma_proxy.store import Connection
from orma_proxy.store.select import Select

__all__ = [
    "Slot",
    "SlotState",
    "active_in_slot",
    "forgotten_values",
    "is_active",
    "rehearse",
    "rule_from_line",
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
    """An active state of a slot: its value and when it was said."""

    id: int
    value: str
    stated_at: float


_ACTIVE = Select.of(
    {"id": "id", "value": "value", "stated_at": "stated_at"},
    "FROM states WHERE space = ? AND entity_id = ? AND attribute = ? AND condition = ? ",
)


def _params(slot: Slot) -> tuple[str, int, str, str]:
    return slot.space, slot.holder, slot.attribute, slot.condition


def active_in_slot(conn: Connection, slot: Slot) -> list[SlotState]:
    """The active states of ``slot``, the most recently said first."""
    rows = conn.execute(_ACTIVE.sql + "AND active = 1 ORDER BY stated_at DESC", _params(slot))
    return [
        SlotState(id=int(r["id"]), value=str(r["value"]), stated_at=float(r["stated_at"]))
        for r in _ACTIVE.all_named(rows)
    ]


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


def rule_from_line(conn: Connection, space: str, holder: int, sentence_id: int) -> int | None:
    """The active rule ``orma_forbid`` registered for ``holder`` from this line, if any."""
    row = conn.execute(
        "SELECT s.id FROM states s JOIN episodes e ON e.id = s.episode_id "
        "WHERE s.space = ? AND s.entity_id = ? AND s.sentence_id = ? AND s.prohibited = 1 "
        "AND s.active = 1 AND json_extract(e.metadata, '$.orma') = ? ORDER BY s.id LIMIT 1",
        (space, holder, sentence_id, FORBID_MARK),
    ).fetchone()
    return None if row is None else int(row[0])


def is_active(conn: Connection, space: str, state_id: int) -> bool | None:
    """Whether state ``state_id`` of ``space`` is active; None if ``space`` has no such state."""
    row = conn.execute("SELECT space, active FROM states WHERE id = ?", (state_id,)).fetchone()
    if row is None or row[0] != space:
        return None
    return bool(row[1])
