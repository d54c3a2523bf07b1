"""``from orma import Memory, OrmaConfig``: the import name the original Orma's README uses."""

from orma_proxy import AsyncMemory, Memory, OrmaConfig, __version__

__all__ = ["AsyncMemory", "Memory", "OrmaConfig", "__version__"]
