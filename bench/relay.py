"""The floor under the proxy's cost: a bare Starlette + httpx relay with no memory at all.

``bench.proxy`` times it beside Orma, in front of the same upstream, on the same
loop: ``POST /v1/chat/completions`` is read, sent on with one pooled
``httpx.AsyncClient`` and its bytes streamed back as they come, nothing else (no
recall, no JSON parsing, no recording). What it adds to a first token is what
any proxy built on these libraries adds on this machine; Orma's own cost is the
rest.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route


def bare_relay(upstream: str) -> Starlette:
    """The relay app for the upstream at ``upstream`` (its root URL, no ``/v1``)."""
    url = upstream.rstrip("/") + "/v1/chat/completions"
    clients: list[httpx.AsyncClient] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with httpx.AsyncClient(timeout=None, trust_env=False) as client:
            clients.append(client)
            yield

    async def chat(request: Request) -> Response:
        client = clients[0]
        outgoing = client.build_request(
            "POST", url, content=await request.body(), headers={"content-type": "application/json"}
        )
        reply = await client.send(outgoing, stream=True)
        return StreamingResponse(
            reply.aiter_raw(),
            status_code=reply.status_code,
            media_type=reply.headers.get("content-type"),
            background=BackgroundTask(reply.aclose),
        )

    return Starlette(
        routes=[Route("/v1/chat/completions", chat, methods=["POST"])], lifespan=lifespan
    )
