"""What sleep derives must outlast the chat: no moods, wishes, replies about something else.

Each rule on text of our own, through the whole sleep (scripted model, real
SQLite, real embedder); the lines themselves stay stored whatever is refused.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import httpx

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.scripted_llm import ScriptedLLM, answer

SAID = datetime(2026, 11, 4, 18, 0, tzinfo=ZoneInfo("Asia/Kolkata"))


async def _say(mem: AsyncMemory, *turns: tuple[str, str]) -> None:
    for role, text in turns:
        await mem.add(text, role=role, at=SAID.isoformat())


async def test_moods_wishes_and_replies_about_something_else_are_refused(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await _say(
        smem,
        ("user", "Ugh, I'm starving at the moment."),  # s1
        ("user", "I'm applying for data analyst jobs."),  # s2
        ("assistant", "Which of the tests fails?"),  # s3
        ("user", "The login test, on every run."),  # s4: the test's, not the user's
        ("assistant", "Which city is your favourite?"),  # s5
        ("user", "Utrecht, easily."),  # s6: asked about the user
        ("assistant", "Any favourite cafes?"),  # s7: about the user too
        ("user", "Mocca, near the canal."),  # s8
        ("user", "I work at Northwind as a QA analyst."),  # s9
        ("user", "Wow, that's awful."),  # s10
    )
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "state", "value": "starving"},
                {"line": 2, "attribute": "job_title", "value": "data analyst"},
                {"line": 2, "attribute": "job_search", "value": "data analyst jobs"},
                {"line": 4, "attribute": "failing_test", "value": "login test"},
                {"line": 6, "attribute": "favourite_city", "value": "Utrecht"},
                {"line": 8, "attribute": "favourite_cafe", "value": "Mocca"},
                {"line": 9, "attribute": "employer", "value": "Northwind"},
                {"line": 10, "attribute": "opinion", "value": "awful"},
            ]
        )
    ]
    report = await smem.sleeper(http=http).sleep()
    reasons = sorted(r.reason for r in report.rejected)
    assert reasons == [
        "a reaction to what was just said, no lasting fact",
        "a reply about something else, not the user",
        "how someone feels at the moment, no lasting fact",
        "the line says it is wanted, not had",
    ]
    assert sorted(f.text for f in await smem.facts()) == [
        "user · employer: Northwind",
        "user · favourite cafe: Mocca",
        "user · favourite city: Utrecht",
        "user · job search: data analyst jobs",
    ]
    found = await smem.search("starving")  # the words stay: only the fact is refused
    assert any("starving" in p.text for p in found.passages)


async def test_a_one_off_with_no_date_is_no_event(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await _say(
        smem,
        ("user", "Finally booked it."),
        ("user", "I renewed my passport on Monday."),
        ("user", "I swim every Sunday."),
    )
    llm.script = [
        answer(
            events=[
                {"line": 1, "what": "booked the ferry"},
                {"line": 2, "what": "renewed passport", "when": "on Monday"},
                {"line": 3, "what": "swim"},
            ]
        )
    ]
    report = await smem.sleeper(http=http).sleep()
    assert sorted(r.reason for r in report.rejected) == [
        "a habit (it recurs), not a happening",
        "no date is said",
    ]
    assert report.events_added == 1


async def test_a_corrected_count_replaces_the_count_just_said(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"upstream": "", "timezone": "Asia/Kolkata"})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await _say(
            mem,
            ("user", "I have four kids."),
            ("assistant", "What are their names?"),
            ("user", "Oops, five kids, I left out the newborn."),
        )
        await mem.sleep()
        facts = await mem.facts(include_history=True)
        assert sorted((f.text, f.active) for f in facts) == [
            ("user · children: five", True),
            ("user · children: four", False),
        ]
    other = config.model_copy(update={"db_path": config.db_path.with_name("other.db")})
    async with AsyncMemory(config=other, embedder=embedder) as mem:
        await _say(mem, ("user", "I have three children."), ("user", "Sorry, two."))
        await mem.sleep()
        assert [f.text for f in await mem.facts()] == ["user · children: two"]


async def test_a_vague_slot_over_a_move_is_the_home_city(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await _say(smem, ("user", "So I moved to Tromso recently."), ("user", "I love Bergen too."))
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "status", "value": "Tromso"},
                {"line": 2, "attribute": "info", "value": "Bergen"},  # no move: stays as said
            ]
        )
    ]
    await smem.sleeper(http=http).sleep()
    assert sorted(f.text for f in await smem.facts()) == [
        "user · home city: Tromso",
        "user · info: Bergen",
    ]
