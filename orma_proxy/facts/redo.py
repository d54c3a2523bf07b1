"""``sleep --redo``: a space's facts cleared, except what the user set by hand.

A redo forgets every state, event and entity sleep made of a space and reads
its episodes again. What the user did by hand is read back first so it can be
written again: rules registered with ``orma_forbid`` (by the episode that
records each), corrections (``supersede``), and forgotten facts, so that
reading their line again does not bring them back. A state found again keeps
its id; one not found answers "no longer exists" (``facts/removed.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from orma_proxy.facts.marks import FORBID_MARK, FORGOTTEN, SUPERSEDE_MARK
from orma_proxy.facts.removed import retire_states
from orma_proxy.store import Connection
from orma_proxy.store.select import Select

__all__ = ["HandRule", "HandState", "clear_facts", "hand_rules", "hand_states"]


@dataclass(frozen=True)
class HandRule:
    """An active rule registered by hand, as the episode recording it says it."""

    episode_id: int
    text: str


@dataclass(frozen=True)
class HandState:
    """A state the user corrected into being, or forgot: its slot, value and the line it cites."""

    entity: str
    attribute: str
    value: str
    condition: str
    prohibited: bool
    sentence_id: int
    end_reason: str | None
    valid_to: float | None


_HAND_STATES = Select.of(
    {
        "entity": "n.name",
        "attribute": "s.attribute",
        "value": "s.value",
        "condition": "s.condition",
        "prohibited": "s.prohibited",
        "sentence_id": "s.sentence_id",
        "end_reason": "s.end_reason",
        "valid_to": "s.valid_to",
    },
    "FROM states s JOIN entities n ON n.id = s.entity_id JOIN episodes e ON e.id = s.episode_id ",
)


def hand_rules(conn: Connection, space: str) -> list[HandRule]:
    """The episodes behind the active rules of ``space`` registered by hand, oldest first."""
    rows = conn.execute(
        "SELECT DISTINCT e.id, e.text FROM states s JOIN episodes e ON e.id = s.episode_id "
        "WHERE s.space = ? AND s.active = 1 AND s.prohibited = 1 "
        "AND json_extract(e.metadata, '$.orma') = ? ORDER BY e.id",
        (space, FORBID_MARK),
    )
    return [HandRule(episode_id=int(r[0]), text=str(r[1])) for r in rows]


def hand_states(conn: Connection, space: str) -> list[HandState]:
    """The active corrections and the forgotten states of ``space``, in the order stored."""
    rows = conn.execute(
        _HAND_STATES.sql + "WHERE s.space = ? AND "
        "((s.active = 1 AND json_extract(e.metadata, '$.orma') = ?) OR s.end_reason = ?) "
        "ORDER BY s.id",
        (space, SUPERSEDE_MARK, FORGOTTEN),
    )
    return [
        HandState(
            entity=str(r["entity"]),
            attribute=str(r["attribute"]),
            value=str(r["value"]),
            condition=str(r["condition"]),
            prohibited=bool(r["prohibited"]),
            sentence_id=int(r["sentence_id"]),
            end_reason=None if r["end_reason"] is None else str(r["end_reason"]),
            valid_to=None if r["valid_to"] is None else float(r["valid_to"]),
        )
        for r in _HAND_STATES.all_named(rows)
    ]


def clear_facts(conn: Connection, space: str) -> None:
    """Delete every state, event, entity and link of ``space``; its episodes stay.

    The states are kept by what they say first, so the ones read again keep their ids.
    """
    retire_states(conn, space)
    for table in ("entity_links", "states", "events", "entities"):
        conn.execute(f"DELETE FROM {table} WHERE space = ?", (space,))
