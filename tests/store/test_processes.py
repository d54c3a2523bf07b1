"""Several processes on one file: crash safety, concurrent writers, concurrent creation."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.store.migrate import load_migrations
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.processes import expect_line, migration_counts, started
from tests.helpers.rawdb import raw

pytestmark = pytest.mark.slow


def _episode_ids(db: Path) -> set[int]:
    with raw(db) as conn:
        return {int(row[0]) for row in conn.execute("SELECT id FROM episodes")}


def test_an_add_that_returned_survives_kill_9(tmp_path: Path) -> None:
    db, go = tmp_path / "memory.db", tmp_path / "go"
    with started("add-forever", db, go) as proc:
        expect_line(proc, "ready")
        go.touch()
        acknowledged = [int(expect_line(proc)) for _ in range(3)]
        os.kill(proc.pid, signal.SIGKILL)  # mid-way through the next add, most likely
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
    assert set(acknowledged) <= _episode_ids(db)

    async def reopen_and_search() -> None:
        config = OrmaConfig(home=tmp_path, db_path=db)
        async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
            found = await mem.search("lighthouse keeper", k=50)
            assert set(acknowledged) <= {p.episode_id for p in found.passages}

    asyncio.run(reopen_and_search())


async def test_processes_writing_at_once_while_this_one_searches(tmp_path: Path) -> None:
    db, go = tmp_path / "memory.db", tmp_path / "go"
    config = OrmaConfig(home=tmp_path, db_path=db)
    spaces = ["alpha", "beta", "gamma"]
    per_process = 100
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        mine_text = "The reader process keeps its own note about shared gardens."
        await mem.add(mine_text, space="reader")
        with (
            started("add-many", db, go, spaces[0], per_process) as p1,
            started("add-many", db, go, spaces[1], per_process) as p2,
            started("add-many", db, go, spaces[2], per_process) as p3,
        ):
            workers = [p1, p2, p3]
            for proc in workers:
                await asyncio.to_thread(expect_line, proc, "ready")
            go.touch()
            searches = 0
            while any(proc.poll() is None for proc in workers):
                for space in spaces:
                    result = await mem.search("shared gardens note", space=space, k=20)
                    assert all(p.text.startswith(f"Worker {space} ") for p in result.passages)
                mine = await mem.search("shared gardens note", space="reader", k=20)
                assert [p.text for p in mine.passages] == [mine_text]
                searches += 1
                await asyncio.sleep(0.01)
            for proc in workers:
                out, err = proc.communicate()
                assert proc.returncode == 0, err
                assert out.strip() == "done"
                assert "locked" not in err and "Traceback" not in err
        assert searches > 0
        for space in spaces:
            stats = await mem.stats(space)
            assert stats.episodes == per_process
            found = await mem.search(f"Worker {space} wrote note 57", space=space, k=5)
            assert found.passages[0].text == f"Worker {space} wrote note 57 about shared gardens."
        await mem.flush()
        assert (await mem.stats()).pending_vectors == 0


def test_processes_creating_one_new_file_apply_each_migration_once(tmp_path: Path) -> None:
    db, go = tmp_path / "memory.db", tmp_path / "go"
    latest = load_migrations()[-1].version
    with (
        started("migrate", db, go) as p1,
        started("migrate", db, go) as p2,
        started("migrate", db, go) as p3,
    ):
        for proc in (p1, p2, p3):
            expect_line(proc, "ready")
        go.touch()
        reached = [expect_line(proc) for proc in (p1, p2, p3)]
    assert reached == [str(latest)] * 3
    assert migration_counts(db) == [(v, 1) for v in range(1, latest + 1)]
