"""Sleep consolidation runs inside the proxy's event loop and leaves the upstream to chat."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import httpx
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app, proxy_state
from orma_proxy.sleep import UpstreamGate
from tests.helpers.proxy import Proxy
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import serve

pytestmark = pytest.mark.both_backends


@pytest.fixture
def sleepy(proxy_config: OrmaConfig, upstream: Upstream, embedder: OnnxEmbedder) -> Iterator[Proxy]:
    config = proxy_config.model_copy(update={"sleep_after_episodes": 2})
    app = create_app(config, embedder=embedder)
    with serve(app) as served:
        yield Proxy(served.url, config, upstream, app)


def test_a_recorded_turn_is_consolidated_in_the_background(
    sleepy: Proxy, embedder: OnnxEmbedder
) -> None:
    sleepy.upstream.script.sleep_answer = json.dumps(
        {"states": [{"line": 1, "attribute": "home_city", "value": "Pune"}], "events": []}
    )
    chat = {"model": "m", "messages": [{"role": "user", "content": "I live in Pune."}]}
    assert httpx.post(f"{sleepy.url}/v1/chat/completions", json=chat).status_code == 200

    async def facts() -> list[str]:
        async with AsyncMemory(config=sleepy.config, embedder=embedder) as mem:
            return [f.text for f in await mem.facts()]

    def paths() -> list[tuple[str, bool]]:
        return [(r["path"], bool((r["json"] or {}).get("response_format"))) for r in
                sleepy.upstream.recorded.requests]  # fmt: skip

    # The fact is drawn as the turn is recorded; sleep reads the turn again later.
    deadline = time.monotonic() + 30
    while ("/v1/chat/completions", True) not in paths() and time.monotonic() < deadline:
        time.sleep(0.2)
    chat_index = paths().index(("/v1/chat/completions", False))
    assert ("/v1/chat/completions", True) in paths()[chat_index + 1 :]
    time.sleep(0.5)  # the batch lands in its own transaction after the answer
    assert asyncio.run(facts()) == ["user · home city: Pune"]  # confirmed, not drawn twice


def test_every_request_frees_the_gate_however_it_ends(proxy: Proxy) -> None:
    gate: UpstreamGate = proxy_state(proxy.app).gate
    url = f"{proxy.url}/v1/chat/completions"
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    httpx.post(url, json=chat)
    httpx.post(url, json={**chat, "stream": True})
    proxy.upstream.script.fail_status = 500
    httpx.post(url, json={**chat, "stream": True})
    proxy.upstream.script.fail_status = None
    proxy.upstream.script.delay = 1.0
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(url, json=chat, timeout=0.3)
    with httpx.stream("POST", url, json={**chat, "stream": True}) as response:
        next(response.iter_raw())
    deadline = time.monotonic() + 3
    while gate.busy and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not gate.busy
