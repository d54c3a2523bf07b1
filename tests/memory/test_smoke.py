"""End-to-end smoke test of the SDK on a real file with the real model."""

from __future__ import annotations

from orma import Memory as AliasMemory
from orma_proxy import AsyncMemory, Memory


def test_orma_alias_is_the_same_class() -> None:
    assert AliasMemory is Memory


async def test_add_then_search_finds_it_by_words_and_by_meaning(db_amem: AsyncMemory) -> None:
    await db_amem.add("My dentist is Dr. Rao in Kothrud.")
    await db_amem.add("I work as a backend engineer and I live in Pune.")
    lexical = await db_amem.search("dentist")
    assert lexical.passages[0].text == "My dentist is Dr. Rao in Kothrud."
    await db_amem.flush()
    semantic = await db_amem.search("tooth doctor")
    assert semantic.passages[0].text == "My dentist is Dr. Rao in Kothrud."


def test_sync_memory_round_trip(db_mem: Memory) -> None:
    episode_id = db_mem.add("Alice likes green tea.", space="user_alice")
    result = db_mem.search("green tea", space="user_alice")
    assert result.passages[0].episode_id == episode_id
    assert db_mem.search("green tea", space="user_bob").passages == []
