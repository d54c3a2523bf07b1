"""The proxy's recorder: turns stored in the background, bound by purges made in any process.

A second ``AsyncMemory`` on the same file stands for another process (the CLI),
or on PostgreSQL another replica: it shares nothing with the recorder's memory
but the database.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import NothingMatchedError
from orma_proxy.forget.tombstones import TOMBSTONE_SECONDS, Tombstone, binding, leave
from orma_proxy.memory.messages import Turn
from orma_proxy.server.capture import Recorder
from orma_proxy.store import Writer
from tests.helpers.rawdb import raw, rows, scalar

SECRET = "My locker code is 88415."


@pytest.fixture
async def other(config: OrmaConfig, embedder: OnnxEmbedder) -> AsyncIterator[AsyncMemory]:
    """Another opening of the same file: what `orma purge` in a terminal would be."""
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        yield mem


def _texts(mem: AsyncMemory) -> list[str]:
    return [str(r[0]) for r in rows(mem.location, "SELECT text FROM episodes ORDER BY id")]


@pytest.mark.both_backends
async def test_a_reply_streaming_during_a_purge_elsewhere_is_not_recorded(
    amem: AsyncMemory, other: AsyncMemory
) -> None:
    await amem.add(SECRET)
    recorder = Recorder(amem)
    began = time.time()  # the chat started, its reply is still streaming...
    purged = await other.purge("88415")  # ...when the user purges the code from the CLI
    assert purged.count and not purged.dry_run
    turns = [Turn("user", "What is my locker code?")]
    recorder.record("default", turns, "It is 88415.", partial=False, model=None, began=began)
    await recorder.close()
    assert _texts(amem) == ["What is my locker code?"]


@pytest.mark.both_backends
async def test_a_purge_that_matched_nothing_yet_still_binds_the_turn_on_its_way(
    amem: AsyncMemory, other: AsyncMemory
) -> None:
    """The only copy may be the turn in flight: the purge must still hold for it."""
    recorder = Recorder(amem)
    began = time.time()
    with pytest.raises(NothingMatchedError):  # nothing stored yet: said, and the tombstone kept
        await other.purge("LOCKER CODE IS 88415")
    recorder.record(
        "default", [Turn("user", SECRET)], "Noted.", partial=False, model=None, began=began
    )
    await recorder.close()
    assert _texts(amem) == ["Noted."]


@pytest.mark.both_backends
async def test_a_chat_begun_after_a_purge_is_recorded_whole(
    amem: AsyncMemory, other: AsyncMemory
) -> None:
    """Saying it again after the purge is a new statement: it is kept."""
    recorder = Recorder(amem)
    with pytest.raises(NothingMatchedError):
        await other.purge("88415")
    began = time.time()
    recorder.record(
        "default", [Turn("user", SECRET)], "Noted.", partial=False, model=None, began=began
    )
    await recorder.close()
    assert _texts(amem) == [SECRET, "Noted."]


@pytest.mark.both_backends
async def test_a_purge_in_another_space_leaves_this_one_alone(
    amem: AsyncMemory, other: AsyncMemory
) -> None:
    recorder = Recorder(amem)
    began = time.time()
    with pytest.raises(NothingMatchedError):
        await other.purge("88415", "bob")
    recorder.record("default", [Turn("user", SECRET)], "", partial=False, model=None, began=began)
    await recorder.close()
    assert _texts(amem) == [SECRET]


async def test_the_tombstone_keeps_no_text_and_expires_after_an_hour(
    amem: AsyncMemory, config: OrmaConfig, writer: Writer
) -> None:
    with pytest.raises(NothingMatchedError):  # no compaction: the row stays in the log too
        await amem.purge("88415")
    with raw(config.resolved_db_path()) as conn:
        rows = conn.execute("SELECT chars, salt, digest FROM purge_tombstones").fetchall()
    assert [r[0] for r in rows] == [5] and len(rows[0][1]) == 16 and len(rows[0][2]) == 32
    path = config.resolved_db_path()
    for file in (path, path.with_name(path.name + "-wal")):
        assert b"88415" not in file.read_bytes()

    async def job_binding(since: float) -> list[Tombstone]:
        return await writer.execute_write_fn(lambda conn: binding(conn, "default", since))

    assert len(await job_binding(0.0)) == 1
    old = time.time() - TOMBSTONE_SECONDS - 1
    await writer.execute_write_fn(lambda conn: leave(conn, "default", "stale", old))
    assert len(await job_binding(0.0)) == 1  # the stale one is dropped, the fresh one kept
    with raw(path) as conn:
        assert conn.execute("SELECT count(*) FROM purge_tombstones").fetchone() == (1,)


async def test_tombstones_match_as_purge_matches(amem: AsyncMemory, writer: Writer) -> None:
    """Substring, ASCII letters folded, nothing else: exactly SQLite's instr(lower(), lower())."""
    texts = ["Mein Code: ÄRGER-88415", "code 88415", "ärger", "CODE88415!", "  ", "日本語のコード"]
    targets = ["code", "ÄRGER", "ärger", "88415", "Code 88415", "のコ", "E8", "x"]
    for target in targets:
        await writer.execute_write_fn(lambda conn, t=target: leave(conn, "m", t, time.time()))
    stones = await writer.execute_write_fn(lambda conn: binding(conn, "m", 0.0))
    assert len(stones) == len(targets)
    for stone, target in zip(stones, targets, strict=True):
        for text in texts:
            found = scalar(amem.path, "SELECT instr(lower(?), lower(?)) > 0", text, target)
            assert stone.found_in(text) == bool(found), (text, target)


@pytest.mark.both_backends
async def test_a_lone_surrogate_in_the_reply_costs_no_turn(amem: AsyncMemory) -> None:
    """The exchange is one commit: an unencodable reply must not take the question with it."""
    recorder = Recorder(amem)
    turns = [Turn("user", "Say something odd.")]
    recorder.record("default", turns, "odd \ud800 reply", partial=False, model=None, began=0.0)
    await recorder.close()
    assert _texts(amem) == ["Say something odd.", "odd \ufffd reply"]
