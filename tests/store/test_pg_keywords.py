"""PostgreSQL's keyword channel: BM25 over the postings the triggers keep (migration 0004)."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.store import Connection, Reader

OFTEN = "The otter dives, the otter surfaces, and the otter dives again."
ONCE = "We saw one otter at the river this morning, near the old bridge by the mill."
ELSEWHERE = "An otter at the zoo."


def _postings(conn: Connection) -> list[tuple[str, str, int]]:
    rows = conn.execute(
        "SELECT t.space, s.text, t.f FROM sentence_terms t "
        "JOIN sentences s ON s.id = t.sentence_id "
        "WHERE t.lexeme = 'otter' ORDER BY t.space, t.f DESC"
    ).fetchall()
    return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_keyword_postings_follow_the_sentences_and_rank_by_bm25(
    amem: AsyncMemory, reader: Reader
) -> None:
    await amem.add(ONCE, "river")
    await amem.add(OFTEN, "river")
    await amem.add(ELSEWHERE, "zoo")
    assert await reader.execute_fn(_postings) == [
        ("river", OFTEN, 3),
        ("river", ONCE, 1),
        ("zoo", ELSEWHERE, 1),
    ]
    amem.config.enable_semantic = False  # the keyword channel's order alone
    found = await amem.search("otter", space="river")
    # Three otters in a short sentence outrank one in a long one; the zoo's is not the river's.
    assert [p.text for p in found.passages] == [OFTEN, ONCE]
    await amem.purge("surfaces", space="river")
    assert await reader.execute_fn(_postings) == [("river", ONCE, 1), ("zoo", ELSEWHERE, 1)]
    assert [p.text for p in (await amem.search("otter", space="river")).passages] == [ONCE]
