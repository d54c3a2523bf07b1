"""Spreading activation over the entity graph, damped by Anderson's fan effect.

Sleep links every state and event to the entities it names (``entity_links``).
Recall seeds activation in the entities of what the query matched (weighted
by how well it matched) and in the entities the query names, then lets it
flow: an entity ``j`` passes ``W_j * base_weight / fan(j)`` to each item it is
linked to, where ``fan(j)`` is how many items it is linked to (Anderson 1983).
"Dr. Rao" (fan 2) hands half its activation to the dentist state, so
"where should I go for my toothache?" reaches it through a toothache event
that names Dr. Rao; a home city linked to 60 items hands each a sixtieth:
a hub cannot flood the block. Each further hop (item -> its entities -> their
items) keeps ``hop_decay`` of the activation; depth is bounded.

Everything is indexed SQL on the link table's two indexes; no graph database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.recall.access import ItemKey, Kind
from orma_proxy.text.names import names_in

_KINDS: dict[str, Kind] = {"state": "state", "event": "event"}


async def named_entities(conn: aiosqlite.Connection, space: str, query: str) -> list[int]:
    """Entities of ``space`` the query names ("Dr. Rao", "Asha"), found by exact name."""
    names = sorted(set(names_in(query)))
    if not names:
        return []
    rows = await conn.execute_fetchall(
        f"SELECT id FROM entities WHERE space = ? AND name IN ({','.join('?' * len(names))})",
        (space, *names),
    )
    return [int(r[0]) for r in rows]


async def entities_of(
    conn: aiosqlite.Connection, items: Iterable[ItemKey]
) -> dict[ItemKey, list[int]]:
    """The entities each state or event is linked to."""
    keys = [k for k in items if k[0] in _KINDS]
    if not keys:
        return {}
    tests = " OR ".join(["(kind = ? AND target_id = ?)"] * len(keys))
    rows = await conn.execute_fetchall(
        f"SELECT kind, target_id, entity_id FROM entity_links WHERE {tests}",
        [v for key in keys for v in key],
    )
    found: dict[ItemKey, list[int]] = {}
    for kind, target, entity in rows:
        found.setdefault((_KINDS[kind], int(target)), []).append(int(entity))
    return found


async def spread(
    conn: aiosqlite.Connection,
    space: str,
    seeds: Mapping[int, float],
    config: OrmaConfig,
) -> dict[ItemKey, float]:
    """Activation of every state and event reached from ``seeds`` (entity id -> weight)."""
    frontier = _strongest(seeds, config.activation_max_seeds)
    visited = set(frontier)
    activation: dict[ItemKey, float] = {}
    scale = 1.0
    for hop in range(config.activation_depth):
        if not frontier:
            break
        reached = await _step(conn, space, frontier, config, scale)
        for key, value in reached.items():
            activation[key] = activation.get(key, 0.0) + value
        if hop + 1 == config.activation_depth:
            break
        scale *= config.activation_hop_decay
        nxt: dict[int, float] = {}
        for key, entities in (await entities_of(conn, reached)).items():
            for entity in entities:
                if entity not in visited:
                    nxt[entity] = nxt.get(entity, 0.0) + reached[key]
        frontier = _strongest(nxt, config.activation_max_seeds)
        visited |= set(frontier)
    return activation


def _strongest(weights: Mapping[int, float], count: int) -> dict[int, float]:
    """The ``count`` most activated entities: the frontier stays bounded at every hop."""
    return dict(sorted(weights.items(), key=lambda p: -p[1])[:count])


async def _step(
    conn: aiosqlite.Connection,
    space: str,
    frontier: Mapping[int, float],
    config: OrmaConfig,
    scale: float,
) -> dict[ItemKey, float]:
    """One hop: each entity's weight, divided by its fan, to every item it links."""
    marks = ",".join("?" * len(frontier))
    rows = await conn.execute_fetchall(
        "WITH fans AS (SELECT entity_id, count(*) AS fan FROM entity_links "
        f"WHERE entity_id IN ({marks}) GROUP BY entity_id HAVING count(*) <= ?) "
        "SELECT l.entity_id, l.kind, l.target_id, f.fan FROM fans f "
        "CROSS JOIN entity_links l ON l.entity_id = f.entity_id WHERE l.space = ?",
        (*frontier, config.activation_max_fan, space),
    )
    reached: dict[ItemKey, float] = {}
    for entity, kind, target, fan in rows:
        share = frontier[int(entity)] * config.activation_base_weight / int(fan) * scale
        key = (_KINDS[kind], int(target))
        reached[key] = reached.get(key, 0.0) + share
    return reached
