"""One node, as the page's inspector shows it: value, citation, history, rehearsals, links.

The citation is the sentence a state or event was drawn from, ``[s14]`` by its
id, with its text and when it was said: the line sleep had to cite before
anything was believed. A state's history is its replacement chain both ways
(``superseded_by``): what it replaced and what replaced it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import Event, State, state_by_id
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.candidates import load_items
from orma_proxy.recall.temporal import History
from orma_proxy.store import MAX_ROW_ID
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


async def citation(conn: aiosqlite.Connection, space: str, sentence_id: int) -> dict[str, Any]:
    """``[s14]``, the sentence's text, who said it and when."""
    rows = list(
        await conn.execute_fetchall(
            "SELECT s.text, s.episode_id, e.role, e.said_at FROM sentences s "
            "JOIN episodes e ON e.id = s.episode_id WHERE s.id = ? AND s.space = ?",
            (sentence_id, space),
        )
    )
    found = rows[0] if rows else None
    return {
        "label": f"[s{sentence_id}]",
        "sentence_id": sentence_id,
        "text": None if found is None else str(found[0]),
        "episode_id": None if found is None else int(found[1]),
        "role": None if found is None else str(found[2]),
        "said_at": None if found is None else iso(float(found[3])),
    }


async def _history(conn: aiosqlite.Connection, space: str, key: ItemKey) -> History | None:
    return (await item_histories(conn, space, [key])).get(key)


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


async def _entities_of(
    conn: aiosqlite.Connection, space: str, kind: str, item: int
) -> list[dict[str, Any]]:
    rows = await conn.execute_fetchall(
        "SELECT e.id, e.name, e.kind FROM entity_links l JOIN entities e ON e.id = l.entity_id "
        "WHERE l.kind = ? AND l.target_id = ? AND l.space = ? ORDER BY e.name",
        (kind, item, space),
    )
    return [
        {"id": node_id("entity", int(r[0])), "label": str(r[1]), "kind": "entity"} for r in rows
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


async def _chain(conn: aiosqlite.Connection, space: str, state: State) -> dict[str, Any]:
    """What ``state`` replaced (oldest first) and what replaced it (in order)."""
    rows = await conn.execute_fetchall(
        "WITH RECURSIVE back (id, depth) AS (SELECT id, 1 FROM states "
        "WHERE space = ? AND superseded_by = ? UNION ALL SELECT s.id, b.depth + 1 FROM states s "
        "JOIN back b ON s.superseded_by = b.id WHERE b.depth < ?) "
        "SELECT id FROM back ORDER BY depth DESC, id",
        (space, state.id, _MAX_CHAIN),
    )
    replaced = [s for r in rows if (s := await state_by_id(conn, space, int(r[0]))) is not None]
    after: list[State] = []
    following = state.superseded_by
    while following is not None and len(after) < _MAX_CHAIN:
        found = await state_by_id(conn, space, following)
        if found is None:
            break
        after.append(found)
        following = found.superseded_by
    return {"replaced": [_brief(s) for s in replaced], "replaced_by": [_brief(s) for s in after]}


async def state_detail(
    conn: aiosqlite.Connection, space: str, number: int, config: OrmaConfig, now: float
) -> dict[str, Any] | None:
    state = await state_by_id(conn, space, number)
    if state is None:
        return None
    history = await _history(conn, space, ("state", number))
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
        "citation": await citation(conn, space, state.sentence_id),
        "history": await _chain(conn, space, state),
        "neighbours": await _entities_of(conn, space, "state", number),
        "can_forget": state.active,
        **_alive(history, now, config),
    }


async def _event(conn: aiosqlite.Connection, space: str, number: int) -> Event | None:
    loaded = await load_items(conn, space, [("event", number)])
    return loaded[0].event if loaded else None


async def event_detail(
    conn: aiosqlite.Connection, space: str, number: int, config: OrmaConfig, now: float
) -> dict[str, Any] | None:
    event = await _event(conn, space, number)
    if event is None:
        return None
    history = await _history(conn, space, ("event", number))
    return {
        "id": node_id("event", number),
        "kind": "event",
        "label": event.text,
        "value": event.what,
        "date": event.date,
        "precision": event.precision,
        "when_text": event.when_text,
        "who": event.who,
        "citation": await citation(conn, space, event.sentence_id),
        "neighbours": await _entities_of(conn, space, "event", number),
        "can_forget": False,
        **_alive(history, now, config),
    }


async def entity_detail(
    conn: aiosqlite.Connection, space: str, number: int
) -> dict[str, Any] | None:
    rows = list(
        await conn.execute_fetchall(
            "SELECT name, kind, created_at FROM entities WHERE space = ? AND id = ?",
            (space, number),
        )
    )
    if not rows:
        return None
    name, kind, created = str(rows[0][0]), str(rows[0][1]), float(rows[0][2])
    links = list(
        await conn.execute_fetchall(
            "SELECT kind, target_id FROM entity_links WHERE entity_id = ? AND space = ? "
            "ORDER BY kind DESC, target_id DESC",
            (number, space),
        )
    )
    listed: list[dict[str, Any]] = []
    for kind_, target in links:
        if len(listed) >= _MAX_LISTED:
            break
        if kind_ == "state":
            state = await state_by_id(conn, space, int(target))
            if state is not None and state.active:
                listed.append({"id": node_id("state", state.id), "label": state_label(state)})
        else:
            event = await _event(conn, space, int(target))
            if event is not None:
                listed.append({"id": node_id("event", event.id), "label": event.text})
    return {
        "id": node_id("entity", number),
        "kind": "entity",
        "label": name,
        "value": name,
        "entity_kind": kind,
        "created_at": iso(created),
        "links": len(links),
        "neighbours": listed,
        "can_forget": False,
    }


async def node_detail(
    conn: aiosqlite.Connection, space: str, node: str, config: OrmaConfig, now: float
) -> dict[str, Any] | None:
    """The inspector's view of ``node`` in ``space``; None when it is not there."""
    parsed = parse_node_id(node)
    if parsed is None:
        return None
    kind, number = parsed
    if kind == "state":
        return await state_detail(conn, space, number, config, now)
    if kind == "event":
        return await event_detail(conn, space, number, config, now)
    return await entity_detail(conn, space, number)
