"""Dates are searchable: the day a line was said, and the days it speaks of (issue 17)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.store import open_sync
from orma_proxy.store.migrate import load_migrations, migrate


def local(*parts: int) -> datetime:
    """A local time (date terms are the machine's calendar days, as recall's "today" is)."""
    return datetime(*parts).astimezone()  # type: ignore[arg-type]


# A diary of two friends, each line said on its own day.
DIARY = [
    ("Tomas: I repaired the garden fence yesterday.", local(2024, 3, 11, 18, 0)),
    ("Lena: The choir concert went well.", local(2024, 3, 11, 18, 5)),
    ("Tomas: The fence needs a fresh coat of paint again.", local(2024, 4, 2, 9, 0)),
    ("Lena: I started pottery classes last week.", local(2024, 4, 2, 9, 5)),
    ("Tomas: We planted tomatoes.", local(2024, 5, 20, 10, 0)),
    ("Lena: Our cat had kittens.", local(2024, 5, 21, 10, 0)),
]


async def told(amem: AsyncMemory) -> list[int]:
    return [await amem.add(text, space="diary", at=at) for text, at in DIARY]


@pytest.mark.both_backends
async def test_a_relative_day_is_found_by_the_date_it_means(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    ids = await told(amem)
    # "yesterday", said on 11 March, is 10 March: no word of the line says so.
    for query in ("What happened on 10 March 2024?", "March 10, 2024", "2024-03-10"):
        found = await amem.search(query, space="diary", k=3)
        assert found.passages[0].episode_id == ids[0], query
    # "last week", said on 2 April, is the week of 25 March.
    found = await amem.search("What did Lena do on 27 March 2024?", space="diary", k=3)
    assert found.passages[0].episode_id == ids[3]


@pytest.mark.both_backends
async def test_a_line_is_found_by_the_month_or_day_it_was_said(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    ids = await told(amem)
    found = await amem.search("What happened in May 2024?", space="diary", k=5)
    assert {p.episode_id for p in found.passages} == {ids[4], ids[5]}
    found = await amem.search("What did they say on 21 May 2024?", space="diary", k=1)
    assert found.passages[0].episode_id == ids[5]


@pytest.mark.both_backends
async def test_the_date_picks_between_lines_with_the_same_words(amem: AsyncMemory) -> None:
    ids = await told(amem)
    await amem.flush()
    for query, said in (("the fence in April 2024", 2), ("the fence on 11 March 2024", 0)):
        found = await amem.search(query, space="diary", k=2)
        assert found.passages[0].episode_id == ids[said], query
        block = await amem.recall(query, space="diary")
        assert block.passages[0].episode_id == ids[said], query


@pytest.mark.both_backends
async def test_a_turn_said_on_the_day_named_beats_a_better_worded_one(amem: AsyncMemory) -> None:
    ids = await told(amem)
    later = await amem.add(
        "Tomas: I listened to some music all evening.", space="diary", at=local(2024, 5, 20, 21)
    )
    await amem.flush()
    query = "What music was there on 11 March 2024?"
    # The concert was said that day: its turn is boosted past a line that has the word.
    found = await amem.search(query, space="diary", k=3)
    assert found.passages[0].episode_id == ids[1]
    amem.config.date_boost = 0.0
    found = await amem.search(query, space="diary", k=3)
    assert found.passages[0].episode_id == later


@pytest.mark.both_backends
async def test_a_relative_query_is_read_as_of_its_time(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    ids = await told(amem)
    found = await amem.search("what happened yesterday", space="diary", k=1, at=local(2024, 5, 22))
    assert found.passages[0].episode_id == ids[5]
    found = await amem.search("what happened last week", space="diary", k=2, at=local(2024, 5, 29))
    assert {p.episode_id for p in found.passages} == {ids[4], ids[5]}


@pytest.mark.both_backends
async def test_without_a_date_in_the_query_nothing_changes(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    await told(amem)
    with_dates = await amem.search("the garden fence", space="diary", k=5)
    amem.config.enable_date_terms = False
    without = await amem.search("the garden fence", space="diary", k=5)
    assert [(p.sentence_id, p.score) for p in with_dates.passages] == [
        (p.sentence_id, p.score) for p in without.passages
    ]


def test_the_migration_gives_sentences_stored_before_it_their_dates(tmp_path: Path) -> None:
    conn = open_sync(tmp_path / "old.db", busy_timeout_ms=2_000)
    shipped = load_migrations()
    migrate(conn, [m for m in shipped if m.version <= 11])
    said = local(2024, 3, 11, 18, 0).timestamp()
    conn.execute(
        "INSERT INTO episodes (id, space, role, text, source, said_at, created_at, metadata) "
        "VALUES (1, 'default', 'note', ?, NULL, ?, ?, '{}')",
        (DIARY[0][0], said, said),
    )
    conn.execute(
        "INSERT INTO sentences (episode_id, space, position, start, text, space_tag) "
        "VALUES (1, 'default', 0, 0, 'I repaired the garden fence yesterday.', 'tag')",
    )
    conn.execute("INSERT INTO sentence_fts (sentence_fts) VALUES ('rebuild')")
    migrate(conn, shipped)
    by_date = "SELECT rowid FROM sentence_fts WHERE sentence_fts MATCH ?"
    assert conn.execute(by_date, ("d20240310",)).fetchall() == [(1,)]  # yesterday
    assert conn.execute(by_date, ("d20240311",)).fetchall() == [(1,)]  # said
    assert conn.execute(by_date, ("fence",)).fetchall() == [(1,)]  # the words, as before
    conn.close()
