"""A space whose keyword postings are held is searched without FTS5, name lookups included.

FTS5's ``bm25()`` scores every posting of a word: at a million sentences one
common name costs a search ~5 ms, so nothing of a held space's search may fall
back to it.
"""

from __future__ import annotations

from pathlib import Path

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Vectors
from orma_proxy.recall.search import hybrid_search
from orma_proxy.store import open_async
from orma_proxy.store.connect import Connection
from tests.helpers.embedders import HashingEmbedder

LINES = [
    "Tobiah, did you pack the lantern for the trip?",
    "Tobiah said the lantern is in the blue bag.",
    "The trip to the lake starts on Friday.",
    "Wren booked the cabin by the lake.",
]


async def test_a_held_spaces_search_runs_no_fts5_statement(tmp_path: Path) -> None:
    config = OrmaConfig(home=tmp_path / "home", db_path=tmp_path / "m.db")
    embedder = HashingEmbedder()
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for line in LINES:
            await mem.add(line, space="s")
        for _ in range(2):  # keyword_memory_after: the postings load after two searches
            await mem.search("anything at all", space="s")
        await mem.flush()
        assert mem.keyword_index.holds("s")
        reader = await open_async(mem.path, busy_timeout_ms=1000, read_only=True)
        statements: list[str] = []

        def trace(conn: Connection) -> None:
            conn.set_trace_callback(statements.append)

        async def embed(text: str) -> Vectors:
            vector: Vectors = embedder.embed([text])[0]
            return vector

        try:
            await reader.execute_fn(trace)
            query = "What did Tobiah say about the lantern?"  # a name: the listener lookup
            found = await hybrid_search(
                reader, embed, query, "s", k=3, config=config, keywords=mem.keyword_index
            )
        finally:
            await reader.close()
    assert found[0].text == LINES[1]
    assert statements  # the trace saw the search's statements
    assert not [s for s in statements if "sentence_fts" in s]  # FTS5's table
