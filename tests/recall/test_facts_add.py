"""A fact stands in for its line only when it says all of it (issue 27: facts add, never subtract).

The facts here are the ones ``add()`` draws from a note as it is recorded (no LLM,
no hand-written states): each test first checks the fact was really drawn, then
that the block carries what the line says beyond it. Every path that shows the
block (``recall()``, ``build_context()``, the CLI, MCP, the proxy) packs it with
the one ``recall_block``; ``recall()`` and ``build_context()`` are compared here.
"""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory

pytestmark = pytest.mark.both_backends

# (note, the fact drawn from it, a question about the rest, a word only the rest says)
SAYS_MORE = [
    (
        "My brother Kabir plays the violin in the Pune symphony orchestra.",
        "user · brother: Kabir",
        "What instrument does my brother play?",
        "violin",
    ),
    (  # a job plus a place
        "I work at Zoho as a nurse in the Chennai office.",
        "user · employer: Zoho",
        "Which city is my office in?",
        "Chennai",
    ),
    (  # an allergy plus a reaction
        "I'm allergic to peanuts and they give me hives.",
        "user · allergy: peanuts",
        "What happens to me when I eat peanuts?",
        "hives",
    ),
    (  # a relation plus a job and a place
        "My sister Asha teaches chemistry at a school in Mysore.",
        "user · sister: Asha",
        "What subject does my sister teach?",
        "chemistry",
    ),
]


def body(text: str) -> list[str]:
    return text.split("\n\n", 1)[1].splitlines()


async def facts_of(mem: AsyncMemory) -> list[str]:
    return [f.text for f in await mem.facts()]


@pytest.mark.parametrize(("note", "fact", "question", "rest"), SAYS_MORE)
async def test_the_block_carries_what_the_fact_does_not_say(
    amem: AsyncMemory, note: str, fact: str, question: str, rest: str
) -> None:
    await amem.add(note)
    await amem.flush()
    assert fact in await facts_of(amem)  # drawn as the note was recorded
    block = await amem.recall(question)
    lines = body(block.text)
    entity, attribute_value = fact.split(" · ")
    assert f"[{entity}.{attribute_value}]" in lines  # the fact is shown...
    said = [line for line in lines if line.startswith("[LOG:")]
    assert len(said) == 1 and said[0].endswith(f" note: {note}]"), lines  # ...and its line
    assert rest in block.text
    messages = [{"role": "user", "content": question}]
    context = await amem.build_context(messages)
    assert context[0]["content"] == block.text  # the same block, the same packing


async def test_a_fact_that_says_all_of_its_line_stands_in_for_it(amem: AsyncMemory) -> None:
    """'I live in Pune.': "live" names the kind of a home city, "Pune" is its value."""
    await amem.add("I live in Pune.")
    await amem.add("I work as a nurse at Zoho.")
    await amem.flush()
    assert {"user · home city: Pune", "user · employer: Zoho", "user · job title: nurse"} <= set(
        await facts_of(amem)
    )
    home = body((await amem.recall("Where do I live?")).text)
    assert "[user.home city: Pune]" in home
    assert not any(line.startswith("[LOG:") for line in home), home
    work = body((await amem.recall("Where do I work and what as?")).text)
    assert {"[user.employer: Zoho]", "[user.job title: nurse]"} <= set(work)
    assert not any(line.startswith("[LOG:") for line in work), work
