"""The synchronous ``Memory`` and the lifecycle rules of both APIs."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import OrmaError


async def test_sync_memory_works_inside_a_running_event_loop(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    asyncio.get_running_loop()  # we are in one, where asyncio.run() would refuse
    with Memory(config=config, embedder=embedder) as mem:
        episode_id = mem.add("The spare key is under the blue flowerpot.")
        found = mem.search("spare key")
        assert found.passages[0].episode_id == episode_id
        mem.flush()
        assert mem.search("where did I hide the key?").passages[0].episode_id == episode_id
        assert mem.stats().pending_vectors == 0


def test_a_closed_memory_says_so_and_closing_twice_is_safe(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    with Memory(config=config, embedder=embedder) as mem:
        mem.add("Context managers close the file.")
    mem.close()  # a second close: nothing happens
    with pytest.raises(OrmaError, match="closed"):
        mem.add("Too late.")
    with pytest.raises(OrmaError, match="closed"):
        mem.search("late")
    with Memory(config=config, embedder=embedder) as again:  # the file is free again
        assert again.stats().episodes == 1


async def test_async_memory_before_open_is_a_clear_error(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    mem = AsyncMemory(config=config, embedder=embedder)
    for call in (mem.add("x"), mem.search("x"), mem.flush(), mem.stats()):
        with pytest.raises(OrmaError, match="memory is not open"):
            await call
    with pytest.raises(OrmaError, match="memory is not open"):
        _ = mem.embedder
    await mem.close()  # closing what was never opened is harmless
    async with mem:
        await mem.add("Opened at last.")
    await mem.close()
    await mem.close()
    with pytest.raises(OrmaError, match="memory is not open"):
        await mem.add("Closed again.")


def test_a_script_that_never_closes_its_memory_exits_quietly_and_keeps_its_writes(
    config: OrmaConfig, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    db = tmp_path / "forgot.db"
    script = textwrap.dedent(
        f"""
        from orma_proxy import Memory, OrmaConfig
        config = OrmaConfig(home={str(tmp_path)!r}, db_path={str(db)!r})
        memory = Memory(config=config)
        print(memory.add("The spare key is under the blue flowerpot."))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stderr) == (0, "")
    with Memory(config=config.with_db(db), embedder=embedder) as again:
        assert again.stats().episodes == 1  # its vector, if still pending, is made now
        assert again.search("spare key").passages[0].episode_id == int(done.stdout)
