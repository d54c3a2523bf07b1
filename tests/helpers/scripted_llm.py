"""A scripted LLM upstream for sleep tests, served through ``httpx.MockTransport``.

It replays canned answers in order, records every request it received, and can
behave like llama-cpp-python (refuses ``response_format: json_schema`` with a
400) or like Ollama's native API. Sleep's client is given an ``AsyncClient``
on this transport, exactly as the proxy gives it its shared client.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import httpx

BASE = "http://llm.test/v1"


def answer(
    states: list[dict[str, Any]] | None = None,
    events: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> str:
    """The JSON text a well-behaved model would answer."""
    return json.dumps({"states": states or [], "events": events or [], **extra})


@dataclass
class ScriptedLLM:
    """Answers chat completions from ``script`` (text = content; int = that HTTP status)."""

    script: list[str | int] = field(default_factory=list)
    refuse_json_schema: bool = False
    delay: float = 0.0  # seconds each chat answer takes
    context: int | None = None  # n_ctx said at /props, as llama-server says it (None: 404)
    overflow_chars: int | None = None  # a longer request: llama-server's context error
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    received: asyncio.Event = field(default_factory=asyncio.Event)  # set by each chat request

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(f"{request.method} {request.url.path}")
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": "scripted-model"}]})
        if request.url.path == "/api/tags":
            return httpx.Response(200, json={"models": [{"name": "scripted:1b"}]})
        if request.url.path == "/props" and self.context:
            props = {"default_generation_settings": {"n_ctx": self.context}}
            return httpx.Response(200, json=props)
        if request.url.path in ("/props", "/api/show"):
            return httpx.Response(404, json={"error": "not found"})
        body = json.loads(request.content)
        self.requests.append(body)
        self.received.set()
        kind = body.get("response_format", {}).get("type")
        if self.refuse_json_schema and kind == "json_schema":
            return httpx.Response(400, json={"error": "response_format json_schema unsupported"})
        await asyncio.sleep(self.delay)
        said = sum(len(m["content"]) for m in body.get("messages", []))
        if self.overflow_chars is not None and said > self.overflow_chars:
            error = {"code": 500, "message": "Context size has been exceeded.", "type": "server"}
            return httpx.Response(500, json={"error": error})
        if not self.script:
            return httpx.Response(500, json={"error": "script exhausted"})
        item = self.script.pop(0)
        if isinstance(item, int):
            return httpx.Response(item, json={"error": "scripted failure"})
        if request.url.path == "/api/chat":
            return httpx.Response(200, json={"message": {"role": "assistant", "content": item}})
        message = {"role": "assistant", "content": item}
        return httpx.Response(200, json={"choices": [{"index": 0, "message": message}]})

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handle))

    def prompts(self) -> list[str]:
        """The user message (the numbered lines) of every chat request."""
        return [r["messages"][-1]["content"] for r in self.requests]
