"""Orma's own endpoints: ``/health``, ``/_orma/last``, and the passthrough of the rest."""

from __future__ import annotations

import httpx
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import PermissionDeniedError
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.server.auth import Guard, asked_space
from orma_proxy.server.state import proxy_state
from orma_proxy.server.upstream import Upstream
from webui_passthrough import forward


async def health(request: Request) -> Response:
    """200 while the proxy itself works; ``status`` says whether the upstream answers.

    Without a valid key (when keys are on) only the status: the database path,
    the upstream's URL and how much each space holds are for key holders, and
    a key sees the counts of its own spaces only (a ``*`` key sees everything).
    """
    state = proxy_state(request.app)
    guard: Guard = state.guard
    upstream: Upstream = state.upstream
    access = guard.identify(request.headers)
    try:
        answer = await upstream.client.get(
            upstream.url("/v1/models"), timeout=state.config.context_probe_timeout
        )
        upstream_ok, detail = answer.status_code < 500, f"HTTP {answer.status_code}"
    except httpx.HTTPError as exc:
        upstream_ok, detail = False, repr(exc)
    status = "ok" if upstream_ok else "degraded"
    if access is None:
        return JSONResponse({"status": status})
    memory: AsyncMemory = state.memory
    if access.admin:
        stats = await memory.stats()
        database: dict[str, object] = {"path": stats.path, "episodes": stats.episodes, "ok": True}
        upstream_info: dict[str, object] = {
            "url": upstream.base,
            "ok": upstream_ok,
            "detail": detail,
        }
    else:
        spaces = access.spaces or ()
        counts = {space: (await memory.stats(space)).episodes for space in spaces}
        database, upstream_info = {"spaces": counts, "ok": True}, {"ok": upstream_ok}
    return JSONResponse(
        {
            "status": status,
            "database": database,
            "embedder": {"model": memory.embedder.model_id, "dim": memory.embedder.dim},
            "upstream": upstream_info,
        }
    )


async def last_block(request: Request) -> Response:
    """The exact memory block injected last time for a space (empty if none)."""
    guard: Guard = proxy_state(request.app).guard
    access = guard.authenticate(request.headers)
    space = guard.space_for(access, asked_space(request.query_params.get("space"), request.headers))
    block = proxy_state(request.app).last_blocks.get(space)
    return JSONResponse({"space": space, "block": block, "found": block is not None})


async def not_found(request: Request) -> Response:
    """Orma's own namespace never falls through to the upstream."""
    raise HTTPException(404, f"no Orma endpoint {request.method} {request.url.path}")


async def passthrough(request: Request) -> Response:
    """Anything Orma doesn't own goes to the upstream unchanged (web UI, models, ...).

    With API keys on, only the web UI's own files (``public_paths``, GET/HEAD)
    load without a key, and they go without the upstream's key too; every other
    path needs a valid key, and ``admin_paths`` (llama-server's ``/slots``, which
    shows other spaces' prompts) a ``*`` key.
    """
    state = proxy_state(request.app)
    config: OrmaConfig = state.config
    guard: Guard = state.guard
    path = request.url.path
    if path in state.owned_paths:
        raise HTTPException(405, f"{request.method} is not allowed on {path}")
    access = guard.identify(request.headers)
    if access is None:
        if request.method not in ("GET", "HEAD") or path not in config.public_paths:
            guard.authenticate(request.headers)  # raises the 401
    elif not access.admin and any(
        path == private or path.startswith(f"{private}/") for private in config.admin_paths
    ):
        raise PermissionDeniedError(f"{path} holds every space's prompts: it needs a '*' key")
    upstream: Upstream = state.upstream
    headers = upstream.headers(
        request.headers, replace_auth=guard.enabled, upstream_key=access is not None
    )
    return await forward(request, upstream.client, upstream.url(path), headers=headers)
