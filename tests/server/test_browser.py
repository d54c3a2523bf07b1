"""A real browser (headless Chromium) loads a web UI through the proxy; its chat request
reaches the upstream with the memory block, and the streamed reply reaches the page."""

from __future__ import annotations

import subprocess
from pathlib import Path

from orma_proxy import Memory
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.chromium import CHROMIUM_FLAGS, chromium
from tests.helpers.proxy import Proxy


def test_web_ui_through_the_proxy_chats_with_memory(
    proxy: Proxy, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    with Memory(config=proxy.config, embedder=embedder) as mem:
        mem.add("My favourite colour is teal.")
    result = subprocess.run(
        [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chrome'}", f"{proxy.url}/"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert '<div id="out">done</div>' in result.stdout, result.stderr[-2000:]
    chats = [r for r in proxy.upstream.recorded.requests if r["path"] == "/v1/chat/completions"]
    assert len(chats) == 1
    system = chats[0]["json"]["messages"][0]
    assert system["role"] == "system" and "[user.favourite colour: teal]" in system["content"]
