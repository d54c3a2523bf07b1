"""What the block carries (issue 19, recall side): no echo loop, no chatter, facts by
relevance with an always-on core, a floor for small spaces, and the newest line at once."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.recall.pack import MemoryBlock

UNREACHABLE = "http://127.0.0.1:9/v1"  # sleep falls back to its rules at once
# Every switch of the recall side off: the block as it was before.
OLD = {
    "recall_screen": False,
    "recall_relevant_states": False,
    "noise_floor_background_quantile": None,
}
LINE = re.compile(r"^\[.*\]$", re.MULTILINE)


@pytest.fixture
async def quiet(config: OrmaConfig, embedder: OnnxEmbedder) -> AsyncIterator[AsyncMemory]:
    """A memory that sleeps by rules and embeds only when flushed (no timing in the block)."""
    config = config.model_copy(update={"upstream": UNREACHABLE, "index_in_background": False})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        yield mem


async def exchange(mem: AsyncMemory, user: str, reply: str, space: str) -> None:
    await mem.add_exchange([("user", user, {}), ("assistant", reply, {})], space, heard_at=0.0)


def lines(block: MemoryBlock) -> list[str]:
    return LINE.findall(block.text)


async def test_a_reply_quoting_the_block_adds_no_line_to_the_next_one(quiet: AsyncMemory) -> None:
    """A small model copies the block's lines into its reply; recorded, they never come back."""
    space = "echo"
    await exchange(quiet, "Hi! My name is Lior.", "Nice to meet you, Lior!", space)
    await exchange(quiet, "I live in Halden.", "Got it, thanks for sharing.", space)
    await exchange(quiet, "I work as a baker at Sourhill.", "Noted.", space)
    await quiet.flush()
    question = "Where do I live these days?"
    first = await quiet.recall(question, space)
    assert any("Halden" in line for line in lines(first))  # a line or, drawn on record, a fact
    for turn in range(3):  # the loop: each reply quotes the block it was given
        block = await quiet.recall(question, space)
        quoted = " ".join(lines(block))
        reply = f"{quoted} You live in Halden. So you work at Sourhill."
        await exchange(quiet, question, reply, space)
        await quiet.flush()
        again = await quiet.recall(question, space)
        assert lines(again) == lines(first), f"turn {turn}: {again.text}"
        assert "assistant:" not in again.text


async def test_chatter_and_old_questions_stay_out(quiet: AsyncMemory) -> None:
    space = "chatter"
    await exchange(quiet, "Hello there!", "Hello! How can I help you today?", space)
    await exchange(quiet, "Thanks, that helps today!", "You're welcome, happy to help!", space)
    await exchange(
        quiet, "Where should we go for dinner on Friday?", "Try the dumpling bar.", space
    )
    await exchange(quiet, "I'm vegetarian.", "Good to know.", space)
    await quiet.flush()
    help_block = await quiet.recall("Can you help me today?", space)
    assert not any(p in help_block.text for p in ("Hello", "Thanks", "welcome", "help you")), (
        help_block.text
    )
    dinner = await quiet.recall("Where should I go for dinner?", space)
    assert "go for dinner on Friday?" not in dinner.text
    asked = await quiet.recall("What did I ask you about dinner?", space)
    assert "Where should we go for dinner on Friday?" in asked.text
    old = quiet.config.model_copy(update=OLD)
    async with AsyncMemory(config=old, embedder=quiet.embedder) as before:
        shown = await before.recall("Can you help me today?", space)
        assert "How can I help you today?" in shown.text  # what the switch turns off


FACTS = [
    "My favourite colour is teal.",
    "My bike is a red tourer.",
    "My dentist is Dr. Varga.",
    "My gym is Ironleaf.",
    "My laptop is a grey ThinkPad.",
    "My favourite band is Lumen Drift.",
    "My shoe size is 43.",
    "My blood type is O negative.",
    "My car is a blue hatchback.",
    "My favourite tea is oolong.",
    "My landlord is Mr. Osei.",
    "My bank is Fjordbank.",
    "My barber is Luca.",
    "My plumber is Ines.",
    "My favourite film is Arrival.",
]


async def test_an_unrelated_query_gets_the_core_not_all_eighteen_facts(
    quiet: AsyncMemory,
) -> None:
    space = "facts"
    for text in ["My name is Lior.", "I live in Halden.", "I work as a baker at Sourhill.", *FACTS]:
        await quiet.add(text, space, role="user")
    await quiet.sleep(space)
    await quiet.flush()
    facts = await quiet.facts(space)
    assert len(facts) >= 18
    block = await quiet.recall("quantum chromodynamics lattice", space)
    shown = {s.attribute for s in block.states}
    assert {"name", "home_city", "employer", "job_title"} <= shown
    assert len(block.states) < len(facts) / 2, block.text
    bike = await quiet.recall("What colour is my bike?", space)
    assert "red tourer" in bike.text  # a fact the query matches still competes and wins
    old = quiet.config.model_copy(update=OLD)
    async with AsyncMemory(config=old, embedder=quiet.embedder) as before:
        every = await before.recall("quantum chromodynamics lattice", space)
        assert len(every.states) == len(facts)


async def test_the_core_is_in_the_block_before_sleep(quiet: AsyncMemory) -> None:
    space = "core"
    await quiet.add("Hi, I'm Lior.", space, role="user")
    await quiet.add("I live in Halden.", space, role="user")
    await quiet.add("I moved from Halden to Moss last week.", space, role="user")
    await quiet.add("I work as a baker at Sourhill.", space, role="user")
    await quiet.add("Tove: I live in Sarpsborg.", space, role="note")  # someone else's line
    await quiet.add("I like jigsaw puzzles.", space, role="user")
    await quiet.flush()
    block = await quiet.recall("Explain how tides work.", space)
    assert "Lior" in block.text
    assert "Moss" in block.text and "Halden" not in block.text  # the current home only
    assert "baker" in block.text and "Sourhill" in block.text
    assert "Sarpsborg" not in block.text and "jigsaw" not in block.text


async def test_a_small_space_has_a_noise_floor(quiet: AsyncMemory) -> None:
    space = "small"
    for text in [
        "I like hiking in the hills above the lake.",
        "My sister bakes rye bread on Sundays.",
        "The garden needs new fence posts.",
    ]:
        await quiet.add(text, space, role="note")
    await quiet.flush()
    assert (await quiet.search("PIN", space)).passages == []
    assert not (await quiet.recall("PIN", space)).passages
    hiking = await quiet.search("Where do I go walking?", space)
    assert [p.text for p in hiking.passages][:1] == ["I like hiking in the hills above the lake."]


async def test_observe_then_build_context_finds_the_new_line_at_once(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """The newest line is found by its words whether or not its vector exists yet (20 runs)."""
    for background in (True, False):  # vectors coming any moment, or never
        update = {"upstream": UNREACHABLE, "index_in_background": background}
        async with AsyncMemory(config=config.model_copy(update=update), embedder=embedder) as mem:
            await locker_codes(mem)


async def locker_codes(mem: AsyncMemory) -> None:
    for run in range(20):
        space = f"run-{run}"
        await mem.observe("user", "I keep my bike in the shed.", space)
        await mem.observe("assistant", "A shed is a fine place for a bike.", space)
        await mem.observe("user", f"My locker code is {4400 + run}.", space)
        messages = [{"role": "user", "content": "What is my locker code?"}]
        context = await mem.build_context(messages, space)
        assert context[0]["role"] == "system", f"run {run}: no block"
        assert f"{4400 + run}" in context[0]["content"], f"run {run}: {context[0]}"


async def test_the_assistants_words_are_labelled_the_assistants_never_the_users(
    quiet: AsyncMemory,
) -> None:
    space = "named"
    await quiet.observe("user", "I restored an old rowing boat this spring.", space)
    await quiet.observe(
        "assistant", "I glazed a teal vase for the studio show.", space, name="Wren"
    )
    await quiet.observe("assistant", "I tiled the kitchen floor myself.", space)
    block = (await quiet.recall("What did Wren glaze for the studio show?", space)).text
    assert "assistant (Wren): I glazed a teal vase" in block
    assert "user: I glazed" not in block and "Wren: I glazed" not in block.replace("(Wren)", "")
    block = (await quiet.recall("Who tiled the kitchen floor?", space)).text
    assert "assistant: I tiled the kitchen floor myself." in block
    assert "user: I tiled" not in block
