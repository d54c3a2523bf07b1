"""The background indexer: flush() means every sentence stored so far has its vector."""

from __future__ import annotations

import asyncio
import os
import sys
import threading

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import StoreError
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import scalar


@pytest.mark.both_backends
async def test_flush_covers_every_add_before_it_even_while_others_keep_adding(
    config: OrmaConfig,
) -> None:
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        stop = asyncio.Event()

        async def keep_adding() -> int:
            added = 0
            while not stop.is_set():
                await mem.add(f"Background chatter number {added}.", space="noise")
                added += 1
            return added

        churn = asyncio.create_task(keep_adding())
        try:
            for n in range(25):
                episode_id = await mem.add(f"Foreground note {n}. It has two sentences.")
                # Bound: a flush that waits for "nothing pending" never returns here.
                await asyncio.wait_for(mem.flush(), timeout=60)
                pending = scalar(
                    mem.location,
                    "SELECT count(*) FROM sentences WHERE episode_id = ? AND embedded = 0",
                    episode_id,
                )
                assert pending == 0, f"flush returned with note {n} not embedded"
        finally:
            stop.set()
            background = await churn
        assert background > 0  # the indexer really was kept busy meanwhile


async def test_close_releases_a_waiting_flush_instead_of_stranding_it(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    mem = AsyncMemory(config=config, embedder=embedder)
    await mem.open()
    await mem.add(" ".join(f"Sentence {n} about the slow model." for n in range(300)))
    flushing = asyncio.ensure_future(mem.flush())
    await asyncio.sleep(0.1)
    await mem.close()
    with pytest.raises(StoreError, match="closed before indexing finished"):
        await asyncio.wait_for(flushing, timeout=60)  # bound: a stranded flush waits forever


async def test_indexing_runs_at_a_lower_cpu_priority_than_the_loop(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    seen: list[int] = []

    def nice_of_this_thread() -> None:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    for increment in (7, 0):
        tuned = config.model_copy(update={"index_nice": increment})
        async with AsyncMemory(config=tuned, embedder=embedder) as mem:
            pool = mem._index_pool
            assert pool is not None
            await asyncio.get_running_loop().run_in_executor(pool, nice_of_this_thread)
            assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base
    # Linux (CI, Docker) honours a thread's nice value; elsewhere nothing changes.
    expected = [min(base + 7, 19), base] if sys.platform.startswith("linux") else [base, base]
    assert seen == expected
