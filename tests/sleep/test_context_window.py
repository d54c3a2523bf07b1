"""Sleep's requests fit the model's context window (issue 20, item 5).

llama-server started with a small ``-c`` answers 500 "Context size has been
exceeded" to a prompt past it. Sleep asks the server its window (``/props``)
and cuts each request's lines to fit beside the instructions and the answer;
a server that still refuses gets fewer episodes per try, and the report names
the cause and the settings to change.
"""

from __future__ import annotations

import json

import httpx

from orma_proxy import AsyncMemory
from orma_proxy.context_window import estimate_tokens
from orma_proxy.sleep import SleepReport
from orma_proxy.sleep.extract import EXTRACTION_SCHEMA, SYSTEM_PROMPT, user_prompt
from tests.helpers.scripted_llm import ScriptedLLM, answer

WED = "2026-10-28T10:00:00+05:30"
ROOM = 600  # tokens left for the lines
SAID = [
    f"On trip day {n} I sorted the receipts from the hostel, the train and a café in Ghent."
    for n in range(1, 31)
]


async def sleep(mem: AsyncMemory, http: httpx.AsyncClient) -> SleepReport:
    return await mem.sleeper(http=http).sleep()  # type: ignore[arg-type]


def window(answer_tokens: int) -> int:
    """The n_ctx that leaves ``ROOM`` tokens for the lines."""
    fixed = SYSTEM_PROMPT + json.dumps(EXTRACTION_SCHEMA) + user_prompt([])
    return ROOM + estimate_tokens(fixed) + answer_tokens


async def said(mem: AsyncMemory) -> None:
    for text in SAID:
        await mem.add(text, role="user", at=WED)


async def test_each_request_is_cut_to_the_window_the_server_says(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    llm.context = window(smem.config.sleep_max_tokens)
    llm.overflow_chars = len(SYSTEM_PROMPT) + 3 * ROOM  # what a prompt past the window costs
    llm.script = [answer()] * 10
    await said(smem)
    report = await sleep(smem, http)
    assert report.tries_failed == 0 and not report.errors, report
    assert "GET /props" in llm.paths
    prompts = llm.prompts()
    assert len(prompts) >= 2  # 30 lines did not fit one request
    assert sum(p.count("\n[s") for p in prompts) == len(SAID)  # every line asked, once
    assert all(estimate_tokens(p) <= ROOM + estimate_tokens(user_prompt([])) for p in prompts)


async def test_a_window_the_server_does_not_say_can_be_set(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    smem.config.sleep_context_tokens = window(smem.config.sleep_max_tokens)
    llm.overflow_chars = len(SYSTEM_PROMPT) + 3 * ROOM
    llm.script = [answer()] * 10
    await said(smem)
    report = await sleep(smem, http)
    assert report.tries_failed == 0 and len(llm.prompts()) >= 2
    assert "GET /props" not in llm.paths  # the setting is believed, nothing asked


async def test_an_overflow_names_its_cause_and_the_settings_to_change(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    llm.overflow_chars = len(SYSTEM_PROMPT) + 3 * ROOM  # and /props says nothing
    await said(smem)
    report = await sleep(smem, http)
    assert report.tries_failed >= 1
    shown = str(report)
    assert "context window (not known) is too small" in shown
    assert "llama-server -c" in shown and "sleep_context_tokens" in shown
    assert report.episodes == len(SAID)  # the rules consolidated the batch all the same
