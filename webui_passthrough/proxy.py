"""Relay one HTTP request to an upstream URL and stream the answer back unchanged."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import aclosing

import httpx
from starlette.background import BackgroundTask
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import StreamingResponse

from webui_passthrough.coalesce import coalesced

# RFC 9110 §7.6.1 connection-specific headers, never forwarded.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)


def request_headers(headers: Headers, *, drop: Iterable[str] = ()) -> list[tuple[str, str]]:
    """The client's headers minus hop-by-hop ones, ``host`` and ``content-length``."""
    skip = HOP_BY_HOP | {"host", "content-length"} | {d.lower() for d in drop}
    return [(k, v) for k, v in headers.items() if k.lower() not in skip]


def wire_headers(headers: list[tuple[str, str]]) -> httpx.Headers:
    """Headers to send, each value the very bytes the client sent.

    The ASGI server decoded them as Latin-1; httpx would encode them as ASCII
    and fail on a UTF-8 user name in ``X-OpenWebUI-User-Id``.
    """
    return httpx.Headers(headers, encoding="latin-1")


# Set by the server that answers the client; relaying the upstream's would double them.
FRONT_SERVER_HEADERS = frozenset({"date", "server"})


def response_headers(headers: httpx.Headers) -> list[tuple[str, str]]:
    """The upstream's headers minus hop-by-hop ones (bodies are relayed as raw bytes)."""
    skip = HOP_BY_HOP | FRONT_SERVER_HEADERS
    return [(k, v) for k, v in headers.multi_items() if k.lower() not in skip]


async def forward(
    request: Request,
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: list[tuple[str, str]] | None = None,
) -> StreamingResponse:
    """Send ``request`` (body streamed) to ``url`` and stream the response back.

    Raises httpx's transport errors (connect, timeout) before the first byte so
    the caller can answer 502/504; the upstream's own 4xx/5xx are relayed as is.
    """
    has_body = request.method not in ("GET", "HEAD", "OPTIONS")
    upstream_request = client.build_request(
        request.method,
        url,
        params=request.url.query or None,
        headers=wire_headers(headers if headers is not None else request_headers(request.headers)),
        content=request.stream() if has_body else None,
    )
    upstream = await client.send(upstream_request, stream=True)
    return relay_response(upstream, _relay(upstream))


def relay_response(
    upstream: httpx.Response,
    body: AsyncIterator[bytes],
    extra_headers: Iterable[tuple[str, str]] = (),
    on_close: Callable[[], None] | None = None,
) -> StreamingResponse:
    """A response with the upstream's status and headers (repeats kept) and ``body``.

    ``on_close`` runs after the response, also when ``body`` never started (a
    client gone before the first byte): cleanup that must happen exactly once
    belongs there as well as in the body's ``finally``.
    """

    async def close() -> None:
        await upstream.aclose()
        if on_close is not None:
            on_close()

    response = StreamingResponse(
        body, status_code=upstream.status_code, background=BackgroundTask(close)
    )
    response.raw_headers = [
        (k.lower().encode("latin-1"), v.encode("latin-1"))
        for k, v in [*response_headers(upstream.headers), *extra_headers]
    ]
    return response


async def _relay(upstream: httpx.Response) -> AsyncIterator[bytes]:
    """The raw (still encoded) body, closing the upstream however the relay ends."""
    try:
        async with aclosing(coalesced(upstream.aiter_raw())) as chunks:
            async for chunk in chunks:
                yield chunk
    finally:
        await upstream.aclose()
