"""``from orma import Memory, OrmaConfig``: the import name the original Orma's README uses.

Lazy like ``orma_proxy`` itself: a name loads when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orma_proxy
from orma_proxy import __version__

if TYPE_CHECKING:
    from orma_proxy import AsyncMemory, Memory, OrmaConfig

__all__ = ["AsyncMemory", "Memory", "OrmaConfig", "__version__"]


def __getattr__(name: str) -> Any:
    """The ``orma_proxy`` name of the same name, loaded on first use."""
    if name in __all__:
        return getattr(orma_proxy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
