"""A memory consolidated through the proxy and the scripted upstream, for the viz tests.

Conversations go through ``POST /v1/chat/completions`` of a real proxy; its
background sleep asks the scripted upstream for states and events (the answer
each step scripts, citing that batch's lines), and the proxy's own verification
and apply steps store them. Space ``alice`` ends up with a home city that
moved (Pune, then Bangalore), a dentist, a forbidden rule, a conditional drink,
an event and one episode still waiting for sleep; space ``bob`` with one employer.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from tests.helpers.rawdb import rows, scalar
from tests.helpers.scripted_upstream import Recorded, Script, build_upstream
from tests.helpers.serving import Served, serve

FIRST_TURN = (
    "I live in Pune. My dentist is Dr. Rao in Kothrud. "
    "Never chain PowerShell commands with semicolons. "
    "When I have a sore throat, I drink ginger tea with honey. "
    "I adopted a cat named Miso on 3 May 2026."
)
FIRST_ANSWER = {
    "states": [
        {"line": 1, "attribute": "home_city", "value": "Pune"},
        {"line": 2, "attribute": "dentist", "value": "Dr. Rao in Kothrud"},
        {
            "line": 3,
            "attribute": "rule",
            "value": "chain PowerShell commands with semicolons",
            "prohibited": True,
        },
        {
            "line": 4,
            "attribute": "drink",
            "value": "ginger tea with honey",
            "condition": "sore throat",
        },
    ],
    "events": [
        {"line": 5, "what": "adopted a cat named Miso", "when": "3 May 2026", "who": ["Miso"]}
    ],
}
MOVE_TURN = "I moved to Bangalore last week."
MOVE_ANSWER = {"states": [{"line": 1, "attribute": "home_city", "value": "Bangalore"}]}
BOB_TURN = "I work at Zerodha."
BOB_ANSWER = {"states": [{"line": 1, "attribute": "employer", "value": "Zerodha"}]}
PENDING_NOTE = "Remind me to book the car service."
NOTHING = '{"states": [], "events": []}'


@dataclass
class Seeded:
    """The served proxy over the seeded memory, and the ids the tests look for."""

    url: str
    config: OrmaConfig
    script: Script
    recorded: Recorded
    ids: dict[str, int]

    @property
    def db(self) -> Path | str:
        """The SQLite file, or the PostgreSQL URL (``rawdb`` reads either)."""
        return self.config.db_url or self.config.resolved_db_path()

    def rule(self, value: str) -> int:
        sql = "SELECT id FROM states WHERE space = 'alice' AND prohibited = 1 AND value = ?"
        return int(scalar(self.db, sql, value))

    def state(self, attribute: str, value: str, space: str = "alice") -> int:
        return int(
            scalar(
                self.db,
                "SELECT id FROM states WHERE space = ? AND attribute = ? AND value = ?",
                space,
                attribute,
                value,
            )
        )


def chat(url: str, space: str, text: str) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": text}]}
    answer = httpx.post(
        f"{url}/v1/chat/completions", json=body, headers={"x-orma-space": space}, timeout=60
    )
    assert answer.status_code == 200, answer.text


def episodes(db: Path | str, space: str) -> int:
    return int(scalar(db, "SELECT count(*) FROM episodes WHERE space = ?", space))


def wait_consolidated(db: Path | str, space: str, at_least: int, timeout: float = 60.0) -> None:
    """Until ``space`` holds ``at_least`` episodes, every one behind sleep's watermark."""
    deadline = time.monotonic() + timeout
    sql = (
        "SELECT (SELECT count(*) FROM episodes WHERE space = ?1), "
        "coalesce((SELECT max(id) FROM episodes WHERE space = ?1), 0), "
        "coalesce((SELECT last_episode_id FROM sleep_progress WHERE space = ?1), 0)"
    )
    while time.monotonic() < deadline:
        count, newest, mark = rows(db, sql, space)[0]
        if count >= at_least and mark == newest:
            return
        time.sleep(0.1)
    raise AssertionError(f"space {space!r} was not consolidated in {timeout}s")


def converse(
    served: str, script: Script, db: Path | str, space: str, text: str, answer: object
) -> None:
    """One user turn through the proxy, consolidated with ``answer`` as the model's extraction."""
    before = episodes(db, space)
    script.sleep_answer = json.dumps(answer)
    chat(served, space, text)
    wait_consolidated(db, space, before + 2)  # the user's turn and the reply
    script.sleep_answer = NOTHING


async def _add_pending(config: OrmaConfig, embedder: OnnxEmbedder) -> None:
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.add(PENDING_NOTE, "alice")


@contextmanager
def seeded(home: Path, embedder: OnnxEmbedder, db: Path | str | None = None) -> Iterator[Seeded]:
    """The seeded proxy, served until the block ends; ``db`` a file or URL (default: in home)."""
    script, recorded = Script(), Recorded()
    with serve(build_upstream(script, recorded)) as upstream:
        config = OrmaConfig(
            home=home, upstream=f"{upstream.url}/v1", sleep_after_episodes=2
        ).with_db(db or home / "memory.db")
        app = create_app(config, embedder=embedder)
        with serve(app) as proxy:
            _seed(proxy, script, config)
            asyncio.run(_add_pending(config, embedder))
            db = config.db_url or config.resolved_db_path()
            ids = {
                str(name): int(number)
                for name, number in rows(db, "SELECT name, id FROM entities WHERE space = 'alice'")
            }
            yield Seeded(proxy.url, config, script, recorded, ids)


def _seed(proxy: Served, script: Script, config: OrmaConfig) -> None:
    db = config.db_url or config.resolved_db_path()
    converse(proxy.url, script, db, "alice", FIRST_TURN, FIRST_ANSWER)
    converse(proxy.url, script, db, "alice", MOVE_TURN, MOVE_ANSWER)
    converse(proxy.url, script, db, "bob", BOB_TURN, BOB_ANSWER)
