"""An ONNX sentence-embedding model run by onnxruntime, tokenised by ``tokenizers``."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orma_proxy.embed.base import normalise
from orma_proxy.embed.specs import Pooling
from orma_proxy.errors import EmbedderError

if TYPE_CHECKING:  # onnxruntime and tokenizers load with the first model: a command that
    import onnxruntime as ort  # embeds nothing (``orma stats``) starts without them
    from tokenizers import Tokenizer

    from orma_proxy.embed.base import Vectors


# A token is rarely shorter than this many characters; text past
# max_tokens * _CHARS_PER_TOKEN can never be read by the model, so it is cut
# before tokenising (a 10 MB string must not be tokenised whole).
_CHARS_PER_TOKEN = 8
# The modules whose code turns the session's output into a stored vector (``fingerprint``).
_CODE = ("onnx.py", "base.py")


class OnnxEmbedder:
    """Batched, L2-normalised embeddings with the model's own pooling.

    The model's files are found, and the session and tokenizer made, on the first
    ``embed`` or ``count_tokens`` (``open_model`` returns them as ``Opened``): a
    command that opens a memory and embeds nothing never pays for onnxruntime,
    the tokenizer or looking for the files.
    Thread-safe: onnxruntime sessions may run concurrently; the tokenizer is
    guarded because its truncation/padding settings are shared state.
    """

    def __init__(
        self,
        *,
        model_id: str,
        dim: int,
        pooling: Pooling,
        max_tokens: int,
        open_model: Callable[[], Opened],
    ) -> None:
        self.model_id = model_id
        self.dim = dim
        self.pooling: Pooling = pooling
        self.max_tokens = max_tokens
        self._open_model = open_model
        self._loaded: _Loaded | None = None
        self._load_lock = threading.Lock()
        self._lock = threading.Lock()

    def load(self) -> None:
        """Make the session and tokenizer now (what the first embedding would do)."""
        self._model()

    def _model(self) -> _Loaded:
        with self._load_lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> _Loaded:
        from tokenizers import Tokenizer

        try:
            opened = self._open_model()
            session = opened.session
            tokenizer = Tokenizer.from_str(opened.tokenizer_json)
        except EmbedderError:
            raise
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"cannot load embedding model {self.model_id}: {exc}") from exc
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding()
        dim = int(session.get_outputs()[0].shape[-1])
        if dim != self.dim:
            raise EmbedderError(f"{self.model_id} makes {dim}-dim vectors, not {self.dim}")
        inputs = frozenset(i.name for i in session.get_inputs())
        return _Loaded(session, tokenizer, inputs, opened)

    def fingerprint(self) -> str:
        """What this embedder's vectors depend on besides the text: the model and its
        settings, the graph its session runs, the tokenizer, the runtimes' versions and
        the code that pools and normalises.
        Equal fingerprints, equal vectors (``fixed.py`` keys its files by it). Loads the model.
        """
        import onnxruntime
        import tokenizers

        loaded = self._model()
        code = b"".join(Path(__file__).with_name(name).read_bytes() for name in _CODE)
        parts = [
            self.model_id,
            str(self.dim),
            self.pooling,
            str(self.max_tokens),
            loaded.opened.graph,
            str(loaded.batch_size),
            hashlib.sha256(loaded.opened.tokenizer_json.encode()).hexdigest(),
            onnxruntime.__version__,
            tokenizers.__version__,
            hashlib.sha256(code).hexdigest(),
        ]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def count_tokens(self, text: str) -> int:
        """Tokens this model's tokenizer makes of ``text`` (special tokens excluded)."""
        tokenizer = self._model().tokenizer
        with self._lock:
            tokenizer.no_truncation()
            try:
                return len(tokenizer.encode(text, add_special_tokens=False).ids)
            finally:
                tokenizer.enable_truncation(max_length=self.max_tokens)

    def embed(self, texts: list[str]) -> Vectors:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._model()
        limit = self.max_tokens * _CHARS_PER_TOKEN
        clipped = [t[:limit] for t in texts]
        size = model.batch_size
        batches = [clipped[i : i + size] for i in range(0, len(clipped), size)]
        parts = [self._embed_batch(model, batch) for batch in batches]
        return np.concatenate(parts)

    def _embed_batch(self, model: _Loaded, texts: list[str]) -> Vectors:
        import numpy as np

        with self._lock:
            encodings = model.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in model.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        wanted = {k: v for k, v in feeds.items() if k in model.inputs}
        hidden = model.session.run(None, wanted)[0]
        if self.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalise(np.asarray(pooled, dtype=np.float32))


@dataclass(frozen=True)
class Opened:
    """A model ready to run: its session, the batch size to run it with, a name for the
    graph the session runs (its file's path, size and time, or its cache key: see
    ``fingerprint``) and the tokenizer's JSON."""

    session: ort.InferenceSession
    batch_size: int
    graph: str
    tokenizer_json: str


@dataclass(frozen=True)
class _Loaded:
    session: ort.InferenceSession
    tokenizer: Tokenizer
    inputs: frozenset[str]
    opened: Opened

    @property
    def batch_size(self) -> int:
        return self.opened.batch_size


def open_session(model: Path | bytes, threads: int) -> ort.InferenceSession:
    """A CPU session with ``threads`` intra-op threads (0 = all cores)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle ORT workers sleep instead of spinning: a search's SQLite k-NN runs
    # right after the query embedding, and the local LLM shares the cores;
    # spinning workers took CPU from both (search p50 -12% to -32% on a busy
    # 2-core machine, bench/RESULTS.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    source = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])
