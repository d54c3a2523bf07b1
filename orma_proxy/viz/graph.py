"""The graph the viz page draws: one space's states, events and entities, as sleep linked them.

Nodes are the active states (``rule`` when prohibited or ``forbidden_*``,
``conditional`` when they hold only under a condition, else ``state``), the
events, and the entities linked to them in ``entity_links``, the adjacency
spreading activation walks; every edge joins an entity to an item. States and
events are read as ``orma facts`` reads them (``list_facts``, ``list_events``),
so released ones never appear.

Each item carries the ranker's own temporal boosts (``recall.rank.boosts``
over its history and recall accesses): ``activation``, their sum, sizes the
node. ``pulse`` (0..1) drives the particles on its edges: the Hawkes boost
(the burst of recent recalls) or-ed with the Ebbinghaus one (recency,
stretched by rehearsals), each as a share of its weight, so what the
conversation touches now is visibly alive and a boost switched off stays
still. An entity is as active and as lively as its most active item.

Past ``viz_max_nodes`` the most active items are kept (rules first), with the
entities they need, and ``note`` says how many were left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import (
    State,
    entity_links,
    entity_names,
    graph_version,
    is_alternative,
    is_rule,
    item_times,
    list_events,
    list_facts,
)
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.rank import boosts
from orma_proxy.recall.temporal import History
from orma_proxy.store import Connection, access_times

NodeKind = Literal["state", "rule", "conditional", "event", "entity"]
# Recency alone never makes an edge pulse at full rate; a burst of recalls does.
_RECENCY_SHARE = 0.6


def node_id(kind: str, number: int) -> str:
    """``state:12``, ``event:3``, ``entity:5``: the ids the page and the API share."""
    return f"{kind}:{number}"


def state_kind(state: State) -> NodeKind:
    if is_rule(state):
        return "rule"
    return "conditional" if state.condition else "state"


def state_label(state: State) -> str:
    if is_alternative(state):
        return f"PREFER: {state.value}"
    return f"FORBIDDEN: {state.value}" if is_rule(state) else state.text


@dataclass(frozen=True)
class Signals:
    """How alive an item is now: its ranking boosts summed, and its edges' pulse rate."""

    activation: float
    pulse: float


def _share(boost: float, weight: float) -> float:
    """A boost as a share of its weight: retention for Ebbinghaus, x / (1 + x) for Hawkes."""
    return boost / weight if weight > 0 else 0.0


def signals(history: History, now: float, config: OrmaConfig) -> Signals:
    """The ranker's boosts for ``history`` at ``now``, and the pulse they imply."""
    parts = boosts(history, now, config)
    burst = _share(parts.get("hawkes", 0.0), config.hawkes_weight)
    recency = _share(parts.get("ebbinghaus", 0.0), config.ebbinghaus_weight)
    pulse = 1.0 - (1.0 - _RECENCY_SHARE * recency) * (1.0 - burst)
    return Signals(round(sum(parts.values()), 4), round(min(max(pulse, 0.0), 1.0), 4))


@dataclass(frozen=True)
class Node:
    id: str
    kind: NodeKind
    label: str
    activation: float
    pulse: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "label": self.label,
            "activation": self.activation,
            "pulse": self.pulse,
        }


@dataclass
class Graph:
    """Nodes and entity-item edges of one space, capped, and how many there were in all."""

    space: str
    nodes: list[Node]
    links: list[tuple[str, str, float]]
    total: int
    version: str
    limit: int

    @property
    def note(self) -> str | None:
        if self.total <= len(self.nodes):
            return None
        return (
            f"Showing the {len(self.nodes):,} most active of {self.total:,} nodes "
            f"(rules first); the other {self.total - len(self.nodes):,} are left out."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "nodes": [n.as_dict() for n in self.nodes],
            "links": [{"source": s, "target": t, "pulse": p} for s, t, p in self.links],
            "total_nodes": self.total,
            "shown_nodes": len(self.nodes),
            "limit": self.limit,
            "capped": self.total > len(self.nodes),
            "note": self.note,
            "version": self.version,
        }


def item_histories(
    conn: Connection, space: str, keys: Iterable[ItemKey] | None = None
) -> dict[ItemKey, History]:
    """When each item came to be, its rehearsals and recalls: what ranking knows of it.

    ``keys`` None means every active state and every event of ``space``.
    """
    times = item_times(conn, space, keys)
    accesses = access_times(conn, space, times)
    return {
        key: History(t.created, t.rehearsals, t.rehearsed_at, accesses.get(key, ()))
        for key, t in times.items()
    }


def _cap(
    ordered: list[ItemKey],
    linked: dict[ItemKey, list[int]],
    alive: dict[ItemKey, Signals],
    limit: int,
) -> tuple[list[ItemKey], dict[int, Signals]]:
    """Items in order while they and the entities they link to fit in ``limit`` nodes.

    An entity takes the strongest activation and pulse of the items kept with it.
    """
    chosen: list[ItemKey] = []
    shown: dict[int, Signals] = {}
    for key in ordered:
        needed = [e for e in linked.get(key, []) if e not in shown]
        if len(chosen) + len(shown) + 1 + len(needed) > limit:
            continue
        chosen.append(key)
        for entity in linked.get(key, []):
            was, mine = shown.get(entity, Signals(0.0, 0.0)), alive[key]
            shown[entity] = Signals(
                max(was.activation, mine.activation), max(was.pulse, mine.pulse)
            )
    return chosen, shown


def build_graph(conn: Connection, space: str, config: OrmaConfig, now: float, limit: int) -> Graph:
    """The graph of ``space`` at ``now``, at most ``limit`` nodes (see the module docstring).

    A chain of reads and a little ranking: run in the reader's thread (``execute_fn``).
    """
    items: dict[ItemKey, tuple[NodeKind, str]] = {}
    for s in list_facts(conn, space):
        items[("state", s.id)] = (state_kind(s), state_label(s))
    for e in list_events(conn, space):
        items[("event", e.id)] = ("event", e.text)
    histories = item_histories(conn, space)
    alive = {key: signals(histories[key], now, config) for key in items if key in histories}
    names = entity_names(conn, space)
    linked: dict[ItemKey, list[int]] = {}
    for link in entity_links(conn, space):
        key: ItemKey = ("state" if link.kind == "state" else "event", link.target_id)
        if key in alive and link.entity_id in names:
            linked.setdefault(key, []).append(link.entity_id)
    total = len(alive) + len({e for ents in linked.values() for e in ents})
    ordered = sorted(
        alive, key=lambda k: (items[k][0] != "rule", -alive[k].activation, k[0], -k[1])
    )
    chosen, shown = _cap(ordered, linked, alive, limit)
    nodes = [
        Node(node_id(k[0], k[1]), items[k][0], items[k][1], alive[k].activation, alive[k].pulse)
        for k in chosen
    ]
    nodes += [
        Node(node_id("entity", e), "entity", names[e], sig.activation, sig.pulse)
        for e, sig in sorted(shown.items())
    ]
    links = [
        (node_id("entity", entity), node_id(key[0], key[1]), alive[key].pulse)
        for key in chosen
        for entity in linked.get(key, [])
    ]
    version = graph_version(conn, space)
    return Graph(space, nodes, links, total, version, limit)
