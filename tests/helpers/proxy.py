"""The proxy as the server tests see it, and what its background recorder stored."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette

from orma_proxy import OrmaConfig
from tests.helpers.rawdb import rows
from tests.helpers.scripted_upstream import Upstream

# The upstream's own key: a caller without a valid Orma key must never carry it.
UPSTREAM_KEY = "sk-upstream"


@dataclass
class Proxy:
    url: str
    config: OrmaConfig
    upstream: Upstream
    app: Starlette


def episodes(config: OrmaConfig, space: str = "default") -> list[Any]:
    """(role, text, metadata) of every episode of ``space``, read through its own connection."""
    found = rows(
        config.db_url or config.resolved_db_path(),
        "SELECT role, text, metadata FROM episodes WHERE space = ? ORDER BY id",
        space,
    )
    return [(r[0], r[1], json.loads(str(r[2]))) for r in found]


def wait_for_episodes(
    config: OrmaConfig, count: int, space: str = "default", timeout: float = 10.0
) -> list[Any]:
    """The episodes once at least ``count`` exist (recording runs in the background)."""
    deadline = time.monotonic() + timeout
    while True:
        found = episodes(config, space)
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)
