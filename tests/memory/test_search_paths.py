"""The fast search paths: space isolation with and without the FTS space tag, query plans."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.store.connect import open_sync
from orma_proxy.store.keywords import bm25_params
from orma_proxy.store.passages import LEXICAL_SQL, SEMANTIC_SQL
from orma_proxy.store.vectors import nearest_params

NOTES = (
    "My dentist is Dr. Rao in Kothrud.",
    "The dentist appointment moved to Friday at 9:30.",
    "Priya lives in Baner and works as a nurse.",
    "We had masala dosa at Vaishali on Sunday.",
)


@pytest.mark.both_backends
async def test_a_lone_space_ranks_as_it_would_next_to_others(amem: AsyncMemory) -> None:
    """The tag is skipped while one space exists; adding another must not change results."""
    for note in NOTES:
        await amem.add(note, space="alice")
    await amem.flush()
    alone = [p.text for p in (await amem.search("dentist appointment", space="alice")).passages]
    await amem.add("Bob's dentist appointment is on Monday.", space="bob")
    await amem.flush()
    shared = [p.text for p in (await amem.search("dentist appointment", space="alice")).passages]
    assert alone == shared
    assert alone[0] == "The dentist appointment moved to Friday at 9:30."
    bob = [p.text for p in (await amem.search("dentist appointment", space="bob")).passages]
    assert bob == ["Bob's dentist appointment is on Monday."]


@pytest.mark.both_backends
async def test_a_search_of_an_unknown_space_finds_nothing(amem: AsyncMemory) -> None:
    for note in NOTES:
        await amem.add(note, space="alice")
    await amem.flush()
    assert (await amem.search("dentist", space="carol")).passages == []


async def test_hits_drive_the_row_lookups(amem: AsyncMemory) -> None:
    """A regression guard: the planner once walked the whole space to join 30 hits."""
    await amem.add(NOTES[0], space="alice")
    await amem.flush()
    conn = open_sync(amem.path, busy_timeout_ms=1_000, read_only=True)
    try:
        lexical = bm25_params("dentist", "alice", 30)
        assert lexical is not None
        vector = amem.embedder.embed(["dentist"])[0]
        semantic = nearest_params(vector, "alice", k=30, oversample=4, use_floor=True)
        for sql, params in ((LEXICAL_SQL, lexical), (SEMANTIC_SQL, semantic)):
            plan = " | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params))
            assert "SEARCH s USING INTEGER PRIMARY KEY" in plan, plan
            assert "AUTOMATIC" not in plan, plan
    finally:
        conn.close()
