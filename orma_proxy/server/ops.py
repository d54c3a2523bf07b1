"""Orma's own endpoints: ``/health``, ``/_orma/last``, and the passthrough of the rest."""

from __future__ import annotations

import httpx
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orma_proxy.server.auth import Guard
from orma_proxy.server.upstream import Upstream
from webui_passthrough import forward

# Paths that are API calls: with keys configured they always need one.
API_PREFIXES = ("/v1", "/api/", "/_orma/", "/chat/", "/completion", "/infill", "/embedding")


async def health(request: Request) -> Response:
    """Database, embedder and upstream status; 200 while the proxy itself works."""
    state = request.app.state
    upstream: Upstream = state.upstream
    stats = await state.memory.stats()
    try:
        answer = await upstream.client.get(
            upstream.url("/v1/models"), timeout=state.config.context_probe_timeout
        )
        upstream_ok, detail = answer.status_code < 500, f"HTTP {answer.status_code}"
    except httpx.HTTPError as exc:
        upstream_ok, detail = False, repr(exc)
    return JSONResponse(
        {
            "status": "ok" if upstream_ok else "degraded",
            "database": {"path": stats.path, "episodes": stats.episodes, "ok": True},
            "embedder": {"model": stats.embedder, "dim": stats.dim},
            "upstream": {"url": upstream.base, "ok": upstream_ok, "detail": detail},
        }
    )


async def last_block(request: Request) -> Response:
    """The exact memory block injected last time for a space (empty if none)."""
    guard: Guard = request.app.state.guard
    access = guard.authenticate(request.headers)
    space = guard.space_for(access, request.query_params.get("space"))
    block = request.app.state.last_blocks.get(space)
    return JSONResponse({"space": space, "block": block, "found": block is not None})


async def not_found(request: Request) -> Response:
    """Orma's own namespace never falls through to the upstream."""
    raise HTTPException(404, f"no Orma endpoint {request.method} {request.url.path}")


async def passthrough(request: Request) -> Response:
    """Anything Orma doesn't own goes to the upstream unchanged (web UI, models, ...)."""
    state = request.app.state
    guard: Guard = state.guard
    path = request.url.path
    if path in request.app.state.owned_paths:
        raise HTTPException(405, f"{request.method} is not allowed on {path}")
    is_api = path.startswith(API_PREFIXES) or request.method not in ("GET", "HEAD")
    if guard.enabled and is_api:
        guard.authenticate(request.headers)
    upstream: Upstream = state.upstream
    headers = upstream.headers(request.headers, replace_auth=guard.enabled)
    return await forward(request, upstream.client, upstream.url(path), headers=headers)
