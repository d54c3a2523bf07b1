"""A group chat through the proxy: each participant's ``name`` is who said it, not the user.

OpenAI's ``name`` tells participants of one role apart. When two or more people
speak as "user", a message's name is its speaker, so what they say about
themselves never becomes the user's facts; a single name on every user message
is the user's own.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.proxy import Proxy, wait_for_episodes

pytestmark = pytest.mark.both_backends

MOVED = "I moved to Pune last month."


def _chat(proxy: Proxy, messages: list[dict[str, Any]]) -> None:
    response = httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "messages": messages},
        timeout=30,
    )
    assert response.status_code == 200


def _facts(
    config: OrmaConfig, embedder: OnnxEmbedder, want: int, timeout: float = 10.0
) -> list[str]:
    """The space's facts once ``want`` exist (drawn in the background), or at the timeout."""
    deadline = time.monotonic() + timeout
    with Memory(config=config, embedder=embedder) as mem:
        while True:
            found = [f.text for f in mem.facts()]
            if len(found) >= want or time.monotonic() > deadline:
                return found
            time.sleep(0.1)


def test_in_a_group_chat_each_name_is_its_speaker_and_no_fact_is_the_users(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    _chat(
        proxy,
        [
            {"role": "system", "content": "You are the group's assistant."},
            {"role": "user", "name": "asha", "content": MOVED},
            {"role": "user", "name": "ravi", "content": "Welcome to the city!"},
        ],
    )
    rows = wait_for_episodes(proxy.config, 3)
    said = [(role, text, meta.get("speaker")) for role, text, meta in rows]
    assert said[:2] == [("user", MOVED, "asha"), ("user", "Welcome to the city!", "ravi")]
    assert said[2][0] == "assistant" and said[2][2] is None
    assert not any(f.startswith("user ·") for f in _facts(proxy.config, embedder, 1, 3.0))


def test_one_name_on_every_user_message_is_the_user(proxy: Proxy, embedder: OnnxEmbedder) -> None:
    _chat(proxy, [{"role": "user", "name": "sahil", "content": MOVED}])
    rows = wait_for_episodes(proxy.config, 2)
    role, text, meta = rows[0]
    assert (role, text, meta.get("speaker")) == ("user", MOVED, None)
    assert "user · home city: Pune" in _facts(proxy.config, embedder, 1)
