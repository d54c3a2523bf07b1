"""The in-memory k-NN: same answers as vec0, current across processes, per space."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.store import Reader, catch_up
from orma_proxy.store.connect import open_sync
from orma_proxy.store.space_vectors import SpaceVectors, pack_bits, quantise
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.store.vectors import nearest
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import reading

NOTES = [
    "My dentist is Dr. Rao in Kothrud.",
    "The dentist appointment moved to Friday at 9:30.",
    "Priya lives in Baner and works as a nurse.",
    "We had masala dosa at Vaishali on Sunday.",
    "The train to Mumbai leaves at six.",
    "I water the basil every morning.",
]
# How far an int8 copy's cosine may sit from the float one (384 dims: ~1e-3).
QUANTISED = 5e-3
QUERIES = ["who fixes my teeth?", "where does Priya live?", "breakfast last weekend", "plants"]


def _index(mem: AsyncMemory) -> VectorIndex:
    return mem.vector_index


async def _held(mem: AsyncMemory, space: str) -> VectorIndex:
    """Search ``space`` until the index loads it (``vector_memory_after`` = 2)."""
    index = _index(mem)
    for _ in range(2):
        await mem.search("anything at all", space=space)
    await index.settle()
    assert index.holds(space)
    return index


def test_hamming_distances_match_sqlite_vec(tmp_path: Path) -> None:
    """pack_bits quantises like vec_quantize_binary: same distances for every pair."""
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((12, 384)).astype(np.float32)
    words = pack_bits(vectors)
    conn = open_sync(tmp_path / "x.db", busy_timeout_ms=1_000)
    try:
        for a in range(len(vectors)):
            for b in range(len(vectors)):
                (theirs,) = conn.execute(
                    "SELECT vec_distance_hamming(vec_quantize_binary(?), vec_quantize_binary(?))",
                    (vectors[a].tobytes(), vectors[b].tobytes()),
                ).fetchone()
                ours = int(np.bitwise_count(words[a] ^ words[b]).sum())
                assert ours == theirs
    finally:
        conn.close()


def test_coarse_candidates_are_the_exact_hamming_top_k() -> None:
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((500, 384)).astype(np.float32)
    ids = list(range(1000, 1500))
    space = SpaceVectors.build(ids, [v.tobytes() for v in vectors])
    query = rng.standard_normal(384).astype(np.float32)
    distance = (np.bitwise_count(pack_bits(vectors) ^ pack_bits(query[None, :])[0])).sum(axis=1)
    cutoff = np.sort(distance)[19]
    got = space.coarse(query, 20)
    assert len(got) == 20 and all(distance[i] <= cutoff for i in got)
    assert sorted(space.coarse(query, 10_000).tolist()) == list(range(500))


def test_nearest_reranks_the_candidates_by_cosine_on_int8_copies() -> None:
    rng = np.random.default_rng(6)
    vectors = rng.standard_normal((300, 64)).astype(np.float32)
    space = SpaceVectors.build(list(range(300)), [v.tobytes() for v in vectors])
    query = rng.standard_normal(64).astype(np.float32)
    candidates = space.coarse(query, 40)
    cosine = vectors @ query / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query))
    got = space.nearest(query, 40, 10)
    assert np.allclose([s for _, s in got], cosine[[i for i, _ in got]], atol=QUANTISED)
    # The exact order of the candidates, up to swaps within the quantisation's error.
    best = sorted(candidates.tolist(), key=lambda i: -cosine[i])[:10]
    tenth = cosine[best[-1]]
    assert all(cosine[i] >= tenth - 2 * QUANTISED for i, _ in got)
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    assert space.nearest(rng.standard_normal(32).astype(np.float32), 40, 10) == []  # other width


def test_more_hamming_candidates_find_the_exact_top_10_in_a_larger_space() -> None:
    """Clustered vectors, queries near one of them: the exact top 10 sits deep in the
    Hamming order, so a fixed 120 candidates miss much of it and a tenth of the space
    finds it (up to quantisation ties)."""
    rng = np.random.default_rng(8)
    centres = rng.standard_normal((200, 384)).astype(np.float32)
    vectors = centres[rng.integers(0, 200, 20_000)] + rng.standard_normal((20_000, 384)) * 0.7
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    space = SpaceVectors.build(list(range(20_000)), [v.tobytes() for v in vectors])
    queries = vectors[rng.integers(0, 20_000, 20)] + rng.standard_normal((20, 384)) * 0.3

    def recall(count: int) -> float:
        found = 0
        for query in queries.astype(np.float32):
            cosine = vectors @ query / np.linalg.norm(query)
            tenth = np.sort(cosine)[-10]
            found += sum(cosine[i] >= tenth - QUANTISED for i, _ in space.nearest(query, count, 10))
        return found / (10 * len(queries))

    few, many = recall(120), recall(2_000)
    assert many >= 0.97 and few < many - 0.2


async def test_in_memory_hits_and_scores_equal_sqlite_vec(
    amem: AsyncMemory, reader: Reader
) -> None:
    """The statement the search runs, either way: same ids, same cosines (the index's hits
    are scored again on the float copies)."""
    for note in NOTES:
        await amem.add(note, space="alice")
    await amem.flush()
    await amem.vector_index.register(reader)  # the in-memory k-NN, as the memory's reader has it
    await _held(amem, "alice")
    for query in QUERIES:
        vector = amem.embedder.embed([query])[0]
        search = functools.partial(
            nearest, query=vector, space="alice", k=5, oversample=4, use_floor=False
        )
        vec0 = await reader.execute_fn(search)
        held = await reader.execute_fn(functools.partial(search, in_memory=True))
        assert [i for i, _ in held] == [i for i, _ in vec0]
        assert np.allclose([s for _, s in held], [s for _, s in vec0], atol=1e-6)


def test_merging_replaces_and_removes_by_id() -> None:
    rng = np.random.default_rng(9)
    blobs = [v.tobytes() for v in rng.standard_normal((4, 64)).astype(np.float32)]
    held = SpaceVectors.build([1, 2, 3], blobs[:3])
    merged = held.merged({2}, SpaceVectors.build([3, 4], [blobs[0], blobs[3]]))
    assert sorted(merged.ids.tolist()) == [1, 3, 4]
    three = merged.words[:, merged.ids.tolist().index(3)]
    assert np.array_equal(three, held.words[:, 0])  # 3 now carries the vector it was given


def test_new_sentences_past_every_held_id_are_appended_and_old_ids_still_replaced() -> None:
    rng = np.random.default_rng(11)
    blobs = [v.tobytes() for v in rng.standard_normal((6, 64)).astype(np.float32)]
    held = SpaceVectors.build([1, 2, 3], blobs[:3])
    grown = held.merged({4, 5}, SpaceVectors.build([4, 5], blobs[3:5]))  # a turn's new sentences
    assert grown.ids.tolist() == [1, 2, 3, 4, 5]
    assert np.array_equal(grown.words[:, :3], held.words)
    # An id at or below the newest held one (reused after a purge, or imported) replaces.
    again = grown.merged({5, 0}, SpaceVectors.build([5, 0], [blobs[5], blobs[0]]))
    assert sorted(again.ids.tolist()) == [0, 1, 2, 3, 4, 5]
    five = SpaceVectors.build([5], [blobs[5]]).words[:, 0]
    assert np.array_equal(again.words[:, again.ids.tolist().index(5)], five)


def test_appending_leaves_earlier_snapshots_as_they_were() -> None:
    """A search still reading the old snapshot (in the reader's thread) sees no change."""
    rng = np.random.default_rng(12)
    vectors = rng.standard_normal((400, 32)).astype(np.float32)
    blobs = [v.tobytes() for v in vectors]
    held = SpaceVectors.build([0], blobs[:1])
    snapshots = [held]
    for i in range(1, 400):
        held = held.merged({i}, SpaceVectors.build([i], [blobs[i]]))
        snapshots.append(held)
    assert held.nbytes < 1.5 * 400 * (8 + 8 + 32 + 4)  # room grows by a quarter, not per turn
    codes, inverse = quantise(vectors)
    for size, snapshot in enumerate(snapshots, start=1):
        assert snapshot.ids.tolist() == list(range(size))
        assert np.array_equal(snapshot.codes, codes[:size])
        assert np.array_equal(snapshot.inverse, inverse[:size])
    assert np.array_equal(held.words, pack_bits(vectors).T)


@pytest.mark.both_backends
async def test_in_memory_candidates_give_the_same_results_as_vec0(amem: AsyncMemory) -> None:
    for note in NOTES:
        await amem.add(note, space="alice")
    await amem.flush()
    before = [[p.text for p in (await amem.search(q, space="alice")).passages] for q in QUERIES]
    await _held(amem, "alice")
    after = [[p.text for p in (await amem.search(q, space="alice")).passages] for q in QUERIES]
    assert after == before
    assert after[0][0] == NOTES[0]


@pytest.mark.both_backends
async def test_another_processs_writes_and_purges_are_seen(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """Two AsyncMemory objects on one file behave like two processes: no shared memory."""
    async with (
        AsyncMemory(config=config, embedder=embedder) as proxy,
        AsyncMemory(config=config, embedder=embedder) as cli,
    ):
        for note in NOTES:
            await cli.add(note, space="alice")
        await cli.flush()
        index = await _held(proxy, "alice")
        text = "Our cat Miso hides under the sofa during thunderstorms."
        episode = await cli.add(text, space="alice")
        await cli.flush()
        query = embedder.embed(["where does my pet go when it storms?"])[0]
        async with reading(proxy.location) as reader:
            await catch_up(reader, index)
        found = index.nearest("alice", query, 4, 1)
        hit = (await proxy.search("where does my pet go when it storms?", space="alice")).passages
        assert hit[0].text == text and found is not None and found[0][0] == hit[0].sentence_id

        await cli.purge([episode], space="alice")
        async with reading(proxy.location) as reader:
            await catch_up(reader, index)
        assert hit[0].sentence_id not in dict(index.nearest("alice", query, 50, 50) or [])
        texts = [p.text for p in (await proxy.search("cat under the sofa", space="alice")).passages]
        assert text not in texts


@pytest.mark.both_backends
async def test_a_held_space_never_yields_another_spaces_sentences(amem: AsyncMemory) -> None:
    for note in NOTES:
        await amem.add(note, space="alice")
    await amem.add("Bob's dentist is Dr. Shah.", space="bob")
    await amem.flush()
    index = await _held(amem, "bob")
    query = amem.embedder.embed(["dentist"])[0]
    bob_hits = index.nearest("bob", query, 100, 100)
    assert bob_hits is not None and len(bob_hits) == 1
    passages = (await amem.search("dentist", space="bob")).passages
    assert [p.text for p in passages] == ["Bob's dentist is Dr. Shah."]


@pytest.mark.both_backends
async def test_too_many_changes_reload_instead_of_patching(config: OrmaConfig) -> None:
    config = config.model_copy(update={"vector_catch_up_max": 3})
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("one small note", space="s")
        await mem.flush()
        index = await _held(mem, "s")
        for i in range(5):
            await mem.add(f"bulk note number {i}", space="s")
        await mem.flush()
        async with reading(mem.location) as reader:
            await catch_up(reader, index)
        assert not index.holds("s")  # dropped, reloaded on the next search
        await mem.search("bulk", space="s")
        await index.settle()
        assert index.holds("s")
        query = HashingEmbedder().embed(["bulk note number 4"])[0]
        assert len(index.nearest("s", query, 100, 100) or []) == 6


@pytest.mark.parametrize("after", [0, 3])
async def test_loading_waits_for_the_configured_number_of_searches(
    tmp_path: Path, after: int
) -> None:
    config = OrmaConfig(
        home=tmp_path / "home", db_path=tmp_path / "m.db", vector_memory_after=after
    )
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("one small note", space="s")
        await mem.flush()
        index = _index(mem)
        for _ in range(2):
            await mem.search("note", space="s")
        await index.settle()
        assert not index.holds("s")
        await mem.search("note", space="s")
        await index.settle()
        assert index.holds("s") is (after == 3)


async def test_closing_while_a_space_loads_stops_the_load(tmp_path: Path) -> None:
    """The load's worker thread must not finish into a closed event loop.

    (It did when close cancelled the task: the thread ran on, and its result
    reached a closed loop as an unraisable RuntimeError, an error under -W error.)
    """
    config = OrmaConfig(home=tmp_path / "home", db_path=tmp_path / "m.db", synchronous="NORMAL")
    for _ in range(3):
        async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
            if not (await mem.stats()).episodes:
                for i in range(300):
                    await mem.add(f"note {i} about the garden shed and the blue bicycle", space="s")
                await mem.flush()
            for _ in range(2):
                await mem.search("bicycle", space="s")


def test_a_space_emptied_and_filled_again_still_answers() -> None:
    one = np.ones(8, np.float32)
    held = SpaceVectors.build([1], [one.tobytes()])
    emptied = held.merged({1}, SpaceVectors.build([], []))
    assert emptied.size == 0 and emptied.nearest(one, 4, 2) == []
    again = emptied.merged({2}, SpaceVectors.build([2], [(-one).tobytes()]))
    ((found, cosine),) = again.nearest(one, 4, 2)
    assert found == 2 and cosine == pytest.approx(-1.0)


async def test_candidates_grow_with_the_share_of_the_space(tmp_path: Path) -> None:
    """With the whole space as candidates the in-memory k-NN is exact search (on int8)."""
    config = OrmaConfig(
        home=tmp_path / "home", db_path=tmp_path / "m.db", vector_candidate_share=1.0
    )
    embedder = HashingEmbedder()
    texts = [f"note {i} about item {i % 17} and colour {i % 5}" for i in range(200)]
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for text in texts:
            await mem.add(text, space="s")
        await mem.flush()
        index = await _held(mem, "s")
        query = embedder.embed(["item 3 and colour 2"])[0]
        hits = index.nearest("s", query, 1, 10)  # 1 asked, the whole space searched
        assert hits is not None and len(hits) == 10
        cosine = embedder.embed(texts) @ query
        tenth = np.sort(cosine)[-10]
        async with reading(mem.path) as reader:
            rows = await reader.execute_fn(
                lambda c: dict(c.execute("SELECT id, text FROM sentences").fetchall())
            )
        got = [float(embedder.embed([rows[i]])[0] @ query) for i, _ in hits]
        assert all(c >= tenth - QUANTISED for c in got)
