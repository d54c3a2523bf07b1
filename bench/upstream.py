"""A fast OpenAI-compatible upstream for the proxy benchmark: no model, just SSE.

``python -m bench.upstream [--port 0]`` prints the port it listens on, then
serves until it is stopped. ``POST /v1/chat/completions`` streams ``max_tokens``
content chunks (llama-server's chunk shape, one word each) as fast as the server
can write them, or one every ``bench_chunk_ms`` milliseconds when the request
sets that field (a model's pace), then a ``stop`` chunk and ``[DONE]``; ``GET /v1/models`` and
llama-server's ``GET /props`` answer as a real server would.

It runs in its own process so that making the stream never competes with the
proxy for a GIL: the benchmark measures the proxy, not the upstream's Python.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
from collections.abc import AsyncIterator, Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bench import corpus

MODEL = "bench-model"
CONTEXT_WINDOW = 8_192
# Chunks a request gets when it does not say (``max_tokens``).
DEFAULT_CHUNKS = 16
MAX_CHUNKS = 1_000_000
# The request field that paces a stream like a model (milliseconds between chunks);
# the proxy passes it through untouched, as it does any field it doesn't know.
PACE_FIELD = "bench_chunk_ms"
MAX_CHUNK_MS = 1_000.0
# Distinct content chunks made once at start, then cycled through.
CHUNK_POOL = 1_024
# Notes of the corpus whose words become the streamed text.
TEXT_NOTES = 400
CREATED = 1_735_689_600
# nginx's status for "client closed the request" (nobody reads it).
CLIENT_CLOSED_REQUEST = 499


def words(count: int) -> list[str]:
    """``count`` tokens of realistic text (each with its leading space), from the corpus."""
    text = " ".join(note.text for note in corpus.notes(TEXT_NOTES)).split()
    return [f" {text[i % len(text)]}" for i in range(count)]


def event(payload: object) -> bytes:
    """One SSE event."""
    return (
        b"data: "
        + json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        + b"\n\n"
    )


def chunk(content: str | None, finish_reason: str | None) -> dict[str, object]:
    """A ``chat.completion.chunk`` as llama-server sends it."""
    delta = {"content": content} if content is not None else {}
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


class Streams:
    """The pre-built events: making JSON per chunk would make the upstream the bottleneck."""

    def __init__(self) -> None:
        self.tokens = words(CHUNK_POOL)
        self.events = [event(chunk(token, None)) for token in self.tokens]
        self.tail = event(chunk(None, "stop")) + b"data: [DONE]\n\n"

    async def stream(self, count: int, interval: float = 0.0) -> AsyncIterator[bytes]:
        for index in range(count):
            if interval and index:
                await asyncio.sleep(interval)
            yield self.events[index % CHUNK_POOL]
        yield self.tail

    def whole(self, count: int) -> dict[str, object]:
        text = "".join(self.tokens[i % CHUNK_POOL] for i in range(count))
        return {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": CREATED,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text.strip()},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"completion_tokens": count},
        }


def requested_chunks(body: object) -> int:
    """``max_tokens`` (or ``n_predict``) of the request, within bounds."""
    if not isinstance(body, dict):
        return DEFAULT_CHUNKS
    value = body.get("max_tokens", body.get("n_predict", DEFAULT_CHUNKS))
    if not isinstance(value, int) or value < 0:
        return DEFAULT_CHUNKS
    return min(value, MAX_CHUNKS)


def chunk_interval(body: dict[str, object]) -> float:
    """Seconds between content chunks: ``bench_chunk_ms`` of the request, else none."""
    value = body.get(PACE_FIELD)
    if not isinstance(value, (int, float)) or value <= 0:
        return 0.0
    return min(float(value), MAX_CHUNK_MS) / 1000.0


def create_app() -> Starlette:
    streams = Streams()

    async def chat(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ClientDisconnect:  # the benchmark is stopping
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        except ValueError:
            return JSONResponse({"error": {"message": "invalid JSON"}}, 400)
        count = requested_chunks(body)
        if isinstance(body, dict) and body.get("stream") is True:
            interval = chunk_interval(body)
            return StreamingResponse(
                streams.stream(count, interval), media_type="text/event-stream"
            )
        return JSONResponse(streams.whole(count))

    async def models(request: Request) -> Response:
        return JSONResponse(
            {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "bench"}]}
        )

    async def props(request: Request) -> Response:
        return JSONResponse({"default_generation_settings": {"n_ctx": CONTEXT_WINDOW}})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models),
            Route("/props", props),
        ]
    )


# Every answer of this upstream carries this header, its 500s included: a 5xx without it
# was made by the proxy (``bench.fuzz`` counts those).
MARK_HEADER = b"x-bench-upstream"


def marked(app: ASGIApp) -> ASGIApp:
    """``app`` with ``MARK_HEADER`` on every response, even Starlette's own error pages."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        async def marking(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message["headers"], (MARK_HEADER, b"1")]}
            await send(message)

        await app(scope, receive, marking)

    return wrapped


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.upstream", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    config = uvicorn.Config(
        marked(create_app()), log_level="warning", access_log=False, ws="none", lifespan="off"
    )
    server = uvicorn.Server(config)
    print(sock.getsockname()[1], flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


if __name__ == "__main__":
    main()
