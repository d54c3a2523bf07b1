"""The app factory: what startup does to the process it runs in."""

from __future__ import annotations

import gc

import httpx

from orma_proxy import OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import serve


def test_the_served_proxy_exempts_its_startup_heap_from_the_collector(
    proxy_config: OrmaConfig, upstream: Upstream, embedder: OnnxEmbedder
) -> None:
    """``orma proxy`` freezes what startup loaded: a full collection walked ~80,000 objects."""
    assert gc.get_freeze_count() == 0
    try:
        with serve(create_app(proxy_config, embedder=embedder, own_process=True)) as served:
            frozen = gc.get_freeze_count()
            reply = httpx.post(
                f"{served.url}/v1/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "Hello?"}]},
            )
            assert reply.status_code == 200
            assert gc.get_freeze_count() <= frozen  # what requests make is not frozen
        assert frozen > 10_000
    finally:
        gc.unfreeze()


def test_an_embedded_app_leaves_the_host_process_collector_alone(
    proxy_config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    with serve(create_app(proxy_config, embedder=embedder)) as served:
        assert httpx.get(f"{served.url}/health").status_code == 200
        assert gc.get_freeze_count() == 0
