"""``GET /_orma/viz``: the memory connectome page, and the JSON API under ``/_orma/api/``.

The page and its scripts are static files shipped in the package
(``static/viz``, the 3D library vendored with its licenses): no CDN, so it
works offline. It holds no memory itself; everything comes from these
endpoints, which need an API key when keys are configured and reach only the
key's spaces (``Guard``, as ``/_orma/last`` and ``/_orma/forget``):

- ``GET  /_orma/api/spaces``: the spaces the caller may see
- ``GET  /_orma/api/graph?space=S&limit=N``: nodes and edges (``orma_proxy.viz.graph``)
- ``GET  /_orma/api/node/{id}?space=S``: one node for the inspector (``state:12``)
- ``POST /_orma/api/recall`` ``{"query", "space"}``: the block recall would inject, and why
- ``GET  /_orma/api/pending?space=S``: recent episodes and what waits for sleep
- ``POST /_orma/api/state/{id}/forget?space=S``: close a state (``AsyncMemory.forget``)

The viz reads through a read-only connection of its own, so drawing a large
graph never queues in front of a chat request's recall.
"""

from __future__ import annotations

import time
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from orma_proxy.errors import BadRequestError, InputError
from orma_proxy.inputs import check_text
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.server.auth import Guard, asked_space
from orma_proxy.server.chat import read_json_body
from orma_proxy.server.state import proxy_state
from orma_proxy.store import MAX_ROW_ID, Reader, open_async
from orma_proxy.viz.detail import NODE_KINDS, node_detail, parse_node_id, state_detail
from orma_proxy.viz.feed import feed, list_spaces
from orma_proxy.viz.graph import build_graph
from orma_proxy.viz.preview import recall_preview

STATIC = Path(__file__).resolve().parent / "static" / "viz"
PAGE_PATH = "/_orma/viz"
# Everything the page loads comes from this server; nothing inline but styles.
_PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)


async def open_viz_reader(memory: AsyncMemory) -> Reader:
    """The viz's own read-only connection to the memory's file (closed by the lifespan).

    Its recall preview searches like the proxy, so it gets the in-memory k-NN's
    ``orma_nearest`` function too.
    """
    conn = await open_async(
        memory.location, busy_timeout_ms=memory.config.busy_timeout_ms, read_only=True
    )
    await memory.vector_index.register(conn)
    return conn


def _space(request: Request) -> str:
    """The space asked for (``?space=``, else ``x-orma-space``), checked against the key."""
    guard: Guard = proxy_state(request.app).guard
    access = guard.authenticate(request.headers)
    return guard.space_for(access, asked_space(request.query_params.get("space"), request.headers))


async def page(request: Request) -> Response:
    """The page itself: static HTML, no data in it (so it loads without a key, like a web UI)."""
    return FileResponse(
        STATIC / "index.html",
        headers={"content-security-policy": _PAGE_POLICY, "cache-control": "no-cache"},
    )


async def spaces(request: Request) -> Response:
    guard: Guard = proxy_state(request.app).guard
    access = guard.authenticate(request.headers)
    reader = proxy_state(request.app).viz_reader
    found = await reader.execute_fn(lambda conn: list_spaces(conn, access.allows))
    return JSONResponse({"spaces": found, "default": guard.space_for(access, None)})


async def graph(request: Request) -> Response:
    space = _space(request)
    state = proxy_state(request.app)
    config = state.config
    asked = request.query_params.get("limit", "")
    if asked and not (asked.isascii() and asked.isdigit()):
        raise BadRequestError("limit must be a positive whole number")
    limit = min(int(asked) if asked else config.viz_max_nodes, config.viz_max_nodes)
    if limit < 1:
        raise BadRequestError("limit must be a positive whole number")
    now = time.time()
    built = await state.viz_reader.execute_fn(
        lambda conn: build_graph(conn, space, config, now, limit)
    )
    return JSONResponse(built.as_dict())


async def node(request: Request) -> Response:
    space = _space(request)
    wanted = request.path_params["node"]
    kind, _, number = wanted.partition(":")
    if kind in NODE_KINDS and number.isdigit() and parse_node_id(wanted) is None:
        raise BadRequestError(f"{wanted!r} names no node: ids are ASCII digits up to {MAX_ROW_ID}")
    state = proxy_state(request.app)
    now = time.time()
    found = await state.viz_reader.execute_fn(
        lambda conn: node_detail(conn, space, wanted, state.config, now)
    )
    if found is None:
        raise HTTPException(404, f"no node {wanted!r} in space {space!r}")
    return JSONResponse(found)


async def recall(request: Request) -> Response:
    guard: Guard = proxy_state(request.app).guard
    access = guard.authenticate(request.headers)
    _, body = await read_json_body(request, proxy_state(request.app).config.max_body_bytes)
    text = check_text(body.get("query"), "'query'")
    space = guard.space_for(access, asked_space(body.get("space"), request.headers))
    state = proxy_state(request.app)
    try:
        preview = await recall_preview(state.memory, state.viz_reader, text, space)
    except InputError as exc:
        raise BadRequestError(str(exc)) from exc
    return JSONResponse(preview)


async def pending(request: Request) -> Response:
    space = _space(request)
    state = proxy_state(request.app)
    running = state.sleep.running
    found = await state.viz_reader.execute_fn(lambda conn: feed(conn, space, sleep_running=running))
    return JSONResponse(found)


async def forget_state(request: Request) -> Response:
    space = _space(request)
    state = proxy_state(request.app)
    number = int(request.path_params["number"])
    if number > MAX_ROW_ID:
        raise BadRequestError(f"no state can have the id {number}")
    try:
        await state.memory.forget(number, space)
    except InputError as exc:
        raise BadRequestError(str(exc)) from exc
    now = time.time()
    found = await state.viz_reader.execute_fn(
        lambda conn: state_detail(conn, space, number, state.config, now)
    )
    if found is None:
        raise HTTPException(404, f"no state #{number} in space {space!r}")
    return JSONResponse(found)


def viz_routes() -> list[BaseRoute]:
    """The page, its static files and its API; placed before the ``/_orma`` catch-all."""
    return [
        Route(PAGE_PATH, page, methods=["GET"]),
        Mount(f"{PAGE_PATH}/static", app=StaticFiles(directory=STATIC), name="viz-static"),
        Route("/_orma/api/spaces", spaces, methods=["GET"]),
        Route("/_orma/api/graph", graph, methods=["GET"]),
        Route("/_orma/api/node/{node}", node, methods=["GET"]),
        Route("/_orma/api/recall", recall, methods=["POST"]),
        Route("/_orma/api/pending", pending, methods=["GET"]),
        Route("/_orma/api/state/{number:int}/forget", forget_state, methods=["POST"]),
    ]
