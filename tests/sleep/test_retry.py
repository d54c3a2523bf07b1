"""A bad upstream costs a bounded number of tries per batch, then the rules consolidate it.

The upstream is a real server on a loopback socket answering from a script (no
JSON, 500s, hangs); time is a fake clock, so an hour of exponential backoff
takes no time. What the upstream was asked is counted request by request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.sleep import SleepReport
from tests.helpers.bad_upstream import BadUpstream, Hang, Step, bad_upstream
from tests.helpers.fake_clock import FakeClock

pytestmark = pytest.mark.both_backends

WED = "2026-10-21T10:00:00+05:30"
SAID = [
    "I live in Pune.",
    "I work at Zerodha.",
    "I'm allergic to peanuts.",
    "I prefer tabs over spaces.",
]
RULE_FACTS = [
    "user · allergy: peanuts",
    "user · employer: Zerodha",
    "user · home city: Pune",
    "user · prefers: tabs over spaces",
]
NOTHING = json.dumps({"states": [], "events": []})
NOT_JSON = "Sure! The user lives in Pune and works at Zerodha."
# Backoff from 5 s, doubling: the waits before tries 2..6.
BACKOFF = [5.0, 10.0, 20.0, 40.0, 80.0]


def sleepy(config: OrmaConfig, upstream: BadUpstream, **update: object) -> OrmaConfig:
    return config.model_copy(
        update={"upstream": upstream.url, "timezone": "Asia/Kolkata", **update}
    )


@contextlib.asynccontextmanager
async def served(
    config: OrmaConfig,
    embedder: OnnxEmbedder,
    *script: Step,
    said: list[str] = SAID,
    **update: object,
) -> AsyncIterator[tuple[BadUpstream, AsyncMemory]]:
    """The scripted upstream, and a memory holding ``said`` that sleeps against it."""
    with bad_upstream(*script) as upstream:
        async with AsyncMemory(config=sleepy(config, upstream, **update), embedder=embedder) as mem:
            for text in said:
                await mem.add(text, role="user", at=WED)
            yield upstream, mem


async def texts(mem: AsyncMemory) -> list[str]:
    return [f.text for f in await mem.facts()]


async def test_an_upstream_answering_no_json_costs_six_tries_then_the_rules_take_the_batch(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    clock = FakeClock()
    async with served(config, embedder, NOT_JSON) as (upstream, mem):
        started = clock.now()
        report = await mem.sleeper(clock=clock).sleep()
        # Six requests in all, each after a doubled wait, each on half the episodes before.
        assert len(upstream.requests) == 6
        assert clock.waits == BACKOFF
        assert clock.now() - started < 3600
        assert upstream.lines_asked() == [4, 2, 1, 1, 1, 1]
        assert report.tries_failed == 6 and report.errors == []
        assert report.outcomes == {"rules-fallback": 1} and report.pending_episodes == 0
        assert any("6 LLM requests failed" in n for n in report.notes)
        assert "no JSON object" in report.notes[0]
        assert await texts(mem) == RULE_FACTS
        assert (await mem.stats()).sleep_batches == {"failed": 6, "rules-fallback": 1}
        # Within the hour, nothing about these episodes goes to the upstream again.
        clock.advance(600)
        again = await mem.sleeper(clock=clock).sleep()
        assert again.batches == 0 and len(upstream.requests) == 6


async def test_500s_count_every_request_even_the_response_format_step_downs(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    clock = FakeClock()
    async with served(config, embedder, 500) as (upstream, mem):
        report = await mem.sleeper(clock=clock).sleep()
        kinds = [(r.get("response_format") or {}).get("type") for r in upstream.requests]
        # The first try steps down through four formats; the second has two requests left.
        assert kinds == [
            "json_schema",
            "json_object",
            "json_object",
            None,
            "json_schema",
            "json_object",
        ]
        assert clock.waits == [5.0]
        assert report.outcomes == {"rules-fallback": 1}
        assert await texts(mem) == RULE_FACTS


async def test_a_hanging_upstream_times_out_six_times_then_the_rules_take_over(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    clock = FakeClock()
    hang = Hang(3.0)
    async with served(config, embedder, hang, sleep_llm_timeout_seconds=0.3) as (upstream, mem):
        report = await mem.sleeper(clock=clock).sleep()
        assert len(upstream.requests) == 6 and clock.waits == BACKOFF
        assert "ReadTimeout" in report.notes[0]
        assert report.outcomes == {"rules-fallback": 1}
        assert await texts(mem) == RULE_FACTS


async def test_once_a_batch_fell_back_the_rest_of_the_run_uses_the_rules(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """No storm across batches: one batch spends the budget, the run stops asking."""
    clock = FakeClock()
    async with served(config, embedder, NOT_JSON, sleep_batch_lines=2) as (upstream, mem):
        report = await mem.sleeper(clock=clock).sleep()
        assert len(upstream.requests) == 6
        assert report.outcomes == {"rules-fallback": 2} and report.batches == 2
        assert await texts(mem) == RULE_FACTS
        # A later run asks again, about the next batch only, within its own budget.
        await mem.add("I moved to Goa.", role="user", at=WED)
        later = await mem.sleeper(clock=clock).sleep()
        assert len(upstream.requests) == 12 and later.outcomes == {"rules-fallback": 1}
        assert "user · home city: Goa" in await texts(mem)


async def test_the_budget_survives_a_stopped_process(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """The tries are counted from the batch log, not in memory: a restart starts no new budget."""
    clock = FakeClock(stop_after=2)  # the process is stopped during the third wait
    async with served(config, embedder, NOT_JSON) as (upstream, mem):
        with pytest.raises(asyncio.CancelledError):
            await mem.sleeper(clock=clock).sleep()
        assert len(upstream.requests) == 3
        clock.stop_after = None
        report = await mem.sleeper(clock=clock).sleep()
        assert len(upstream.requests) == 6
        assert clock.waits == BACKOFF  # the third wait again, whole, then on
        assert upstream.lines_asked() == [4, 2, 1, 1, 1, 1]
        assert report.outcomes == {"rules-fallback": 1}


async def test_failures_older_than_the_window_no_longer_count(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    clock = FakeClock(stop_after=2)
    async with served(config, embedder, NOT_JSON) as (upstream, mem):
        with pytest.raises(asyncio.CancelledError):
            await mem.sleeper(clock=clock).sleep()
        clock.stop_after = None
        clock.advance(3601)
        report = await mem.sleeper(clock=clock).sleep()
        assert len(upstream.requests) == 3 + 6
        assert clock.waits == [5.0, 10.0, *BACKOFF]
        assert upstream.lines_asked() == [4, 2, 1, 4, 2, 1, 1, 1, 1]
        assert report.outcomes == {"rules-fallback": 1}


async def test_an_upstream_that_recovers_gets_the_batch_in_halves(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    good = json.dumps(
        {"states": [{"line": 1, "attribute": "home_city", "value": "Pune"}], "events": []}
    )
    rest = json.dumps(
        {
            "states": [
                {"line": 1, "attribute": "employer", "value": "Zerodha"},
                {"line": 2, "attribute": "allergy", "value": "peanuts"},
                {"line": 3, "attribute": "prefers", "value": "tabs over spaces"},
            ],
            "events": [],
        }
    )
    clock = FakeClock()
    async with served(config, embedder, NOT_JSON, 503, good, rest) as (upstream, mem):
        report = await mem.sleeper(clock=clock).sleep()
        # Whole (no JSON), half (503: json_schema, then 503 is no refusal: the try fails),
        # a quarter (answered), then the rest at once: the streak ended with the success.
        assert upstream.lines_asked() == [4, 2, 1, 3]
        assert clock.waits == [5.0, 10.0]
        assert report.outcomes == {"llm": 2} and report.tries_failed == 2
        assert await texts(mem) == RULE_FACTS


async def test_a_model_whose_proposals_all_fail_verification_leaves_the_rules_facts(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """Issue 20, item 2: a small model's empty answer must not leave nothing behind."""
    wrong = json.dumps(
        {
            "states": [
                {"line": 9, "attribute": "home_city", "value": "Pune"},
                {"line": 1, "attribute": "home_city", "value": "Mumbai"},
                {"line": 2, "attribute": "pet", "value": "a golden retriever"},
            ],
            "events": [{"line": 3, "what": "went skydiving"}],
        }
    )
    async with served(config, embedder, wrong) as (upstream, mem):
        report = await mem.sleeper().sleep()
        assert len(upstream.requests) == 1
        assert report.outcomes == {"rules-llm-empty": 1}
        assert report.states_rejected == 3 and report.errors == []
        [note] = report.notes
        assert "nothing the LLM proposed was verified (4 rejected)" in note
        assert "kept the rules' 4 facts" in note
        assert await texts(mem) == RULE_FACTS
        assert "rules-llm-empty 1" in str(report)
        assert (await mem.stats()).sleep_batches == {"rules-llm-empty": 1}


async def test_an_empty_answer_about_chatter_stays_an_llm_batch_with_nothing(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    chatter = ["Hi there!", "Thanks, that helps."]
    async with served(config, embedder, NOTHING, said=chatter) as (_, mem):
        report: SleepReport = await mem.sleeper().sleep()
        assert report.outcomes == {"llm": 1} and report.notes == []
        assert await texts(mem) == []


async def test_keeping_the_rules_facts_can_be_turned_off(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    async with served(config, embedder, NOTHING, sleep_rules_when_llm_empty=False) as (_, mem):
        report = await mem.sleeper().sleep()
        assert report.outcomes == {"llm": 1}
        assert await texts(mem) == []
