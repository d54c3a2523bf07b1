"""An ONNX sentence-embedding model run by onnxruntime, tokenised by ``tokenizers``."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from orma_proxy.embed.base import Vectors, normalise
from orma_proxy.errors import EmbedderError

Pooling = Literal["cls", "mean"]

# A token is rarely shorter than this many characters; text past
# max_tokens * _CHARS_PER_TOKEN can never be read by the model, so it is cut
# before tokenising (a 10 MB string must not be tokenised whole).
_CHARS_PER_TOKEN = 8


class OnnxEmbedder:
    """Batched, L2-normalised embeddings with the model's own pooling.

    Thread-safe: onnxruntime sessions may run concurrently; the tokenizer is
    guarded because its truncation/padding settings are shared state.
    """

    def __init__(
        self,
        *,
        model_id: str,
        model: Path | bytes,
        tokenizer_json: str,
        pooling: Pooling,
        max_tokens: int,
        threads: int = 0,
        batch_size: int = 32,
    ) -> None:
        self.model_id = model_id
        self.pooling: Pooling = pooling
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        source = model if isinstance(model, bytes) else str(model)
        try:
            self._session = _session(source, threads)
            self._tokenizer = Tokenizer.from_str(tokenizer_json)
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"cannot load embedding model {model_id}: {exc}") from exc
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding()
        self._lock = threading.Lock()
        self._inputs = {i.name for i in self._session.get_inputs()}
        output = self._session.get_outputs()[0]
        self.dim = int(output.shape[-1])

    def count_tokens(self, text: str) -> int:
        """Tokens this model's tokenizer makes of ``text`` (special tokens excluded)."""
        with self._lock:
            self._tokenizer.no_truncation()
            try:
                return len(self._tokenizer.encode(text, add_special_tokens=False).ids)
            finally:
                self._tokenizer.enable_truncation(max_length=self.max_tokens)

    def embed(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        limit = self.max_tokens * _CHARS_PER_TOKEN
        clipped = [t[:limit] for t in texts]
        parts = [
            self._embed_batch(clipped[i : i + self.batch_size])
            for i in range(0, len(clipped), self.batch_size)
        ]
        return np.concatenate(parts)

    def _embed_batch(self, texts: list[str]) -> Vectors:
        with self._lock:
            encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        if self.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalise(np.asarray(pooled, dtype=np.float32))


def _session(model: str | bytes, threads: int) -> ort.InferenceSession:
    """A CPU session with ``threads`` intra-op threads (0 = all cores)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle ORT workers sleep instead of spinning: a search's SQLite k-NN runs
    # right after the query embedding, and the local LLM shares the cores;
    # spinning workers took CPU from both (search p50 -12% to -32% on a busy
    # 2-core machine, bench/RESULTS.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
