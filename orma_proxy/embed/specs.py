"""The embedding models Orma knows, by name: a light module the CLI's help text can read.

``models.py`` loads them; this holds only what each one is, so naming the
models (``orma reindex --help``) imports neither pydantic nor numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Pooling = Literal["cls", "mean"]


@dataclass(frozen=True)
class ModelSpec:
    model_id: str
    pooling: Pooling
    max_tokens: int
    heads: int  # attention heads per layer
    dim: int


BGE_SMALL = ModelSpec("BAAI/bge-small-en-v1.5", "cls", 512, 12, 384)
MINILM_INT8 = ModelSpec("all-MiniLM-L6-v2-int8", "mean", 256, 12, 384)
KNOWN = {spec.model_id: spec for spec in (BGE_SMALL, MINILM_INT8)}
