"""Sentence embeddings with onnxruntime and tokenizers, fully offline-capable."""

from orma_proxy.embed.base import Embedder, Vectors, fit, store_dim
from orma_proxy.embed.models import KNOWN, load_embedder
from orma_proxy.embed.onnx import OnnxEmbedder

__all__ = ["KNOWN", "Embedder", "OnnxEmbedder", "Vectors", "fit", "load_embedder", "store_dim"]
