"""A 10 MB text: stored whole, split, searchable at once, and close() doesn't wait for it."""

from __future__ import annotations

import random
import time

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.rawdb import raw

pytestmark = pytest.mark.slow

# Generous: closing waits for at most one embedding batch; embedding all of this
# text with the real model would take many minutes.
CLOSE_NEVER_HANGS_SECONDS = 60.0


def ten_megabytes() -> str:
    """About 25,000 sentences of 40 to 80 words, one of them findable by a rare word."""
    rng = random.Random(7)
    words = ["river", "stone", "garden", "lamp", "window", "paper", "music", "coffee"]
    pool = [
        " ".join(rng.choice(words) for _ in range(rng.randint(40, 80))).capitalize() + ". "
        for _ in range(500)
    ]
    sentences = [rng.choice(pool) for _ in range(10_000_000 // 400)]
    sentences.insert(len(sentences) // 2, "The zanzibarite key opens the attic. ")
    return "".join(sentences)


async def test_a_ten_megabyte_text(config: OrmaConfig, embedder: OnnxEmbedder) -> None:
    text = ten_megabytes()
    mem = AsyncMemory(config=config, embedder=embedder)
    await mem.open()
    try:
        episode_id = await mem.add(text)
        found = await mem.search("zanzibarite")
        assert [p.text for p in found.passages[:1]] == ["The zanzibarite key opens the attic."]
        assert found.passages[0].episode_id == episode_id
    finally:
        start = time.monotonic()
        await mem.close()
        closing = time.monotonic() - start
    assert closing < CLOSE_NEVER_HANGS_SECONDS
    with raw(config.resolved_db_path()) as conn:
        assert conn.execute("SELECT text FROM episodes").fetchone()[0] == text
        sentences, pending = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE embedded = 0) FROM sentences"
        ).fetchone()
    assert sentences > 20_000
    assert pending > sentences // 2  # close() left the embedding for next time
