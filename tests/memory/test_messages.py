"""The recall query the proxy builds from a conversation."""

from __future__ import annotations

from orma_proxy.memory.messages import recall_query


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
