"""The page's drawer and space picker: recent episodes, what waits for sleep, which spaces exist.

Pending is sleep's own notion (the store's ``backlog``): every episode above
the space's watermark. The page polls this every few seconds; ``version`` tells
it when consolidation changed the graph so it reloads only then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from orma_proxy.facts import graph_version, space_sizes
from orma_proxy.store import Connection, backlog, last_batch, recent_episodes, watermark_of
from orma_proxy.viz.detail import iso

# Episodes shown in the drawer, and how much of each.
RECENT_EPISODES = 30
_SNIPPET_CHARS = 280


def list_spaces(conn: Connection, allowed: Callable[[str], bool]) -> list[dict[str, Any]]:
    """Every space with episodes that ``allowed`` lets the caller see, with its sizes."""
    return [asdict(size) for size in space_sizes(conn) if allowed(size.name)]


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SNIPPET_CHARS else flat[: _SNIPPET_CHARS - 1] + "…"


def feed(
    conn: Connection, space: str, *, sleep_running: bool, limit: int = RECENT_EPISODES
) -> dict[str, Any]:
    """The newest episodes (each marked pending or consolidated) and sleep's state for ``space``."""
    mark = watermark_of(conn, space)
    waiting = backlog(conn, space)
    episodes = recent_episodes(conn, space, limit)
    last = last_batch(conn, space)
    return {
        "space": space,
        "pending": waiting.episodes,
        "newest_pending_at": iso(waiting.newest_at),
        "watermark": mark,
        "sleep_running": sleep_running,
        "last_batch": None
        if last is None
        else {**asdict(last), "finished_at": iso(last.finished_at)},
        "episodes": [
            {
                "id": e.id,
                "role": e.role,
                "text": _snippet(e.text),
                "said_at": iso(e.said_at),
                "pending": e.id > mark,
            }
            for e in episodes
        ],
        "version": graph_version(conn, space),
    }
