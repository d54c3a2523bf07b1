"""A small real embedder for tests that need many vectors fast or a second model.

Each lower-cased word is hashed into one of ``dim`` buckets with a sign, so texts
sharing words get similar vectors. It is deterministic, runs in microseconds and
satisfies the ``Embedder`` protocol exactly like a user's own model would.
"""

from __future__ import annotations

import hashlib

import numpy as np

from orma_proxy.embed.base import Vectors


class HashingEmbedder:
    """Bag of hashed words, L2-normalised."""

    def __init__(self, dim: int = 64, model_id: str | None = None) -> None:
        self.dim = dim
        self.model_id = model_id or f"test-hashing-{dim}"

    def embed(self, texts: list[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                digest = int.from_bytes(hashlib.blake2b(word.encode()).digest()[:8], "little")
                out[row, digest % self.dim] += 1.0 if (digest >> 32) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        unit: Vectors = out / norms
        return unit
