"""The newest lines sleep has not read yet: what recall previews before consolidation."""

from __future__ import annotations

from collections.abc import Sequence

from orma_proxy.store.connect import Connection
from orma_proxy.store.episodes import SENTENCE, SentenceRow

__all__ = ["latest_unconsolidated"]

# The last episode sleep has read, and the first sentence of the first episode after it:
# two index seeks (episodes_space, sentences_episode) bounding the walk back.
_WATERMARK = (
    "SELECT coalesce((SELECT last_episode_id FROM sleep_progress WHERE space = :space), 0) AS id"
)
_FIRST_PENDING = (
    "SELECT min(s2.id) AS id FROM sentences s2 WHERE s2.episode_id = (SELECT min(e2.id) "
    "FROM episodes e2 WHERE e2.space = :space AND e2.id > (SELECT id FROM mark))"
)


def latest_unconsolidated(
    conn: Connection, space: str, roles: Sequence[str], limit: int
) -> list[SentenceRow]:
    """The ``limit`` newest sentences of ``space`` said by ``roles`` above sleep's watermark.

    Newest first, walking the space's sentences back from the newest (index
    ``sentences_space``) down to the watermark at most. A line the user corrected
    or released, and a turn the upstream never answered, are left out.
    """
    marks = ",".join(f":r{i}" for i in range(len(roles)))
    rows = conn.execute(
        f"WITH mark AS ({_WATERMARK}), first AS ({_FIRST_PENDING}) "
        + SENTENCE.sql
        + "WHERE s.space = :space AND s.id >= (SELECT id FROM first) "
        "AND s.episode_id > (SELECT id FROM mark) "
        f"AND e.role IN ({marks}) AND s.superseded_by IS NULL AND s.released_by IS NULL "
        "AND json_extract(e.metadata, '$.failed') IS NULL ORDER BY s.id DESC LIMIT :limit",
        {"space": space, "limit": limit, **{f"r{i}": r for i, r in enumerate(roles)}},
    )
    return [SentenceRow(**r) for r in SENTENCE.all_named(rows)]
