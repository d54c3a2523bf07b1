"""Episodes: append-only rows with every field kept, split into indexed sentences."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.errors import InputError
from orma_proxy.inputs import ROLES
from orma_proxy.store.connect import DatabaseError, open_sync
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import raw, rows, scalar


async def test_every_field_is_stored_as_given(amem: AsyncMemory) -> None:
    said = datetime(2024, 3, 5, 9, 30, tzinfo=UTC)
    before = time.time()
    episode_id = await amem.add(
        "Meeting notes. We chose SQLite.",
        space="team",
        role="document",
        at=said,
        source="notes/2024-03-05.md",
        metadata={"author": "Asha", "tags": ["db", "décision"]},
    )
    after = time.time()
    [row] = rows(
        amem.path,
        "SELECT id, space, role, text, source, said_at, created_at, metadata "
        "FROM episodes WHERE id = ?",
        episode_id,
    )
    assert row[:5] == (
        episode_id,
        "team",
        "document",
        "Meeting notes. We chose SQLite.",
        "notes/2024-03-05.md",
    )
    assert row[5] == said.timestamp()
    assert before <= row[6] <= after
    assert row[7] == '{"author": "Asha", "tags": ["db", "décision"]}'


@pytest.mark.parametrize(
    "at",
    [
        datetime(2023, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        "2023-01-02T03:04:05+05:30",
        1672608845.0,
        1672608845,
    ],
)
async def test_at_sets_when_it_was_said(amem: AsyncMemory, at: object) -> None:
    await amem.add("The office moved to Baner.", at=at)  # type: ignore[arg-type]
    found = await amem.search("office moved")
    assert found.passages[0].said_at == datetime(2023, 1, 1, 21, 34, 5, tzinfo=UTC)


@pytest.mark.parametrize("at", ["last tuesday", float("nan"), float("inf"), True, [2024]])
async def test_a_bad_at_is_an_input_error(amem: AsyncMemory, at: object) -> None:
    with pytest.raises(InputError, match="at must be"):
        await amem.add("When was this?", at=at)  # type: ignore[arg-type]


async def test_the_five_roles_and_no_others(amem: AsyncMemory) -> None:
    assert ROLES == ("user", "assistant", "note", "document", "tool")
    for role in ROLES:
        await amem.add(f"A {role} turn.", role=role)
    with pytest.raises(InputError, match="role must be one of"):
        await amem.add("A system prompt.", role="system")
    with raw(amem.path) as conn:
        assert [r[0] for r in conn.execute("SELECT role FROM episodes ORDER BY id")] == list(ROLES)
    # The schema enforces it too. In a thread: the writer may be mid-transaction,
    # and blocking this event loop would keep it from ever finishing.
    with pytest.raises(DatabaseError, match="CHECK constraint"):
        await asyncio.to_thread(insert_raw_episode, amem.path, "system")


def insert_raw_episode(path: Path, role: str) -> None:
    conn = open_sync(path, busy_timeout_ms=15_000)
    try:
        conn.execute(
            "INSERT INTO episodes (space, role, text, said_at, created_at) "
            "VALUES ('default', ?, 'x', 0, 0)",
            (role,),
        )
    finally:
        conn.close()


async def test_adding_the_same_text_twice_appends_two_episodes(amem: AsyncMemory) -> None:
    first = await amem.add("I like green tea.")
    second = await amem.add("I like green tea.")
    assert second > first
    assert (await amem.stats()).episodes == 2


async def test_sentences_are_split_and_indexed_for_words_at_once(config: OrmaConfig) -> None:
    config.max_sentence_chars = 40
    text = (
        "My dentist is Dr. Rao. "
        "She has a small clinic near the old banyan tree on the corner of the market road. "
        "Appointments on Fridays."
    )
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        episode_id = await mem.add(text)
        sentences = rows(
            mem.path,
            "SELECT position, start, text FROM sentences WHERE episode_id = ? ORDER BY position",
            episode_id,
        )
        banyan = rows(mem.path, "SELECT rowid FROM sentence_fts WHERE sentence_fts MATCH 'banyan'")
        texts = [str(r[2]) for r in sentences]
        assert texts[0] == "My dentist is Dr. Rao."
        assert texts[-1] == "Appointments on Fridays."
        assert len(texts) > 3  # the long middle sentence was cut
        assert all(len(t) <= 40 for t in texts)
        assert [r[0] for r in sentences] == list(range(len(sentences)))
        assert all(text[int(start) : int(start) + len(t)] == t for (_, start, t) in sentences)
        assert len(banyan) == 1  # in the full-text index before add() returned

        await mem.flush()
        assert scalar(mem.path, "SELECT count(*) FROM sentences WHERE embedded = 0") == 0
        counts = [
            scalar(mem.path, f"SELECT count(*) FROM {table}")
            for table in ("sentences", "sentence_vectors", "sentence_vec")
        ]
        assert counts == [len(sentences)] * 3


def _keyword_index_in_step(path: Path) -> None:
    """FTS5's own check that its index holds exactly the sentences' words (raises if not)."""
    conn = open_sync(path, busy_timeout_ms=15_000)
    try:
        conn.execute("INSERT INTO sentence_fts (sentence_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()


async def test_the_keyword_index_follows_sentences_however_they_come_and_go(
    tmp_path: Path,
) -> None:
    """add, purge, rebuild (re-split) and import each keep the BM25 index in step."""

    def config(name: str, chars: int) -> OrmaConfig:
        return OrmaConfig(home=tmp_path / "home", db_path=tmp_path / name, max_sentence_chars=chars)

    long_note = (
        "The old banyan tree shades the market road where my dentist keeps her clinic, "
        "two doors from the tailor who fixed my blue jacket last spring."
    )
    exported = tmp_path / "memory.jsonl"
    async with AsyncMemory(config=config("m.db", 40), embedder=HashingEmbedder()) as mem:
        await mem.add(long_note)
        gone = await mem.add("The neighbour's parrot says hello every morning.")
        await mem.purge([gone])
        await mem.export_jsonl(exported)
    _keyword_index_in_step(tmp_path / "m.db")
    parrot = "SELECT 1 FROM sentence_fts WHERE sentence_fts MATCH 'parrot'"
    assert not rows(tmp_path / "m.db", parrot)

    async with AsyncMemory(config=config("m.db", 400), embedder=HashingEmbedder()) as mem:
        report = await mem.rebuild()
        assert report.sentences == 1  # the note is one sentence now, not four
    _keyword_index_in_step(tmp_path / "m.db")

    async with AsyncMemory(config=config("copy.db", 400), embedder=HashingEmbedder()) as mem:
        await mem.import_jsonl(exported)
        hits = (await mem.search("jacket")).passages  # exported as four 40-character pieces
        assert hits and hits[0].text == "fixed my blue jacket last spring."
    _keyword_index_in_step(tmp_path / "copy.db")
