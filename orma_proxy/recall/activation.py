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

Everything is indexed SQL on the link table's two indexes (``facts.links``); no graph
database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import entities_named, links_from, links_of
from orma_proxy.recall.access import ItemKey, Kind
from orma_proxy.store import Connection
from orma_proxy.text.names import names_in

_KINDS: dict[str, Kind] = {"state": "state", "event": "event"}


def named_entities(conn: Connection, space: str, query: str) -> list[int]:
    """Entities of ``space`` the query names ("Dr. Rao", "Asha"), found by exact name."""
    return entities_named(conn, space, sorted(set(names_in(query))))


def entities_of(conn: Connection, items: Iterable[ItemKey]) -> dict[ItemKey, list[int]]:
    """The entities each state or event is linked to."""
    found: dict[ItemKey, list[int]] = {}
    for link in links_of(conn, [k for k in items if k[0] in _KINDS]):
        found.setdefault((_KINDS[link.kind], link.target_id), []).append(link.entity_id)
    return found


def spread(
    conn: Connection,
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
        reached = _step(conn, space, frontier, config, scale)
        for key, value in reached.items():
            activation[key] = activation.get(key, 0.0) + value
        if hop + 1 == config.activation_depth:
            break
        scale *= config.activation_hop_decay
        nxt: dict[int, float] = {}
        for key, entities in entities_of(conn, reached).items():
            for entity in entities:
                if entity not in visited:
                    nxt[entity] = nxt.get(entity, 0.0) + reached[key]
        frontier = _strongest(nxt, config.activation_max_seeds)
        visited |= set(frontier)
    return activation


def _strongest(weights: Mapping[int, float], count: int) -> dict[int, float]:
    """The ``count`` most activated entities: the frontier stays bounded at every hop."""
    return dict(sorted(weights.items(), key=lambda p: -p[1])[:count])


def _step(
    conn: Connection,
    space: str,
    frontier: Mapping[int, float],
    config: OrmaConfig,
    scale: float,
) -> dict[ItemKey, float]:
    """One hop: each entity's weight, divided by its fan, to every item it links."""
    reached: dict[ItemKey, float] = {}
    for link in links_from(conn, space, list(frontier), config.activation_max_fan):
        share = frontier[link.entity_id] * config.activation_base_weight / link.fan * scale
        key = (_KINDS[link.kind], link.target_id)
        reached[key] = reached.get(key, 0.0) + share
    return reached
