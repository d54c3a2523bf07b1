"""The SDK: ``AsyncMemory`` (the engine) and ``Memory`` (its synchronous wrapper)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.exports import lazy_exports

if TYPE_CHECKING:
    from orma_proxy.memory.engine import AsyncMemory
    from orma_proxy.memory.episodes import When
    from orma_proxy.memory.files import StoredPiece
    from orma_proxy.memory.messages import (
        WEBUI_TASK_PREFIX,
        Message,
        Turn,
        clean_text,
        inject_block,
        is_webui_task,
        new_turns,
        text_of,
        valid_messages,
    )
    from orma_proxy.memory.runtime import Runtime, open_runtime
    from orma_proxy.memory.sync import Memory

__all__ = [
    "WEBUI_TASK_PREFIX",
    "AsyncMemory",
    "Memory",
    "Message",
    "Runtime",
    "StoredPiece",
    "Turn",
    "When",
    "clean_text",
    "inject_block",
    "is_webui_task",
    "new_turns",
    "open_runtime",
    "text_of",
    "valid_messages",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AsyncMemory": "engine",
        "When": "episodes",
        "StoredPiece": "files",
        "WEBUI_TASK_PREFIX": "messages",
        "Message": "messages",
        "Turn": "messages",
        "clean_text": "messages",
        "inject_block": "messages",
        "is_webui_task": "messages",
        "new_turns": "messages",
        "text_of": "messages",
        "valid_messages": "messages",
        "Runtime": "runtime",
        "open_runtime": "runtime",
        "Memory": "sync",
    },
)
