"""What Orma needs from an embedding model, so callers can bring their own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from orma_proxy.errors import EmbedderError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors: TypeAlias = npt.NDArray[np.float32]
else:

    def __getattr__(name: str) -> object:
        """``Vectors`` for code that asks at run time. Orma's own modules name it in
        annotations only, so a command that embeds nothing loads without numpy (~0.1 s)."""
        if name == "Vectors":
            import numpy as np
            import numpy.typing as npt

            vectors = npt.NDArray[np.float32]
            globals()[name] = vectors  # bound as an eager definition would be: asked once
            return vectors
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def store_dim(dim: int) -> int:
    """The dimension vectors are stored with: ``dim`` rounded up to a multiple of 8.

    The vector index keeps one bit per dimension in whole bytes; padding with
    zeros changes neither norms nor cosine similarities, so any ``dim`` works.
    """
    return -(-dim // 8) * 8


def fit(vectors: object, count: int, dim: int, model_id: str) -> Vectors:
    """An embedder's output checked, L2-normalised and zero-padded to ``store_dim(dim)``.

    A custom embedder returning the wrong shape gets a clear error here instead
    of a puzzling one deep inside SQLite.
    """
    import numpy as np

    array = np.asarray(vectors, dtype=np.float32)
    if array.shape != (count, dim):
        raise EmbedderError(
            f"embedder {model_id} returned an array of shape {array.shape} "
            f"for {count} texts; expected ({count}, {dim})"
        )
    if not np.isfinite(array).all():
        raise EmbedderError(f"embedder {model_id} returned NaN or infinite values")
    unit = normalise(array)
    padding = store_dim(dim) - dim
    if padding:
        unit = np.pad(unit, ((0, 0), (0, padding)))
    return unit


def normalise(vectors: Vectors) -> Vectors:
    """Unit-length rows (zero rows stay zero)."""
    import numpy as np

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: Vectors = (vectors / norms).astype(np.float32, copy=False)
    return unit
