"""The rewritten model graph (``graph.py``), kept on disk so the next process skips the rewrite.

Rewriting needs the ``onnx`` package, whose import alone takes about a second
(``ml_dtypes``), and the rewrite itself a few hundred milliseconds more: too
much for every ``orma search``. The result is written once under
``$XDG_CACHE_HOME/orma/rewritten/`` (``~/.cache/orma/rewritten/``): derived
files, safe to delete, and outside Orma's home (``--db`` elsewhere leaves no
``~/.orma`` behind). Each is named by a hash of everything it depends on (the
source file's path, size and modification time, the options, the rewriting
code), so a changed model, setting or Orma version never reads a stale graph.
A home that cannot be written to still works: the graph is then rewritten in
memory each time, as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from orma_proxy.config import OrmaConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rewritten:
    """A rewritten graph: from the cache (``model`` a file), or made now (bytes, ``cache_as``)."""

    rewritten: int  # matmuls made integer
    fused: int  # attention and GELU nodes fused
    model: Path | bytes
    cache_as: Path | None = None

    def keep(self) -> None:
        """Cache a graph made now (once it has loaded: one that does not is never kept)."""
        if not isinstance(self.model, bytes) or self.cache_as is None:
            return
        counts = json.dumps({"rewritten": self.rewritten, "fused": self.fused}).encode()
        try:
            write_whole(self.cache_as, self.model)
            write_whole(self.cache_as.with_suffix(".json"), counts)
        except OSError as exc:
            log.debug("the rewritten graph is not cached (%s): rewritten again next time", exc)

    def name(self) -> str:
        """Which graph this is: a rewrite by its cache key (the same whether made now or
        read from the cache), the file as shipped by its path, size and modification time."""
        if isinstance(self.model, bytes):
            if self.cache_as is None:
                return hashlib.sha256(self.model).hexdigest()
            return self.cache_as.stem
        if self.rewritten or self.fused:
            return self.model.stem
        stat = self.model.stat()
        return f"{self.model.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"

    def drop(self) -> None:
        """Forget a cached graph that did not load."""
        if isinstance(self.model, Path):
            for path in (self.model, self.model.with_suffix(".json")):
                with contextlib.suppress(OSError):
                    path.unlink()


def rewritten_graph(model_id: str, heads: int, onnx_path: Path, config: OrmaConfig) -> Rewritten:
    """The graph to run: the cached rewrite, or one made now."""
    key = _key(model_id, heads, onnx_path, config)
    graph_file = cache_folder() / f"{key}.onnx"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        counts = json.loads(graph_file.with_suffix(".json").read_text("utf-8"))
        if graph_file.is_file():
            return Rewritten(int(counts["rewritten"]), int(counts["fused"]), graph_file)
    from orma_proxy.embed.graph import (
        fuse_attention,
        fuse_gelu,
        gather_int8_rows,
        integer_matmuls,
        read_model,
    )

    graph = read_model(onnx_path)
    rewritten = integer_matmuls(graph) if config.embed_int8_matmul else 0
    fused = fuse_attention(graph, heads) + fuse_gelu(graph) if config.embed_fuse_layers else 0
    if not (rewritten or fused):  # the rows' rewrite (exact) rides along with the others
        return Rewritten(0, 0, onnx_path)
    gather_int8_rows(graph)
    return Rewritten(rewritten, fused, graph.SerializeToString(), graph_file)


def cache_root() -> Path:
    """Where Orma keeps derived files: ``$XDG_CACHE_HOME/orma`` (``~/.cache/orma``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "orma"


def cache_folder() -> Path:
    """Where rewritten graphs are kept: ``$XDG_CACHE_HOME/orma/rewritten``."""
    return cache_root() / "rewritten"


def _key(model_id: str, heads: int, onnx_path: Path, config: OrmaConfig) -> str:
    source = onnx_path.resolve()
    stat = source.stat()
    code = (Path(__file__).parent / "graph.py").read_bytes()
    parts = [
        model_id,
        str(heads),
        str(source),
        str(stat.st_size),
        str(stat.st_mtime_ns),
        str(config.embed_int8_matmul),
        str(config.embed_fuse_layers),
        hashlib.sha256(code).hexdigest(),
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def write_whole(path: Path, data: bytes) -> None:
    """Whole or not at all: another process may be reading or writing the same name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
