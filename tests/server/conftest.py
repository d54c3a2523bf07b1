"""Fixtures: a scripted upstream and the Orma proxy in front of it, both real servers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.applications import Starlette

from orma_proxy import Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.server import create_app
from orma_proxy.server.auth import parse_keys
from tests.server.scripted_upstream import Recorded, Script, build_upstream
from tests.server.serving import Served, serve


@dataclass
class Upstream:
    url: str
    script: Script
    recorded: Recorded
    served: Served


@dataclass
class Proxy:
    url: str
    config: OrmaConfig
    upstream: Upstream
    app: Starlette


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    script, recorded = Script(), Recorded()
    with serve(build_upstream(script, recorded)) as served:
        yield Upstream(served.url, script, recorded, served)


@pytest.fixture
def proxy_config(tmp_path: Path, upstream: Upstream) -> OrmaConfig:
    return OrmaConfig(
        home=tmp_path / "home", db_path=tmp_path / "memory.db", upstream=f"{upstream.url}/v1"
    )


@pytest.fixture
def proxy(proxy_config: OrmaConfig, upstream: Upstream, embedder: OnnxEmbedder) -> Iterator[Proxy]:
    app = create_app(proxy_config, embedder=embedder)
    with serve(app) as served:
        yield Proxy(served.url, proxy_config, upstream, app)


# The upstream's own key: a caller without a valid Orma key must never carry it.
UPSTREAM_KEY = "sk-upstream"


@pytest.fixture
def guarded(upstream: Upstream, tmp_path: Path, embedder: OnnxEmbedder) -> Iterator[str]:
    """A proxy with API keys on (alice's key, an admin key) and an upstream key; its URL."""
    config = OrmaConfig(
        home=tmp_path,
        db_path=tmp_path / "m.db",
        upstream=f"{upstream.url}/v1",
        api_keys=parse_keys("key-alice=alice;key-admin=*"),
        upstream_api_key=UPSTREAM_KEY,
    )
    with Memory(config=config, embedder=embedder) as mem:
        mem.add("Alice's secret is the blue door.", space="alice")
        mem.add("Bob's secret is the red car.", space="bob")
    with serve(create_app(config, embedder=embedder)) as served:
        yield served.url
