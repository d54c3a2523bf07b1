"""Unreleased states by their slot and value: what a correction closes or replaces.

Read by id, by value (equal but for the case of ASCII letters, as the store's
text match folds) or by the lines they cite; ``forget/match.py`` decides which
of them a correction takes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from orma_proxy.store import IN_IDS, Connection, as_record, id_list, named_rows

__all__ = [
    "OpenState",
    "active_states_citing",
    "active_states_of",
    "active_states_valued",
    "unreleased_state",
]


@dataclass(frozen=True)
class OpenState:
    """A state's slot (holder, attribute, condition), its line and whether it holds now."""

    id: int
    entity_id: int
    attribute: str
    condition: str
    prohibited: bool
    active: bool
    sentence_id: int


_OPEN = (
    "SELECT id, entity_id, attribute, condition, prohibited, active, sentence_id "
    "FROM states WHERE released_by IS NULL "
)
_ACTIVE = _OPEN + "AND active = 1 AND space = ? "


def _states(conn: Connection, sql: str, *args: object) -> list[OpenState]:
    return [
        as_record(OpenState, r, prohibited=bool(r["prohibited"]), active=bool(r["active"]))
        for r in named_rows(conn, sql, args)
    ]


def unreleased_state(conn: Connection, space: str, state_id: int) -> OpenState | None:
    """State ``state_id`` of ``space``, active or closed, unless a release hides it."""
    found = _states(conn, _OPEN + "AND id = ? AND space = ?", state_id, space)
    return found[0] if found else None


def active_states_valued(conn: Connection, space: str, value: str) -> list[OpenState]:
    """The shown active states of ``space`` whose value is ``value`` (ASCII case aside)."""
    return _states(conn, _ACTIVE + "AND lower(value) = lower(?) ORDER BY id", space, value)


def active_states_citing(
    conn: Connection, space: str, sentence_ids: Iterable[int]
) -> list[OpenState]:
    """The shown active states of ``space`` drawn from these sentences."""
    return _states(
        conn, _ACTIVE + f"AND sentence_id {IN_IDS} ORDER BY id", space, id_list(sentence_ids)
    )


def active_states_of(
    conn: Connection, space: str, holder: str, attributes: Iterable[str]
) -> list[OpenState]:
    """The shown active states of ``space`` about ``holder`` in one of ``attributes``.

    ``holder`` is an entity's name, case aside: "Meera's employer" names these
    states whatever words their lines used.
    """
    return _states(
        conn,
        _ACTIVE + f"AND attribute {IN_IDS} AND entity_id IN "
        "(SELECT id FROM entities WHERE space = ? AND lower(name) = lower(?)) ORDER BY id",
        space,
        json.dumps(sorted(set(attributes))),
        space,
        holder,
    )


def active_states_held(conn: Connection, space: str, holder: str) -> list[OpenState]:
    """Every shown active state of ``space`` held by ``holder`` (a name, case aside)."""
    return _states(
        conn,
        _ACTIVE + "AND entity_id IN "
        "(SELECT id FROM entities WHERE space = ? AND lower(name) = lower(?)) ORDER BY id",
        space,
        space,
        holder,
    )
