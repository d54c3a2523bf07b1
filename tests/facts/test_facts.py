"""The facts layer on a real store: rules decided once, rows read by name, closing a state."""

from __future__ import annotations

from dataclasses import fields

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.facts import (
    EVENTS,
    EVENTS_WITH_TIMES,
    RULE_SQL,
    STATES,
    STATES_WITH_TIMES,
    Event,
    State,
    close_state,
    is_rule,
    list_facts,
    state_by_id,
)
from orma_proxy.store import Reader, Writer
from tests.helpers.recall_store import Store

pytestmark = pytest.mark.both_backends


async def test_is_rule_and_rule_sql_pick_the_same_states(amem: AsyncMemory, reader: Reader) -> None:
    store = Store(amem)
    line = await store.say("Never use tabs, avoid eval.", "2026-10-10T09:00:00+05:30")
    expected = {
        await store.state(line, "forbidden_tabs", "use tabs"),
        await store.state(line, "avoid_eval", "eval", prohibited=True),
    }
    await store.state(line, "home_city", "Pune")
    await store.state(line, "forbiddenness", "none")  # '_' is literal in RULE_SQL's LIKE
    await store.state(line, "forbidden", "nothing")
    by_python = {
        s.id for s in await reader.execute_fn(lambda c: list_facts(c, "default")) if is_rule(s)
    }
    sql = STATES.sql + f"WHERE s.space = ? AND {RULE_SQL}"
    rows = await reader.execute_fn(lambda c: c.execute(sql, ("default",)).fetchall())
    by_sql = {int(r["id"]) for r in STATES.all_named(rows)}
    assert by_python == by_sql == expected


def test_every_field_has_its_named_column() -> None:
    assert STATES.columns == tuple(f.name for f in fields(State))
    assert EVENTS.columns == tuple(f.name for f in fields(Event))
    assert STATES_WITH_TIMES.columns[len(STATES.columns) :] == ("stated_at", "rehearsed_at")
    assert EVENTS_WITH_TIMES.columns[len(EVENTS.columns) :] == ("said_at",)
    with pytest.raises(ValueError):
        STATES.named((1, "user"))  # a row of another shape is refused, never misread


async def test_a_closed_state_ends_where_its_successor_begins(
    amem: AsyncMemory, reader: Reader, writer: Writer
) -> None:
    store = Store(amem)
    pune = await store.state(
        await store.say("I live in Pune.", "2026-10-10T09:00:00+05:30"), "home_city", "Pune"
    )
    blr = await store.state(
        await store.say("I moved to Bangalore.", "2026-10-17T09:00:00+05:30"),
        "home_city",
        "Bangalore",
    )
    await writer.execute_write_fn(lambda conn: close_state(conn, pune, blr, None, "superseded"))
    old = await reader.execute_fn(lambda c: state_by_id(c, "default", pune))
    new = await reader.execute_fn(lambda c: state_by_id(c, "default", blr))
    assert old is not None and new is not None
    assert (old.active, old.replaced_by, old.end_reason) == (False, "Bangalore", "superseded")
    assert old.valid_to == new.valid_from
    facts = await reader.execute_fn(lambda c: list_facts(c, "default"))
    assert [s.value for s in facts] == ["Bangalore"]
