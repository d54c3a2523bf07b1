"""Sentence embeddings with onnxruntime and tokenizers, fully offline-capable.

The names load on first use (``orma_proxy.exports``): the CLI names the models
in its help (``specs.py``) without importing numpy, pydantic or the model code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.exports import lazy_exports

if TYPE_CHECKING:
    from orma_proxy.embed.base import Embedder, Vectors, fit, store_dim
    from orma_proxy.embed.fixed import fixed_file, keep_fixed, read_fixed
    from orma_proxy.embed.models import load_embedder
    from orma_proxy.embed.onnx import OnnxEmbedder
    from orma_proxy.embed.specs import KNOWN

__all__ = [
    "KNOWN",
    "Embedder",
    "OnnxEmbedder",
    "Vectors",
    "fit",
    "fixed_file",
    "keep_fixed",
    "load_embedder",
    "read_fixed",
    "store_dim",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Embedder": "base",
        "Vectors": "base",
        "fit": "base",
        "store_dim": "base",
        "fixed_file": "fixed",
        "keep_fixed": "fixed",
        "read_fixed": "fixed",
        "load_embedder": "models",
        "OnnxEmbedder": "onnx",
        "KNOWN": "specs",
    },
)
