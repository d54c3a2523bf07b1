"""Facts beyond the core and a chat's lines enter the block only on the query's topic."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.recall.relevance import topics

UNREACHABLE = "http://127.0.0.1:9/v1"  # sleep falls back to its rules at once
CORE = {"name", "home_city", "employer", "job_title"}
# Twenty things a user says about themselves: the core first, then seventeen others.
FACTS = [
    "My name is Lior.",
    "I live in Halden.",
    "I work as a baker at Sourhill.",
    "My dentist is Dr. Varga.",
    "My favourite colour is teal.",
    "My bike is a red tourer.",
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
    "I'm allergic to penicillin.",
    "My sister Noa lives in Bergen.",
]
GLACIERS = "Glaciers form where snow piles up faster than it melts and slowly turns to ice."
TOOTHACHE = "A dentist should look at a toothache that lasts more than a day or two."


@pytest.fixture
async def twenty(config: OrmaConfig, embedder: OnnxEmbedder) -> AsyncIterator[AsyncMemory]:
    """A chat of twenty facts, a rule, and two answers of the assistant's on two topics."""
    config = config.model_copy(update={"upstream": UNREACHABLE, "index_in_background": False})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for fact in FACTS:
            await exchange(mem, fact, "Noted.")
        await exchange(mem, "Never suggest taxis, use the tram instead.", "Understood.")
        await exchange(mem, "How do glaciers form?", GLACIERS)
        await exchange(mem, "I have had a toothache since Monday.", TOOTHACHE)
        await mem.flush()
        yield mem


async def exchange(mem: AsyncMemory, user: str, reply: str) -> None:
    await mem.add_exchange([("user", user, {}), ("assistant", reply, {})], "chat", heard_at=0.0)


async def test_an_unrelated_query_shows_only_the_core_and_the_rule(twenty: AsyncMemory) -> None:
    assert len(await twenty.facts("chat")) >= 20  # states from the moment they were said
    for query in ("quantum chromodynamics lattice", "Explain how a derailleur works."):
        block = await twenty.recall(query, "chat")
        assert {s.attribute for s in block.states} == CORE, block.text
        assert not block.passages and not block.events, block.text
        assert block.forbidden == ["suggest taxis"], block.text  # hoisted whatever the query


async def test_a_query_on_one_fact_brings_that_fact(twenty: AsyncMemory) -> None:
    dentist = await twenty.recall("When should I see my dentist?", "chat")
    assert {s.attribute for s in dentist.states} == CORE | {"dentist"}, dentist.text
    assert "Dr. Varga" in dentist.text
    film = await twenty.recall("Can you recommend a film for tonight?", "chat")
    assert {s.attribute for s in film.states} == CORE | {"favourite_film"}, film.text
    sister = await twenty.recall("Where does my sister live?", "chat")
    assert "[user.sister: Noa]" in sister.text and "[Noa.home city: Bergen]" in sister.text
    assert {s.attribute for s in sister.states} == CORE | {"sister"}, sister.text
    assert len(sister.states) == len(CORE) + 2, sister.text  # the user's home, and Noa's


async def test_an_assistant_reply_enters_only_on_its_topic(twenty: AsyncMemory) -> None:
    dentist = await twenty.recall("When should I see my dentist?", "chat")
    assert TOOTHACHE in dentist.text and GLACIERS not in dentist.text
    for query in ("When should I see my dentist?", "What should I eat tonight?", "PIN"):
        block = await twenty.recall(query, "chat")
        assert GLACIERS not in block.text, block.text
    ice = await twenty.recall("Why do glaciers move so slowly?", "chat")
    assert GLACIERS in ice.text and TOOTHACHE not in ice.text


async def test_with_the_share_off_anything_the_search_found_competes(
    twenty: AsyncMemory,
) -> None:
    """``recall_topic_share=None``: the test before this one (matched by the search)."""
    query = "Which bike should I take on the trail?"
    now = await twenty.recall(query, "chat")
    off = twenty.config.model_copy(update={"recall_topic_share": None})
    async with AsyncMemory(config=off, embedder=twenty.embedder) as before:
        found = await before.recall(query, "chat")
    assert "red tourer" in now.text and "red tourer" in found.text
    assert len(now.states) < len(found.states), (now.text, found.text)


async def test_a_note_a_fact_was_drawn_from_competes_as_its_fact(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """A note without facts is as the search ranked it; one that states a fact is that fact."""
    config = config.model_copy(update={"upstream": UNREACHABLE, "index_in_background": False})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for fact in FACTS:
            await mem.add(fact, "notes", role="note")
        await mem.flush()
        block = await mem.recall("quantum chromodynamics lattice", "notes")
        assert {s.attribute for s in block.states} == CORE, block.text
        assert "note:" not in block.text, block.text


def test_topics_are_content_stems_and_the_kinds_they_name() -> None:
    assert "kind:home" in topics("Where do I live now?") & topics("My home is in Pune.")
    assert topics("Where do I work these days?") == {"work", "kind:work"}  # "days" is filler
    assert topics("Thanks, that helps!") == set()
    assert not topics("When should I see my dentist?") & topics("How do glaciers form?")


async def test_a_chat_line_without_spaces_is_on_topic_by_its_pairs(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """English MiniLM can't read Chinese: the pairs the keyword channel matched must count."""
    config = config.model_copy(update={"upstream": UNREACHABLE, "index_in_background": False})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for line in ("我叫李雷。", "我的牙医是王医生。", "我住在东京。", "我喜欢下围棋。"):
            await exchange(mem, line, "好的。")
        await mem.flush()
        block = await mem.recall("牙医", "chat")
        assert "我的牙医是王医生。" in block.text, block.text
    assert "牙医" in topics("我的牙医是王医生。")


async def test_the_message_being_answered_is_no_rival(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """Observed before the block is built, the user's own request would be its best match."""
    config = config.model_copy(update={"upstream": UNREACHABLE, "index_in_background": False})
    request = "Write me a short cover letter for a bakery job."
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for line in [*FACTS[:3], "I trained as a pastry chef in Lyon.", *FACTS[4:8], request]:
            await mem.observe("user", line, "asks")
        await mem.flush()
        block = await mem.recall_conversation([{"role": "user", "content": request}], "asks")
        assert "pastry chef in Lyon" in block.text, block.text
        assert "teal" not in block.text and "ThinkPad" not in block.text, block.text


async def test_a_meal_question_brings_an_allergy(twenty: AsyncMemory) -> None:
    """What one is allergic to bears on what to cook or order, though no word is shared."""
    lunch = await twenty.recall("Any recipe ideas for lunch?", "chat")
    assert "[user.allergy: penicillin]" in lunch.text, lunch.text
    bike = await twenty.recall("Which bike should I take on the trail?", "chat")
    assert "allergy" not in {s.attribute for s in bike.states}, bike.text
