"""Orma: long-term memory for local LLMs, as an OpenAI-compatible proxy and a Python SDK.

The public names load on first use (PEP 562): ``orma --help`` and the CLI's
other commands that embed nothing need not import the whole memory stack just
because every ``orma_proxy`` module lives under this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orma_proxy.config import OrmaConfig
    from orma_proxy.memory import AsyncMemory, Memory

__all__ = ["AsyncMemory", "Memory", "OrmaConfig"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``AsyncMemory``, ``Memory`` and ``OrmaConfig``, imported when first asked for."""
    if name == "OrmaConfig":
        from orma_proxy.config import OrmaConfig

        return OrmaConfig
    if name in ("AsyncMemory", "Memory"):
        from orma_proxy import memory

        return getattr(memory, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
