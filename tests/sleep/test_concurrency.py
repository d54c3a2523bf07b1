"""One consolidation per space, whole batches or none, the scheduler, and chat-first yielding."""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack

import httpx
import pytest
import sqlean

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.sleep import SleepReport, SleepScheduler, UpstreamGate
from tests.helpers.rawdb import writing
from tests.helpers.scripted_llm import ScriptedLLM, answer

PUNE = answer(states=[{"line": 1, "attribute": "home_city", "value": "Pune"}])


@pytest.mark.both_backends
@pytest.mark.parametrize("replicas", [1, 2])
async def test_two_concurrent_sleeps_of_one_space_run_once(
    smem: AsyncMemory,
    llm: ScriptedLLM,
    http: httpx.AsyncClient,
    sleep_config: OrmaConfig,
    embedder: OnnxEmbedder,
    replicas: int,
) -> None:
    """Two sleeps in one memory, or in two memories on one database (two replicas)."""
    await smem.add("I live in Pune.", role="user")
    llm.delay = 0.2
    llm.script = [PUNE, PUNE]
    async with AsyncExitStack() as stack:
        other = smem
        if replicas == 2:
            other = await stack.enter_async_context(
                AsyncMemory(config=sleep_config, embedder=embedder)
            )
        first, second = await asyncio.gather(
            smem.sleeper(http=http).sleep("default"), other.sleeper(http=http).sleep("default")
        )
    assert sorted([first.batches, second.batches]) == [0, 1]
    loser = first if first.batches == 0 else second
    assert loser.skipped == ["space 'default': another consolidation is running"]
    assert len(llm.requests) == 1
    assert [f.text for f in await smem.facts()] == ["user · home city: Pune"]


@pytest.mark.both_backends
async def test_a_lease_held_by_another_process_blocks_until_it_expires(
    smem: AsyncMemory,
) -> None:
    smem.config.upstream = ""
    await smem.add("I live in Pune.", role="user")
    # Another process holds the lease: its row, written through a writer of its own.
    async with writing(smem.location) as other:
        await other.execute_write_fn(
            lambda c: c.execute(
                "INSERT INTO sleep_leases (space, holder, expires_at) "
                "VALUES ('default', 'pid1-x', ?)",
                (time.time() + 60,),
            )
        )
        blocked = await smem.sleep("default")
        assert blocked.batches == 0
        assert blocked.skipped == ["space 'default': another consolidation is running"]
        # That process died: once its lease expires, the next sleep takes over.
        await other.execute_write_fn(
            lambda c: c.execute("UPDATE sleep_leases SET expires_at = ?", (time.time() - 1,))
        )
    report = await smem.sleep("default")
    assert report.batches == 1 and report.states_added == 1


async def test_a_failure_mid_apply_leaves_the_batch_pending_and_nothing_half_written(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I'm Sahil. I live in Pune. I joined Zerodha in 2024.", role="user")
    three = answer(
        states=[
            {"line": 2, "attribute": "home_city", "value": "Pune"},
            {"line": 3, "attribute": "employer", "value": "Zerodha"},
        ],
        events=[{"line": 3, "what": "joined Zerodha", "when": "in 2024"}],
        user_name="Sahil",
    )
    # The disk "fails" on the second state insert, inside the batch's transaction.
    await smem.flush()  # no write of this loop in flight while the raw connection blocks it
    conn = sqlean.connect(str(smem.path))
    conn.execute(
        "CREATE TRIGGER fail_second BEFORE INSERT ON states "
        "WHEN (SELECT count(*) FROM states) >= 1 BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )
    conn.commit()
    llm.script = [three]
    report = await sleep_once(smem, http)
    assert report.batches == 0 and report.pending_episodes == 1
    assert "disk on fire" in report.errors[0]
    assert await smem.facts() == []
    assert (await smem.search("Zerodha")).events == []
    await smem.flush()
    conn.execute("DROP TRIGGER fail_second")
    conn.commit()
    conn.close()
    llm.script = [three]
    retry = await sleep_once(smem, http)
    assert retry.batches == 1 and retry.events_added == 1
    assert [f.text for f in await smem.facts()] == [
        "user · employer: Zerodha",
        "user · home city: Pune",
        "user · name: Sahil",
    ]


async def sleep_once(mem: AsyncMemory, http: httpx.AsyncClient) -> SleepReport:
    return await mem.sleeper(http=http).sleep()


@pytest.mark.both_backends
async def test_scheduler_consolidates_a_space_once_enough_episodes_are_pending(
    smem: AsyncMemory,
) -> None:
    smem.config.upstream = ""
    smem.config.sleep_after_episodes = 3
    smem.config.sleep_idle_seconds = 3600
    scheduler = SleepScheduler(smem.sleeper(), smem.config)
    await smem.add("I live in Pune.", role="user")
    await smem.add("I work at Zerodha.", role="user")
    assert (await scheduler.run_once()).batches == 0
    await smem.add("I'm allergic to peanuts.", role="user")
    report = await scheduler.run_once()
    assert report.episodes == 3 and report.states_added == 3


@pytest.mark.both_backends
async def test_scheduler_runs_in_the_background_on_idle_and_closes_cleanly(
    smem: AsyncMemory,
) -> None:
    smem.config.upstream = ""
    smem.config.sleep_idle_seconds = 0.2
    smem.config.sleep_poll_seconds = 0.05
    scheduler = SleepScheduler(smem.sleeper(), smem.config)
    scheduler.start()
    assert scheduler.running
    try:
        await smem.add("I live in Pune.", role="user")
        deadline = time.monotonic() + 10
        # The scheduler shows its work only in the database: poll what a user would see.
        while not await smem.facts() and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        assert [f.text for f in await smem.facts()] == ["user · home city: Pune"]
    finally:
        await scheduler.close()
    assert not scheduler.running


@pytest.mark.both_backends
async def test_sleep_waits_for_chat_and_abandons_a_call_a_chat_overtakes(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I live in Pune.", role="user")
    gate = UpstreamGate()
    llm.delay = 0.3
    llm.script = [PUNE, PUNE]
    with gate.chat():
        task = asyncio.create_task(smem.sleeper(http=http, gate=gate).sleep())
        await asyncio.sleep(0.2)
        assert llm.requests == []  # held back while the chat is in flight
    await asyncio.wait_for(llm.received.wait(), 5)
    with gate.chat():  # a chat arrives while sleep's call runs: sleep gives way
        await asyncio.sleep(0.05)
    report = await task
    assert gate.yields == 1 and len(llm.requests) == 2
    assert report.states_added == 1
