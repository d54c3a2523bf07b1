"""A database is bound to one embedding model; switching takes an explicit reindex."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory, Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import EmbedderMismatchError
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import raw

DENTIST = "My dentist is Dr. Rao in Kothrud."
pytestmark = pytest.mark.both_backends

NOTES = [DENTIST, "The train to Mumbai leaves at six.", "I water the basil every morning."]


def vector_bytes(config: OrmaConfig) -> set[int]:
    """The distinct sizes of the stored float vectors."""
    with raw(config.db_url or config.resolved_db_path()) as conn:
        return {len(bytes(r[0])) for r in conn.execute("SELECT embedding FROM sentence_vectors")}


async def test_another_model_is_refused_until_reindex_then_works(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        for note in NOTES:
            await mem.add(note)
        await mem.flush()
    assert vector_bytes(config) == {64 * 4}

    with pytest.raises(EmbedderMismatchError) as refused:
        await AsyncMemory(config=config, embedder=embedder).open()
    message = str(refused.value)
    assert "orma reindex" in message
    assert "test-hashing-64" in message and "all-MiniLM-L6-v2-int8" in message
    assert vector_bytes(config) == {64 * 4}  # refusing changed nothing

    reindexed = AsyncMemory(config=config, embedder=embedder)
    await reindexed.open(reindex=True)
    try:
        await reindexed.flush()
        found = await reindexed.search("who looks after my teeth?")
        assert found.passages[0].text == DENTIST
    finally:
        await reindexed.close()
    assert vector_bytes(config) == {384 * 4}

    async with AsyncMemory(config=config, embedder=embedder) as mem:  # no reindex needed now
        assert (await mem.stats()).pending_vectors == 0


def test_sync_memory_reindexes_too(config: OrmaConfig) -> None:
    with Memory(config=config, embedder=HashingEmbedder(dim=64)) as mem:
        mem.add(DENTIST)
    other = HashingEmbedder(dim=32, model_id="test-hashing-other")
    with pytest.raises(EmbedderMismatchError, match="orma reindex"):
        Memory(config=config, embedder=other)
    with Memory(config=config, embedder=other, reindex=True) as mem:
        mem.flush()
        assert mem.stats().pending_vectors == 0
    assert vector_bytes(config) == {32 * 4}
