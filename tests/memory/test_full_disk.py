"""A full disk while indexing: the episode stays stored, and indexing catches up by itself.

Issue 15, item 9. SQLite's ``max_page_count`` on the writer's connection makes
it fail as a full disk does; raising it again is the disk freeing up.
"""

from __future__ import annotations

import asyncio

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.errors import StoreError
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.full_disk import fill_disk, free_disk
from tests.helpers.rawdb import scalar


async def test_indexing_behind_a_full_disk_resumes_by_itself_once_it_frees(
    config: OrmaConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = config.model_copy(update={"index_retry_seconds": 0.2})
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("The first note is about gardens.", space="a")
        await mem.flush()
    pages = int(scalar(config.resolved_db_path(), "PRAGMA page_count"))
    writers = fill_disk(monkeypatch, pages)
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        episode_id = await mem.add("The boiler code is 4417.", space="b")
        with pytest.raises(StoreError, match="indexing failed"):
            await mem.embed_episodes([episode_id])
        assert [p.text for p in (await mem.search("boiler", space="b")).passages] == [
            "The boiler code is 4417."
        ]
        assert (await mem.stats("b")).pending_vectors == 1

        [writer] = writers
        free_disk(writer)
        # Nothing asks for it from here on: only the indexer's own retry can embed it.
        for _ in range(600):
            if not (await mem.stats("b")).pending_vectors:
                break
            await asyncio.sleep(0.05)
        assert (await mem.stats("b")).pending_vectors == 0


async def test_embed_episodes_waits_for_its_own_sentences_only(config: OrmaConfig) -> None:
    config = config.model_copy(update={"index_in_background": False})
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        for n in range(300):
            await mem.add(f"Backlog note {n} about the harbour.", space="other")
        mine = [await mem.add("My locker is 218."), await mem.add("The gym opens at six.")]
        seen: list[int] = []
        await mem.embed_episodes(mine, on_embedded=seen.append)
        assert sum(seen) == 2
        path = config.resolved_db_path()
        assert scalar(path, "SELECT count(*) FROM sentences WHERE embedded = 0") == 300
        assert scalar(path, "SELECT count(*) FROM sentences WHERE space = 'default' "
                      "AND embedded = 1") == 2  # fmt: skip
        await mem.flush()  # an explicit flush still embeds everything
        assert scalar(path, "SELECT count(*) FROM sentences WHERE embedded = 0") == 0
