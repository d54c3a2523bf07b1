"""Orma: long-term memory for local LLMs, as an OpenAI-compatible proxy and a Python SDK."""

from orma_proxy.config import OrmaConfig
from orma_proxy.memory import AsyncMemory, Memory

__all__ = ["AsyncMemory", "Memory", "OrmaConfig"]
__version__ = "0.1.0"
