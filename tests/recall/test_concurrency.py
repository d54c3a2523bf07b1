"""A burst of recalls takes turns (``recall_concurrency``), and each still gets its block."""

from __future__ import annotations

import asyncio

import pytest

from orma_proxy import AsyncMemory, OrmaConfig, recall
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.recall_store import Store, sahil

NOW = "2026-11-01T10:00:00+05:30"


@pytest.mark.parametrize("slots", [1, 2])
@pytest.mark.both_backends
async def test_no_more_recalls_run_at_once_than_configured(
    config: OrmaConfig, embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch, slots: int
) -> None:
    running, most = 0, 0
    real = recall.recall_block  # the engine takes it from the package at each recall

    async def counted(*args: object, **kwargs: object) -> object:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            return await real(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            running -= 1

    monkeypatch.setattr(recall, "recall_block", counted)
    config = config.model_copy(update={"recall_concurrency": slots})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await sahil(Store(mem))
        await mem.flush()
        blocks = await asyncio.gather(
            *(mem.recall("Where do I live now?", at=NOW) for _ in range(6))
        )
    assert most == slots
    assert len({b.text for b in blocks}) == 1 and "Bangalore" in blocks[0].text
