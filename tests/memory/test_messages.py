"""The recall query built from a conversation, and the block the SDK recalls for it."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.memory.messages import recall_query

pytestmark = pytest.mark.both_backends

NOW = "2026-11-01T10:00:00+05:30"


def _user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def test_the_latest_message_comes_first_then_capped_context_newest_first() -> None:
    messages = [
        _user("first"),
        _user("My sister moved to a flat near the lake last spring."),
        {"role": "assistant", "content": "Nice!"},
        _user("and her address?"),
    ]
    assert recall_query(messages, 3, 300) == (
        "and her address?\nMy sister moved to a flat near the lake last spring.\nfirst"
    )
    assert recall_query(messages, 2, 10) == "and her address?\nMy sister "
    assert recall_query(messages, 2, 0) == "and her address?"
    assert recall_query(messages, 1, 300) == "and her address?"


def test_blank_and_missing_user_messages_give_an_empty_query() -> None:
    assert recall_query([], 2, 300) == ""
    assert recall_query([{"role": "assistant", "content": "Hi"}, _user("   ")], 2, 300) == ""


async def test_one_block_per_conversation_for_the_sdk_and_the_proxy(amem: AsyncMemory) -> None:
    """``recall_conversation`` is what ``build_context`` (and the proxy) inject, as is."""
    await amem.add("My dentist is Dr. Rao in Kothrud.", role="user", at="2026-10-12T09:00:00")
    await amem.add("I live in Pune.", role="user", at="2026-10-10T09:00:00")
    await amem.flush()
    messages = [
        {"role": "system", "content": "You are terse."},
        _user("I live in Pune."),
        {"role": "assistant", "content": "Noted."},
        _user("Who is my dentist?"),
    ]
    block = await amem.recall_conversation(messages, at=NOW)
    assert "Dr. Rao in Kothrud" in block.text
    assert "I live in Pune" not in block.text  # the conversation already says it
    merged = await amem.build_context(messages, at=NOW)
    assert merged[0]["content"] == f"You are terse.\n\n{block.text}"
    assert merged[1:] == messages[1:]


async def test_a_conversation_without_user_text_recalls_nothing(amem: AsyncMemory) -> None:
    await amem.add("My dentist is Dr. Rao in Kothrud.", role="user")
    await amem.flush()
    messages = [{"role": "system", "content": "dentist"}, {"role": "assistant", "content": "Hi"}]
    block = await amem.recall_conversation([*messages, _user("   ")])
    assert (block.text, block.tokens, block.empty) == ("", 0, True)
    assert await amem.build_context(messages) == messages
