"""Sentences and their indexes change together: FTS5, CJK pairs and vectors, on a real file."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from orma_proxy import OrmaConfig
from orma_proxy.store import (
    Connection,
    Database,
    NewSentence,
    delete_sentences,
    insert_sentences,
    space_tag,
    store_vectors,
)
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import rows

TEXTS = ["Asha moved to Pune in May.", "我的牙医是王医生", "Ravi drinks tea."]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    config = OrmaConfig(home=tmp_path / "home", db_path=tmp_path / "memory.db")
    opened = await Database.open(config, lambda _: HashingEmbedder())
    try:
        yield opened
    finally:
        await opened.close()


async def stored(db: Database, space: str = "default") -> list[int]:
    """Three sentences of one episode, with vectors."""

    def write(conn: Connection) -> list[int]:
        episode = conn.execute(
            "INSERT INTO episodes (space, role, text, said_at, created_at, metadata) "
            "VALUES (?, 'user', ?, 0, 0, '{}') RETURNING id",
            (space, " ".join(TEXTS)),
        ).fetchone()[0]
        at = 0
        sentences = []
        for position, text in enumerate(TEXTS):
            sentences.append(NewSentence(episode, space, space_tag(space), position, at, text))
            at += len(text) + 1
        return insert_sentences(conn, sentences)

    ids = await db.writer.execute_write_fn(write)
    vectors = HashingEmbedder().embed(TEXTS)
    await db.writer.execute_write_fn(
        lambda conn: store_vectors(conn, [(i, space) for i in ids], vectors)
    )
    return ids


def matches(path: Path, index: str, query: str) -> list[int]:
    return [
        int(r[0]) for r in rows(path, f"SELECT rowid FROM {index} WHERE {index} MATCH ?", query)
    ]


async def test_inserted_sentences_are_found_by_keyword_and_by_cjk_pair(db: Database) -> None:
    ids = await stored(db)
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert rows(db.path, "SELECT text FROM sentences ORDER BY id") == [(t,) for t in TEXTS]
    assert matches(db.path, "sentence_fts", "pune") == [ids[0]]
    assert matches(db.path, "sentence_fts", "tea") == [ids[2]]
    assert matches(db.path, "sentence_grams", '"牙医"') == [ids[1]]


async def test_deleting_sentences_leaves_no_index_behind(db: Database) -> None:
    ids = await stored(db)
    gone, kept = ids[:2], ids[2]
    await db.writer.execute_write_fn(lambda conn: delete_sentences(conn, gone))
    listed = json.dumps(gone)
    assert rows(db.path, "SELECT id FROM sentences") == [(kept,)]
    assert matches(db.path, "sentence_fts", "pune") == []
    assert matches(db.path, "sentence_grams", '"牙医"') == []
    assert matches(db.path, "sentence_fts", "tea") == [kept]
    for table in ("sentence_vec", "sentence_vectors"):
        assert rows(db.path, f"SELECT sentence_id FROM {table} ORDER BY 1") == [(kept,)]
    # every process holding vectors in memory learns of the deletions
    logged = rows(
        db.path,
        "SELECT DISTINCT sentence_id FROM vector_changes "
        "WHERE sentence_id IN (SELECT value FROM json_each(?)) ORDER BY 1",
        listed,
    )
    assert logged == [(i,) for i in gone]
    # what is left still searches by vector
    query = np.asarray(HashingEmbedder().embed([TEXTS[2]])[0], dtype=np.float32).tobytes()
    found = rows(
        db.path,
        "SELECT sentence_id FROM sentence_vec WHERE embedding MATCH vec_quantize_binary(?) "
        "AND k = 5 AND space = 'default'",
        query,
    )
    assert found == [(kept,)]


async def test_a_failed_job_keeps_every_index_as_it_was(db: Database) -> None:
    ids = await stored(db)

    def delete_then_fail(conn: Connection) -> None:
        delete_sentences(conn, ids)
        raise ValueError("changed my mind")

    with pytest.raises(ValueError, match="changed my mind"):
        await db.writer.execute_write_fn(delete_then_fail)
    assert matches(db.path, "sentence_fts", "pune") == [ids[0]]
    assert matches(db.path, "sentence_grams", '"牙医"') == [ids[1]]
    assert len(rows(db.path, "SELECT 1 FROM sentence_vectors")) == 3
