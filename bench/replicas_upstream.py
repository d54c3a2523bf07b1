"""The fake upstream of ``bench.replicas``: streams chats, records what each user's chat carried,
and answers sleep's extraction requests, or holds them while the benchmark says so.

Chats stream ``bench.upstream``'s chunks. Each streamed request's messages are kept by
the request's ``user`` (its memory space), so the benchmark can read the block a replica
injected. Sleep's requests (``"stream": false``) get an extraction with nothing in it, so
the rule extractor's verified facts are kept (``rules-llm-empty``); while ``hold`` is on
they wait, so a replica can be killed in the middle of a batch.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bench.upstream import CLIENT_CLOSED_REQUEST, MODEL, Streams, create_app

CHUNKS = 8
NOTHING_FOUND = '{"states": [], "events": []}'


class RecordingUpstream:
    """What the replicas asked, by user; sleep's requests held while ``hold()`` is on."""

    def __init__(self) -> None:
        self.prompts: dict[str, list[str]] = defaultdict(list)
        self.sleep_requests = 0
        self.held = 0
        self._released = asyncio.Event()
        self._released.set()
        self._streams = Streams()

    def hold(self) -> None:
        """Sleep's requests wait from now on, until ``release()``."""
        self._released.clear()

    def release(self) -> None:
        self._released.set()

    def app(self) -> Starlette:
        async def chat(request: Request) -> Response:
            try:
                body = json.loads(await request.body())
            except ClientDisconnect:  # sleep's call, abandoned for a chat (or its replica killed)
                return Response(status_code=CLIENT_CLOSED_REQUEST)
            if body.get("stream") is True:
                text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
                self.prompts[str(body.get("user", ""))].append(text)
                return StreamingResponse(
                    self._streams.stream(CHUNKS), media_type="text/event-stream"
                )
            self.sleep_requests += 1
            self.held += 1
            try:
                await self._released.wait()
            finally:
                self.held -= 1
            message = {"role": "assistant", "content": NOTHING_FOUND}
            return JSONResponse(
                {"model": MODEL, "choices": [{"index": 0, "message": message}], "usage": {}}
            )

        chat_path = "/v1/chat/completions"
        # /v1/models and /props as bench.upstream answers them.
        others = [r for r in create_app().routes if getattr(r, "path", None) != chat_path]
        return Starlette(routes=[Route(chat_path, chat, methods=["POST"]), *others])
