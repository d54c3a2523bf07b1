"""Sentence embeddings with onnxruntime and tokenizers, fully offline-capable.

The names load on first use (PEP 562): the CLI names the models in its help
(``specs.py``) without importing numpy, pydantic or the model code.
"""

from __future__ import annotations

from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orma_proxy.embed.base import Embedder, Vectors, fit, store_dim
    from orma_proxy.embed.models import load_embedder
    from orma_proxy.embed.onnx import OnnxEmbedder
    from orma_proxy.embed.specs import KNOWN

__all__ = ["KNOWN", "Embedder", "OnnxEmbedder", "Vectors", "fit", "load_embedder", "store_dim"]

_HOMES = MappingProxyType(
    {
        "Embedder": "base",
        "Vectors": "base",
        "fit": "base",
        "store_dim": "base",
        "load_embedder": "models",
        "OnnxEmbedder": "onnx",
        "KNOWN": "specs",
    }
)


def __getattr__(name: str) -> Any:
    """A public name, imported from its module when first asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
