"""Export, import, rebuild and backup: the memory leaves the file and comes back unchanged."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import InputError
from orma_proxy.store.accesses import unpack_times
from tests.helpers.life import PUNE, UNICODE, exported, lived, remember, shown
from tests.helpers.postgres import fresh_database
from tests.helpers.rawdb import rows


@pytest.fixture(params=["sqlite", "postgres"])
async def other(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: OnnxEmbedder, config: OrmaConfig
) -> AsyncIterator[AsyncMemory]:
    """A second, empty memory: a SQLite file, or a PostgreSQL database (either way from
    either backend of ``amem``: the round trip both ways)."""
    with ExitStack() as stack:
        where: Path | str = tmp_path / "other.db"
        if request.param == "postgres":
            where = stack.enter_context(fresh_database(request.getfixturevalue("pg_server")))
        async with AsyncMemory(config=config.with_db(where), embedder=embedder) as mem:
            yield mem


@pytest.mark.both_backends
async def test_export_import_export_gives_the_same_bytes(
    amem: AsyncMemory, other: AsyncMemory
) -> None:
    await lived(amem)
    first = await exported(amem)
    header, *records = [json.loads(line) for line in first.splitlines()]
    assert header["format"] == "orma-export" and header["version"] == 1
    kinds = [r["type"] for r in records]
    assert kinds == sorted(kinds, key=["episode", "sentence", "release", "entity", "state",
                                       "event", "link", "progress", "audit"].index)  # fmt: skip
    assert {"supersede", "release", "unrelease", "purge"} <= {
        r["operation"] for r in records if r["type"] == "audit"
    }
    assert json.dumps(UNICODE, ensure_ascii=False)[1:-1] in first  # UTF-8, no \u escapes

    count = await other.import_jsonl(io.StringIO(first))

    assert count == len(records)
    assert await exported(other) == first
    await other.flush()  # vectors made anew by the importing memory's model
    for mem in (amem, other):
        texts = await shown(mem, "Where do I live?")
        assert "Bangalore" in texts[0] and not any(PUNE in t for t in texts)
        assert (
            (await mem.search("who looks after my teeth?"))
            .passages[0]
            .text.startswith("My dentist")
        )
        assert (await mem.facts("work")) == (await amem.facts("work"))


async def test_a_space_exports_alone(amem: AsyncMemory, tmp_path: Path) -> None:
    await lived(amem)
    path = tmp_path / "work.jsonl"
    counts = await amem.export_jsonl(path, "work")
    lines = path.read_text("utf-8").splitlines()
    assert json.loads(lines[0]) == {
        "format": "orma-export", "version": 1, "space": "work", "counts": counts,
    }  # fmt: skip
    spaces = {json.loads(line).get("space") for line in lines[1:]}
    assert spaces <= {"work", None}  # sentences carry no space of their own
    assert len(lines) == 1 + sum(counts.values())


@pytest.mark.both_backends
async def test_import_refuses_a_database_in_use_or_a_damaged_file(
    amem: AsyncMemory, other: AsyncMemory
) -> None:
    await remember(amem)
    good = await exported(amem)
    with pytest.raises(InputError, match="import needs an empty database"):
        await amem.import_jsonl(io.StringIO(good))
    header, *rest = good.splitlines(keepends=True)
    broken = {
        "truncated": (header + "".join(rest[:-1]), "truncated"),
        "foreign": ('{"format": "csv"}\n' + "".join(rest), "not an orma-export file"),
        "future": (header.replace('"version":1', '"version":9') + "".join(rest), "version 9"),
        "unknown": (good + '{"type":"vector"}\n', "unknown record type 'vector'"),
        "dangling": (good.replace('"episode_id":1,', '"episode_id":77,', 1), "outside"),
    }
    for name, (text, message) in broken.items():
        with pytest.raises(InputError, match=message):
            await other.import_jsonl(io.StringIO(text))
        assert await exported(other) == await _empty_export(other), name


async def _empty_export(mem: AsyncMemory) -> str:
    text = await exported(mem)
    assert json.loads(text)["counts"]["episode"] == 0
    return text


async def test_rebuild_splits_again_and_keeps_facts_marks_and_search(amem: AsyncMemory) -> None:
    long = "I live in Pune and I work at the big blue office on the hill near the river."
    await amem.add(long)
    await amem.add("My dentist is Dr. Rao in Kothrud.")
    await amem.flush()
    await amem.sleep()
    await amem.supersede("big blue office", "I work from home now.")
    facts = await amem.facts(include_history=True)
    amem.config.max_sentence_chars = 40  # as if the splitter had changed

    report = await amem.rebuild()
    await amem.flush()

    assert (report.episodes, report.resplit) == (3, 1) and report.sentences > 3
    after = await amem.facts(include_history=True)
    assert [(s.id, s.value, s.active) for s in after] == [(s.id, s.value, s.active) for s in facts]
    assert all((s.quote and s.quote in long) or s.episode_id != 1 for s in after)
    texts = await shown(amem, "big blue office on the hill")
    assert not any("blue office" in t for t in texts)  # still corrected, in its new pieces
    assert "Dr. Rao" in (await shown(amem, "who looks after my teeth?"))[0]


async def test_a_backup_taken_while_writing_is_whole_and_opens(
    amem: AsyncMemory, tmp_path: Path, embedder: OnnxEmbedder, config: OrmaConfig
) -> None:
    await remember(amem)
    target = tmp_path / "backup.db"

    async def keep_writing() -> None:
        for n in range(60):
            await amem.add(f"Note {n} about the garden shed.")

    writing = asyncio.ensure_future(keep_writing())
    await asyncio.sleep(0)
    size = await amem.backup(target)
    await writing
    assert size == target.stat().st_size > 0
    with pytest.raises(InputError, match="already exists"):
        await amem.backup(target)
    copy = config.model_copy(update={"db_path": target})
    async with AsyncMemory(config=copy, embedder=embedder) as restored:
        stats = await restored.stats()
        assert 6 <= stats.episodes <= 66 and stats.sentences == stats.episodes
        assert "Dr. Rao" in (await shown(restored, "Who is my dentist?"))[0]


async def test_rebuild_moves_recall_histories_to_the_new_sentences(
    amem: AsyncMemory,
) -> None:
    amem.config.enable_facts_on_record = False  # the lines are recalled, not facts drawn
    await amem.add("I live in Pune and I work at the big blue office on the hill near the river.")
    await amem.add("My dentist is Dr. Rao in Kothrud.")
    await amem.flush()
    for minute in range(3):
        at = f"2026-11-01T10:0{minute}:00+00:00"
        await amem.recall("Where are the blue office and the dentist?", at=at)
    await amem.flush()
    query = "SELECT item_id, times FROM recall_history WHERE kind = 'passage' ORDER BY item_id"
    before = [unpack_times(t) for _, t in rows(amem.path, query)]
    amem.config.max_sentence_chars = 40

    await amem.rebuild()

    after = {int(i): unpack_times(t) for i, t in rows(amem.path, query)}
    sentences = {int(r[0]) for r in rows(amem.path, "SELECT id FROM sentences")}
    assert set(after) <= sentences  # nothing points at a sentence that is gone
    assert sorted(after.values()) == sorted(before) and len(before) >= 2
