"""Where recall's candidate states come from, on a real store."""

from __future__ import annotations

import aiosqlite

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.recall.candidates import _cited_parts, _early_parts, _state_rows, _states_sql
from tests.helpers.recall_store import Store, sahil, ts


async def test_a_recently_closed_state_naming_a_query_word_is_a_candidate_an_old_one_is_not(
    amem: AsyncMemory, config: OrmaConfig, reader: aiosqlite.Connection
) -> None:
    await sahil(Store(amem))
    moved = ts("2026-10-17T09:00:00+05:30")  # Pune's state closed when Bangalore began

    async def values(recent: float) -> list[str]:
        rows = await _state_rows(
            reader, "default", _early_parts(["pune"], config, recent, user=False)
        )
        return sorted({str(r["value"]) for r in rows})

    assert await values(recent=moved - 60) == ["Pune"]
    assert await values(recent=moved + 60) == []
    assert "Bangalore" in [str(r["value"]) for r in await _state_rows(
        reader, "default", _early_parts(["bangalore"], config, moved + 60, user=False)
    )]  # fmt: skip


async def test_states_are_read_by_index_never_by_reading_every_state_of_the_space(
    amem: AsyncMemory, config: OrmaConfig, reader: aiosqlite.Connection
) -> None:
    """A space's states only accumulate (each change closes one): recall must not scan them."""
    await sahil(Store(amem))
    parts = [*_early_parts(["pune", "tea"], config, 0.0, user=True), *_cited_parts([1, 2, 3])]
    for part in parts:
        sql, args = _states_sql("default", [part])
        plan = [str(r[3]) for r in await reader.execute_fetchall("EXPLAIN QUERY PLAN " + sql, args)]
        reads = [line for line in plan if line.startswith(("SEARCH s ", "SCAN s "))]
        assert reads and all(line.startswith("SEARCH s USING") for line in reads), (part.test, plan)
        assert not any(line.endswith("states_slot (space=?)") for line in reads), (part.test, plan)
