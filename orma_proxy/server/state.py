"""``ProxyState``: everything the app keeps between requests, typed, in one place.

The lifespan builds one and puts it on ``app.state``; every handler reads it
with ``proxy_state(request.app)``, so a renamed or missing resource is a mypy
error rather than an ``AttributeError`` on some request.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from starlette.applications import Starlette

from orma_proxy.config import OrmaConfig
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.server.auth import Guard
from orma_proxy.server.capture import Recorder
from orma_proxy.server.upstream import Upstream
from orma_proxy.sleep import SleepScheduler, UpstreamGate
from orma_proxy.store import Reader


@dataclass(frozen=True)
class ProxyState:
    """The open resources of one running proxy (see ``create_app``'s lifespan)."""

    config: OrmaConfig
    memory: AsyncMemory
    guard: Guard
    upstream: Upstream
    gate: UpstreamGate
    sleep: SleepScheduler
    recorder: Recorder
    viz_reader: Reader  # the viz page's own read-only connection
    owned_paths: frozenset[str]  # Orma's paths: other methods get 405, not the upstream
    # The last block injected per space, for ``GET /_orma/last`` (a bounded LRU).
    last_blocks: OrderedDict[str, str] = field(default_factory=OrderedDict)


def proxy_state(app: Starlette) -> ProxyState:
    """The app's ``ProxyState``; only set while the lifespan runs."""
    state: ProxyState = app.state.orma
    return state
