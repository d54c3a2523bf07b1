"""The page's drawer and space picker: recent episodes, what waits for sleep, which spaces exist.

Pending is sleep's own notion (``sleep.batch``): every episode above the
space's watermark. The page polls this every few seconds; ``version`` tells
it when consolidation changed the graph so it reloads only then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aiosqlite

from orma_proxy.sleep.batch import pending, watermark
from orma_proxy.viz.detail import iso
from orma_proxy.viz.graph import graph_version

# Episodes shown in the drawer, and how much of each.
RECENT_EPISODES = 30
_SNIPPET_CHARS = 280


async def list_spaces(
    conn: aiosqlite.Connection, allowed: Callable[[str], bool]
) -> list[dict[str, Any]]:
    """Every space with episodes that ``allowed`` lets the caller see, with its sizes."""
    rows = await conn.execute_fetchall(
        "SELECT space, count(*), (SELECT count(*) FROM states s WHERE s.space = e.space "
        "AND s.active = 1), (SELECT count(*) FROM events v WHERE v.space = e.space) "
        "FROM episodes e GROUP BY space ORDER BY space"
    )
    return [
        {"name": str(r[0]), "episodes": int(r[1]), "states": int(r[2]), "events": int(r[3])}
        for r in rows
        if allowed(str(r[0]))
    ]


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SNIPPET_CHARS else flat[: _SNIPPET_CHARS - 1] + "…"


async def feed(
    conn: aiosqlite.Connection, space: str, *, sleep_running: bool, limit: int = RECENT_EPISODES
) -> dict[str, Any]:
    """The newest episodes (each marked pending or consolidated) and sleep's state for ``space``."""
    mark = await watermark(conn, space)
    waiting, newest = await pending(conn, space)
    rows = await conn.execute_fetchall(
        "SELECT id, role, text, said_at FROM episodes WHERE space = ? ORDER BY id DESC LIMIT ?",
        (space, limit),
    )
    last = list(
        await conn.execute_fetchall(
            "SELECT status, extractor, episodes, finished_at, error FROM sleep_batches "
            "WHERE space = ? ORDER BY id DESC LIMIT 1",
            (space,),
        )
    )
    return {
        "space": space,
        "pending": waiting,
        "newest_pending_at": iso(newest),
        "watermark": mark,
        "sleep_running": sleep_running,
        "last_batch": None
        if not last
        else {
            "status": str(last[0][0]),
            "extractor": str(last[0][1]),
            "episodes": int(last[0][2]),
            "finished_at": iso(float(last[0][3])),
            "error": last[0][4],
        },
        "episodes": [
            {
                "id": int(r[0]),
                "role": str(r[1]),
                "text": _snippet(str(r[2])),
                "said_at": iso(float(r[3])),
                "pending": int(r[0]) > mark,
            }
            for r in rows
        ],
        "version": await graph_version(conn, space),
    }
