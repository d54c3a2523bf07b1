"""Fixtures: a scripted upstream and the Orma proxy in front of it, both real servers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from orma_proxy.server.auth import parse_keys
from tests.helpers.proxy import UPSTREAM_KEY, Proxy
from tests.helpers.scripted_upstream import Recorded, Script, Upstream, build_upstream
from tests.helpers.serving import serve


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    script, recorded = Script(), Recorded()
    with serve(build_upstream(script, recorded)) as served:
        yield Upstream(served.url, script, recorded, served)


@pytest.fixture
def proxy_config(config: OrmaConfig, upstream: Upstream) -> OrmaConfig:
    """The test's ``config`` (a file under tmp_path, or a PostgreSQL database) and upstream."""
    return config.model_copy(update={"upstream": f"{upstream.url}/v1"})


@pytest.fixture
def proxy(proxy_config: OrmaConfig, upstream: Upstream, embedder: OnnxEmbedder) -> Iterator[Proxy]:
    app = create_app(proxy_config, embedder=embedder)
    with serve(app) as served:
        yield Proxy(served.url, proxy_config, upstream, app)


@pytest.fixture
def guarded(proxy_config: OrmaConfig, embedder: OnnxEmbedder) -> Iterator[str]:
    """A proxy with API keys on (alice's key, an admin key) and an upstream key; its URL."""
    config = proxy_config.model_copy(
        update={
            "api_keys": parse_keys("key-alice=alice;key-admin=*"),
            "upstream_api_key": UPSTREAM_KEY,
        }
    )
    with Memory(config=config, embedder=embedder) as mem:
        mem.add("Alice's secret is the blue door.", space="alice")
        mem.add("Bob's secret is the red car.", space="bob")
    with serve(create_app(config, embedder=embedder)) as served:
        yield served.url
