"""Where recall's candidate states come from, on a real store."""

from __future__ import annotations

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.facts import USER, Citing, HeldBy, Naming, Rules, StateSource, gather_states
from orma_proxy.facts.sources import states_statement
from tests.helpers.rawdb import raw
from tests.helpers.recall_store import Store, sahil, ts


def words_since(words: tuple[str, ...], limit: int, recent: float) -> list[StateSource]:
    """What recall reads early for a query's words: rules, active and recently closed states."""
    return [Rules(), Naming(words, limit), Naming(words, limit, closed_since=recent)]


async def test_a_recently_closed_state_naming_a_query_word_is_a_candidate_an_old_one_is_not(
    amem: AsyncMemory, config: OrmaConfig
) -> None:
    await sahil(Store(amem))
    moved = ts("2026-10-17T09:00:00+05:30")  # Pune's state closed when Bangalore began
    limit = config.recall_states

    def values(word: str, recent: float) -> list[str]:
        with raw(amem.path) as conn:
            found = gather_states(conn, "default", words_since((word,), limit, recent))
        return sorted({t.state.value for t in found})

    assert values("pune", recent=moved - 60) == ["Pune"]
    assert values("pune", recent=moved + 60) == []
    assert "Bangalore" in values("bangalore", recent=moved + 60)


async def test_states_are_read_by_index_never_by_reading_every_state_of_the_space(
    amem: AsyncMemory, config: OrmaConfig
) -> None:
    """A space's states only accumulate (each change closes one): recall must not scan them."""
    await sahil(Store(amem))
    sources = [
        *words_since(("pune", "tea"), config.recall_states, 0.0),
        HeldBy(USER, config.recall_user_states),
        Citing((1, 2, 3)),
    ]
    with raw(amem.path) as conn:
        for source in sources:
            sql, args = states_statement("default", [source])
            plan = [str(r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql, args)]
            reads = [line for line in plan if line.startswith(("SEARCH s ", "SCAN s "))]
            why = (source, plan)
            assert reads and all(line.startswith("SEARCH s USING") for line in reads), why
            assert not any(line.endswith("states_slot (space=?)") for line in reads), why
