"""Turns of a request the upstream never answered: kept, marked failed, never recalled.

A client retries a request that got 502: the retry is the exchange that counts,
and the failed attempt must not double what recall shows (issue 15, item 14).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from orma_proxy import AsyncMemory, Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from tests.helpers.proxy import Proxy
from tests.helpers.rawdb import rows
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import free_port, serve

SAID = "My cat is called Thimbleweed."
CHAT = {"model": "m", "messages": [{"role": "user", "content": SAID}]}
MARKED = "SELECT role, text, json_extract(metadata, '$.failed') FROM episodes ORDER BY id"


def _episodes(db: Path | str, count: int) -> list[tuple[object, ...]]:
    deadline = time.monotonic() + 10
    while len(found := rows(db, MARKED)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


@pytest.mark.both_backends
def test_a_turn_sent_while_the_upstream_was_down_is_marked_and_its_retry_counts(
    upstream: Upstream, config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    db = config.db_url or config.resolved_db_path()
    down = config.model_copy(update={"upstream": f"http://127.0.0.1:{free_port()}/v1"})
    with serve(create_app(down, embedder=embedder)) as proxy:
        for stream in (False, True):  # the client tries twice while the upstream is down
            response = httpx.post(
                f"{proxy.url}/v1/chat/completions", json={**CHAT, "stream": stream}
            )
            assert response.status_code == 502
        assert _episodes(db, 2) == [("user", SAID, "upstream_unreachable")] * 2
    up = config.model_copy(update={"upstream": f"{upstream.url}/v1"})
    with serve(create_app(up, embedder=embedder)) as proxy:
        assert httpx.post(f"{proxy.url}/v1/chat/completions", json=CHAT).status_code == 200
        assert _episodes(db, 4)[2:] == [("user", SAID, None), ("assistant", "Hello there!", None)]
    with Memory(path=db, embedder=embedder) as mem:
        mem.flush()
        found = mem.search("What is my cat called, Thimbleweed?")
        assert [(p.episode_id, p.text) for p in found.passages if "Thimble" in p.text] == [
            (3, SAID)
        ]
        block = mem.recall("What is my cat called?")
        assert block.text.count("Thimbleweed") == 1, block.text


@pytest.mark.both_backends
def test_a_turn_the_upstream_refused_is_kept_marked_with_its_status(proxy: Proxy) -> None:
    """Nothing a user said is dropped: an error answer marks the turn instead."""
    proxy.upstream.script.fail_status = 503
    for stream in (False, True):
        response = httpx.post(f"{proxy.url}/v1/chat/completions", json={**CHAT, "stream": stream})
        assert response.status_code == 503
    db = proxy.config.db_url or proxy.config.resolved_db_path()
    assert _episodes(db, 2) == [("user", SAID, "upstream_status_503")] * 2


def test_a_whole_answer_that_stalls_midway_marks_the_turn_failed(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    """Headers came, the body stalled past ``read_timeout``: the client gets 504, nothing said."""

    async def stalling(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b'{"choices": ['
            await asyncio.sleep(5)
            yield b"]}"

        return StreamingResponse(body(), media_type="application/json")

    upstream = Starlette(routes=[Route("/v1/chat/completions", stalling, methods=["POST"])])
    with serve(upstream) as served:
        config = OrmaConfig(
            home=tmp_path, db_path=tmp_path / "m.db", upstream=f"{served.url}/v1", read_timeout=0.3
        )
        with serve(create_app(config, embedder=embedder)) as proxy:
            response = httpx.post(f"{proxy.url}/v1/chat/completions", json=CHAT, timeout=30)
            assert response.status_code == 504
            assert _episodes(tmp_path / "m.db", 1) == [("user", SAID, "upstream_timeout")]


async def test_sleep_draws_no_fact_from_a_failed_turn(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    config = OrmaConfig(
        home=tmp_path, db_path=tmp_path / "m.db", upstream=f"http://127.0.0.1:{free_port()}/v1"
    )
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.add("I live in Pune.", metadata={"via": "proxy", "failed": "upstream_timeout"})
        await mem.sleep()
        assert await mem.facts() == []
        await mem.add("I live in Pune.")
        await mem.sleep()
        assert [f.value for f in await mem.facts()] == ["Pune"]
