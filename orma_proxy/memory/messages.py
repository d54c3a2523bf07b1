"""Reading and amending a chat request's ``messages`` without losing anything.

The client's messages reach the upstream whole and in order: the only change
is the memory block appended to the first system message (or a new system
message at index 0 when there is none). Strict chat templates (llama.cpp's)
reject a second or mid-conversation system message.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]

# Open WebUI's background tasks (titles, tags, follow-ups, search queries).
WEBUI_TASK_PREFIX = "### Task:"


def clean_text(text: str) -> str:
    """``text`` with lone surrogates (``"\\ud800"`` in JSON) replaced by U+FFFD.

    JSON may escape half a character; such text cannot be stored or searched
    as UTF-8, and dropping the whole message over one bad character would lose
    what the user said.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def text_of(content: Any) -> str:
    """The text of a message ``content``: a string, or the text parts of a list."""
    if isinstance(content, str):
        return clean_text(content)
    if isinstance(content, list):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text")
        ]
        return clean_text("\n".join(p for p in parts if isinstance(p, str)))
    return ""


def valid_messages(body: dict[str, Any]) -> list[Message] | None:
    """The body's messages if they are a list of objects, else None (left to the upstream)."""
    messages = body.get("messages")
    if isinstance(messages, list) and all(isinstance(m, dict) for m in messages):
        return messages
    return None


def user_texts(messages: list[Message]) -> list[str]:
    return [text_of(m.get("content")) for m in messages if m.get("role") == "user"]


def recall_query(messages: list[Message], recent: int, context_chars: int) -> str:
    """The latest user message, then at most ``context_chars`` of the ``recent - 1`` before it.

    The earlier ones give a short follow-up ("and her address?") its subject. They
    come after the latest and are capped: a long query is cut at its end
    (``max_query_chars``, and the embedder reads only its first tokens), and a
    long message pasted earlier must not drown what the user is asking now.
    """
    texts = [t for t in user_texts(messages) if t.strip()]
    if not texts:
        return ""
    context = "\n".join(reversed(texts[-recent:-1]))[:context_chars]
    return f"{texts[-1]}\n{context}" if context else texts[-1]


def is_webui_task(messages: list[Message]) -> bool:
    """Whether this is one of Open WebUI's background task prompts."""
    texts = user_texts(messages)
    return bool(texts) and texts[-1].lstrip().startswith(WEBUI_TASK_PREFIX)


def inject_block(messages: list[Message], block: str) -> list[Message]:
    """A copy of ``messages`` with ``block`` appended to the first system message."""
    out = list(messages)
    for index, message in enumerate(out):
        if message.get("role") == "system":
            amended = copy.copy(message)
            content = message.get("content")
            if isinstance(content, list):
                amended["content"] = [*content, {"type": "text", "text": block}]
            elif isinstance(content, str) and content.strip():
                amended["content"] = f"{content}\n\n{block}"
            else:
                amended["content"] = block
            out[index] = amended
            return out
    return [{"role": "system", "content": block}, *out]


@dataclass(frozen=True)
class Turn:
    """One thing said, to be recorded as an episode."""

    role: str
    text: str


def new_turns(messages: list[Message], tool_max_chars: int) -> list[Turn]:
    """What the client says that is new this time: the messages after the last assistant one.

    Clients resend the whole conversation every turn; only its tail is new. The
    system prompt is never recorded; tool output is capped.
    """
    start = 0
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            start = index + 1
    turns = []
    for message in messages[start:]:
        role, text = message.get("role"), text_of(message.get("content"))
        if not text.strip() or role not in ("user", "tool"):
            continue
        if role == "tool" and len(text) > tool_max_chars:
            text = text[:tool_max_chars] + f" [... {len(text) - tool_max_chars} chars cut]"
        turns.append(Turn(role, text))
    return turns
