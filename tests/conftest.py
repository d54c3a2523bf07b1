"""Shared fixtures: one real embedding model per test session, fresh databases per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, Memory, OrmaConfig
from orma_proxy.embed.models import load_embedder
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.store import Reader, Writer
from tests.helpers.postgres import fresh_database, postgres_server
from tests.helpers.rawdb import reading, writing


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    """The real offline model (MiniLM int8 from pip), loaded once and shared."""
    return load_embedder(OrmaConfig(embed_model="all-MiniLM-L6-v2-int8"))


@pytest.fixture
def config(tmp_path: Path) -> OrmaConfig:
    """A configuration whose data directory and database live in the test's tmp_path."""
    return OrmaConfig(home=tmp_path / "home", db_path=tmp_path / "memory.db")


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One private PostgreSQL + pgvector server for the whole session (pgserver)."""
    with postgres_server(tmp_path_factory.mktemp("postgres")) as server:
        yield server


@pytest.fixture
def pg_url(pg_server: object) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database of the test's own."""
    with fresh_database(pg_server) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def db_config(request: pytest.FixtureRequest, config: OrmaConfig) -> OrmaConfig:
    """``config`` on each backend in turn: its SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return config
    return config.with_db(request.getfixturevalue("pg_url"))


@pytest.fixture
async def db_amem(db_config: OrmaConfig, embedder: OnnxEmbedder) -> AsyncIterator[AsyncMemory]:
    """An open ``AsyncMemory`` on each backend in turn."""
    async with AsyncMemory(config=db_config, embedder=embedder) as mem:
        yield mem


@pytest.fixture
def db_mem(db_config: OrmaConfig, embedder: OnnxEmbedder) -> Iterator[Memory]:
    """An open ``Memory`` on each backend in turn."""
    with Memory(config=db_config, embedder=embedder) as memory:
        yield memory


@pytest.fixture
async def amem(config: OrmaConfig, embedder: OnnxEmbedder) -> AsyncIterator[AsyncMemory]:
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        yield mem


@pytest.fixture
def mem(config: OrmaConfig, embedder: OnnxEmbedder) -> Iterator[Memory]:
    with Memory(config=config, embedder=embedder) as memory:
        yield memory


@pytest.fixture
async def reader(amem: AsyncMemory) -> AsyncIterator[Reader]:
    """A read-only connection of the test's own to ``amem``'s file, for functions taking one."""
    async with reading(amem.path) as conn:
        yield conn


@pytest.fixture
async def writer(amem: AsyncMemory) -> AsyncIterator[Writer]:
    """A writer of the test's own on ``amem``'s file, for store functions taking one."""
    async with writing(amem.path) as own:
        yield own
