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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``both_backends`` runs on SQLite, then on PostgreSQL (``backend``)."""
    marked = metafunc.definition.get_closest_marker("both_backends") is not None
    if marked and "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Where ``config`` keeps the memory: "sqlite" unless the test is ``both_backends``."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def config(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> OrmaConfig:
    """A configuration whose data directory and database live in the test's tmp_path.

    On the ``postgres`` backend, the database is a new one on the session's server.
    """
    config = OrmaConfig(home=tmp_path / "home", db_path=tmp_path / "memory.db")
    if backend == "postgres":
        return config.with_db(request.getfixturevalue("pg_url"))
    return config


@pytest.fixture
def db(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Path | str:
    """The ``--db`` of the test: a file under tmp_path, or a PostgreSQL database's URL."""
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return tmp_path / "memory.db"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """One private PostgreSQL + pgvector server for the whole session (pgserver)."""
    with postgres_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: object) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database of the test's own."""
    with fresh_database(pg_server) as url:
        yield url


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
    async with reading(amem.location) as conn:
        yield conn


@pytest.fixture
async def writer(amem: AsyncMemory) -> AsyncIterator[Writer]:
    """A writer of the test's own on ``amem``'s file, for store functions taking one."""
    async with writing(amem.location) as own:
        yield own
