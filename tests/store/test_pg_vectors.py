"""pgvector's k-NN filtered by space: exact, never fewer results than the space can give."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.store import Connection, Reader
from orma_proxy.store.postgres.vectors import candidates
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import raw, scalar

GARAGE = [
    "The mechanic replaced the clutch on my old hatchback.",
    "My car needs new brake pads before the trip.",
    "The engine light came on again this morning.",
    "I washed the van and checked the tyre pressure.",
    "The garage quoted a lot for a new gearbox.",
]


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_a_small_space_beside_a_large_one_gets_all_its_nearest_exactly(
    amem: AsyncMemory, reader: Reader
) -> None:
    """A space's k-NN scans that space's vectors exactly (no HNSW index, whose filtered
    search left none of the garage's among the kitchen's nearest): every one of them, with
    its exact cosine, best first, and nothing of another space."""
    for i in range(120):
        await amem.add(f"Step {i}: knead the dough, let it rise, bake the bread.", "kitchen")
    for line in GARAGE:
        await amem.add(line, "garage")
    await amem.flush()
    query = amem.embedder.embed(["how long should the bread dough rise before baking?"])[0]

    def indexes(conn: Connection) -> list[str]:
        sql = "SELECT indexdef FROM pg_indexes WHERE tablename = 'sentence_vectors'"
        return [str(r[0]) for r in conn.execute(sql).fetchall()]

    assert not any("hnsw" in d for d in await reader.execute_fn(indexes))
    found = await reader.execute_fn(lambda c: candidates(c, query, "garage", 20))
    assert len(found) == len(GARAGE)

    def garage(conn: Connection) -> dict[int, np.ndarray]:
        sql = "SELECT sentence_id, embedding FROM sentence_vectors WHERE space = 'garage'"
        return {int(r[0]): np.frombuffer(r[1], dtype=np.float32) for r in conn.execute(sql)}

    vectors = await reader.execute_fn(garage)
    cosine = {
        i: float(v @ query / np.linalg.norm(v) / np.linalg.norm(query)) for i, v in vectors.items()
    }
    assert [i for i, _ in found] == sorted(cosine, key=lambda i: -cosine[i])
    assert [s for _, s in found] == pytest.approx([cosine[i] for i, _ in found], abs=1e-5)
    assert len(await reader.execute_fn(lambda c: candidates(c, query, "garage", 2))) == 2
    result = await amem.search("car brakes", space="garage", k=3)
    assert result.passages[0].text == GARAGE[1]


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_an_older_databases_hnsw_index_is_dropped_when_it_opens(config: OrmaConfig) -> None:
    """Migration 0008: the index an older version kept on every insert is gone."""
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        await mem.add("The garage quoted a lot for a new gearbox.", "garage")
        await mem.flush()
    assert isinstance(config.db_url, str)
    with raw(config.db_url) as conn:  # as an older version left it
        conn.execute(
            "CREATE INDEX sentence_vectors_hnsw ON sentence_vectors "
            "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 128)"
        )
        conn.execute("DELETE FROM schema_migrations WHERE version = 8")
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        assert (await mem.search("gearbox", space="garage")).passages
    assert scalar(config.db_url, "SELECT to_regclass('sentence_vectors_hnsw')") is None
    assert scalar(config.db_url, "SELECT max(version) FROM schema_migrations") == 8


def test_a_sqlite_only_process_never_imports_psycopg() -> None:
    """psycopg costs ~0.17 s to import: only a PostgreSQL memory pays for it."""
    code = (
        "import sys, orma_proxy.cli.app, orma_proxy.server.app, orma_proxy.store; "
        "print('psycopg' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
