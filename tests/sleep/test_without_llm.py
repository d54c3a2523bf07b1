"""Sleep with no LLM: the rule-based extractor, through the same verification and apply."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from orma_proxy import AsyncMemory, Memory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder

pytestmark = pytest.mark.both_backends

# Nothing listens on the discard port: connecting fails at once.
UNREACHABLE = "http://127.0.0.1:9/v1"


def texts(memory: Memory, **kwargs: object) -> list[str]:
    return [f.text for f in memory.facts(**kwargs)]  # type: ignore[arg-type]


def test_unreachable_upstream_falls_back_to_rules_quickly(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"upstream": UNREACHABLE, "timezone": "Asia/Kolkata"})
    with Memory(config=config, embedder=embedder) as mem:
        mem.add("I'm Sahil and I live in Pune.", role="user", at="2026-10-01T09:00:00+05:30")
        mem.add("I work as a backend engineer at Zerodha.", role="user")
        mem.add("My dentist is Dr. Rao in Kothrud.", role="note")
        mem.add("I'm allergic to peanuts.", role="user")
        mem.add("Never chain PowerShell commands with semicolons.", role="user")
        mem.add("I prefer tabs over spaces.", role="user")
        mem.add("You live in Chennai, right?", role="assistant")
        started = time.monotonic()
        report = mem.sleep()
        assert time.monotonic() - started < 10
        assert report.extractors == ["rules"] and report.llm_seconds == 0
        assert any("LLM not used" in s for s in report.skipped)
        assert texts(mem) == [
            "user · allergy: peanuts",
            "user · dentist: Dr. Rao in Kothrud",
            "user · employer: Zerodha",
            "user · forbidden chain powershell commands: chain PowerShell commands with semicolons",
            "user · home city: Pune",
            "user · job title: backend engineer",
            "user · name: Sahil",
            "user · prefers: tabs over spaces",
        ]
        mem.add("I moved to Bangalore last week.", role="user", at="2026-10-21T10:00:00+05:30")
        second = mem.sleep()
        assert (second.states_added, second.states_superseded) == (1, 1)
        history = mem.facts(include_history=True)
        pune = next(f for f in history if f.value == "Pune")
        assert not pune.active and pune.replaced_by == "Bangalore"
        bangalore = next(f for f in history if f.value == "Bangalore")
        assert bangalore.active and bangalore.since == "week of 2026-10-12"


async def test_no_upstream_configured_uses_rules_without_any_request(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"upstream": ""})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.add("I live in Pune.", role="user")
        report = await mem.sleep()
        assert report.extractors == ["rules"] and report.skipped == []
        assert [f.text for f in await mem.facts()] == ["user · home city: Pune"]


async def test_redo_rebuilds_the_same_facts_from_the_episodes(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"upstream": "", "sleep_batch_lines": 1})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.add("I live in Pune.", role="user", at=1_790_000_000)
        await mem.add("I live in Pune.", role="user", at=1_790_100_000)
        await mem.add("I moved to Goa.", role="user", at=1_790_200_000)
        first = await mem.sleep()
        assert first.batches == 3 and first.states_rehearsed == 1
        before = [(f.value, f.active, f.rehearsals) for f in await mem.facts(include_history=True)]
        assert before == [("Pune", False, 2), ("Goa", True, 1)]
        again = await mem.sleep(redo=True)
        assert again.batches == 3
        after = [(f.value, f.active, f.rehearsals) for f in await mem.facts(include_history=True)]
        assert after == before


async def test_enable_semantic_off_makes_no_states(
    config: OrmaConfig, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    config = config.model_copy(update={"upstream": "", "enable_semantic": False})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.add("I live in Pune.", role="user")
        report = await mem.sleep()
        assert report.batches == 0 and report.skipped
        assert await mem.facts() == []


async def test_redo_keeps_forgotten_facts_forgotten_and_corrections_made(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """Redo re-reads the episodes; it must not undo what the user did by hand."""
    config = config.model_copy(update={"upstream": ""})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.add("My dentist is Dr. Rao in Kothrud.", role="note")
        await mem.add("I work as a backend engineer at Zerodha.", role="user")
        await mem.sleep()
        dentist = next(f for f in await mem.facts() if f.attribute == "dentist")
        await mem.forget(dentist.id)
        await mem.supersede("Zerodha", "Google")
        before = sorted(f.text for f in await mem.facts())
        assert "user · employer: Google" in before and not any("dentist" in t for t in before)
        await mem.sleep(redo=True)
        assert sorted(f.text for f in await mem.facts()) == before
        history = await mem.facts(include_history=True)
        assert any(f.attribute == "dentist" and not f.active for f in history)
