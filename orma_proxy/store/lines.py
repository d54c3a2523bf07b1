"""Sentences and episodes found by id, by the text they hold or by topic; a correction's marks.

What forgetting reads to decide what it touches (``forget/match.py`` decides,
these answer). A text match is a substring test, case-insensitive for ASCII
letters only (SQLite's ``lower()``): predictable, never fuzzy where deleting
is concerned; ``store/tombstones.py`` matches the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from orma_proxy.store.connect import Connection
from orma_proxy.store.episodes import space_tag
from orma_proxy.store.postgres.connection import is_postgres
from orma_proxy.store.postgres.search import on_topic as pg_on_topic
from orma_proxy.store.rows import IN_IDS, id_list, int_column, iter_named, named_rows

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors


def sentence_texts(conn: Connection, sentence_ids: Iterable[int]) -> list[str]:
    """The text of these sentences, in id order."""
    rows = named_rows(
        conn, f"SELECT text FROM sentences WHERE id {IN_IDS} ORDER BY id", (id_list(sentence_ids),)
    )
    return [str(r["text"]) for r in rows]


def _ids(conn: Connection, table: str, where: str, *args: object) -> list[int]:
    return int_column(conn, f"SELECT id FROM {table} WHERE {where} ORDER BY id", args)


# The text match: ``text`` holds the bound text, ASCII letters folded.
_HOLDS = "instr(lower(text), lower(?)) > 0"


def current_sentences(conn: Connection, sentence_ids: Iterable[int]) -> list[int]:
    """Those of these sentences no correction has superseded, in id order."""
    where = f"id {IN_IDS} AND superseded_by IS NULL"
    return _ids(conn, "sentences", where, id_list(sentence_ids))


def sentences_saying(conn: Connection, space: str, text: str) -> list[int]:
    """The sentences of ``space`` holding ``text`` that no correction superseded, in id order."""
    where = f"space = ? AND superseded_by IS NULL AND {_HOLDS}"
    return _ids(conn, "sentences", where, space, text)


def sentences_of_episodes(conn: Connection, episode_ids: Iterable[int]) -> list[int]:
    """Every sentence of these episodes, in id order."""
    return _ids(conn, "sentences", f"episode_id {IN_IDS}", id_list(episode_ids))


def episodes_saying(conn: Connection, space: str, text: str) -> list[int]:
    """The episodes of ``space`` holding ``text``, in id order."""
    return _ids(conn, "episodes", f"space = ? AND {_HOLDS}", space, text)


def episodes_in_space(conn: Connection, space: str, episode_ids: Iterable[int]) -> list[int]:
    """Those of these episodes that exist in ``space``, in id order."""
    return _ids(conn, "episodes", f"space = ? AND id {IN_IDS}", space, id_list(episode_ids))


def on_topic(
    conn: Connection,
    space: str,
    words: Sequence[str],
    vector: Vectors,
    *,
    threshold: float,
    limit: int,
) -> list[int]:
    """Shown sentences of ``space`` holding every one of ``words`` or near ``vector``, best first.

    Near: a cosine similarity of at least ``threshold``, and never less than
    the space's noise floor. Those holding the words come first, then by
    similarity. The scan is exact (no k-NN): every shown sentence of the space is compared.
    """
    if is_postgres(conn):
        return pg_on_topic(conn, space, words, vector, threshold=threshold, limit=limit)
    terms = " AND ".join('"' + w.replace('"', '""') + '"' for w in words)  # words, never syntax
    lexical = (
        "s.id IN (SELECT rowid FROM sentence_fts WHERE sentence_fts MATCH :terms)" if words else "0"
    )
    floor = "coalesce((SELECT noise_floor FROM space_stats WHERE space = :space), :threshold)"
    return int_column(
        conn,
        f"SELECT s.id, {lexical} AS lexical, "
        "coalesce(1.0 - vec_distance_cosine(v.embedding, :q), -1.0) AS sim "
        "FROM sentences s LEFT JOIN sentence_vectors v ON v.sentence_id = s.id "
        "WHERE s.space = :space AND s.released_by IS NULL AND s.superseded_by IS NULL "
        f"AND (lexical OR sim >= max(:threshold, {floor})) "
        "ORDER BY lexical DESC, sim DESC, s.id LIMIT :limit",
        {
            "terms": f"space_tag:{space_tag(space)} AND {terms}",
            "q": np.ascontiguousarray(vector, dtype=np.float32).tobytes(),
            "space": space,
            "threshold": threshold,
            "limit": limit,
        },
    )


def mark_superseded(conn: Connection, sentence_ids: Iterable[int], episode_id: int) -> None:
    """Mark these sentences corrected by episode ``episode_id``: recall never shows them again."""
    conn.execute(
        f"UPDATE sentences SET superseded_by = ? WHERE id {IN_IDS}",
        (episode_id, id_list(sentence_ids)),
    )


def corrected_lines(
    conn: Connection, space: str, episode_ids: Iterable[int]
) -> dict[int, list[tuple[int, int]]]:
    """The sentences (id, episode id) each of these correction episodes superseded."""
    rows = conn.execute(
        "SELECT superseded_by, id, episode_id FROM sentences "
        f"WHERE space = ? AND superseded_by {IN_IDS}",
        (space, id_list(episode_ids)),
    ).fetchall()
    found: dict[int, list[tuple[int, int]]] = {}
    for corrector, sentence, episode in rows:
        found.setdefault(int(corrector), []).append((int(sentence), int(episode)))
    return found


def first_sentence(conn: Connection, episode_id: int) -> int:
    """The first sentence of episode ``episode_id`` (one that has sentences)."""
    return int_column(conn, "SELECT min(id) FROM sentences WHERE episode_id = ?", (episode_id,))[0]


@dataclass(frozen=True)
class StoredLine:
    """A sentence with what a forgetting request is judged on: who said it, when, its marks."""

    id: int
    episode_id: int
    start: int
    text: str
    role: str
    speaker: str | None
    said_at: float
    hidden: bool  # superseded or released
    corrects: object  # a correction's note: the subject it recorded (JSON), else None


# The FTS tokens of the first and second person ("I'm" is "i", "m"; "yours" stems as "your").
_PERSONS = " OR ".join(
    f'"{w}"' for w in ("i", "my", "me", "mine", "myself", "you", "your", "yours", "yourself")
)


def space_lines(
    conn: Connection,
    space: str,
    *,
    hidden: bool,
    holding: Sequence[str] = (),
    holding_any: Sequence[str] = (),
    with_ids: Iterable[int] = (),
    about_user: bool = False,
) -> Iterator[StoredLine]:
    """Every sentence of ``space`` in id order (with ``hidden``, superseded and released too).

    A forgetting request is judged on every line by rules in Python (names as
    whole words, stems, identifiers in any spelling), which no index answers;
    the rows stream, so a large space is read once without being held.
    ``holding``: only lines whose text holds each of these (ASCII case aside);
    ``holding_any``: only those holding one of these, or one of ``with_ids``.
    ``about_user`` (with ``holding_any``): only the user's turns and lines
    holding a token of "I", "my", "me", "mine", "myself" or "you", "your",
    "yours", "yourself" (the FTS index, SQLite only), which every line of ASCII
    text in the first person or speaking to the user holds, and lines beyond ASCII.
    Each keeps lines with a speaker or a correction's subject, which may stand
    for a name or a kind they do not spell: a cheap first cut the rules then judge.
    """
    shown = "" if hidden else "AND s.superseded_by IS NULL AND s.released_by IS NULL "
    cut = ""
    params: list[object] = [space]
    if holding or holding_any:
        tests = ["instr(lower(s.text), ?) > 0" for _ in holding]
        params += [h.lower() for h in holding]
        if holding_any:
            # LIKE folds ASCII case as lower() does, without a copy of the text per test
            tests.append(" OR ".join("s.text LIKE ? ESCAPE '\\'" for _ in holding_any))
            params += ["%" + re.sub(r"([%_\\])", r"\\\1", h.lower()) + "%" for h in holding_any]
        if holding_any and about_user and not is_postgres(conn):
            # Beyond ASCII (more bytes than characters), Python's words and cases are not
            # FTS5's (a dotless i is "i"): no cut. CASE: the cheaper test runs first.
            fts = "SELECT rowid FROM sentence_fts WHERE sentence_fts MATCH ?"
            person = (
                f"e.role = 'user' OR s.id IN ({fts}) "
                "OR length(CAST(s.text AS BLOB)) > length(s.text)"
            )
            tests[-1] = f"CASE WHEN {person} THEN ({tests[-1]}) ELSE FALSE END"
            params.insert(
                len(params) - len(holding_any), f"space_tag:{space_tag(space)} AND ({_PERSONS})"
            )
        ids = f"OR s.id {IN_IDS} " if holding_any else ""
        params += [id_list(with_ids)] if holding_any else []
        cut = (
            f"AND (({') AND ('.join(tests)}) {ids}"
            "OR json_extract(e.metadata, '$.speaker') IS NOT NULL "
            "OR json_extract(e.metadata, '$.corrects') IS NOT NULL) "
        )
    rows = conn.execute(
        "SELECT s.id, s.episode_id, s.start, s.text, e.role, e.said_at, "
        "json_extract(e.metadata, '$.speaker') AS speaker, "
        "json_extract(e.metadata, '$.corrects') AS corrects, "
        "(s.superseded_by IS NOT NULL OR s.released_by IS NOT NULL) AS hidden "
        "FROM sentences s JOIN episodes e ON e.id = s.episode_id "
        f"WHERE s.space = ? {shown}{cut}ORDER BY s.id",
        params,
    )
    for r in rows:
        # by position, not as_record: the rows of a whole space are read here
        id_, episode, start, text, role, said_at, speaker, corrects, gone = r
        corrects = json.loads(corrects) if corrects else None
        yield StoredLine(id_, episode, start, text, role, speaker, said_at, bool(gone), corrects)


def episode_texts(conn: Connection, space: str) -> Iterator[tuple[int, str]]:
    """Every episode of ``space`` as (id, text), in id order: what a purge scans for identifiers."""
    sql = "SELECT id, text FROM episodes WHERE space = ? ORDER BY id"
    for r in iter_named(conn, sql, (space,)):
        yield int(r["id"]), str(r["text"])
