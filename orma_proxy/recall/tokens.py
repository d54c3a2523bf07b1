"""Counting the block's tokens with the upstream model's own tokenizer, when it is known.

The embedder's tokenizer is the default (it is loaded anyway); a
``tokenizer.json`` of the chat model (``OrmaConfig.tokenizer``) counts exactly
what the model will read. Special tokens are not counted: the block is
spliced into a prompt that already has them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from orma_proxy.errors import ConfigError


def load_token_counter(path: Path) -> Callable[[str], int]:
    """A counter from a Hugging Face ``tokenizer.json`` file."""
    from tokenizers import Tokenizer  # only when a chat model's tokenizer is configured

    try:
        tokenizer = Tokenizer.from_file(str(Path(path).expanduser()))
    except Exception as exc:  # tokenizers raises its own untyped errors
        raise ConfigError(f"cannot load the tokenizer {path}: {exc}") from exc
    tokenizer.no_truncation()

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    return count
