"""End-to-end smoke test of the SDK on a real file with the real model."""

from __future__ import annotations

import pytest

from orma import Memory as AliasMemory
from orma_proxy import AsyncMemory, Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import ConfigError

pytestmark = pytest.mark.both_backends


def test_orma_alias_is_the_same_class() -> None:
    assert AliasMemory is Memory


async def test_add_then_search_finds_it_by_words_and_by_meaning(amem: AsyncMemory) -> None:
    await amem.add("My dentist is Dr. Rao in Kothrud.")
    await amem.add("I work as a backend engineer and I live in Pune.")
    lexical = await amem.search("dentist")
    assert lexical.passages[0].text == "My dentist is Dr. Rao in Kothrud."
    await amem.flush()
    semantic = await amem.search("tooth doctor")
    assert semantic.passages[0].text == "My dentist is Dr. Rao in Kothrud."


def test_sync_memory_round_trip(mem: Memory) -> None:
    episode_id = mem.add("Alice likes green tea.", space="user_alice")
    result = mem.search("green tea", space="user_alice")
    assert result.passages[0].episode_id == episode_id
    assert mem.search("green tea", space="user_bob").passages == []


def test_a_postgresql_url_as_the_path_opens_that_database(
    pg_url: str, config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    with Memory(path=pg_url, config=config, embedder=embedder) as memory:
        assert memory.location == pg_url
        memory.add("Bea plays the cello.")
    assert not config.resolved_db_path().exists()  # nothing went to a SQLite file
    reopened = OrmaConfig.load(db_path=pg_url)  # as ORMA_DB_PATH or config.toml would give it
    assert (reopened.db_url, reopened.db_path) == (pg_url, None)
    with Memory(config=reopened, embedder=embedder) as memory:
        assert memory.search("cello").passages[0].text == "Bea plays the cello."


def test_url_and_orma_db_name_a_postgresql_database(
    pg_url: str, config: OrmaConfig, embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(url=pg_url, config=config, embedder=embedder) as memory:
        assert memory.location == pg_url
        memory.add("Bea plays the cello.")
    assert not config.resolved_db_path().exists()
    monkeypatch.setenv("ORMA_DIR", str(config.home))
    monkeypatch.setenv("ORMA_DB", pg_url)  # as --db: what Memory() opens without a config
    with Memory(embedder=embedder) as memory:
        assert memory.location == pg_url
        assert memory.search("cello").passages[0].text == "Bea plays the cello."
    for wrong in ({"url": str(config.resolved_db_path())}, {"url": pg_url, "path": pg_url}):
        with pytest.raises(ConfigError, match="url= takes a PostgreSQL URL"):
            Memory(config=config, embedder=embedder, **wrong)
