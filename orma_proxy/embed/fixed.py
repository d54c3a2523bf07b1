"""Vectors of texts fixed in the code, kept on disk so the next process reads them.

Recall's noise floor compares every query with forty background sentences
(``recall/floor.py``); embedding them took a cold ``orma search`` ~0.08 s of CPU,
one sentence per run of the int8 graph, in every new process. They are written
once per model under ``$XDG_CACHE_HOME/orma/vectors/`` (beside the rewritten
graphs, ``cache.py``): raw float32 rows as ``fit`` made them, named by a hash of
the texts and of what the embedder's vectors depend on (``OnnxEmbedder.fingerprint``:
model, graph, tokenizer, runtime versions), so another model, setting or version
never reads them. An embedder brought by the caller cannot say what its vectors
depend on: its vectors are never kept. A file that is missing, short or cannot be
written only means embedding again.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orma_proxy.embed.base import Embedder, store_dim
from orma_proxy.embed.cache import cache_root, write_whole
from orma_proxy.embed.onnx import OnnxEmbedder

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors

log = logging.getLogger(__name__)

_FLOAT_BYTES = 4


def fixed_file(embedder: Embedder, texts: Sequence[str]) -> Path | None:
    """Where ``embedder``'s vectors of ``texts`` are kept (None: not kept for this embedder).

    Loads the model (its fingerprint names the graph the session runs).
    """
    if not isinstance(embedder, OnnxEmbedder):
        return None
    key = hashlib.sha256("\0".join([embedder.fingerprint(), *texts]).encode()).hexdigest()
    return cache_root() / "vectors" / f"{key[:24]}.f32"


def read_fixed(path: Path, rows: int, dim: int) -> Vectors | None:
    """The ``rows`` vectors kept in ``path`` (stored width for ``dim``), or None."""
    import numpy as np

    width = store_dim(dim)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) != rows * width * _FLOAT_BYTES:
        return None
    vectors = np.frombuffer(data, dtype="<f4").reshape(rows, width).astype(np.float32)
    return vectors if bool(np.isfinite(vectors).all()) else None


def keep_fixed(path: Path, vectors: Vectors) -> None:
    """Write ``vectors`` to ``path`` whole; a cache that cannot be written is only skipped."""
    import numpy as np

    try:
        write_whole(path, np.ascontiguousarray(vectors, dtype="<f4").tobytes())
    except OSError as exc:
        log.debug("vectors of fixed texts not cached (%s): embedded again next time", exc)
