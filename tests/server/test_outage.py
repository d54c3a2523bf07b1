"""Issue 29, item 1: the database stops under a real ``orma proxy`` process, then comes back.

Chats go on through the outage (without memory); the turns the database could not
take wait in the proxy and are recorded once it is back, each exactly once; ``/health``
answers 503 "degraded" while writes fail, 200 once they work again.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from tests.helpers.full_disk import fill_disk, free_disk
from tests.helpers.postgres import stopped
from tests.helpers.rawdb import rows, scalar
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import proxy_process, serve

CHATS = 20
OUTAGE_SECONDS = 5.0


def said(n: int, pad: int = 0) -> str:
    return f"Chat number {n}: my locker code is {4100 + n}." + " It is by the door." * pad


def chat(url: str, n: int, pad: int = 0) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": said(n, pad)}]}
    answer = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60)
    assert answer.status_code == 200, answer.text  # memory never breaks chat


def health(url: str) -> tuple[int, dict[str, Any]]:
    answer = httpx.get(f"{url}/health", timeout=30)
    return answer.status_code, answer.json()


def turns_waiting(url: str) -> tuple[int, dict[str, Any]] | None:
    """``/health`` once it counts turns waiting for the database, else None."""
    code, found = health(url)
    return (code, found) if found["writes"]["unwritten"] else None


def healthy(url: str) -> tuple[int, dict[str, Any]] | None:
    """``/health`` once it answers 200, else None."""
    code, found = health(url)
    return (code, found) if code == 200 else None


def until(what: str, check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)
    return found


@pytest.mark.slow
def test_a_postgres_outage_mid_chats_loses_no_turn_and_health_tells(
    pg_server: object, pg_url: str, upstream: Upstream, tmp_path: Path
) -> None:
    def user_turns() -> Counter[str]:
        found = rows(pg_url, "SELECT text FROM episodes WHERE role = 'user'")
        return Counter(str(text) for (text,) in found)

    with proxy_process(pg_url, f"{upstream.url}/v1", tmp_path / "home") as proxy:
        for n in range(8):
            chat(proxy.url, n)
        until("the first turns recorded", lambda: len(user_turns()) == 8)
        assert health(proxy.url)[0] == 200
        stopped_at = time.monotonic()
        with stopped(pg_server):
            for n in range(8, 14):
                chat(proxy.url, n)
            code, down = until("/health says turns wait", lambda: turns_waiting(proxy.url))
            assert code == 503 and down["status"] == "degraded", down
            assert down["writes"]["ok"] is False and "cannot connect" in down["writes"]["error"]
            time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped_at)))
            assert health(proxy.url)[0] == 503  # still, as long as it is down
        for n in range(14, CHATS):
            chat(proxy.url, n)
        code, back = until("/health is 200 again", lambda: healthy(proxy.url))
        assert back["writes"] == {"ok": True, "unwritten": 0, "dropped": 0}, back
        recorded = user_turns()
    assert recorded == Counter(said(n) for n in range(CHATS))  # every turn, each once
    replies = rows(pg_url, "SELECT count(*) FROM episodes WHERE role = 'assistant'")
    assert replies == [(CHATS,)]
    assert not [line for line in proxy.output if "Traceback" in line], proxy.output[-40:]


def test_a_full_disk_under_the_proxy_keeps_the_turns_and_health_tells(
    tmp_path: Path,
    upstream: Upstream,
    embedder: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SQLite's twin: a full disk (``max_page_count`` on the writer's connection) makes the
    proxy degraded, not dead; once the disk frees, the kept turns are recorded, once each."""
    db = tmp_path / "memory.db"
    config = OrmaConfig(home=tmp_path / "home", db_path=db, upstream=f"{upstream.url}/v1")
    with Memory(config=config, embedder=embedder) as mem:
        mem.add("Written before the disk filled.")
    pages = int(scalar(db, "PRAGMA page_count"))
    writers = fill_disk(monkeypatch, pages)
    pad = 400  # each turn needs pages the file does not have
    with serve(create_app(config, embedder=embedder)) as proxy:
        for n in range(3):
            chat(proxy.url, n, pad)
        code, down = until("/health says turns wait", lambda: turns_waiting(proxy.url))
        assert code == 503 and down["status"] == "degraded", down
        assert "full" in down["writes"]["error"], down
        [writer] = writers
        free_disk(writer)
        code, back = until("/health is 200 again", lambda: healthy(proxy.url))
        assert back["writes"] == {"ok": True, "unwritten": 0, "dropped": 0}, back
    found = rows(db, "SELECT text FROM episodes WHERE role = 'user' ORDER BY id")
    assert [str(text) for (text,) in found] == [said(n, pad) for n in range(3)]
