"""Bring your own embedder: any object with model_id, dim and embed() works."""

from __future__ import annotations

import numpy as np
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder, Vectors
from orma_proxy.errors import ConfigError, EmbedderError, StoreError
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import raw, scalar

NOTES = [
    "We saw 🦓 and 🦒 on the safari.",
    "The tax return is due in April.",
    "Our cat sleeps on the warm laptop.",
]
ANIMALS = "🦓 🦒"  # no word characters: only the vector channel can find it


def meta(config: OrmaConfig) -> dict[str, str]:
    with raw(config.resolved_db_path()) as conn:
        return dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE 'embed_%'"))


async def test_a_custom_embedder_builds_and_searches_the_index(config: OrmaConfig) -> None:
    embedder = HashingEmbedder(dim=64)
    assert isinstance(embedder, Embedder)
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for note in NOTES:
            await mem.add(note)
        await mem.flush()
        found = await mem.search(ANIMALS)
        assert found.passages[0].text == NOTES[0]
        assert mem.embedder is embedder
    assert meta(config) == {"embed_model": "test-hashing-64", "embed_dim": "64"}
    blob = scalar(
        config.resolved_db_path(),
        "SELECT v.embedding FROM sentence_vectors v JOIN sentences s ON s.id = v.sentence_id "
        "WHERE s.text = ?",
        NOTES[0],
    )
    assert isinstance(blob, bytes)
    np.testing.assert_allclose(np.frombuffer(blob, np.float32), embedder.embed([NOTES[0]])[0])


async def test_a_dimension_that_is_not_a_multiple_of_8_works(config: OrmaConfig) -> None:
    async with AsyncMemory(config=config, embedder=HashingEmbedder(dim=100)) as mem:
        for note in NOTES:
            await mem.add(note)
        await mem.flush()
        assert (await mem.search(ANIMALS)).passages[0].text == NOTES[0]
        assert (await mem.stats()).dim == 100


class WrongShape:
    """Returns one column too many: a bug in the user's embedder, not in Orma."""

    model_id = "wrong-shape"
    dim = 32

    def embed(self, texts: list[str]) -> Vectors:
        return np.ones((len(texts), self.dim + 1), dtype=np.float32)


async def test_an_embedder_returning_the_wrong_shape_gets_a_clear_error(
    config: OrmaConfig,
) -> None:
    async with AsyncMemory(config=config, embedder=WrongShape()) as mem:
        await mem.add("The text is stored even though its vector cannot be made.")
        with pytest.raises(StoreError, match=r"shape \(1, 33\).*expected \(1, 32\)"):
            await mem.flush()
        with pytest.raises(EmbedderError, match="wrong-shape returned an array of shape"):
            await mem.search("anything")


def test_an_object_that_is_not_an_embedder_is_refused_up_front(config: OrmaConfig) -> None:
    with pytest.raises(ConfigError, match="model_id, dim and embed"):
        AsyncMemory(config=config, embedder=object())  # type: ignore[arg-type]
