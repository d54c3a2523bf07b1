"""The in-memory keyword postings: the engine's own BM25 (FTS5's, PostgreSQL's), kept current,
nothing purged left behind."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.store.connect import Connection, open_sync
from orma_proxy.store.keyword_index import KeywordIndex
from orma_proxy.store.keyword_postings import SpaceKeywords
from orma_proxy.store.keywords import BM25_SQL, bm25_params, query_terms
from orma_proxy.store.postgres.search import KEYWORD_HITS, keyword_params
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import held_search, raw

COMMON = ["remind", "meeting", "today", "book", "project"]  # in most sentences
RARE = ["saffron", "glacier", "violin", "harbour", "lantern", "orchid", "kestrel", "quince"]
FILLER = ["about", "with", "after", "small", "green", "river", "paper", "window", "coffee"]
PG = pytest.mark.parametrize("backend", ["postgres"], indirect=True)


def _sentences(count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = rng.sample(COMMON, rng.randint(1, 3)) + rng.sample(FILLER, rng.randint(2, 6))
        if rng.random() < 0.08:
            words.append(rng.choice(RARE))
        if rng.random() < 0.2:  # the same word twice, and longer sentences: tf and length count
            words.append(words[0])
        rng.shuffle(words)
        out.append(" ".join(words).capitalize() + ".")
    return out


def _config(tmp_path: Path, **extra: object) -> OrmaConfig:
    return OrmaConfig(home=tmp_path / "home", db_path=tmp_path / "m.db", **extra)  # type: ignore[arg-type]


def _with(config: OrmaConfig, **extra: object) -> OrmaConfig:
    return config.model_copy(update=extra)


async def _held(mem: AsyncMemory, space: str) -> KeywordIndex:
    """Search ``space`` until the index loads it (``keyword_memory_after`` = 2)."""
    index = mem.keyword_index
    for _ in range(2):
        await mem.search("anything at all", space=space)
    await index.settle()
    assert index.holds(space)
    return index


def _engines_top(conn: Connection, backend: str, query: str, k: int) -> list[tuple[int, float]]:
    """The engine's own BM25 top ``k`` of space ``s``: FTS5's ``bm25()``, or ``KEYWORD_HITS``."""
    if backend == "postgres":
        params = keyword_params(query, "s", k)
        sql = KEYWORD_HITS
    else:
        params, sql = bm25_params(query, "s", k), BM25_SQL
    assert params is not None
    return [(int(r[0]), float(r[1])) for r in conn.execute(sql, params).fetchall()]


@pytest.mark.both_backends
async def test_held_rankings_and_scores_equal_the_engines_bm25(
    config: OrmaConfig, backend: str
) -> None:
    """Pruned (MaxScore) and unpruned (the engine scores every posting) give one top k. On
    PostgreSQL beside another space (FTS5 counts its whole table, PostgreSQL the space)."""
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        for text in _sentences(400):
            await mem.add(text, space="s")
        if backend == "postgres":
            for text in _sentences(40, seed=6):
                await mem.add(text, space="other")
        index = await _held(mem, "s")
        rng = random.Random(9)
        with raw(mem.location) as conn:
            for _ in range(60):
                query = " ".join(rng.sample(COMMON + RARE + FILLER, rng.randint(1, 4)))
                for k in (1, 5, 30):
                    want = _engines_top(conn, backend, query, k)
                    got = held_search(index, conn, "s", query_terms(query), k)
                    assert got is not None and len(got) == len(want), query
                    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)
                    cut = want[-1][1]  # ties at the k-th score may be cut either way
                    assert {i for i, s in got if s > cut + 1e-9} == {
                        i for i, s in want if s > cut + 1e-9
                    }


@PG
async def test_a_query_term_of_several_lexemes_matches_each_as_postgresql_does(
    config: OrmaConfig,
) -> None:
    """ "snake_case" is two lexemes to ``to_tsvector``: both are searched, OR-ed, once each."""
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("The snake_case name and the snake case words.", space="s")
        await mem.add("A case of apples.", space="s")
        await mem.add("Nothing to see here.", space="s")
        index = await _held(mem, "s")
        with raw(mem.location) as conn:
            got = held_search(index, conn, "s", ["snake_case", "case"], 10)
            want = conn.execute(KEYWORD_HITS, keyword_params("snake_case case", "s", 10))
            assert got == pytest.approx([(int(i), s) for i, s in want.fetchall()], rel=1e-9)
            assert got is not None and len(got) == 2


def test_a_common_terms_postings_are_only_looked_up_for_the_candidates() -> None:
    rows = 2000
    every = np.arange(1, rows + 1, dtype=np.int64)
    held = SpaceKeywords.build(
        [("every", every), ("rare", np.array([7, 7, 900], dtype=np.int64))], every
    )
    top = held.top(["every", "rare"], 2)
    assert [i for i, _ in top] == [7, 900]  # "rare" twice in a short sentence comes first
    assert held.scored == 2 + 2  # "rare"'s postings, then "every" for those two: not 2,000
    assert len(held.top(["every"], 3)) == 3
    assert held.scored == rows  # alone, a common term is scored in full


@pytest.mark.both_backends
async def test_a_purged_sentence_leaves_the_held_postings(config: OrmaConfig) -> None:
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        for text in _sentences(50):
            await mem.add(text, space="s")
        secret = await mem.add("The ptarmigan nests above the quince tree.", space="s")
        index = await _held(mem, "s")
        with raw(mem.location) as conn:
            found = held_search(index, conn, "s", ["ptarmigan"], 10)
            assert found is not None and len(found) == 1
            await mem.purge([secret], space="s")
            assert held_search(index, conn, "s", ["ptarmigan"], 10) == []
            others = held_search(index, conn, "s", ["quince", "tree"], 50)
            assert found[0][0] not in dict(others or [])
        texts = [p.text for p in (await mem.search("ptarmigan quince", space="s")).passages]
        assert not any("ptarmigan" in t for t in texts)


@pytest.mark.both_backends
async def test_another_processs_new_sentences_are_found(config: OrmaConfig) -> None:
    async with (
        AsyncMemory(config=config, embedder=HashingEmbedder()) as proxy,
        AsyncMemory(config=config, embedder=HashingEmbedder()) as cli,
    ):
        for text in _sentences(30):
            await cli.add(text, space="s")
        index = await _held(proxy, "s")
        await cli.add("Our bassoon teacher moved to the glacier town.", space="s")
        with raw(proxy.location) as conn:
            found = held_search(index, conn, "s", ["bassoon"], 10)
        assert found is not None and len(found) == 1
        passages = (await proxy.search("bassoon", space="s")).passages
        assert passages[0].sentence_id == found[0][0]
        assert passages[0].text == "Our bassoon teacher moved to the glacier town."


@pytest.mark.both_backends
async def test_a_held_space_never_yields_another_spaces_sentences(config: OrmaConfig) -> None:
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("Alice keeps saffron in the kitchen.", space="alice")
        await mem.add("Bob keeps saffron in the garage.", space="bob")
        index = await _held(mem, "bob")
        await mem.add("Alice bought more saffron.", space="alice")
        with raw(mem.location) as conn:
            found = held_search(index, conn, "bob", ["saffron"], 10)
        assert found is not None and len(found) == 1
        texts = [p.text for p in (await mem.search("saffron", space="bob")).passages]
        assert texts == ["Bob keeps saffron in the garage."]


async def test_a_term_of_several_tokens_is_left_to_fts5(tmp_path: Path) -> None:
    async with AsyncMemory(config=_config(tmp_path), embedder=HashingEmbedder()) as mem:
        await mem.add("The snake_case name and the snake case words.", space="s")
        index = await _held(mem, "s")
        conn = open_sync(mem.path, busy_timeout_ms=1000, read_only=True)
        try:
            assert held_search(index, conn, "s", ["snake_case"], 10) is None  # a phrase: FTS5's
            assert held_search(index, conn, "s", ["snake"], 10) is not None
        finally:
            conn.close()
        assert (await mem.search("snake_case", space="s")).passages


@pytest.mark.both_backends
async def test_too_many_changes_reload_instead_of_patching(config: OrmaConfig) -> None:
    config = _with(config, keyword_catch_up_max=3)
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("one small note", space="s")
        index = await _held(mem, "s")
        for i in range(5):
            await mem.add(f"bulk note number {i}", space="s")
        with raw(mem.location) as conn:
            assert held_search(index, conn, "s", ["bulk"], 10) is None  # dropped, to be reloaded
            await mem.search("bulk", space="s")
            await index.settle()
            assert len(held_search(index, conn, "s", ["bulk"], 10) or []) == 5


@pytest.mark.parametrize("after", [0, 3])
async def test_loading_waits_for_the_configured_number_of_searches(
    tmp_path: Path, after: int
) -> None:
    config = _config(tmp_path, keyword_memory_after=after)
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("one small note", space="s")
        for _ in range(2):
            await mem.search("note", space="s")
        await mem.keyword_index.settle()
        assert not mem.keyword_index.holds("s")
        await mem.search("note", space="s")
        await mem.keyword_index.settle()
        assert mem.keyword_index.holds("s") is (after == 3)


async def test_a_rebuild_of_fts5_reloads_the_held_postings(tmp_path: Path) -> None:
    """``orma reindex`` rebuilds FTS5: a process holding postings loads them again from it."""
    async with AsyncMemory(config=_config(tmp_path), embedder=HashingEmbedder()) as mem:
        await mem.add("The lantern by the harbour.", space="s")
        index = await _held(mem, "s")
        await mem.rebuild()
        conn = open_sync(mem.path, busy_timeout_ms=1000, read_only=True)
        try:
            assert held_search(index, conn, "s", ["lantern"], 10) is None  # dropped: FTS5 answers
            await mem.search("lantern", space="s")
            await index.settle()
            found = held_search(index, conn, "s", ["lantern"], 10)
        finally:
            conn.close()
        assert found is not None and len(found) == 1
