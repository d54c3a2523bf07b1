"""What Orma needs from an embedding model, so callers can bring their own."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Anything with a stable id, a dimension and a batch ``embed``.

    ``embed`` returns a float32 array of shape ``(len(texts), dim)``; rows should be
    L2-normalised (Orma normalises again to be safe). It is called from a worker
    thread, never on the event loop.
    """

    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> Vectors: ...


def normalise(vectors: Vectors) -> Vectors:
    """Unit-length rows (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: Vectors = (vectors / norms).astype(np.float32, copy=False)
    return unit
