"""The held indexes' change logs: pruned as they grow, never at the cost of an answer.

Several ``AsyncMemory`` objects on one file behave like processes: each holds its own
indexes, at its own point of the logs.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.store.connect import open_sync
from orma_proxy.store.keywords import query_terms
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import reading, rows, scalar

KEEP = 10  # the pruning writer's catch_up_max: each log keeps 10 to 20 rows
WORDS = ["saffron", "glacier", "violin", "harbour", "lantern", "orchid", "kestrel", "quince"]
FILLER = ["about", "with", "after", "small", "green", "river", "paper", "window", "coffee"]
QUERIES = ["saffron", "glacier violin", "harbour lantern river", "orchid paper", "kestrel"]


def _notes(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        " ".join(rng.sample(WORDS, rng.randint(1, 2)) + rng.sample(FILLER, rng.randint(2, 5)))
        for _ in range(count)
    ]


def _config(tmp_path: Path, keep: int = 5_000) -> OrmaConfig:
    return OrmaConfig(
        home=tmp_path / "home",
        db_path=tmp_path / "m.db",
        keyword_catch_up_max=keep,
        vector_catch_up_max=keep,
    )


async def _hold(mem: AsyncMemory) -> None:
    """Search space ``s`` until both indexes hold it (``*_memory_after`` = 2)."""
    for _ in range(2):
        await mem.search("anything at all", space="s")
    await mem.keyword_index.settle()
    await mem.vector_index.settle()
    assert mem.keyword_index.holds("s") and mem.vector_index.holds("s")


async def _answers(mem: AsyncMemory) -> list[dict[int, float]]:
    """What ``mem``'s held indexes answer for ``QUERIES`` after catching up: every BM25 hit
    and every k-NN hit of space ``s`` with its score (all of them: no tie is cut)."""
    keywords, vectors = mem.keyword_index, mem.vector_index
    async with reading(mem.path) as reader:
        await vectors.catch_up(reader)
    conn = open_sync(mem.path, busy_timeout_ms=5_000, read_only=True)
    try:
        found = []
        for query in QUERIES:
            vector = HashingEmbedder().embed([query])[0]
            for hits in (
                keywords.search(conn, "s", query_terms(query), 1_000),
                vectors.nearest("s", vector, 1_000, 1_000),
            ):
                assert hits is not None  # held
                found.append({i: round(score, 4) for i, score in hits})
        return found
    finally:
        conn.close()


def _log_sizes(path: Path) -> dict[str, int]:
    tables = ("keyword_changes", "vector_changes")
    return {t: int(scalar(path, f"SELECT count(*) FROM {t}")) for t in tables}


@pytest.mark.both_backends
async def test_the_change_logs_stay_bounded_however_many_notes_come(
    config: OrmaConfig, backend: str
) -> None:
    config = config.model_copy(update={"keyword_catch_up_max": KEEP, "vector_catch_up_max": KEEP})
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        for i, note in enumerate(_notes(150, seed=1)):
            await mem.add(note, space="s")
            if i % 9 == 0:
                await mem.flush()
        gone = [p.episode_id for p in (await mem.search("saffron", space="s")).passages][:5]
        await mem.purge(gone, space="s")
        await mem.add("one more note about the orchid", space="s")  # its vector's batch prunes
        await mem.flush()
    logs = ["vector_changes"] + (["keyword_changes"] if backend == "sqlite" else [])
    for table in logs:
        ((count, newest),) = rows(mem.location, f"SELECT count(*), max(seq) FROM {table}")
        assert int(newest) > 150 and int(count) <= 2 * KEEP, table


async def test_processes_before_and_after_pruning_answer_as_a_fresh_load(tmp_path: Path) -> None:
    """``early`` holds the space, then a writer adds and purges past its point and prunes
    the rows it would need: it must reload, not patch with what is left. ``late`` loads
    from the pruned log and patches from there. Both answer as one loading at the end."""
    embedder = HashingEmbedder()
    async with AsyncMemory(config=_config(tmp_path, KEEP), embedder=embedder) as writer:
        for note in _notes(40, seed=2):
            await writer.add(note, space="s")
        await writer.flush()
        async with AsyncMemory(config=_config(tmp_path), embedder=embedder) as early:
            await _hold(early)
            held_at = scalar(tmp_path / "m.db", "SELECT max(seq) FROM keyword_changes")
            for note in _notes(60, seed=3):
                await writer.add(note, space="s")
            hits = (await writer.search("glacier", space="s")).passages
            await writer.purge([p.episode_id for p in hits[:4]], space="s")
            for note in _notes(3 * KEEP, seed=4):
                await writer.add(note, space="s")
            await writer.flush()
            oldest = scalar(tmp_path / "m.db", "SELECT min(seq) FROM keyword_changes")
            assert oldest > held_at + 1  # rows ``early`` needs are gone
            assert max(_log_sizes(tmp_path / "m.db").values()) <= 2 * KEEP

            conn = open_sync(tmp_path / "m.db", busy_timeout_ms=5_000, read_only=True)
            try:
                assert early.keyword_index.search(conn, "s", ["glacier"], 5) is None  # dropped
            finally:
                conn.close()
            async with reading(early.path) as reader:
                await early.vector_index.catch_up(reader)
            assert not early.vector_index.holds("s")
            await _hold(early)

            async with AsyncMemory(config=_config(tmp_path), embedder=embedder) as late:
                await _hold(late)
                for note in _notes(KEEP // 2, seed=5):  # fewer than KEEP: patched, not reloaded
                    await writer.add(note, space="s")
                await writer.flush()
                late_answers = await _answers(late)
                assert late.keyword_index.holds("s") and late.vector_index.holds("s")
                early_answers = await _answers(early)
                async with AsyncMemory(config=_config(tmp_path), embedder=embedder) as fresh:
                    await _hold(fresh)
                    fresh_answers = await _answers(fresh)
    assert all(found for found in fresh_answers)
    assert early_answers == fresh_answers
    assert late_answers == fresh_answers


async def test_a_process_within_the_kept_rows_keeps_patching(tmp_path: Path) -> None:
    """Pruning costs no reload to a process no more than ``catch_up_max`` rows behind."""
    embedder = HashingEmbedder()
    async with (
        AsyncMemory(config=_config(tmp_path, KEEP), embedder=embedder) as writer,
        AsyncMemory(config=_config(tmp_path, KEEP), embedder=embedder) as reader,
    ):
        for note in _notes(30, seed=6):
            await writer.add(note, space="s")
        await writer.flush()
        await _hold(reader)
        for round_ in range(8):  # the logs are pruned several times over
            for note in _notes(KEEP // 2, seed=10 + round_):
                await writer.add(note, space="s")
            await writer.flush()
            await _answers(reader)  # catches up
            assert reader.keyword_index.holds("s") and reader.vector_index.holds("s")
        assert scalar(tmp_path / "m.db", "SELECT min(seq) FROM vector_changes") > 30
        async with AsyncMemory(config=_config(tmp_path), embedder=embedder) as fresh:
            await _hold(fresh)
            assert await _answers(reader) == await _answers(fresh)
