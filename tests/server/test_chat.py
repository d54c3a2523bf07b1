"""Chat completions through the proxy: injection, untouched fields, streaming, recording."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.memory.messages import WEBUI_TASK_PREFIX
from orma_proxy.server import create_app, proxy_state
from tests.helpers.proxy import Proxy, episodes, wait_for_episodes
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import serve

pytestmark = pytest.mark.both_backends


def seed(proxy: Proxy, embedder: OnnxEmbedder, text: str, space: str = "default") -> None:
    """Store a note through a second connection to the proxy's database file."""
    with Memory(config=proxy.config, embedder=embedder) as mem:
        mem.add(text, space=space)


def last_upstream_body(proxy: Proxy) -> dict[str, Any]:
    body: dict[str, Any] = proxy.upstream.recorded.requests[-1]["json"]
    return body


def test_block_goes_into_a_new_first_system_message(proxy: Proxy, embedder: OnnxEmbedder) -> None:
    seed(proxy, embedder, "The spare key is under the blue flowerpot.")
    response = httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "Where is the spare key?"}]},
    )
    assert response.status_code == 200
    sent = last_upstream_body(proxy)["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[0]["content"].startswith("## Memory (today ")
    assert "[LOG: " in sent[0]["content"] and "under the blue flowerpot." in sent[0]["content"]
    assert sent[1] == {"role": "user", "content": "Where is the spare key?"}
    assert response.headers["x-orma-space"] == "default"
    assert int(response.headers["x-orma-memory-tokens"]) > 0
    assert float(response.headers["x-orma-recall-ms"]) >= 0
    # The upstream's fields reach the client untouched.
    message = response.json()["choices"][0]["message"]
    assert message["reasoning_content"] == "thinking..."
    assert response.json()["timings"] == {"predicted_ms": 12.5}


def test_client_system_prompt_is_kept_whole_and_only_extended(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    seed(proxy, embedder, "I am allergic to peanuts.")
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Am I allergic to peanuts?"},
    ]
    httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "m", "messages": messages})
    sent = last_upstream_body(proxy)["messages"]
    assert len(sent) == 4 and [m["role"] for m in sent] == ["user", "assistant", "system", "user"]
    assert sent[2]["content"].startswith("You are terse.\n\n## Memory (today ")
    assert "peanuts" in sent[2]["content"]
    assert sent[0] == messages[0] and sent[1] == messages[1] and sent[3] == messages[3]


def test_every_other_field_reaches_the_upstream_untouched(proxy: Proxy) -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "Sys."}]},
            {"role": "user", "content": "What tools?", "name": "sahil", "x_vendor": {"a": 1}},
        ],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "tool_choice": "auto",
        "response_format": {"type": "json_object"},
        "stream_options": {"include_usage": True},
        "temperature": 0.25,
        "return_progress": True,
        "timings_per_token": True,
        "samplers": ["top_k", "min_p"],
        "some_unknown_vendor_field": [1, {"x": None}],
    }
    httpx.post(f"{proxy.url}/v1/chat/completions", json=body, params={"q": "1"})
    request = proxy.upstream.recorded.requests[-1]
    sent = request["json"]
    assert request["query"] == "q=1"
    for key, value in body.items():
        if key != "messages":
            assert sent[key] == value
    assert sent["messages"][1] == body["messages"][1]
    # A list-valued system prompt stays a list, with the block as an extra text part
    # (only when there was something to recall; here the space is empty, so untouched).
    assert sent["messages"][0]["content"][0] == {"type": "text", "text": "Sys."}


def test_without_memories_the_body_is_forwarded_byte_for_byte(proxy: Proxy) -> None:
    raw = b'{"model":"m", "messages":[{"role":"user","content":"first words ever"}], "z": 1.50}'
    httpx.post(
        f"{proxy.url}/v1/chat/completions",
        content=raw,
        headers={"content-type": "application/json"},
    )
    assert proxy.upstream.recorded.requests[-1]["raw"] == raw


def test_stream_is_relayed_chunk_by_chunk_unchanged(proxy: Proxy) -> None:
    proxy.upstream.script.chunks = ["one", " two", " three", " four"]
    proxy.upstream.script.delay = 0.3
    body = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "count"}],
    }
    arrivals: list[tuple[float, bytes]] = []
    started = time.perf_counter()
    with httpx.stream("POST", f"{proxy.url}/v1/chat/completions", json=body) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for chunk in response.iter_raw():
            arrivals.append((time.perf_counter() - started, chunk))
    received = b"".join(chunk for _, chunk in arrivals)
    events = [e for e in received.split(b"\n\n") if e]
    assert len(events) == 6  # 4 content chunks, the usage chunk, [DONE]
    assert events[-1] == b"data: [DONE]"
    usage = json.loads(events[-2][len(b"data: ") :])
    assert usage["choices"] == [] and usage["usage"]["total_tokens"] == 9
    first = json.loads(events[0][len(b"data: ") :])
    assert first["choices"][0]["delta"]["content"] == "one" and first["timings"]
    # Incremental: the first chunk arrived long before the last one was produced.
    first_time = next(t for t, c in arrivals if b"one" in c)
    last_time = next(t for t, c in arrivals if b"four" in c)
    assert last_time - first_time > 0.6


def test_turn_is_recorded_once_without_history_block_or_system_prompt(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    proxy.upstream.script.chunks = ["Nice", " to meet you", ", Sahil."]
    first = [
        {"role": "system", "content": "SYSTEM PROMPT TEXT"},
        {"role": "user", "content": "I'm Sahil and I live in Pune."},
    ]
    httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "stream": True, "messages": first},
    )
    rows = wait_for_episodes(proxy.config, 2)
    assert [(r[0], r[1]) for r in rows] == [
        ("user", "I'm Sahil and I live in Pune."),
        ("assistant", "Nice to meet you, Sahil."),
    ]
    assert rows[1][2]["partial"] is False
    second = [
        *first,
        {"role": "assistant", "content": "Nice to meet you, Sahil."},
        {"role": "user", "content": "I work at Zerodha."},
    ]
    httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "m", "messages": second})
    rows = wait_for_episodes(proxy.config, 4)
    texts = [r[1] for r in rows]
    assert texts.count("I'm Sahil and I live in Pune.") == 1
    assert texts[2:] == ["I work at Zerodha.", "Nice to meet you, Sahil."]
    assert not any("SYSTEM PROMPT" in t or "## Memory" in t for t in texts)


def test_tool_calls_and_capped_tool_results_are_recorded(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    messages = [
        {"role": "user", "content": "What's the weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "1", "type": "function", "function": {"name": "w"}}],
        },
        {"role": "tool", "tool_call_id": "1", "content": "sunny " * 2000},
    ]
    httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "m", "messages": messages})
    rows = wait_for_episodes(proxy.config, 2)
    assert rows[0][0] == "tool"
    assert len(rows[0][1]) < proxy.config.tool_output_max_chars + 100
    assert rows[0][1].endswith("chars cut]")
    assert rows[1][0] == "assistant"


def test_webui_task_requests_get_no_memory_and_are_not_recorded(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    seed(proxy, embedder, "My favourite colour is teal.")
    task = f"{WEBUI_TASK_PREFIX}\nGenerate a concise title for this chat about colour."
    response = httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": task}]},
    )
    assert response.headers["x-orma-recall"] == "skipped"
    assert last_upstream_body(proxy)["messages"] == [{"role": "user", "content": task}]
    time.sleep(0.3)
    assert len(episodes(proxy.config)) == 1


@pytest.mark.parametrize(
    ("headers", "body_extra", "expected"),
    [
        ({"x-orma-space": "alice"}, {"user": "bob"}, "alice"),
        ({"X-OpenWebUI-User-Id": "owui-7"}, {"user": "bob"}, "owui-7"),
        ({}, {"user": "bob"}, "bob"),
        ({}, {}, "default"),
    ],
)
def test_space_selection(
    proxy: Proxy, headers: dict[str, str], body_extra: dict[str, str], expected: str
) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], **body_extra}
    response = httpx.post(f"{proxy.url}/v1/chat/completions", json=body, headers=headers)
    assert response.headers["x-orma-space"] == expected
    assert not any(k.startswith("x-orma") for k in proxy.upstream.recorded.requests[-1]["headers"])


def test_spaces_never_see_each_others_memories(proxy: Proxy, embedder: OnnxEmbedder) -> None:
    seed(proxy, embedder, "Alice's locker code is 4512.", space="alice")
    response = httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "What is the locker code?"}]},
        headers={"x-orma-space": "bob"},
    )
    assert response.headers["x-orma-memory-tokens"] == "0"
    assert "4512" not in json.dumps(last_upstream_body(proxy))
    httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "What is the locker code?"}]},
        headers={"x-orma-space": "alice"},
    )
    assert "4512" in last_upstream_body(proxy)["messages"][0]["content"]


def test_block_respects_the_models_context_window(proxy: Proxy, embedder: OnnxEmbedder) -> None:
    with Memory(config=proxy.config, embedder=embedder) as mem:
        for i in range(40):
            mem.add(f"Project note {i}: the deployment of service {i} uses port {8000 + i}.")
    proxy.upstream.script.context_window = 800  # 25% share -> at most 200 tokens
    response = httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={
            "model": "small-ctx",
            "messages": [{"role": "user", "content": "Which port does the deployment use?"}],
        },
    )
    tokens = int(response.headers["x-orma-memory-tokens"])
    assert 0 < tokens <= 200
    block = last_upstream_body(proxy)["messages"][0]["content"]
    assert embedder.count_tokens(block) <= 200


@pytest.mark.parametrize("configured", [True, False], ids=["upstream_api_key", "client_key"])
def test_the_context_window_is_asked_with_the_key_the_chat_carries(
    proxy_config: OrmaConfig, upstream: Upstream, embedder: OnnxEmbedder, configured: bool
) -> None:
    """llama-server started with ``--api-key`` answers ``/props`` only with the key: the
    window probe carries the one the chat carries, configured or the client's own."""
    key = "sk-llama-server"
    config = proxy_config.model_copy(update={"upstream_api_key": key if configured else None})
    with Memory(config=config, embedder=embedder) as mem:
        for i in range(40):
            mem.add(f"Project note {i}: the deployment of service {i} uses port {8000 + i}.")
    upstream.script.context_window = 800  # 25% share -> at most 200 tokens
    upstream.script.props_key = key
    with serve(create_app(config, embedder=embedder)) as served:
        response = httpx.post(
            f"{served.url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "Which port?"}]},
            headers={} if configured else {"authorization": f"Bearer {key}"},
        )
    assert response.status_code == 200, response.text
    assert 0 < int(response.headers["x-orma-memory-tokens"]) <= 200
    probes = [r for r in upstream.recorded.requests if r["path"] == "/props"]
    assert probes[0]["headers"].get("authorization") == f"Bearer {key}"  # the chat's probe


def test_last_block_endpoint_shows_what_was_injected(proxy: Proxy, embedder: OnnxEmbedder) -> None:
    seed(proxy, embedder, "My cat is called Miso.", space="s1")
    httpx.post(
        f"{proxy.url}/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "cat name?"}]},
        headers={"x-orma-space": "s1"},
    )
    shown = httpx.get(f"{proxy.url}/_orma/last", params={"space": "s1"}).json()
    assert shown["found"] and shown["block"] == last_upstream_body(proxy)["messages"][0]["content"]
    assert httpx.get(f"{proxy.url}/_orma/last", params={"space": "s2"}).json()["found"] is False


def test_ollama_native_chat_gets_memory_and_ndjson_streams(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    seed(proxy, embedder, "My dentist is Dr. Rao in Kothrud.")
    proxy.upstream.script.chunks = ["Dr.", " Rao"]
    lines = []
    with httpx.stream(
        "POST",
        f"{proxy.url}/api/chat",
        json={"model": "llama3.2:3b", "messages": [{"role": "user", "content": "My dentist?"}]},
    ) as response:
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert [line["message"]["content"] for line in lines] == ["Dr.", " Rao", ""]
    assert lines[-1]["done"] is True
    sent = last_upstream_body(proxy)["messages"]
    assert sent[0]["role"] == "system" and "Dr. Rao" in sent[0]["content"]
    rows = wait_for_episodes(proxy.config, 3)
    assert rows[-1][:2] == ("assistant", "Dr. Rao")


def test_a_purge_waits_for_turns_still_being_recorded(
    proxy: Proxy, embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn recorded a moment after the purge would store the secret again."""
    memory = proxy_state(proxy.app).memory
    original = memory.add

    async def slow_add(*args: Any, **kwargs: Any) -> int:
        await asyncio.sleep(0.5)  # the recording is still running when the purge comes
        written: int = await original(*args, **kwargs)
        return written

    monkeypatch.setattr(memory, "add", slow_add)
    messages = [{"role": "user", "content": "My locker code is 88415, keep it."}]
    httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "m", "messages": messages})
    purge = {"operation": "purge", "query": "88415"}
    done = httpx.post(f"{proxy.url}/_orma/forget", json=purge, timeout=30).json()
    assert done["count"] >= 1
    assert not any("88415" in text for _, text, _ in episodes(proxy.config))
