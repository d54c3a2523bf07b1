"""The entity graph as spreading activation reads it: names, links and each entity's fan.

Sleep links every state and event to the entities it names (``entities.py``);
these reads walk those links both ways on the link table's two indexes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from orma_proxy.store import Connection

__all__ = ["Link", "entities_named", "links_from", "links_of"]


class Link(NamedTuple):
    """Entity ``entity_id`` is linked to item (``kind``, ``target_id``): a state or an event.

    ``fan`` is how many items the entity is linked to, where a read counted them.
    """

    entity_id: int
    kind: str
    target_id: int
    fan: int = 0


def entities_named(conn: Connection, space: str, names: Sequence[str]) -> list[int]:
    """The entities of ``space`` with exactly one of these names."""
    if not names:
        return []
    rows = conn.execute(
        f"SELECT id FROM entities WHERE space = ? AND name IN ({','.join('?' * len(names))})",
        (space, *names),
    ).fetchall()
    return [int(r[0]) for r in rows]


def links_of(conn: Connection, items: Sequence[tuple[str, int]]) -> list[Link]:
    """The links of these (kind, id) items to their entities."""
    if not items:
        return []
    tests = " OR ".join(["(kind = ? AND target_id = ?)"] * len(items))
    rows = conn.execute(
        f"SELECT kind, target_id, entity_id FROM entity_links WHERE {tests}",
        [v for item in items for v in item],
    ).fetchall()
    return [Link(int(entity), str(kind), int(target)) for kind, target, entity in rows]


def links_from(conn: Connection, space: str, entity_ids: Sequence[int], max_fan: int) -> list[Link]:
    """Every link of ``space`` from these entities, with their fans; none from an entity
    linked to more than ``max_fan`` items (a hub)."""
    if not entity_ids:
        return []
    marks = ",".join("?" * len(entity_ids))
    rows = conn.execute(
        "WITH fans AS (SELECT entity_id, count(*) AS fan FROM entity_links "
        f"WHERE entity_id IN ({marks}) GROUP BY entity_id HAVING count(*) <= ?) "
        "SELECT l.entity_id, l.kind, l.target_id, f.fan FROM fans f "
        "CROSS JOIN entity_links l ON l.entity_id = f.entity_id WHERE l.space = ?",
        (*entity_ids, max_fan, space),
    ).fetchall()
    return [Link(int(e), str(kind), int(target), int(fan)) for e, kind, target, fan in rows]
