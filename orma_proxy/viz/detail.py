"""One node, as the page's inspector shows it: value, citation, history, rehearsals, links.

The citation is the sentence a state or event was drawn from, ``[s14]`` by its
id, with its text and when it was said: the line sleep had to cite before
anything was believed. A state's history is its replacement chain both ways
(``superseded_by``): what it replaced and what replaced it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import (
    Event,
    State,
    entity_by_id,
    linked_entities,
    links_of_entity,
    predecessors,
    state_by_id,
)
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.candidates import items_by_id
from orma_proxy.recall.temporal import History
from orma_proxy.store import MAX_ROW_ID, Connection, cited_sentence
from orma_proxy.viz.graph import item_histories, node_id, signals, state_kind, state_label

# Longest replacement chain shown (chains are acyclic; this only bounds the work).
_MAX_CHAIN = 32
# Items listed under an entity (a hub such as the user may hold thousands).
_MAX_LISTED = 40


def iso(moment: float | datetime | None) -> str | None:
    """ISO 8601 in UTC; the page shows it in the viewer's own time zone."""
    if moment is None:
        return None
    if isinstance(moment, datetime):
        return moment.astimezone(UTC).isoformat()
    return datetime.fromtimestamp(moment, UTC).isoformat()


NODE_KINDS = ("state", "event", "entity")


def parse_node_id(text: str) -> tuple[str, int] | None:
    """``("state", 12)`` from ``state:12``; None for anything else."""
    kind, _, number = text.partition(":")
    if kind not in NODE_KINDS or not (number.isascii() and number.isdigit()):
        return None
    value = int(number)
    return (kind, value) if value <= MAX_ROW_ID else None


def citation(conn: Connection, space: str, sentence_id: int) -> dict[str, Any]:
    """``[s14]``, the sentence's text, who said it and when."""
    found = cited_sentence(conn, space, sentence_id)
    return {
        "label": f"[s{sentence_id}]",
        "sentence_id": sentence_id,
        "text": None if found is None else found.text,
        "episode_id": None if found is None else found.episode_id,
        "role": None if found is None else found.role,
        "said_at": None if found is None else iso(found.said_at),
    }


def _history(conn: Connection, space: str, key: ItemKey) -> History | None:
    return item_histories(conn, space, [key]).get(key)


def _alive(history: History | None, now: float, config: OrmaConfig) -> dict[str, Any]:
    if history is None:
        return {"activation": 0.0, "pulse": 0.0, "recalls": 0, "last_recalled": None}
    sig = signals(history, now, config)
    last = max(history.accesses, default=None)
    return {
        "activation": sig.activation,
        "pulse": sig.pulse,
        "recalls": len(history.accesses),
        "last_recalled": iso(last),
    }


def _entities_of(conn: Connection, space: str, kind: str, item: int) -> list[dict[str, Any]]:
    return [
        {"id": node_id("entity", e.id), "label": e.name, "kind": "entity"}
        for e in linked_entities(conn, space, kind, item)
    ]


def _brief(state: State) -> dict[str, Any]:
    return {
        "id": node_id("state", state.id),
        "label": state_label(state),
        "value": state.value,
        "active": state.active,
        "valid_from": iso(state.valid_from),
        "valid_to": iso(state.valid_to),
        "end_reason": state.end_reason,
    }


def _chain(conn: Connection, space: str, state: State) -> dict[str, Any]:
    """What ``state`` replaced (oldest first) and what replaced it (in order)."""
    replaced = predecessors(conn, space, state.id, max_depth=_MAX_CHAIN)
    after: list[State] = []
    following = state.superseded_by
    while following is not None and len(after) < _MAX_CHAIN:
        found = state_by_id(conn, space, following)
        if found is None:
            break
        after.append(found)
        following = found.superseded_by
    return {"replaced": [_brief(s) for s in replaced], "replaced_by": [_brief(s) for s in after]}


def state_detail(
    conn: Connection, space: str, number: int, config: OrmaConfig, now: float
) -> dict[str, Any] | None:
    state = state_by_id(conn, space, number)
    if state is None:
        return None
    history = _history(conn, space, ("state", number))
    return {
        "id": node_id("state", number),
        "kind": state_kind(state),
        "label": state_label(state),
        "entity": state.entity,
        "attribute": state.attribute,
        "value": state.value,
        "condition": state.condition,
        "prohibited": state.prohibited,
        "active": state.active,
        "since": state.since,
        "valid_from": iso(state.valid_from),
        "valid_to": iso(state.valid_to),
        "end_reason": state.end_reason,
        "rehearsals": state.rehearsals,
        "rehearsed_at": iso(history.rehearsed_at if history else None),
        "citation": citation(conn, space, state.sentence_id),
        "history": _chain(conn, space, state),
        "neighbours": _entities_of(conn, space, "state", number),
        "can_forget": state.active,
        **_alive(history, now, config),
    }


def _event(conn: Connection, space: str, number: int) -> Event | None:
    loaded = items_by_id(conn, space, [("event", number)])
    return loaded[0].event if loaded else None


def event_detail(
    conn: Connection, space: str, number: int, config: OrmaConfig, now: float
) -> dict[str, Any] | None:
    event = _event(conn, space, number)
    if event is None:
        return None
    history = _history(conn, space, ("event", number))
    return {
        "id": node_id("event", number),
        "kind": "event",
        "label": event.text,
        "value": event.what,
        "date": event.date,
        "precision": event.precision,
        "when_text": event.when_text,
        "who": event.who,
        "citation": citation(conn, space, event.sentence_id),
        "neighbours": _entities_of(conn, space, "event", number),
        "can_forget": False,
        **_alive(history, now, config),
    }


def entity_detail(conn: Connection, space: str, number: int) -> dict[str, Any] | None:
    entity = entity_by_id(conn, space, number)
    if entity is None:
        return None
    links = links_of_entity(conn, space, number)
    listed: list[dict[str, Any]] = []
    for link in links:
        if len(listed) >= _MAX_LISTED:
            break
        if link.kind == "state":
            state = state_by_id(conn, space, link.target_id)
            if state is not None and state.active:
                listed.append({"id": node_id("state", state.id), "label": state_label(state)})
        else:
            event = _event(conn, space, link.target_id)
            if event is not None:
                listed.append({"id": node_id("event", event.id), "label": event.text})
    return {
        "id": node_id("entity", number),
        "kind": "entity",
        "label": entity.name,
        "value": entity.name,
        "entity_kind": entity.kind,
        "created_at": iso(entity.created_at),
        "links": len(links),
        "neighbours": listed,
        "can_forget": False,
    }


def node_detail(
    conn: Connection, space: str, node: str, config: OrmaConfig, now: float
) -> dict[str, Any] | None:
    """The inspector's view of ``node`` in ``space``; None when it is not there."""
    parsed = parse_node_id(node)
    if parsed is None:
        return None
    kind, number = parsed
    if kind == "state":
        return state_detail(conn, space, number, config, now)
    if kind == "event":
        return event_detail(conn, space, number, config, now)
    return entity_detail(conn, space, number)
