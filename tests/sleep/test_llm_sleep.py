"""Sleep with a scripted LLM: what the model proposes, what verification keeps, what facts show."""

from __future__ import annotations

import httpx
import pytest

from orma_proxy import AsyncMemory
from orma_proxy.facts import Event, State
from orma_proxy.sleep import SleepReport
from tests.helpers.scripted_llm import ScriptedLLM, answer

pytestmark = pytest.mark.both_backends

# Wednesday 21 October 2026, 10:00 in Asia/Kolkata.
WED = "2026-10-21T10:00:00+05:30"


async def sleep(mem: AsyncMemory, http: httpx.AsyncClient, **kwargs: object) -> SleepReport:
    return await mem.sleeper(http=http).sleep(**kwargs)  # type: ignore[arg-type]


def texts(states: list[State]) -> list[str]:
    return [s.text for s in states]


async def test_good_extraction_lands_as_states_cited_and_searchable(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I'm Sahil and I work at Zerodha as a systems engineer.", role="user", at=WED)
    await smem.add("Nice to meet you, Sahil!", role="assistant", at=WED)
    llm.script = [
        answer(
            states=[
                {"line": 1, "about": "user", "attribute": "employer", "value": "Zerodha"},
                {"line": 1, "attribute": "occupation", "value": "systems engineer"},
            ],
            user_name="Sahil",
        )
    ]
    report = await sleep(smem, http)
    assert (report.batches, report.episodes, report.states_added) == (1, 2, 3)
    assert report.rejected == [] and report.errors == []
    assert report.pending_episodes == 0
    assert texts(await smem.facts()) == [
        "user · employer: Zerodha",
        "user · job title: systems engineer",
        "user · name: Sahil",
    ]
    request = llm.requests[0]
    assert request["temperature"] == 0
    assert request["response_format"]["type"] == "json_schema"
    prompt = llm.prompts()[0]
    assert "[s1 2026-10-21 user] I'm Sahil and I work at Zerodha" in prompt
    assert "[s2 2026-10-21 assistant] Nice to meet you, Sahil!" in prompt
    found = await smem.search("where does Sahil work?")
    assert "user · employer: Zerodha" in [s.text for s in found.states]  # type: ignore[attr-defined]
    # Nothing is pending any more: a second sleep asks the model nothing.
    again = await sleep(smem, http)
    assert again.batches == 0 and len(llm.requests) == 1


async def test_structured_output_degrades_from_json_schema_to_json_object_with_schema(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I live in Pune.", role="user", at=WED)
    llm.refuse_json_schema = True
    llm.script = [answer(states=[{"line": 1, "attribute": "home_city", "value": "Pune"}])]
    report = await sleep(smem, http)
    assert report.states_added == 1
    kinds = [r["response_format"]["type"] for r in llm.requests]
    assert kinds == ["json_schema", "json_object"]
    assert llm.requests[1]["response_format"]["schema"]["required"] == ["states", "events"]


async def test_malformed_answers_are_retried_then_the_rules_consolidate_the_batch(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I live in Pune.", role="user", at=WED)
    llm.script = ["Sure! Here are the facts: home city Pune", '{"facts": ["Pune"]}']
    report = await sleep(smem, http)
    assert len(llm.requests) == 2  # sleep_max_attempts
    assert report.tries_failed == 2 and report.errors == []
    assert report.outcomes == {"rules-fallback": 1} and report.pending_episodes == 0
    assert "neither 'states' nor 'events'" in report.notes[0]
    assert texts(await smem.facts()) == ["user · home city: Pune"]
    assert (await smem.stats()).sleep_batches == {"failed": 2, "rules-fallback": 1}


async def test_bad_citations_and_ungrounded_values_are_rejected_with_reasons(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I live in Pune.", role="user", at=WED)
    await smem.add("Pune is lovely, though Mumbai is bigger.", role="assistant", at=WED)
    llm.script = [
        answer(
            states=[
                {"line": 7, "attribute": "home_city", "value": "Pune"},
                {"line": 1, "attribute": "home_city", "value": "Mumbai"},
                {"line": 2, "attribute": "home_city", "value": "Mumbai"},
                {"line": 1, "attribute": "pet", "value": "a golden retriever puppy"},
                {"line": 1, "attribute": "home_city", "value": "Pune"},
            ]
        )
    ]
    report = await sleep(smem, http)
    reasons = [r.reason for r in report.rejected]
    assert len(reasons) == 4
    assert "cites s7, which is not a line of this batch" in reasons
    assert "the line never says 'Mumbai'" in reasons
    assert "cites s2, an assistant line (context only)" in reasons
    assert any(r.startswith("value is not in the cited line (similarity") for r in reasons)
    assert report.states_rejected == 4
    assert texts(await smem.facts()) == ["user · home city: Pune"]


async def test_a_sisters_fact_is_hers_and_she_carries_to_her(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("My sister Asha is allergic to nuts. She lives in Delhi.", role="user", at=WED)
    llm.script = [
        answer(
            states=[
                {"line": 1, "about": "Asha", "attribute": "allergy", "value": "nuts"},
                {"line": 2, "about": "Delhi", "attribute": "home_city", "value": "Delhi"},
                # The user's, says the model: it misread the line, so the item is refused.
                {"line": 2, "about": "user", "attribute": "home_city", "value": "Delhi"},
            ]
        )
    ]
    report = await sleep(smem, http)
    facts = await smem.facts()
    # The line also says whose sister she is: kept, though the model left it out.
    assert texts(facts) == [
        "user · sister: Asha",
        "Asha · allergy: nuts",
        "Asha · home city: Delhi",
    ]
    assert [f.attribute for f in facts if f.entity == "user"] == ["sister"]
    assert facts[1].quote == "My sister Asha is allergic to nuts."
    assert [r.reason for r in report.rejected] == [
        "about Asha ('She' carried to Asha), not the user"
    ]


async def test_date_phrases_resolve_against_when_the_line_was_said_not_the_models_arithmetic(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I went trekking at Rajmachi last Saturday.", role="user", at=WED)
    await smem.add("I'm flying to Goa next week.", role="user", at=WED)
    # 01:30 on Sunday 18 October in Kolkata is still Saturday in UTC: the zone decides.
    await smem.add("Yesterday I met Priya for lunch.", role="user", at="2026-10-17T20:00:00Z")
    llm.script = [
        answer(
            events=[
                {"line": 1, "what": "went trekking at Rajmachi", "when": "2026-10-18"},
                {"line": 2, "what": "flying to Goa", "when": "next week", "who": ["user"]},
                {"line": 3, "what": "met Priya for lunch", "when": "yesterday", "who": ["Priya"]},
            ]
        )
    ]
    report = await sleep(smem, http)
    assert report.events_added == 3
    trek = (await smem.search("trekking Rajmachi")).events
    goa = (await smem.search("Goa flight")).events
    lunch = (await smem.search("lunch with Priya")).events
    assert isinstance(trek[0], Event) and isinstance(goa[0], Event) and isinstance(lunch[0], Event)
    assert (trek[0].date, trek[0].precision, trek[0].when_text) == (
        "2026-10-17",
        "day",
        "last Saturday",
    )
    assert (goa[0].date, goa[0].precision) == ("2026-10-26", "week")
    assert lunch[0].date == "2026-10-17"
    assert lunch[0].who == ["user", "Priya"]


async def test_pune_bangalore_mumbai_chain_with_history_and_merged_attribute_names(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    said = [
        ("I'm Sahil and I live in Pune.", "2026-10-01T09:00+05:30", "home_city", "Pune"),
        ("I moved from Pune to Bangalore last week.", WED, "city_of_residence", "Bangalore"),
        ("Big news: I moved to Mumbai.", "2026-11-05T09:00+05:30", "current city", "Mumbai"),
        ("Still loving Mumbai, I live in Mumbai now.", "2026-11-20T09:00+05:30", "city", "Mumbai"),
    ]
    for text, at, attribute, value in said:
        await smem.add(text, role="user", at=at)
        llm.script = [answer(states=[{"line": 1, "attribute": attribute, "value": value}])]
        await sleep(smem, http)
    history = await smem.facts(include_history=True)
    chain = [(f.value, f.active, f.replaced_by, f.since, f.rehearsals) for f in history]
    assert chain == [
        ("Pune", False, "Bangalore", None, 1),
        ("Bangalore", False, "Mumbai", "week of 2026-10-12", 1),
        ("Mumbai", True, None, None, 2),
    ]
    # Pune ended where Bangalore began (the Monday of "last week"), in Kolkata time.
    assert history[0].valid_to is not None and history[0].valid_to.isoformat() == (
        "2026-10-11T18:30:00+00:00"
    )
    assert texts(await smem.facts()) == ["user · home city: Mumbai"]
    # Finding the old Pune line still yields what is true now.
    found = await smem.search("Pune")
    assert "user · home city: Mumbai" in [s.text for s in found.states]  # type: ignore[attr-defined]


async def test_conditional_tea_never_closes_the_coffee_baseline(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("I drink black coffee every morning.", role="user", at="2026-10-01T08:00:00Z")
    await smem.add("When I have a sore throat, I drink ginger tea with honey.", role="user", at=WED)
    # The model misses the condition; the line's own frame ("When ..., ") supplies it.
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "morning_drink", "value": "black coffee"},
                {"line": 2, "attribute": "morning_drink", "value": "ginger tea with honey"},
            ]
        )
    ]
    report = await sleep(smem, http)
    assert report.states_superseded == 0
    assert texts(await smem.facts()) == [
        "user · morning drink: black coffee",
        "user · morning drink: ginger tea with honey | when: sore throat",
    ]


async def test_without_defeasible_logic_the_conditional_overwrites_the_baseline(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    smem.config.enable_defeasible_logic = False
    await smem.add("I drink black coffee every morning.", role="user", at="2026-10-01T08:00:00Z")
    await smem.add("When I have a sore throat, I drink ginger tea.", role="user", at=WED)
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "morning_drink", "value": "black coffee"},
                {"line": 2, "attribute": "morning_drink", "value": "ginger tea"},
            ]
        )
    ]
    report = await sleep(smem, http)
    assert report.states_superseded == 1
    assert texts(await smem.facts()) == ["user · morning drink: ginger tea"]


async def test_a_prohibition_becomes_a_forbidden_state(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("Never chain PowerShell commands with semicolons.", role="user", at=WED)
    llm.script = [
        answer(
            states=[
                {
                    "line": 1,
                    "attribute": "powershell_chaining",
                    "value": "chain PowerShell commands with semicolons",
                    "prohibited": True,
                }
            ]
        )
    ]
    await sleep(smem, http)
    [rule] = await smem.facts()
    assert rule.attribute == "forbidden_powershell_chaining"
    assert rule.prohibited and rule.value == "chain PowerShell commands with semicolons"


async def test_ollama_upstream_gets_the_native_api_with_a_format_schema(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    smem.config.upstream = "http://llm.test:11434/v1"
    await smem.add("I live in Pune.", role="user", at=WED)
    llm.script = [answer(states=[{"line": 1, "attribute": "home_city", "value": "Pune"}])]
    report = await sleep(smem, http)
    assert report.states_added == 1
    assert llm.paths == ["GET /api/tags", "GET /props", "POST /api/show", "POST /api/chat"]
    body = llm.requests[0]
    assert body["model"] == "scripted:1b" and body["stream"] is False
    assert body["format"]["required"] == ["states", "events"]
    assert body["options"]["temperature"] == 0


async def test_garbage_from_a_tiny_model_never_corrupts_the_store(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    smem.config.sleep_split_failing_batches = False
    await smem.add("I live in Pune.", role="user", at=WED)
    await smem.add("Okay.", role="assistant", at=WED)
    llm.script = [
        '{"states": [{"line": "s1", "about": null}], "events": "none"}',
        '```json\n{"states": ['
        '{"line": "s1", "about": null, "attribute": 123, "value": ["x"]},'
        '{"line": -5, "attribute": "a", "value": "b"},'
        '{"line": true, "attribute": "a", "value": "b"},'
        '{"line": 1, "attribute": "", "value": ""},'
        '{"line": 1, "attribute": "' + "x" * 500 + '", "value": "Pune"},'
        '{"line": 1.0, "attribute": "home_city", "value": "Pune", "since": 2019},'
        '7, "text"],'
        '"events": [{"line": 1, "what": "", "who": "me"}, {"line": 2, "what": "Okay"}],'
        '"user_name": "Bob"}\n``` trailing words',
    ]
    report = await sleep(smem, http)
    assert report.batches == 1 and report.errors == []
    facts = await smem.facts()
    assert texts(facts) == ["user · home city: Pune"]
    assert [f.attribute for f in await smem.facts(include_history=True)] == ["home_city"]
    assert report.states_added == 1 and report.events_added == 0
    assert len(report.rejected) >= 7
    assert "no line of the user's gives this name" in [r.reason for r in report.rejected]
