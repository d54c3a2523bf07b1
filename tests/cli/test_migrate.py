"""``orma migrate SRC DST``: a whole memory moved between SQLite and PostgreSQL, either way."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.cli import Orma
from tests.helpers.life import exported, lived
from tests.helpers.postgres import fresh_database


@pytest.fixture(params=["sqlite", "postgres"])
def elsewhere(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[Path | str]]:
    """Two more empty places of one kind: a SQLite file each, or a PostgreSQL database each."""
    with ExitStack() as stack:
        if request.param == "postgres":
            server = request.getfixturevalue("pg_server")
            yield [stack.enter_context(fresh_database(server)) for _ in range(2)]
        else:
            yield [tmp_path / "moved.db", tmp_path / "back.db"]


async def _export_of(where: Path | str, config: OrmaConfig, embedder: OnnxEmbedder) -> str:
    async with AsyncMemory(config=config.with_db(where), embedder=embedder) as mem:
        assert (await mem.stats()).pending_vectors == 0  # migrate embedded every sentence
        assert (
            (await mem.search("who looks after my teeth?"))
            .passages[0]
            .text.startswith("My dentist")
        )
        return await exported(mem)


@pytest.mark.both_backends
async def test_migrate_there_and_back_gives_the_same_export(
    amem: AsyncMemory, elsewhere: list[Path | str], orma: Orma, embedder: OnnxEmbedder
) -> None:
    await lived(amem)
    first = await exported(amem)
    there, back = elsewhere
    moved = await asyncio.to_thread(orma, "migrate", amem.location, there, "--json")
    assert moved.exit_code == 0, moved.stderr
    report = json.loads(moved.stdout)
    assert report["records"] == len(first.splitlines()) - 1
    assert "Copying 14 episodes from" in moved.stderr
    assert await _export_of(there, amem.config, embedder) == first

    # and back into a memory of the source's kind, through the command as people type it
    returned = await asyncio.to_thread(orma, "migrate", there, back)
    assert returned.exit_code == 0, returned.stderr
    assert returned.stdout.startswith(f"Migrated {report['records']:,} records (")
    assert await _export_of(back, amem.config, embedder) == first


@pytest.mark.both_backends
def test_migrate_refuses_a_memory_in_use_and_a_missing_source(
    orma: Orma, db: Path | str, tmp_path: Path
) -> None:
    assert orma("add", "Bea plays the cello.", "--db", db).exit_code == 0
    source = tmp_path / "source.db"
    assert orma("add", "Cy sings in a choir.", "--db", source).exit_code == 0
    before = orma("export", "--db", db).stdout

    refused = orma("migrate", source, db)

    assert refused.exit_code == 2
    assert "already holds a memory: migrate fills only an empty one" in refused.stderr
    assert orma("export", "--db", db).stdout == before
    missing = orma("migrate", tmp_path / "nowhere.db", tmp_path / "new.db")
    assert missing.exit_code == 1 and "no memory at" in missing.stderr
    assert not (tmp_path / "new.db").exists()


@pytest.mark.both_backends
def test_import_names_where_it_wrote(orma: Orma, db: Path | str, tmp_path: Path) -> None:
    source, dump = tmp_path / "source.db", tmp_path / "memory.jsonl"
    assert orma("add", "Cy sings in a choir.", "--db", source).exit_code == 0
    assert orma("export", "--db", source, "-o", dump).exit_code == 0
    loaded = orma("import", dump, "--db", db, "--json")
    assert loaded.exit_code == 0, loaded.stderr
    assert json.loads(loaded.stdout) == {"records": 2, "db": str(db)}  # episode, sentence
