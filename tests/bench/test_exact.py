"""The bench's recall truth: a repeated sentence ties with itself, whichever id is found."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.exact import Exact
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.store.connect import open_sync
from tests.helpers.embedders import HashingEmbedder

REPEATED = "the apple pie recipe from grandmother"


async def test_a_tie_with_the_kth_counts_as_found_and_other_ids_do_not(tmp_path: Path) -> None:
    config = OrmaConfig(home=tmp_path / "home", db_path=tmp_path / "m.db")
    embedder = HashingEmbedder()
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for _ in range(5):
            await mem.add(REPEATED, space="s")
        for i in range(30):
            await mem.add(f"unrelated note {i} on trains and weather", space="s")
        await mem.flush()
    conn = open_sync(config.db_path, busy_timeout_ms=1_000, read_only=True)
    try:
        rows = conn.execute("SELECT id, text FROM sentences ORDER BY id").fetchall()
        exact = Exact.of_space(conn, "s", embedder.embed([REPEATED]), 3)
    finally:
        conn.close()
    copies = [int(i) for i, text in rows if text == REPEATED]
    others = [int(i) for i, text in rows if text != REPEATED]
    (top,) = exact.top
    assert len(top) == 3 and top <= set(copies)
    outside = [i for i in copies if i not in top]
    recall = exact.recall([[*outside, next(iter(top))]])
    assert recall.ids == 1 / 3 and recall.ties == 1.0
    assert exact.recall([others[:3]]).ties == 0.0
    assert np.isclose(exact.kth[0], 1.0, atol=1e-5)
