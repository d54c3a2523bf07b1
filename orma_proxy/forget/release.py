"""``release(query)`` and ``unrelease(id)``: soft forgetting of a topic, undone at will.

A release hides the lines a description names, and the states and events
drawn from them, from every recall, search and fact listing; nothing is
deleted. The description is resolved exactly (``match.topic``): releasing "my
diet" hides the user's lines about food, not a friend's "loves sushi"; a bare
topic ("politics") also takes the lines near it in meaning. A line holding
another kind of fact too is cut at its clauses, and only the described clause
is hidden. Each release is a row of ``releases``; its id brings everything back.
"""

from __future__ import annotations

import time
from dataclasses import replace

from orma_proxy.errors import InputError
from orma_proxy.facts import Drawn, mark_drawn_released, released_drawn
from orma_proxy.forget.audit import write_audit
from orma_proxy.forget.closest import nothing_matched
from orma_proxy.forget.match import Topic, cut_lines, topic
from orma_proxy.forget.meaning import Described
from orma_proxy.forget.results import Affected, ForgetResult
from orma_proxy.store import (
    Connection,
    Database,
    insert_release,
    mark_sentences_released,
    release_in,
    restore_release,
    sentence_texts,
    sentences_released_by,
)


async def release(
    db: Database,
    query: str,
    meaning: Described | None,
    space: str,
    *,
    threshold: float,
    max_items: int,
    dry_run: bool,
) -> ForgetResult:
    """Hide the topic of ``query`` in ``space``.

    ``meaning``: the embedding of ``query`` (a bare topic also takes the lines
    near it; a person's lines are ranked by it when no line holds the words).
    Nothing matching raises ``NothingMatchedError`` and writes nothing (a dry run too).
    """

    def find(conn: Connection) -> Topic:
        seen = topic(conn, space, query, meaning, threshold=threshold, max_items=max_items)
        if not seen.affected.count:
            raise nothing_matched(conn, space, query, meaning, "released")
        return seen

    if dry_run:
        seen = await db.reader.execute_fn(find)
        return ForgetResult("release", space, True, seen.affected, seen.preview, facts=seen.facts)

    def job(conn: Connection) -> ForgetResult:
        seen = find(conn)
        preview = seen.preview
        found = replace(seen, sentences=cut_lines(conn, seen.sentences, seen.cuts)).affected
        now = time.time()
        release_id = insert_release(conn, space, query, now)
        _mark(conn, found, release_id)
        audit_id = write_audit(conn, space, "release", found, now, extra={"releases": [release_id]})
        return ForgetResult(
            "release", space, False, found, preview, audit_id=audit_id, release_id=release_id,
            facts=seen.facts,
        )  # fmt: skip

    return await db.writer.execute_write_fn(job)


async def unrelease(db: Database, release_id: int, space: str) -> ForgetResult:
    """Bring back everything release ``release_id`` hid; another space's id is refused."""

    def job(conn: Connection) -> ForgetResult:
        hidden = release_in(conn, space, release_id)
        if hidden is None:
            raise InputError(f"no release #{release_id} in space {space!r}")
        if hidden.restored_at is not None:
            raise InputError(f"release #{release_id} was already undone")
        states, events = released_drawn(conn, release_id)
        restored = Affected.of(
            sentences=sentences_released_by(conn, release_id), states=states, events=events
        )
        _mark(conn, restored, None)
        now = time.time()
        restore_release(conn, release_id, now)
        preview = tuple(sentence_texts(conn, restored.sentences))
        audit_id = write_audit(
            conn, space, "unrelease", restored, now, extra={"releases": [release_id]}
        )
        return ForgetResult(
            "unrelease",
            space,
            False,
            restored,
            preview,
            audit_id=audit_id,
            release_id=release_id,
        )

    return await db.writer.execute_write_fn(job)


def _mark(conn: Connection, affected: Affected, release_id: int | None) -> None:
    """Hide what ``affected`` names under ``release_id`` (None: show it again)."""
    mark_sentences_released(conn, affected.sentences, release_id)
    mark_drawn_released(conn, Drawn(affected.states, affected.events), release_id)
