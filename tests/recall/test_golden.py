"""Golden blocks for the original Orma's example (Sahil: Pune -> Bangalore, coffee / tea,
Zerodha, a Swiss knife), Sutra and classic, from a hand-built store on a fixed clock.

Two lines more than the original's: its facts say "black coffee" but not "every
morning" ("morning drink" names no habit), and "received a gift" but not "gave": a
fact adds to its line, never subtracts from it (issue 27), so those lines stay."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.recall_store import TODAY, Store, sahil

QUERY = "Where do I live now?"
# The original's example shows every state of the user's whatever the question: the block
# as it was before issue 19 let states compete by relevance (its switches off).
ORIGINAL = {
    "recall_screen": False,
    "recall_relevant_states": False,
    "noise_floor_background_quantile": None,
}

HEADER = (
    "## Memory\n"
    "What you remember about the person you are talking to, from earlier conversations, "
    "notes and documents. Answer directly using these facts and statements without asking "
    "the user to re-confirm details already provided here; do not mention this list. "
    "A line marked [outdated] was true when it was said and has changed since. "
    "Today is 2026-11-01."
)

SUTRA = (
    HEADER
    + """

[user.home city: Bangalore (since 2026-10-17)]
[user.morning drink: black coffee]
[user.morning drink | cond: sore throat -> warm ginger tea with raw honey]
[user.role: systems engineer @ Zerodha]
[EVENT: 2026-11-01: user received a gift from manager: Swiss knife]
[LOG: 2026-10-10 user: I'm Sahil and I live in Pune. [outdated: now Bangalore]]
[LOG: 2026-10-10 user: I drink black coffee every morning.]
[LOG: 2026-11-01 user: My manager gave me a Swiss knife today.]"""
)

CLASSIC = (
    HEADER
    + """

Now true:
- user · home city: Bangalore (since 2026-10-17)
- user · morning drink: black coffee
- user · morning drink when sore throat: warm ginger tea with raw honey
- user · role: systems engineer @ Zerodha
Events:
- 2026-11-01: user received a gift from manager: Swiss knife
Things said before:
- 2026-10-10, user: "I'm Sahil and I live in Pune." [outdated: now Bangalore]
- 2026-10-10, user: "I drink black coffee every morning."
- 2026-11-01, user: "My manager gave me a Swiss knife today.\""""
)


COMPACT = (
    "## Memory (today 2026-11-01)\n"
    "What you know about the user from past chats: use it directly, never re-ask or mention "
    "this list. A line marked [outdated] is no longer true." + SUTRA.removeprefix(HEADER)
)


@pytest.mark.both_backends
async def test_sutra_block_is_the_original_example(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"compact_header": False, **ORIGINAL})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await sahil(Store(mem))
        await mem.flush()
        block = await mem.recall(QUERY, at=TODAY)
    assert block.text == SUTRA
    assert block.tokens == embedder.count_tokens(SUTRA)


@pytest.mark.both_backends
async def test_the_default_header_is_the_compact_one(amem: AsyncMemory) -> None:
    await sahil(Store(amem))
    await amem.flush()
    for key, value in ORIGINAL.items():
        setattr(amem.config, key, value)
    block = await amem.recall(QUERY, at=TODAY)
    assert block.text == COMPACT
    assert block.tokens == amem.embedder.count_tokens(COMPACT)  # type: ignore[attr-defined]
    assert block.tokens < amem.embedder.count_tokens(SUTRA) - 25  # type: ignore[attr-defined]


@pytest.mark.both_backends
async def test_classic_block_says_the_same_in_sections(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    update = {"enable_sutra_packing": False, "compact_header": False, **ORIGINAL}
    config = config.model_copy(update=update)
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await sahil(Store(mem))
        await mem.flush()
        block = await mem.recall(QUERY, at=TODAY)
    assert block.text == CLASSIC


@pytest.mark.both_backends
async def test_by_default_the_block_holds_what_the_question_needs(amem: AsyncMemory) -> None:
    """The same store, today's switches: the home city, the core and the outdated line."""
    await sahil(Store(amem))
    await amem.flush()
    block = await amem.recall(QUERY, at=TODAY)
    lines = block.text.split("\n\n", 1)[1].splitlines()
    assert lines == [
        "[user.home city: Bangalore (since 2026-10-17)]",
        "[user.role: systems engineer @ Zerodha]",
        "[LOG: 2026-10-10 user: I'm Sahil and I live in Pune. [outdated: now Bangalore]]",
    ]
