"""Through the proxy, a seeded note reaches the upstream whole beside the fact drawn from it.

Issue 27: "My brother Kabir plays the violin ..." draws ``user · brother: Kabir`` as it
is stored; the block the proxy adds to the next chat must still carry the violin.
"""

from __future__ import annotations

import httpx
import pytest

from orma_proxy import Memory
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.proxy import Proxy

pytestmark = pytest.mark.both_backends

NOTE = "My brother Kabir plays the violin in the Pune symphony orchestra."


def test_a_seeded_note_reaches_the_upstream_beside_its_fact(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    with Memory(config=proxy.config, embedder=embedder) as mem:
        mem.add(NOTE)
        mem.flush()
        assert [f.text for f in mem.facts()] == ["user · brother: Kabir"]  # drawn at once
    question = "What instrument does my brother play, and where?"
    response = httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": question}]},
        timeout=30,
    )
    assert response.status_code == 200
    sent = proxy.upstream.recorded.requests[-1]["json"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    system = sent[0]["content"]
    lines = system.splitlines()
    assert "[user.brother: Kabir]" in lines
    assert any(line.startswith("[LOG: ") and line.endswith(f" note: {NOTE}]") for line in lines)
    assert "violin" in system and "symphony orchestra" in system
    assert sent[1] == {"role": "user", "content": question}
