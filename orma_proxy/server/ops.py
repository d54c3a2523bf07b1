"""Orma's own endpoints: ``/health``, ``/_orma/last``, and the passthrough of the rest."""

from __future__ import annotations

import asyncio

import httpx
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import OrmaError, PermissionDeniedError
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.server.auth import Guard, asked_space
from orma_proxy.server.state import proxy_state
from orma_proxy.server.upstream import Upstream
from orma_proxy.store.connect import DatabaseError
from webui_passthrough import forward


async def health(request: Request) -> Response:
    """Whether this proxy works: ``status`` "ok", else "degraded", and why.

    503 while the memory cannot record (the database refuses writes, or exchanges
    wait to be recorded once it takes them again): a load balancer should send
    chats to a replica that can. An upstream that does not answer is "degraded"
    with 200: every replica shares it, so taking this one out would not help.

    Without a valid key (when keys are on) only the status: the database path,
    the upstream's URL and how much each space holds are for key holders, and
    a key sees the counts of its own spaces only (a ``*`` key sees everything).
    """
    state = proxy_state(request.app)
    guard: Guard = state.guard
    upstream: Upstream = state.upstream
    memory: AsyncMemory = state.memory
    unwritten = state.recorder.unwritten
    access = guard.identify(request.headers)
    try:
        answer = await upstream.client.get(
            upstream.url("/v1/models"), timeout=state.config.context_probe_timeout
        )
        upstream_ok, detail = answer.status_code < 500, f"HTTP {answer.status_code}"
    except httpx.HTTPError as exc:
        upstream_ok, detail = False, repr(exc)
    failing = memory.writes_failing
    recording = failing is None and unwritten.waiting == 0
    status = "ok" if upstream_ok and recording else "degraded"
    code = 200 if recording else 503
    if access is None:
        return JSONResponse({"status": status}, status_code=code)
    writes: dict[str, object] = {
        "ok": recording,
        "unwritten": unwritten.waiting,
        "dropped": unwritten.dropped,
        **({"error": failing} if failing is not None else {}),
    }
    database: dict[str, object] = {"ok": recording}
    try:
        if access.admin:
            stats = await asyncio.wait_for(memory.stats(), state.config.context_probe_timeout)
            database |= {"path": stats.path, "episodes": stats.episodes}
        else:
            counts = {}
            for space in access.spaces or ():
                found = await asyncio.wait_for(
                    memory.stats(space), state.config.context_probe_timeout
                )
                counts[space] = found.episodes
            database |= {"spaces": counts}
    except (OrmaError, DatabaseError, TimeoutError) as exc:
        database |= {"ok": False, "read_error": str(exc) or "timed out"}
    upstream_info: dict[str, object] = {"ok": upstream_ok}
    if access.admin:
        upstream_info |= {"url": upstream.base, "detail": detail}
    return JSONResponse(
        {
            "status": status,
            "database": database,
            "writes": writes,
            "embedder": {"model": memory.embedder.model_id, "dim": memory.embedder.dim},
            "upstream": upstream_info,
        },
        status_code=code,
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
