"""Sleep after the lines were drawn from as they were recorded: it confirms or repairs.

The rule-based states of a user's line exist before sleep (``sleep/awake.py``);
the LLM then reads the same line its own way. The same value is that state (not
a rehearsal), another value of the same slot repairs it in place, and a rule
worded otherwise is still the one rule, its alternative beside it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.facts import State
from tests.helpers.scripted_llm import ScriptedLLM, answer

pytestmark = pytest.mark.both_backends

WED = "2026-10-21T10:00:00+05:30"


@pytest.fixture
async def awake(sleep_config: OrmaConfig, embedder: OnnxEmbedder) -> AsyncIterator[AsyncMemory]:
    config = sleep_config.model_copy(update={"enable_facts_on_record": True})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        yield mem


def summary(facts: list[State]) -> list[tuple[str, str, bool, int]]:
    return [(s.attribute, s.value, s.active, s.rehearsals) for s in facts]


async def test_the_llm_confirms_what_was_drawn_and_repairs_a_value(
    awake: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await awake.add("I live in Pune.", role="user", at=WED)
    await awake.add("I work as a senior nurse lead at Kestrel Labs.", role="user", at=WED)
    await awake.add("I live in Pune, really.", role="user", at=WED)
    drawn = summary(await awake.facts())
    assert ("home_city", "Pune", True, 2) in drawn  # said twice, counted twice
    assert ("job_title", "senior nurse lead", True, 1) in drawn
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "city_of_residence", "value": "Pune"},
                {"line": 2, "attribute": "occupation", "value": "nurse"},
                {"line": 2, "attribute": "employer", "value": "Kestrel Labs"},
                {"line": 3, "attribute": "home_city", "value": "Pune"},
            ]
        )
    ]

    report = await awake.sleeper(http=http).sleep()

    assert report.extractors == ["llm"] and report.errors == []
    assert report.states_added == report.states_rehearsed == 0
    after = await awake.facts(include_history=True)
    assert summary(after) == [
        ("employer", "Kestrel Labs", True, 1),
        ("home_city", "Pune", True, 2),
        ("job_title", "nurse", True, 1),  # read better, in place: no history line
    ]


async def test_a_rule_worded_otherwise_by_the_llm_stays_one_rule(
    awake: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await awake.add("Never chain PowerShell commands with semicolons.", role="user", at=WED)
    await awake.add("Don't use the requests library.", role="user", at=WED)
    llm.script = [
        answer(
            states=[
                {
                    "line": 1,
                    "attribute": "powershell_chaining",
                    "prohibited": True,
                    "value": "chaining PowerShell commands with ';', use newlines instead",
                },
                {
                    "line": 2,
                    "attribute": "http_client",
                    "prohibited": True,
                    "value": "the requests library",
                },
            ],
        )
    ]
    before = {s.id: s.value for s in await awake.facts()}

    await awake.sleeper(http=http).sleep()

    after = await awake.facts()
    rules = [s for s in after if s.prohibited]
    assert {s.id: s.value for s in rules} == before  # no rule twice, however worded
    [instead] = [s for s in after if not s.prohibited]  # the LLM saw an alternative rules missed
    assert (instead.attribute, instead.value) == (
        "instead_of_chain_powershell_commands",
        "use newlines",
    )
    block = (await awake.recall("How do I run two PowerShell commands?")).text
    assert "[FORBIDDEN: chain PowerShell commands with semicolons]\n[PREFER: use newlines]" in block
