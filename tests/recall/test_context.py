"""build_context: the block merged into the system prompt, as the proxy merges it."""

from __future__ import annotations

import pytest

from orma_proxy import Memory
from tests.helpers.recall_store import TODAY


def sahil_memory(mem: Memory) -> None:
    mem.add("I'm Sahil and I live in Pune.", role="user", at="2026-10-10T09:00:00+05:30")
    mem.add("My dentist is Dr. Rao in Kothrud.", role="user", at="2026-10-12T09:00:00+05:30")
    mem.flush()


@pytest.mark.both_backends
def test_the_block_joins_the_first_system_message(mem: Memory) -> None:
    sahil_memory(mem)
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Who is my dentist?"},
    ]
    merged = mem.build_context(messages, at=TODAY)
    assert messages[0]["content"] == "You are terse."  # the caller's list is left alone
    assert merged[1:] == messages[1:]
    assert merged[0]["content"].startswith("You are terse.\n\n## Memory (today 2026-11-01)\n")
    assert "[user.dentist: Dr. Rao in Kothrud]" in merged[0]["content"]  # drawn as it was said
    assert merged[0]["content"].endswith(mem.recall("Who is my dentist?", at=TODAY).text)


@pytest.mark.both_backends
def test_without_a_system_message_one_is_added_first(mem: Memory) -> None:
    sahil_memory(mem)
    merged = mem.build_context([{"role": "user", "content": "Where do I live?"}], at=TODAY)
    assert [m["role"] for m in merged] == ["system", "user"]
    assert "(today 2026-11-01)" in merged[0]["content"]
    # A line the conversation already holds is not repeated in the block.
    repeat = [
        {"role": "user", "content": "I'm Sahil and I live in Pune."},
        {"role": "user", "content": "Where do I live?"},
    ]
    assert "I live in Pune" not in mem.build_context(repeat, at=TODAY)[0]["content"]


@pytest.mark.both_backends
def test_nothing_to_recall_leaves_the_messages_as_they_are(mem: Memory) -> None:
    messages = [{"role": "user", "content": "Hello there"}]
    assert mem.build_context(messages) == messages
    assert mem.build_context([{"role": "assistant", "content": "Hi"}]) == [
        {"role": "assistant", "content": "Hi"}
    ]


@pytest.mark.both_backends
def test_a_long_earlier_message_does_not_push_out_the_question(mem: Memory) -> None:
    """The query is cut at its end (max_query_chars, the embedder's first tokens): newest first."""
    sahil_memory(mem)
    for n in range(30):  # older than the dentist: recency can't decide between them
        text = f"Garden log {n}: watered the tomatoes and the basil bed near the fence."
        mem.add(text, at="2026-09-01T09:00:00+05:30")
    mem.flush()
    pasted = "Here is my garden diary for the season, tomatoes and basil and fences. " * 40
    messages = [
        {"role": "user", "content": pasted},  # ~2,900 characters, more than max_query_chars
        {"role": "assistant", "content": "Thanks, noted."},
        {"role": "user", "content": "Who is my dentist?"},
    ]
    block = mem.build_context(messages, at=TODAY, budget_tokens=90)[0]["content"]
    assert "Dr. Rao" in block
