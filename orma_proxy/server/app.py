"""``create_app(config)``: the Starlette app; its resources are one ``ProxyState``.

Everything is opened in the lifespan and closed after it, nothing at import:
``open_runtime`` (the memory, one pooled ``httpx.AsyncClient`` for the upstream
or the one a caller injects, sleep consolidating on the same event loop and
yielding the upstream to chat requests through the gate), then the recorder's
background tasks and the viz page's own read-only connection.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.memory.runtime import open_runtime
from orma_proxy.server.auth import Guard
from orma_proxy.server.capture import Recorder
from orma_proxy.server.chat import chat_completions, ollama_chat
from orma_proxy.server.errors import EXCEPTION_HANDLERS
from orma_proxy.server.forget import forget
from orma_proxy.server.ops import health, last_block, not_found, passthrough
from orma_proxy.server.paths import NormalPaths
from orma_proxy.server.state import ProxyState
from orma_proxy.server.upstream import Upstream
from orma_proxy.server.viz import open_viz_reader, viz_routes
from orma_proxy.server.viz import page as viz_page

log = logging.getLogger(__name__)

# How long a thread holding the GIL runs before the event loop may take it (Python: 5 ms).
SWITCH_INTERVAL_SECONDS = 0.001

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _settle_heap() -> None:
    """Exempt everything loaded at startup from the cyclic garbage collector.

    The libraries, the model and the memory leave ~80,000 long-lived objects, and
    each full collection walked all of them: 60-80 ms on the 2-core reference
    machine, in whatever thread allocated next, so the event loop stalled that long
    mid-stream (bench.proxy: 4 such pauses, loop lag max 101 ms). Frozen, they are
    never walked again; what requests allocate is collected as before.
    """
    gc.collect()
    gc.freeze()
    # Worker threads doing Python work (splitting, storing, reading a 40,000-sentence turn)
    # hand the GIL back every switch interval, and each request takes it several times: at
    # Python's 5 ms a 19 MB turn's recording kept /health's p99 near 50 ms, at 1 ms below.
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)


def create_app(
    config: OrmaConfig,
    *,
    embedder: Embedder | None = None,
    http_client: httpx.AsyncClient | None = None,
    background_sleep: bool = True,
    own_process: bool = False,
    viz_at_root: bool = False,
) -> Starlette:
    """The memory proxy for ``config``. ``http_client`` replaces the upstream client.

    ``background_sleep=False`` serves without consolidating (``orma viz``: looking
    at memory should not change it behind the user's back). ``own_process=True``
    (the CLI) lets startup tune the whole process: see ``_settle_heap``.
    ``viz_at_root=True`` (``orma viz``) serves the viz page at ``/`` as well: there
    is no LLM's web UI behind it, so ``/`` would only relay the upstream's 502.
    """

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with open_runtime(
            config,
            embedder=embedder,
            http_client=http_client,
            background_sleep=background_sleep,
        ) as runtime:
            memory, scheduler = runtime.memory, runtime.scheduler
            recorder = Recorder(memory, on_recorded=scheduler.notify)
            viz_reader = await open_viz_reader(memory)
            upstream = Upstream(config, runtime.http)
            app.state.orma = ProxyState(
                config=config,
                memory=memory,
                guard=Guard(config.api_keys),
                upstream=upstream,
                gate=runtime.gate,
                sleep=scheduler,
                recorder=recorder,
                viz_reader=viz_reader,
                owned_paths=owned_paths,
            )
            if own_process:
                _settle_heap()
            if viz_at_root:  # `orma viz`: no LLM behind it, so no upstream to name
                log.info("orma viz: database %s", config.shown_db())
            else:
                log.info("orma proxy: upstream %s, database %s", upstream.base, config.shown_db())
            try:
                yield
            finally:
                await scheduler.close()  # first: recordings drained below start no sleep
                await recorder.close()
                await viz_reader.close()

    routes = [
        *([Route("/", viz_page, methods=["GET"])] if viz_at_root else []),
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/chat/completions", chat_completions, methods=["POST"]),
        Route("/api/chat", ollama_chat, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/_orma/last", last_block, methods=["GET"]),
        Route("/_orma/forget", forget, methods=["POST"]),
        *viz_routes(),
        Route("/_orma/{rest:path}", not_found, methods=ALL_METHODS),
    ]
    # Orma's own paths answer 405 to other methods instead of falling through upstream.
    owned_paths = frozenset(
        route.path for route in routes if isinstance(route, Route) and "{" not in route.path
    )
    return Starlette(
        routes=[*routes, Route("/{path:path}", passthrough, methods=ALL_METHODS)],
        middleware=[Middleware(NormalPaths)],
        lifespan=lifespan,
        exception_handlers=EXCEPTION_HANDLERS,
    )
