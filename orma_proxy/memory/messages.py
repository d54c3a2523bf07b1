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


# Longest participant name kept as a speaker (OpenAI's own limit).
SPEAKER_MAX_CHARS = 64


@dataclass(frozen=True)
class Turn:
    """One thing said, to be recorded as an episode (``speaker``: who, in a group chat)."""

    role: str
    text: str
    speaker: str | None = None


def _name(message: Message) -> str | None:
    name = message.get("name")
    if not isinstance(name, str):
        return None
    name = clean_text(" ".join(name.split()))
    return name if 0 < len(name) <= SPEAKER_MAX_CHARS else None


def _group_chat(messages: list[Message]) -> bool:
    """Do the user messages carry two or more participant names (a group chat)?

    OpenAI's ``name`` tells participants of one role apart. A client that tags
    every user message with one name is naming the user; only when several
    people speak as "user" is a name who said it, so "Asha: I moved to Pune"
    never becomes the user's home.
    """
    names = {_name(m) for m in messages if m.get("role") == "user"}
    names.discard(None)
    return len(names) >= 2


def new_turns(messages: list[Message], tool_max_chars: int) -> list[Turn]:
    """What the client says that is new this time: the messages after the last assistant one.

    Clients resend the whole conversation every turn; only its tail is new. The
    system prompt is never recorded; tool output is capped.
    """
    start = 0
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            start = index + 1
    group = _group_chat(messages)
    turns = []
    for message in messages[start:]:
        role, text = message.get("role"), text_of(message.get("content"))
        if not text.strip() or role not in ("user", "tool"):
            continue
        if role == "tool" and len(text) > tool_max_chars:
            text = text[:tool_max_chars] + f" [... {len(text) - tool_max_chars} chars cut]"
        speaker = _name(message) if group and role == "user" else None
        turns.append(Turn(role, text, speaker))
    return turns
