"""Sentence embeddings with onnxruntime and tokenizers, fully offline-capable."""

from orma_proxy.embed.base import Embedder
from orma_proxy.embed.onnx import OnnxEmbedder

__all__ = ["Embedder", "OnnxEmbedder"]
