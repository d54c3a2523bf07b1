"""Sentences and every index over them, written in one place.

A sentence lives in four places: its row, the FTS5 index (external content, so
its postings are written and deleted by hand), the CJK character pairs
(``sentence_grams``, kept by triggers on the row) and its vectors (bit and
float; ``vector_changes`` logs each change by trigger, for the in-memory index).
Adding, importing, rebuilding and purging all change sentences through these
functions, so none of them can leave an index behind.

Each function is a plain sync function of a DB-API connection, run inside a
write job (``Writer.execute_write_fn``): the caller's transaction holds it. The
arguments and results are plain values, never SQL, so another backend could
stand behind the same functions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from orma_proxy.store.connect import Connection
from orma_proxy.store.postgres.connection import is_postgres
from orma_proxy.store.postgres.vectors import drop_vectors
from orma_proxy.store.vectors import VEC_TABLE
from orma_proxy.text.dates import date_terms_or_none

_IN_IDS = "IN (SELECT value FROM json_each(?))"
_INDEXES = ("sentence_fts", "sentence_grams")
EVERY_SENTENCE = -1  # a ``keyword_changes`` row that means "reload": the index was rebuilt


@dataclass(frozen=True)
class NewSentence:
    """A sentence to store: where it sits in its episode, and its marks (if it keeps any)."""

    episode_id: int
    space: str
    space_tag: str
    position: int
    start: int
    text: str
    superseded_by: int | None = None
    released_by: int | None = None
    id: int | None = None  # None: the next free id (an import keeps the exported ones)


def insert_sentences(conn: Connection, sentences: Sequence[NewSentence]) -> list[int]:
    """Store the sentences and index them for keyword search at once; their ids, in order.

    Each is indexed with the date terms of when its episode was said and of the
    dates it speaks of (``text/dates.py``); its episode must be stored first.
    Their CJK pairs follow by trigger; vectors later, from the indexer.
    """
    said = dict(
        conn.execute(
            f"SELECT id, said_at FROM episodes WHERE id {_IN_IDS}",
            (json.dumps(sorted({s.episode_id for s in sentences})),),
        ).fetchall()
    )
    dates = [date_terms_or_none(s.text, said.get(s.episode_id)) for s in sentences]
    ids = []
    for s, terms in zip(sentences, dates, strict=True):
        cursor = conn.execute(
            "INSERT INTO sentences (id, episode_id, space, position, start, text, space_tag, "
            "superseded_by, released_by, dates) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (s.id, s.episode_id, s.space, s.position, s.start, s.text, s.space_tag,
             s.superseded_by, s.released_by, terms),
        )  # fmt: skip
        ids.append(int(cursor.fetchone()[0]))
    if is_postgres(conn):  # its keyword columns are generated from the row
        return ids
    conn.executemany(
        "INSERT INTO sentence_fts (rowid, text, space_tag, dates) VALUES (?, ?, ?, ?)",
        [(i, s.text, s.space_tag, d) for i, s, d in zip(ids, sentences, dates, strict=True)],
    )
    return ids


def delete_sentences(conn: Connection, ids: Iterable[int]) -> None:
    """Remove the sentences from every index, then their rows (CJK pairs go by trigger).

    Whatever cites them (states, events, the access log) is the caller's to
    move or delete first.
    """
    ids = list(ids)
    if not ids:
        return
    listed = json.dumps(ids)
    if is_postgres(conn):  # its keyword columns go with the row
        conn.execute(f"DELETE FROM sentence_vectors WHERE sentence_id {_IN_IDS}", (listed,))
        conn.execute(f"DELETE FROM sentences WHERE id {_IN_IDS}", (listed,))
        return
    conn.execute(
        "INSERT INTO sentence_fts (sentence_fts, rowid, text, space_tag, dates) "
        f"SELECT 'delete', id, text, space_tag, dates FROM sentences WHERE id {_IN_IDS}",
        (listed,),
    )
    # vec0 finds rows by key only through equality: one point delete per sentence.
    conn.executemany(f"DELETE FROM {VEC_TABLE} WHERE sentence_id = ?", [(i,) for i in ids])
    conn.execute(f"DELETE FROM sentence_vectors WHERE sentence_id {_IN_IDS}", (listed,))
    conn.execute(f"DELETE FROM sentences WHERE id {_IN_IDS}", (listed,))


def move_citations(conn: Connection, old: int, new: int) -> None:
    """What cites sentence ``old`` (states, events, its recall history) now cites ``new``.

    Several old sentences may map to one new one: their histories are joined.
    """
    for sql in (
        "UPDATE states SET sentence_id = ? WHERE sentence_id = ?",
        "UPDATE events SET sentence_id = ? WHERE sentence_id = ?",
    ):
        conn.execute(sql, (new, old))
    conn.execute(
        "INSERT INTO recall_history (space, kind, item_id, times) "
        "SELECT space, kind, ?, times FROM recall_history "
        "WHERE kind = 'passage' AND item_id = ? "
        "ON CONFLICT (space, kind, item_id) "
        "DO UPDATE SET times = recall_history.times || excluded.times",
        (new, old),
    )
    conn.execute("DELETE FROM recall_history WHERE kind = 'passage' AND item_id = ?", (old,))


def optimize_sentence_indexes(conn: Connection) -> None:
    """Merge the keyword indexes' segments, so no old segment keeps a deleted term.

    PostgreSQL's GIN indexes drop a deleted row's entries at its VACUUM (docs/postgresql.md).
    """
    if is_postgres(conn):
        return
    for index in _INDEXES:
        conn.execute(f"INSERT INTO {index} ({index}) VALUES ('optimize')")


def reindex_sentences(conn: Connection) -> None:
    """Rebuild FTS5 from the sentences and drop every vector, for the indexer to embed again.

    Processes holding keyword postings (``keyword_index.py``) load them again from FTS5.
    """
    if is_postgres(conn):  # its keyword columns are generated: nothing to rebuild
        drop_vectors(conn)
        return
    conn.execute("INSERT INTO sentence_fts (sentence_fts) VALUES ('rebuild')")
    conn.execute(f"INSERT INTO keyword_changes (sentence_id) VALUES ({EVERY_SENTENCE})")
    conn.execute(f"DELETE FROM {VEC_TABLE}")
    conn.execute("DELETE FROM sentence_vectors")
    conn.execute("DELETE FROM space_stats")
    conn.execute("UPDATE sentences SET embedded = 0")


def split_sentence(
    conn: Connection, sentence_id: int, cuts: Sequence[tuple[int, int]]
) -> list[int]:
    """Sentence ``sentence_id`` as several, one per span of its text (offsets in the sentence).

    The words stay exactly as stored: each new sentence is a span of the same
    episode, with the old one's marks; the spans between cuts (a joining space)
    belong to no sentence. What cited the old sentence cites the first new one;
    sentences after it in the episode move down. Vectors follow from the
    indexer. The new ids, in the order of ``cuts``.
    """
    row = conn.execute(
        "SELECT episode_id, space, position, start, text, space_tag, superseded_by, released_by "
        "FROM sentences WHERE id = ?",
        (sentence_id,),
    ).fetchone()
    if row is None:
        raise KeyError(sentence_id)
    episode_id, space, position, start, text, tag, superseded_by, released_by = row
    conn.execute(
        "UPDATE sentences SET position = position + ? WHERE episode_id = ? AND position > ?",
        (len(cuts) - 1, episode_id, position),
    )
    pieces = [
        NewSentence(episode_id, space, tag, position + i, start + a, text[a:b],
                    superseded_by, released_by)
        for i, (a, b) in enumerate(cuts)
    ]  # fmt: skip
    ids = insert_sentences(conn, pieces)
    move_citations(conn, sentence_id, ids[0])
    delete_sentences(conn, [sentence_id])
    return ids
