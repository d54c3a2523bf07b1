"""Finding what a forgetting action touches. Read-only: a dry run and the real action share it.

Every function runs on any connection: the reader for a dry run, the writer's
connection inside the real action's transaction (so what is changed is exactly
what was matched, whatever was written in between). Text matching is a
substring test, case-insensitive for ASCII letters: predictable, and never
fuzzy where deleting is concerned. Id lists travel as one JSON parameter, so
no action is limited by SQLite's number of bound variables.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

import aiosqlite
import numpy as np

from orma_proxy.embed.base import Vectors
from orma_proxy.errors import InputError
from orma_proxy.forget.results import Affected
from orma_proxy.store.episodes import space_tag
from orma_proxy.text.stopwords import STOPWORDS

IN_IDS = "IN (SELECT value FROM json_each(?))"
_WORD = re.compile(r"\w+", re.UNICODE)


def ids_json(ids: Iterable[int]) -> str:
    return json.dumps(sorted(set(ids)))


async def _column(conn: aiosqlite.Connection, sql: str, args: Iterable[object]) -> list[int]:
    return [int(r[0]) for r in await conn.execute_fetchall(sql, tuple(args))]


async def sentence_texts(conn: aiosqlite.Connection, ids: Iterable[int]) -> tuple[str, ...]:
    """The text of these sentences, in id order (a preview for the caller)."""
    rows = list(
        await conn.execute_fetchall(
            f"SELECT text FROM sentences WHERE id {IN_IDS} ORDER BY id", (ids_json(ids),)
        )
    )
    return tuple(str(r[0]) for r in rows)


async def derived(
    conn: aiosqlite.Connection, sentence_ids: Iterable[int]
) -> tuple[list[int], list[int]]:
    """Unreleased states and events drawn from these sentences: (state ids, event ids)."""
    wanted = ids_json(sentence_ids)
    tail = f"WHERE sentence_id {IN_IDS} AND released_by IS NULL ORDER BY id"
    states = await _column(conn, f"SELECT id FROM states {tail}", (wanted,))
    events = await _column(conn, f"SELECT id FROM events {tail}", (wanted,))
    return states, events


# --- supersede ---------------------------------------------------------------------


@dataclass(frozen=True)
class StateTarget:
    """An active state a correction closes; ``replace``: the new text is its new value."""

    id: int
    entity_id: int
    attribute: str
    condition: str
    prohibited: bool
    replace: bool


@dataclass(frozen=True)
class Correction:
    """What ``supersede(old, ...)`` marks: sentences saying ``old`` and the states holding it."""

    sentences: list[int]
    states: list[StateTarget]

    @property
    def affected(self) -> Affected:
        return Affected.of(sentences=self.sentences, states=[s.id for s in self.states])


_TARGET_SQL = (
    "SELECT id, entity_id, attribute, condition, prohibited, {replace} FROM states "
    "WHERE space = :space AND active = 1 AND released_by IS NULL AND "
)


async def correction(conn: aiosqlite.Connection, space: str, old: str | int) -> Correction:
    """A state id names that state and its line; a text, every line containing it.

    States matched by id or whose value is the text get the new text as their
    value; states merely drawn from a matching line are closed.
    """
    if isinstance(old, int):
        rows = list(
            await conn.execute_fetchall(
                "SELECT active, sentence_id FROM states WHERE id = ? AND space = ? "
                "AND released_by IS NULL",
                (old, space),
            )
        )
        if not rows:
            raise InputError(f"no state #{old} in space {space!r}")
        if not rows[0][0]:
            raise InputError(f"state #{old} is already closed (it stays in the history)")
        sentences = await _column(
            conn,
            "SELECT id FROM sentences WHERE id = ? AND superseded_by IS NULL",
            (rows[0][1],),
        )
        found = list(
            await conn.execute_fetchall(
                _TARGET_SQL.format(replace=1) + "id = :id", {"space": space, "id": old}
            )
        )
    else:
        sentences = await _column(
            conn,
            "SELECT id FROM sentences WHERE space = ? AND superseded_by IS NULL "
            "AND instr(lower(text), lower(?)) > 0 ORDER BY id",
            (space, old),
        )
        found = list(
            await conn.execute_fetchall(
                _TARGET_SQL.format(replace="lower(value) = lower(:old)")
                + "(lower(value) = lower(:old) OR sentence_id IN "
                "(SELECT value FROM json_each(:ids))) ORDER BY id",
                {"space": space, "old": old, "ids": ids_json(sentences)},
            )
        )
    states = [
        StateTarget(int(r[0]), int(r[1]), str(r[2]), str(r[3]), bool(r[4]), bool(r[5]))
        for r in found
    ]
    return Correction(sentences, states)


# --- release ---------------------------------------------------------------------


def all_terms(query: str, tag: str) -> str | None:
    """An FTS5 expression: every word of ``query`` (stopwords aside) in one space's line."""
    words = [w.lower() for w in _WORD.findall(query)]
    terms = list(dict.fromkeys(w for w in words if w not in STOPWORDS))
    if not terms:
        return None
    return f"space_tag:{tag} AND " + " AND ".join(f'"{t}"' for t in terms)


async def topic(
    conn: aiosqlite.Connection,
    space: str,
    query: str,
    vector: Vectors,
    *,
    threshold: float,
    max_items: int,
) -> Affected:
    """Visible passages on the topic of ``query``, best first, and what was drawn from them.

    A passage belongs to the topic when its vector is at least ``threshold``
    similar to the query's (never less than the space's noise floor) or when it
    holds every word of the query. The scan is exact: a release is rare and
    deliberate, and a dry run must name exactly what the real one hides.
    """
    floor = list(
        await conn.execute_fetchall("SELECT noise_floor FROM space_stats WHERE space = ?", (space,))
    )
    if floor and floor[0][0] is not None:
        threshold = max(threshold, float(floor[0][0]))
    expression = all_terms(query, space_tag(space))
    lexical = (
        "s.id IN (SELECT rowid FROM sentence_fts WHERE sentence_fts MATCH :terms)"
        if expression is not None
        else "0"
    )
    rows = list(
        await conn.execute_fetchall(
            f"SELECT s.id, {lexical} AS lexical, "
            "coalesce(1.0 - vec_distance_cosine(v.embedding, :q), -1.0) AS sim "
            "FROM sentences s LEFT JOIN sentence_vectors v ON v.sentence_id = s.id "
            "WHERE s.space = :space AND s.released_by IS NULL AND s.superseded_by IS NULL "
            "AND (lexical OR sim >= :threshold) ORDER BY lexical DESC, sim DESC, s.id LIMIT :max",
            {
                "terms": expression,
                "q": np.ascontiguousarray(vector, dtype=np.float32).tobytes(),
                "space": space,
                "threshold": threshold,
                "max": max_items,
            },
        )
    )
    sentences = [int(r[0]) for r in rows]
    states, events = await derived(conn, sentences)
    return Affected.of(sentences=sentences, states=states, events=events)


# --- purge -----------------------------------------------------------------------


async def erasure(conn: aiosqlite.Connection, space: str, target: str | list[int]) -> Affected:
    """Episodes containing the text (or with these ids), and everything derived from them.

    Unknown ids, or another space's, are refused: a purge never guesses.
    """
    if isinstance(target, str):
        episodes = await _column(
            conn,
            "SELECT id FROM episodes WHERE space = ? AND instr(lower(text), lower(?)) > 0",
            (space, target),
        )
    else:
        episodes = await _column(
            conn,
            f"SELECT id FROM episodes WHERE space = ? AND id {IN_IDS}",
            (space, ids_json(target)),
        )
        missing = sorted(set(target) - set(episodes))
        if missing:
            raise InputError(
                f"no episode {', '.join(f'#{i}' for i in missing)} in space {space!r}; "
                "nothing was purged"
            )
    wanted = ids_json(episodes)
    tail = f"WHERE episode_id {IN_IDS} ORDER BY id"
    return Affected.of(
        episodes=episodes,
        sentences=await _column(conn, f"SELECT id FROM sentences {tail}", (wanted,)),
        states=await _column(conn, f"SELECT id FROM states {tail}", (wanted,)),
        events=await _column(conn, f"SELECT id FROM events {tail}", (wanted,)),
    )
