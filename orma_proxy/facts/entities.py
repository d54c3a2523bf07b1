"""Entities and their links: the graph spreading activation walks.

Every state is linked to its holder and every event to the people it
involves, and both to the names they mention ("Dr. Rao", "Kothrud"). Sleep
writes the links as it applies a batch, a correction as it replaces a state,
``orma rebuild`` when it rebuilds them all (plain sync functions of the
connection, run inside a write job); the viz page reads them here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from orma_proxy.store import Connection
from orma_proxy.store.select import Row, Select
from orma_proxy.text.names import names_in

__all__ = [
    "USER",
    "Entity",
    "EntityLink",
    "entity_by_id",
    "entity_id",
    "entity_links",
    "entity_names",
    "link_event",
    "link_state",
    "linked_entities",
    "links_of_entity",
]

# The entity every first-person fact is about.
USER = "user"


def entity_id(conn: Connection, space: str, name: str, kind: str, now: float) -> int:
    """The id of entity ``name`` in ``space``, created if new."""
    conn.execute(
        "INSERT INTO entities (space, name, kind, created_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (space, name) DO NOTHING",
        (space, name, "user" if name == USER else kind, now),
    )
    row = conn.execute(
        "SELECT id FROM entities WHERE space = ? AND name = ?", (space, name)
    ).fetchone()
    assert row is not None
    return int(row[0])


def _link(conn: Connection, space: str, entity: int, kind: str, target: int) -> None:
    conn.execute(
        "INSERT INTO entity_links (entity_id, kind, target_id, space) "
        "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (entity, kind, target, space),
    )


def _link_names(
    conn: Connection, space: str, text: str, kind: str, target: int, now: float
) -> None:
    """Link the people and places a value or event names ('Dr. Rao', 'Kothrud')."""
    for name in names_in(text):
        _link(conn, space, entity_id(conn, space, name, "thing", now), kind, target)


def link_state(
    conn: Connection, space: str, holder: int, state_id: int, value: str, now: float
) -> None:
    """Link a state to its holder and to the names its value mentions (also ``orma rebuild``)."""
    _link(conn, space, holder, "state", state_id)
    _link_names(conn, space, value, "state", state_id, now)


def link_event(
    conn: Connection, space: str, event_id: int, what: str, who: Iterable[str], now: float
) -> None:
    """Link an event to the people it involves and the names it mentions."""
    for person in who:
        _link(conn, space, entity_id(conn, space, person, "person", now), "event", event_id)
    _link_names(conn, space, what, "event", event_id, now)


@dataclass(frozen=True)
class Entity:
    """A person, place or thing of a space (``kind``: user, person or thing)."""

    id: int
    name: str
    kind: str
    created_at: float


@dataclass(frozen=True)
class EntityLink:
    """Entity ``entity_id`` is linked to the state or event ``target_id`` (``kind``)."""

    entity_id: int
    kind: str
    target_id: int


# Every field of Entity, of entities ``e``; of EntityLink, of entity_links ``l``.
_ENTITY = {"id": "e.id", "name": "e.name", "kind": "e.kind", "created_at": "e.created_at"}
_LINK = {"entity_id": "l.entity_id", "kind": "l.kind", "target_id": "l.target_id"}
_ENTITIES = Select.of(_ENTITY, "FROM entities e ")
_NAMES = Select.of({"id": "e.id", "name": "e.name"}, "FROM entities e ")
_ENTITIES_LINKED = Select.of(_ENTITY, "FROM entity_links l JOIN entities e ON e.id = l.entity_id ")
_LINKS = Select.of(_LINK, "FROM entity_links l ")
_SPACE_LINKS = Select.of(_LINK, "FROM entities e JOIN entity_links l ON l.entity_id = e.id ")


def _entity_from(r: Row) -> Entity:
    return Entity(int(r["id"]), str(r["name"]), str(r["kind"]), float(r["created_at"]))


def _link_from(r: Row) -> EntityLink:
    return EntityLink(int(r["entity_id"]), str(r["kind"]), int(r["target_id"]))


def entity_names(conn: Connection, space: str) -> dict[int, str]:
    """The name of every entity of ``space``, by id."""
    rows = conn.execute(_NAMES.sql + "WHERE e.space = ?", (space,))
    return {int(r["id"]): str(r["name"]) for r in _NAMES.all_named(rows)}


def entity_by_id(conn: Connection, space: str, number: int) -> Entity | None:
    """Entity ``number`` if it belongs to ``space``."""
    rows = conn.execute(_ENTITIES.sql + "WHERE e.space = ? AND e.id = ?", (space, number))
    return next((_entity_from(r) for r in _ENTITIES.all_named(rows)), None)


def linked_entities(conn: Connection, space: str, kind: str, target: int) -> list[Entity]:
    """The entities the state or event ``target`` (``kind``) is linked to, by name."""
    rows = conn.execute(
        _ENTITIES_LINKED.sql + "WHERE l.kind = ? AND l.target_id = ? AND l.space = ? "
        "ORDER BY e.name",
        (kind, target, space),
    )
    return [_entity_from(r) for r in _ENTITIES_LINKED.all_named(rows)]


def entity_links(conn: Connection, space: str) -> list[EntityLink]:
    """Every link of ``space``: the edges of its graph."""
    rows = conn.execute(_SPACE_LINKS.sql + "WHERE e.space = ? AND l.space = ?", (space, space))
    return [_link_from(r) for r in _SPACE_LINKS.all_named(rows)]


def links_of_entity(conn: Connection, space: str, entity: int) -> list[EntityLink]:
    """The links of entity ``entity`` in ``space``: states before events, newest first."""
    rows = conn.execute(
        _LINKS.sql + "WHERE l.entity_id = ? AND l.space = ? ORDER BY l.kind DESC, l.target_id DESC",
        (entity, space),
    )
    return [_link_from(r) for r in _LINKS.all_named(rows)]
