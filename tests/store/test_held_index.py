"""The held indexes' change logs: pruned as they grow, never at the cost of an answer; and
what any process writes after a space is held is what its next search sees.

Several ``AsyncMemory`` objects on one file behave like processes: each holds its own
indexes, at its own point of the logs.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.store import catch_up
from orma_proxy.store.held_index import caught_up
from orma_proxy.store.keywords import query_terms
from orma_proxy.store.vectors import float_vectors
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import held_search, raw, reading, rows, scalar, writing

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


def _config(config: OrmaConfig, keep: int = 5_000) -> OrmaConfig:
    return config.model_copy(update={"keyword_catch_up_max": keep, "vector_catch_up_max": keep})


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
    async with reading(mem.location) as reader:
        await catch_up(reader, vectors, keywords)
    with raw(mem.location) as conn:
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


def _log_sizes(path: Path | str) -> dict[str, int]:
    tables = ("keyword_changes", "vector_changes")
    return {t: int(scalar(path, f"SELECT count(*) FROM {t}")) for t in tables}


@pytest.mark.both_backends
async def test_the_change_logs_stay_bounded_however_many_notes_come(config: OrmaConfig) -> None:
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
    for table in ("vector_changes", "keyword_changes"):
        ((count, newest),) = rows(mem.location, f"SELECT count(*), max(seq) FROM {table}")
        assert int(newest) > 150 and int(count) <= 2 * KEEP, table


@pytest.mark.both_backends
async def test_processes_before_and_after_pruning_answer_as_a_fresh_load(
    config: OrmaConfig,
) -> None:
    """``early`` holds the space, then a writer adds and purges past its point and prunes
    the rows it would need: it must reload, not patch with what is left. ``late`` loads
    from the pruned log and patches from there. Both answer as one loading at the end."""
    embedder = HashingEmbedder()
    async with AsyncMemory(config=_config(config, KEEP), embedder=embedder) as writer:
        for note in _notes(40, seed=2):
            await writer.add(note, space="s")
        await writer.flush()
        async with AsyncMemory(config=_config(config), embedder=embedder) as early:
            await _hold(early)
            held_at = scalar(writer.location, "SELECT max(seq) FROM keyword_changes")
            for note in _notes(60, seed=3):
                await writer.add(note, space="s")
            hits = (await writer.search("glacier", space="s")).passages
            await writer.purge([p.episode_id for p in hits[:4]], space="s")
            for note in _notes(3 * KEEP, seed=4):
                await writer.add(note, space="s")
            await writer.flush()
            oldest = scalar(writer.location, "SELECT min(seq) FROM keyword_changes")
            assert oldest > held_at + 1  # rows ``early`` needs are gone
            assert max(_log_sizes(writer.location).values()) <= 2 * KEEP

            with raw(writer.location) as conn:
                dropped = held_search(early.keyword_index, conn, "s", ["glacier"], 5)
                assert dropped is None
            async with reading(early.location) as reader:
                await catch_up(reader, early.vector_index)
            assert not early.vector_index.holds("s")
            await _hold(early)

            async with AsyncMemory(config=_config(config), embedder=embedder) as late:
                await _hold(late)
                for note in _notes(KEEP // 2, seed=5):  # fewer than KEEP: patched, not reloaded
                    await writer.add(note, space="s")
                await writer.flush()
                late_answers = await _answers(late)
                assert late.keyword_index.holds("s") and late.vector_index.holds("s")
                early_answers = await _answers(early)
                async with AsyncMemory(config=_config(config), embedder=embedder) as fresh:
                    await _hold(fresh)
                    fresh_answers = await _answers(fresh)
    assert all(found for found in fresh_answers)
    assert early_answers == fresh_answers
    assert late_answers == fresh_answers


@pytest.mark.both_backends
async def test_a_process_within_the_kept_rows_keeps_patching(config: OrmaConfig) -> None:
    """Pruning costs no reload to a process no more than ``catch_up_max`` rows behind."""
    embedder = HashingEmbedder()
    async with (
        AsyncMemory(config=_config(config, KEEP), embedder=embedder) as writer,
        AsyncMemory(config=_config(config, KEEP), embedder=embedder) as reader,
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
        assert scalar(writer.location, "SELECT min(seq) FROM vector_changes") > 30
        async with AsyncMemory(config=_config(config), embedder=embedder) as fresh:
            await _hold(fresh)
            assert await _answers(reader) == await _answers(fresh)


def _texts(found: object) -> list[str]:
    return [p.text for p in found.passages]  # type: ignore[attr-defined]


@pytest.mark.both_backends
async def test_writes_after_loading_are_seen_by_the_next_search(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """Add, release, supersede and purge after both indexes hold the space: each next search
    answers from them (still held) as the database now says."""
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for note in _notes(40, seed=7):
            await mem.add(note, space="s")
        await mem.flush()
        await _hold(mem)

        nest = "The ptarmigan nests above the quince orchard."
        await mem.add(nest, space="s")
        await mem.flush()
        assert nest in _texts(await mem.search("where does the ptarmigan nest?", space="s"))
        with raw(mem.location) as conn:
            assert len(held_search(mem.keyword_index, conn, "s", ["ptarmigan"], 5) or []) == 1

        released = await mem.release("the ptarmigan nests", space="s")
        assert released.count > 0
        assert nest not in _texts(await mem.search("where does the ptarmigan nest?", space="s"))

        await mem.add("My locker code at the climbing gym is 4471.", space="s")
        await mem.flush()
        fixed = await mem.supersede(
            "my locker code at the climbing gym",
            "My locker code at the climbing gym is 9902.",
            space="s",
        )
        assert fixed.count > 0
        await mem.flush()
        texts = _texts(await mem.search("what is my climbing gym locker code?", space="s"))
        assert any("9902" in t for t in texts) and not any("4471" in t for t in texts)

        heron = "A bronze heron statue stands by the Limmat in Zurich."
        episode = await mem.add(heron, space="s")
        await mem.flush()
        found = (await mem.search("heron statue in Zurich", space="s")).passages
        assert found[0].text == heron
        await mem.purge([episode], space="s")
        assert heron not in _texts(await mem.search("heron statue in Zurich", space="s"))
        with raw(mem.location) as conn:
            assert held_search(mem.keyword_index, conn, "s", ["heron"], 5) == []
        vector = embedder.embed(["heron statue in Zurich"])[0]
        near = mem.vector_index.nearest("s", vector, 100, 100)
        assert near is not None and found[0].sentence_id not in dict(near)
        assert mem.keyword_index.holds("s") and mem.vector_index.holds("s")


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_log_rows_take_their_seq_in_commit_order(config: OrmaConfig) -> None:
    """A transaction that changed a sentence first but commits last logs it last: a process
    that caught up between the two commits would otherwise skip the first one's row."""
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        episode = await mem.add("A first note.", space="s")
    url = mem.location
    # Two spaces: writes to one space wait for each other already (its ``space_text`` row).
    insert = (
        "INSERT INTO sentences (episode_id, space, position, start, text, space_tag) "
        "VALUES (?, ?, ?, 0, ?, ?) RETURNING id"
    )
    with raw(url) as first, raw(url) as second:
        first.execute("BEGIN")
        early = first.execute(insert, (episode, "s", 1, "changed first", "s")).fetchone()[0]
        second.execute("BEGIN")
        late = second.execute(insert, (episode, "t", 2, "changed second", "t")).fetchone()[0]
        second.execute("COMMIT")
        first.execute("COMMIT")
    logged = [int(r[0]) for r in rows(url, "SELECT sentence_id FROM keyword_changes ORDER BY seq")]
    assert early < late and logged[-2:] == [late, early]


@pytest.mark.both_backends
async def test_a_change_committed_to_either_log_is_caught_up_in_one_statement(
    config: OrmaConfig, backend: str
) -> None:
    """A search catches both indexes up at once (on PostgreSQL one statement reads both logs):
    a change to the keyword log alone, to the vector log alone, or to both, committed by
    another process, is in the held indexes after it, whichever log was empty."""
    embedder = HashingEmbedder()
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        ids = [await mem.add(note, space="s") for note in _notes(20, seed=9)]
        bird = await mem.add("The ptarmigan hovers over the quarry.", space="s")
        await mem.flush()
        await _hold(mem)
        (moved,) = rows(mem.location, "SELECT id FROM sentences WHERE episode_id = ?", bird)
        donor, taker = (
            int(scalar(mem.location, "SELECT min(id) FROM sentences WHERE episode_id = ?", e))
            for e in ids[:2]
        )
        with raw(mem.location) as conn:
            donated = float_vectors(conn, [donor])[donor]

        def ptarmigan() -> list[tuple[int, float]] | None:
            with raw(mem.location) as conn:
                return mem.keyword_index.search(conn, "s", ["ptarmigan"], 5)

        def near() -> set[int]:
            return {i for i, _ in mem.vector_index.nearest("s", donated, 2, 2) or []}

        move = "UPDATE sentences SET space = ? WHERE id = ?"
        give = (
            "UPDATE sentence_vectors SET embedding = "
            "(SELECT embedding FROM sentence_vectors WHERE sentence_id = ?) WHERE sentence_id = ?"
        )
        steps = [  # (the log it writes, the change, what the held indexes answer after it)
            ("keyword_changes", (move, ("elsewhere", moved[0])), lambda: ptarmigan() == []),
            ("vector_changes", (give, (donor, taker)), lambda: near() == {donor, taker}),
            ("keyword_changes", (move, ("s", moved[0])), lambda: len(ptarmigan() or []) == 1),
        ]
        async with writing(mem.location) as writer:
            for log, (sql, args), seen in steps:
                before = _log_tops(mem.location)
                await writer.execute_write_fn(lambda c, q=sql, a=args: c.execute(q, a))
                after = _log_tops(mem.location)
                assert [t for t in after if after[t] != before[t]] == [log]  # that log alone
                assert _statements(mem, backend) == (1 if backend == "postgres" else 2)
                assert seen(), log
        before = _log_tops(mem.location)
        await mem.purge(ids[:1], space="s")  # both logs
        after = _log_tops(mem.location)
        assert all(after[t] > before[t] for t in after)
        assert _statements(mem, backend) == (1 if backend == "postgres" else 2)
        assert near() == {taker, *near()} and donor not in near()
        assert mem.keyword_index.holds("s") and mem.vector_index.holds("s")
        fresh_answers = await _fresh_answers(config, embedder)
        assert await _answers(mem) == fresh_answers


def _log_tops(path: Path | str) -> dict[str, int]:
    tables = ("keyword_changes", "vector_changes")
    return {t: int(scalar(path, f"SELECT coalesce(max(seq), 0) FROM {t}")) for t in tables}


def _statements(mem: AsyncMemory, backend: str) -> int:
    """How many statements catching both of ``mem``'s indexes up runs (the catch-up done)."""
    run: list[str] = []
    with raw(mem.location) as conn:
        if backend == "postgres":
            execute = conn.execute
            conn.execute = lambda sql, *a: run.append(sql) or execute(sql, *a)  # type: ignore[method-assign]
        else:
            conn.set_trace_callback(run.append)  # type: ignore[attr-defined]
        caught_up(conn, [mem.vector_index, mem.keyword_index])
    return len(run)


async def _fresh_answers(config: OrmaConfig, embedder: HashingEmbedder) -> list[dict[int, float]]:
    async with AsyncMemory(config=config, embedder=embedder) as fresh:
        await _hold(fresh)
        return await _answers(fresh)
