"""A small OpenAI/Ollama-compatible upstream for tests: canned, slow streams; records requests.

It speaks just enough of llama-server and Ollama (chat completions with SSE, Ollama's
NDJSON ``/api/chat``, models, embeddings, completions, ``/props``, a web UI page) to
check what the proxy sends and relays.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.helpers.serving import Served

WEBUI_HTML = """<!doctype html>
<html><head><title>test web ui</title><script src="/assets/app.js"></script></head>
<body><div id="out">waiting</div></body></html>"""

WEBUI_JS = """
window.addEventListener('load', async () => {
  const r = await fetch('/v1/chat/completions', {method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({model: 'webui-model', stream: true,
      messages: [{role: 'user', content: 'What is my favourite colour?'}]})});
  const text = await r.text();
  document.getElementById('out').textContent = text.includes('[DONE]') ? 'done' : 'broken';
});
"""


@dataclass
class Script:
    """What the upstream answers and how slowly."""

    chunks: list[str] = field(default_factory=lambda: ["Hello", " there", "!"])
    delay: float = 0.0
    context_window: int | None = 8192
    props_key: str | None = None  # /props answers 401 without this bearer key (--api-key)
    fail_status: int | None = None
    break_after: int | None = None  # drop the connection after this many chunks
    # For requests asking for JSON (sleep): the answer, or a function of the prompt giving it.
    sleep_answer: str | Callable[[str], str] = '{"states": [], "events": []}'


@dataclass
class Recorded:
    """What the upstream saw."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    streams_started: int = 0
    streams_finished: int = 0
    streams_cancelled: int = 0


def chunk_event(index: int, text: str) -> bytes:
    payload = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "test-model",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
        "timings": {"predicted_n": index + 1},
    }
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


@dataclass
class Upstream:
    """The scripted upstream, served: its URL, what it answers and what it received."""

    url: str
    script: Script
    recorded: Recorded
    served: Served


def build_upstream(script: Script, recorded: Recorded) -> Starlette:
    """The upstream app; ``script`` may be changed between requests by the test."""

    async def record(request: Request) -> dict[str, Any]:
        raw = await request.body()
        entry = {
            "path": request.url.path,
            "query": request.url.query,
            "headers": dict(request.headers),
            "raw": raw,
            "json": json.loads(raw) if raw else None,
        }
        recorded.requests.append(entry)
        return entry

    async def chat(request: Request) -> Response:
        entry = await record(request)
        body = entry["json"]
        if script.fail_status:
            return JSONResponse({"error": {"message": "scripted failure"}}, script.fail_status)
        if body.get("response_format"):  # sleep consolidation asking for JSON
            answer = script.sleep_answer
            content = answer if isinstance(answer, str) else answer(body["messages"][-1]["content"])
            message = {"role": "assistant", "content": content}
            return JSONResponse({"choices": [{"index": 0, "message": message}]})
        if not body.get("stream"):
            await asyncio.sleep(script.delay * len(script.chunks))
            return JSONResponse(
                {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": "test-model",
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": "".join(script.chunks),
                                "reasoning_content": "thinking...",
                            },
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
                    "timings": {"predicted_ms": 12.5},
                }
            )
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        async def events() -> Any:
            recorded.streams_started += 1
            try:
                for index, text in enumerate(script.chunks):
                    if script.break_after is not None and index >= script.break_after:
                        raise ConnectionResetError("scripted break")
                    if script.delay:
                        await asyncio.sleep(script.delay)
                    yield chunk_event(index, text)
                if include_usage:
                    usage = {"choices": [], "usage": {"prompt_tokens": 5, "total_tokens": 9}}
                    yield b"data: " + json.dumps(usage).encode() + b"\n\n"
                yield b"data: [DONE]\n\n"
                recorded.streams_finished += 1
            except asyncio.CancelledError:
                recorded.streams_cancelled += 1
                raise

        return StreamingResponse(events(), media_type="text/event-stream")

    async def ollama_chat(request: Request) -> Response:
        entry = await record(request)
        body = entry["json"]

        def line(text: str, done: bool) -> bytes:
            message = {"role": "assistant", "content": text}
            return json.dumps({"model": "m", "message": message, "done": done}).encode() + b"\n"

        if body.get("stream") is False:
            return Response(line("".join(script.chunks), True), media_type="application/json")

        async def lines() -> Any:
            for text in script.chunks:
                if script.delay:
                    await asyncio.sleep(script.delay)
                yield line(text, False)
            yield line("", True)

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def models(request: Request) -> Response:
        await record(request)
        return JSONResponse({"object": "list", "data": [{"id": "test-model", "object": "model"}]})

    async def echo(request: Request) -> Response:
        entry = await record(request)
        return JSONResponse({"echo": entry["json"], "path": entry["path"], "query": entry["query"]})

    async def props(request: Request) -> Response:
        await record(request)
        if (
            script.props_key
            and request.headers.get("authorization") != f"Bearer {script.props_key}"
        ):
            return JSONResponse({"error": {"message": "Invalid API Key"}}, 401)
        if script.context_window is None:
            return JSONResponse({"error": "no props"}, 404)
        return JSONResponse({"default_generation_settings": {"n_ctx": script.context_window}})

    async def slots(request: Request) -> Response:
        await record(request)
        return JSONResponse([{"id": 0, "prompt": "the last prompt, with someone's memory"}])

    async def index(request: Request) -> Response:
        await record(request)
        return HTMLResponse(WEBUI_HTML, headers={"x-upstream": "webui"})

    async def app_js(request: Request) -> Response:
        return Response(WEBUI_JS, media_type="application/javascript")

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/api/chat", ollama_chat, methods=["POST"]),
            Route("/v1/models", models),
            Route("/v1/embeddings", echo, methods=["POST"]),
            Route("/v1/completions", echo, methods=["POST"]),
            Route("/props", props),
            Route("/slots", slots),
            Route("/", index),
            Route("/assets/app.js", app_js),
        ]
    )
