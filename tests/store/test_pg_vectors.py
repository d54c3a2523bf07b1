"""pgvector's k-NN filtered by space: never fewer results than the space can give."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from orma_proxy import AsyncMemory
from orma_proxy.store import Connection, Reader
from orma_proxy.store.postgres.vectors import HNSW_SQL, candidates

GARAGE = [
    "The mechanic replaced the clutch on my old hatchback.",
    "My car needs new brake pads before the trip.",
    "The engine light came on again this morning.",
    "I washed the van and checked the tyre pressure.",
    "The garage quoted a lot for a new gearbox.",
]


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_a_filtered_hnsw_search_that_comes_back_short_is_done_exactly(
    amem: AsyncMemory, reader: Reader
) -> None:
    for i in range(120):
        await amem.add(f"Step {i}: knead the dough, let it rise, bake the bread.", "kitchen")
    for line in GARAGE:
        await amem.add(line, "garage")
    await amem.flush()
    query = amem.embedder.embed(["how long should the bread dough rise before baking?"])[0]
    params = {"q": np.asarray(query, dtype=np.float32), "space": "garage", "kc": 20}

    def hnsw_alone(conn: Connection) -> list[int]:
        # So few rows would be sorted whole; a large table's plan is the index's, as here.
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
            conn.execute(f"SET {setting} = off")
        conn.execute("SELECT set_config('hnsw.ef_search', '40', false)")
        return [int(r[0]) for r in conn.execute(HNSW_SQL, params).fetchall()]

    # The index's 40 nearest are all the kitchen's: the space filter leaves none of the garage.
    assert await reader.execute_fn(hnsw_alone) == []
    found = await reader.execute_fn(
        lambda c: candidates(c, query, "garage", 20, exact_under=0)  # always the index first
    )
    assert len(found) == len(GARAGE)
    exact = await reader.execute_fn(lambda c: candidates(c, query, "garage", 20, exact_under=100))
    assert found == exact
    amem.config.vector_exact_under = 0
    result = await amem.search("car brakes", space="garage", k=3)
    assert result.passages[0].text == GARAGE[1]


def test_a_sqlite_only_process_never_imports_psycopg() -> None:
    """psycopg costs ~0.17 s to import: only a PostgreSQL memory pays for it."""
    code = (
        "import sys, orma_proxy.cli.app, orma_proxy.server.app, orma_proxy.store; "
        "print('psycopg' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
