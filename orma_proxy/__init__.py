"""Orma: long-term memory for local LLMs, as an OpenAI-compatible proxy and a Python SDK.

The public names load on first use (``orma_proxy.exports``): ``orma --help``
and the CLI's other commands that embed nothing need not import the whole
memory stack just because every ``orma_proxy`` module lives under this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.exports import lazy_exports

if TYPE_CHECKING:
    from orma_proxy.config import OrmaConfig
    from orma_proxy.memory import AsyncMemory, Memory

__all__ = ["AsyncMemory", "Memory", "OrmaConfig"]
__version__ = "0.1.0"

__getattr__, __dir__ = lazy_exports(
    __name__, {"OrmaConfig": "config", "AsyncMemory": "memory", "Memory": "memory"}
)
