"""The text and space names memory accepts, checked in one place for SDK, CLI and proxy.

Open WebUI's user ids and names, ``user`` fields and headers are arbitrary
Unicode, so any letters are fine (``张三``, ``Ω``, ``🙂``) and the name is kept
exactly as given. What is refused is what cannot travel or be shown safely:
nothing but whitespace, control characters (NUL, newlines, escapes), lone
surrogates, and names past ``MAX_SPACE_CHARS``.
"""

from __future__ import annotations

import unicodedata

from orma_proxy.errors import InputError

__all__ = ["DEFAULT_SPACE", "MAX_SPACE_CHARS", "ROLES", "check_space", "check_text"]

DEFAULT_SPACE = "default"
ROLES = ("user", "assistant", "note", "document", "tool")  # who said an episode
MAX_SPACE_CHARS = 200


def check_text(text: object, what: str) -> str:
    """``text`` if it is non-empty storable text (no lone surrogates), else an ``InputError``."""
    if not isinstance(text, str):
        raise InputError(f"{what} must be a string, not {type(text).__name__}")
    if not text.strip():
        raise InputError(f"{what} is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"{what} is not valid Unicode (lone surrogate at {exc.start})") from exc
    return text


def check_space(space: object) -> str:
    """``space`` if it is a valid space name, else an ``InputError`` saying why."""
    if not isinstance(space, str):
        raise InputError(f"space must be a string, not {type(space).__name__}")
    if not space.strip():
        raise InputError("space must not be empty")
    if len(space) > MAX_SPACE_CHARS:
        raise InputError(f"space names are at most {MAX_SPACE_CHARS} characters")
    for index, char in enumerate(space):
        kind = unicodedata.category(char)
        if kind == "Cs":
            raise InputError(f"space is not valid Unicode (lone surrogate at {index})")
        if kind == "Cc" or char in "\u2028\u2029":
            raise InputError(f"space must not contain control characters ({char!r} at {index})")
    return space
