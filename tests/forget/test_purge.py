"""``purge``: a secret leaves recall, every table, and every byte of the database files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import InputError, LeaseHeldError, NothingMatchedError
from orma_proxy.forget import ForgetResult
from orma_proxy.sleep import lease
from orma_proxy.store import Writer
from orma_proxy.store.connect import open_sync
from orma_proxy.store.postgres.connection import connect
from tests.helpers.life import exported, remember, shown

SECRET = "xqplughzorkwidget3141"
# FTS5 stores terms prefix-compressed: the tail of the term is what a leaf holds whole.
TAIL = SECRET[6:]
LEAK = f"My bank PIN is {SECRET}."
DOCUMENT = f"Branch: Kothrud.\nThe locker code is also {SECRET} for now.\nAsk for Meera."


def _file_bytes(db: Path) -> dict[str, bytes]:
    files = {suffix: Path(f"{db}{suffix}") for suffix in ("", "-wal", "-shm")}
    return {suffix: path.read_bytes() for suffix, path in files.items() if path.exists()}


async def _spread(amem: AsyncMemory) -> tuple[int, int, ForgetResult]:
    """The secret in two episodes, a state, the access log and a release's query."""
    await remember(amem)
    leak = await amem.add(LEAK)
    document = await amem.add(DOCUMENT, role="document")
    await amem.flush()
    await amem.sleep()
    assert any(SECRET in s.value for s in await amem.facts())  # sleep made a state of it
    assert any(SECRET in text for text in await shown(amem, "bank PIN"))  # recalled: logged
    await amem.flush()
    released = await amem.release(f"PIN {SECRET}", max_items=1)  # the query holds it too
    return leak, document, released


async def test_a_purged_secret_is_gone_from_recall_and_from_the_file_bytes(
    amem: AsyncMemory,
) -> None:
    leak, document, released = await _spread(amem)
    witness = open_sync(amem.path, busy_timeout_ms=5_000, read_only=True)  # the raw rows
    try:
        vectors = [
            bytes(r[0])
            for r in witness.execute(
                "SELECT v.embedding FROM sentence_vectors v JOIN sentences s "
                "ON s.id = v.sentence_id WHERE instr(s.text, ?)",
                (SECRET,),
            )
        ]
    finally:
        witness.close()
    assert len(vectors) == 2
    assert any(SECRET.encode() in data for data in _file_bytes(amem.path).values())

    result = await amem.purge(SECRET)

    assert result.affected.episodes == (leak, document) and result.compacted is True
    assert result.preview == ()
    for suffix, data in _file_bytes(amem.path).items():
        for needle in (SECRET.encode(), TAIL.encode(), *vectors):
            assert needle not in data, f"found in memory.db{suffix}"
    texts = await shown(amem, f"What is my bank PIN {SECRET}?")
    assert not any(TAIL in text for text in texts)
    assert (
        (await amem.search("who looks after my teeth?")).passages[0].text.startswith("My dentist")
    )  # the vector index survived the VACUUM
    (audit, *_) = await amem.audit()
    assert (audit.operation, audit.count) == ("purge", result.count)
    assert audit.ids["episodes"] == [leak, document]
    assert SECRET not in json.dumps([e.as_dict() for e in await amem.audit()])
    assert released.release_id is not None
    await amem.add("The dentist moved to Baner.")  # the writer goes on as before
    assert "Baner" in (await shown(amem, "dentist Baner"))[0]


async def test_bytes_stay_gone_once_the_memory_is_closed(amem: AsyncMemory) -> None:
    await amem.add(LEAK)
    await amem.purge(SECRET)
    await amem.close()
    assert all(SECRET.encode() not in data for data in _file_bytes(amem.path).values())


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_on_postgres_a_purged_secret_is_gone_from_recall_and_every_row(
    amem: AsyncMemory,
) -> None:
    leak, document, _ = await _spread(amem)
    assert SECRET in _every_row(amem)

    result = await amem.purge(SECRET)

    assert result.affected.episodes == (leak, document) and result.compacted is True
    assert SECRET not in _every_row(amem)  # text, keyword lexemes, JSON, the audit alike
    assert TAIL not in _every_row(amem)
    texts = await shown(amem, f"What is my bank PIN {SECRET}?")
    assert not any(TAIL in text for text in texts)
    assert (
        (await amem.search("who looks after my teeth?")).passages[0].text.startswith("My dentist")
    )
    (audit, *_) = await amem.audit()
    assert (audit.operation, audit.count) == ("purge", result.count)


def _every_row(amem: AsyncMemory) -> str:
    """Every row of every table of the PostgreSQL memory, as text (a witness of its own)."""
    url = amem.location
    assert isinstance(url, str)
    conn = connect(url)
    try:
        tables = [
            str(r[0])
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            ).fetchall()
        ]
        return "\n".join(
            str(r[0]) for t in tables for r in conn.raw.execute(f"SELECT t::text FROM {t} t")
        )
    finally:
        conn.close()


@pytest.mark.both_backends
async def test_a_dry_run_names_the_episodes_and_changes_nothing(amem: AsyncMemory) -> None:
    ids = await remember(amem)
    leak = await amem.add(LEAK)
    before = await exported(amem)
    dry = await amem.purge(SECRET.upper(), dry_run=True)
    assert (dry.affected.episodes, dry.preview, dry.compacted) == ((leak,), (LEAK,), None)
    assert await exported(amem) == before
    by_id = await amem.purge([leak])
    assert by_id.affected == dry.affected
    with pytest.raises(NothingMatchedError, match="nothing was erased"):
        await amem.purge(SECRET)  # already gone: said so, nothing audited
    assert [e.operation for e in await amem.audit()] == ["purge"]
    with pytest.raises(InputError, match=r"no episode #999 in space 'default'"):
        await amem.purge([ids["I live in Pune."], 999])
    with pytest.raises(InputError, match="non-empty list"):
        await amem.purge([])
    assert "Pune" in await exported(amem)


@pytest.mark.both_backends
async def test_a_consolidation_running_during_a_purge_cannot_apply_its_batch(
    amem: AsyncMemory, writer: Writer
) -> None:
    """Its batch may quote what was erased: the purge takes the lease away from it."""
    episode = await amem.add("My bank PIN is 4921.")
    assert await lease.acquire(writer, "default", "sleep-run", 60.0)
    await amem.purge([episode])
    with pytest.raises(LeaseHeldError):
        await writer.execute_write_fn(lambda conn: lease.check_held(conn, "default", "sleep-run"))
    assert await lease.acquire(writer, "default", "next-run", 60.0)  # nobody holds it now
