"""Ranking: boosts reorder near-ties but never lift an unrelated item over an exact match;
the novelty gate drops near-duplicate passages."""

from __future__ import annotations

import numpy as np
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.recall.candidates import Candidate
from orma_proxy.recall.rank import novelty_gate, score
from orma_proxy.recall.temporal import SECONDS_PER_DAY, History
from orma_proxy.store import Access, add_accesses
from tests.helpers.rawdb import writing
from tests.helpers.recall_store import Store, ts

NOW = "2026-11-01T10:00:00+05:30"
MINUTE = 60.0


async def accessed(mem: AsyncMemory, sentence: int, times: list[float]) -> None:
    """Pretend recall returned ``sentence`` at ``times`` (the access log, written directly)."""
    rows = [Access("default", "passage", sentence, t) for t in times]
    async with writing(mem.location) as own:
        await own.execute_write_fn(lambda conn: add_accesses(conn, rows, keep=len(rows)))


def passage_ids(block_passages: list[object]) -> list[int]:
    return [p.sentence_id for p in block_passages]  # type: ignore[attr-defined]


@pytest.mark.both_backends
async def test_no_boost_lifts_an_unrelated_item_over_an_exact_match(amem: AsyncMemory) -> None:
    store = Store(amem)
    passport = await store.say("My passport number is K8841207.", "2026-03-01T09:00:00+05:30")
    jazz = await store.say("I listen to jazz while cooking.", "2026-10-31T09:00:00+05:30")
    now = ts(NOW)
    # Jazz: recalled every minute for the last hour and on each of the last 60 days.
    await accessed(amem, jazz, [now - m * MINUTE for m in range(1, 61)])
    await accessed(amem, jazz, [now - d * SECONDS_PER_DAY for d in range(1, 61)])
    await amem.flush()
    block = await amem.recall("What is my passport number?", at=NOW)
    assert passage_ids(block.passages)[0] == passport
    cands = [
        Candidate(("passage", 1), History(now - 200 * SECONDS_PER_DAY), relevance=1.0),
        Candidate(
            ("passage", 2),
            History(now - MINUTE, 50, now - MINUTE, tuple(now - m for m in range(60))),
            relevance=0.3,
            activation=1e6,
        ),
    ]
    ranked = score(cands, {}, now, amem.config)
    unrelated = next(c for c in ranked if c.key[1] == 2)
    assert sum(unrelated.boosts.values()) > 0.5  # every boost near its ceiling...
    assert ranked[0].key == ("passage", 1)  # ...and still under the exact match


@pytest.mark.parametrize("recent", ["apples", "pears"])
@pytest.mark.both_backends
async def test_a_recent_burst_reorders_a_near_tie(amem: AsyncMemory, recent: str) -> None:
    store = Store(amem)
    apples = await store.say(
        "On Sunday I bought apples at the market.", "2026-10-20T09:00:00+05:30"
    )
    pears = await store.say("On Sunday I bought pears at the market.", "2026-10-20T09:00:00+05:30")
    chosen = apples if recent == "apples" else pears
    await accessed(amem, chosen, [ts(NOW) - 5 * MINUTE])
    await amem.flush()
    block = await amem.recall("What did I buy at the market on Sunday?", at=NOW)
    assert passage_ids(block.passages)[:2] == [chosen, pears if chosen == apples else apples]


def test_novelty_gate_keeps_the_better_of_two_near_duplicates() -> None:
    a = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    near = np.array([0.98, 0.199, 0.0], dtype=np.float32)
    near /= np.linalg.norm(near)
    far = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    cands = [Candidate(("passage", i), History(0.0), score=1.0 - i / 10) for i in (1, 2, 3)] + [
        Candidate(("state", 2), History(0.0), score=0.1)
    ]
    kept = novelty_gate(cands, {1: a, 2: near, 3: far}, threshold=0.97)
    assert float(a @ near) >= 0.97
    assert [c.key for c in kept] == [("passage", 1), ("passage", 3), ("state", 2)]


@pytest.mark.parametrize("gate", [True, False])
@pytest.mark.both_backends
async def test_novelty_gate_in_recall(
    config: OrmaConfig, embedder: OnnxEmbedder, gate: bool
) -> None:
    config = config.model_copy(update={"enable_novelty_gate": gate})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        store = Store(mem)
        first = await store.say("My sister Asha lives in Mumbai.", "2026-10-01T09:00:00+05:30")
        again = await store.say("my sister Asha lives in Mumbai", "2026-10-02T09:00:00+05:30")
        await mem.flush()
        block = await mem.recall("Where does my sister Asha live?", at=NOW)
    found = set(passage_ids(block.passages))
    assert (found >= {first, again}) is not gate
    assert found & {first, again}


def test_boost_weights_that_could_outweigh_a_match_are_refused() -> None:
    with pytest.raises(ValueError, match="must stay under 1"):
        OrmaConfig(activation_weight=0.6, hawkes_weight=0.4)
