"""The access log: recall records what it returned, in one batch after, trimmed per item."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.store.accesses import pack_times, unpack_many, unpack_times
from tests.helpers.rawdb import rows as raw_rows
from tests.helpers.recall_store import Store, sahil, ts

NOW = "2026-11-01T10:00:00+05:30"


async def rows(mem: AsyncMemory) -> list[tuple[str, int, float]]:
    found = raw_rows(
        mem.location, "SELECT kind, item_id, times FROM recall_history ORDER BY kind, item_id"
    )
    return [(str(r[0]), int(r[1]), at) for r in found for at in unpack_times(r[2])]


@pytest.mark.both_backends
async def test_recall_logs_the_items_of_its_block_after_returning(amem: AsyncMemory) -> None:
    await sahil(Store(amem))
    await amem.flush()
    block = await amem.recall("Where do I live now?", at=NOW)
    assert await rows(amem) == []  # nothing written while the reply is being made
    await amem.flush()
    logged = await rows(amem)
    assert sorted((k, i) for k, i, _ in logged) == sorted(block.keys())
    assert {at for _, _, at in logged} == {ts(NOW)}


@pytest.mark.both_backends
async def test_many_recalls_become_one_write_and_each_item_keeps_its_newest_uses(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"access_keep_per_item": 3, "access_flush_seconds": 3600})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await sahil(Store(mem))
        await mem.flush()
        times = [f"2026-11-01T10:0{m}:00+05:30" for m in range(5)]
        for when in times:
            await mem.recall("Where do I live now?", at=when)
        assert await rows(mem) == []  # still buffered (flush delay of an hour)
        await mem.flush()
        logged = await rows(mem)
        assert logged
        per_item: dict[tuple[str, int], list[float]] = {}
        for kind, item, at in logged:
            per_item.setdefault((kind, item), []).append(at)
        assert all(kept == [ts(t) for t in times[-3:]] for kept in per_item.values())


@pytest.mark.both_backends
async def test_closing_writes_what_is_still_buffered(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"access_flush_seconds": 3600})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await sahil(Store(mem))
        await mem.flush()
        block = await mem.recall("Where do I live now?", at=NOW)
    async with AsyncMemory(config=config, embedder=embedder) as again:
        assert len(await rows(again)) == len(block.keys())


def test_histories_unpacked_together_are_each_their_own_sorted_times() -> None:
    """One conversion for many blobs must not run one item's times into the next."""
    histories = [[3.5, 1.25, 2.0], [], [1_800_000_000.123], [9.0, 8.0]]
    blobs = [pack_times(h) for h in histories]
    blobs[3] = blobs[3][8:] + blobs[3][:8]  # appended out of order, as a rebuild may
    assert unpack_many(blobs) == [(1.25, 2.0, 3.5), (), (1_800_000_000.123,), (8.0, 9.0)]
    assert [unpack_times(b) for b in blobs] == unpack_many(blobs)
    assert unpack_many([]) == []
