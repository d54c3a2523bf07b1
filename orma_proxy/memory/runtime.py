"""``open_runtime(config)``: what a long-running server opens around its memory.

The proxy (``orma proxy``, ``orma up``, ``orma viz``) and ``orma mcp`` both
serve for hours on one event loop: the memory (SQLite + embedder), one pooled
``httpx.AsyncClient`` for the upstream, and sleep consolidating in the
background through the gate that lets chat requests go first. Assembled here
once, so the two servers cannot drift apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.forget import purge, release, supersede
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.recall import hybrid_search, recall_block
from orma_proxy.sleep import SleepScheduler, UpstreamGate, draw_on_record

# What the engine imports on first use (so ``orma stats`` never loads it), loaded with a
# server instead: its first chat turn (or forget request) must not import recall, sleep or
# forget on the event loop.
SERVED_EAGERLY = (hybrid_search, recall_block, draw_on_record, purge, release, supersede)


@dataclass(frozen=True)
class Runtime:
    """An open memory, the upstream client, and sleep running beside them."""

    memory: AsyncMemory
    http: httpx.AsyncClient
    gate: UpstreamGate
    scheduler: SleepScheduler


def upstream_client(config: OrmaConfig) -> httpx.AsyncClient:
    """The pooled client for the upstream: short connect timeout, long read timeout, and idle
    connections dropped before the upstream drops them (``upstream_keepalive_seconds``)."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(config.read_timeout, connect=config.connect_timeout),
        limits=httpx.Limits(
            max_connections=200,
            max_keepalive_connections=50,
            keepalive_expiry=config.upstream_keepalive_seconds,
        ),
        follow_redirects=False,
        trust_env=False,
    )


@asynccontextmanager
async def open_runtime(
    config: OrmaConfig,
    *,
    embedder: Embedder | None = None,
    http_client: httpx.AsyncClient | None = None,
    background_sleep: bool = True,
) -> AsyncIterator[Runtime]:
    """Open the memory (warmed up) and the client, start sleep; close all of it after.

    ``http_client`` replaces the upstream client (a test swapping its transport)
    and is left open. ``background_sleep=False`` never starts consolidation
    (``orma viz``: looking at memory should not change it).
    """
    async with AsyncMemory(config=config, embedder=embedder) as memory:
        client = http_client or upstream_client(config)
        try:
            await memory.warm_up()
            gate = UpstreamGate()
            scheduler = SleepScheduler(memory.sleeper(http=client, gate=gate), config)
            if background_sleep:
                scheduler.start()
            try:
                yield Runtime(memory, client, gate, scheduler)
            finally:
                await scheduler.close()
        finally:
            if http_client is None:
                await client.aclose()
