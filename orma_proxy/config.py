"""One pydantic object holding every tunable and ablation switch.

Defaults follow the original Orma's README; change them in code
(``OrmaConfig(search_k=50)``) and pass the object to ``Memory`` or ``create_app``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


def default_home() -> Path:
    """``$ORMA_DIR`` if set, else ``~/.orma``."""
    env = os.environ.get("ORMA_DIR")
    return Path(env).expanduser() if env else Path.home() / ".orma"


class OrmaConfig(BaseModel):
    """Every knob Orma has. Unknown keys are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)

    # --- where things live -------------------------------------------------
    home: Path = Field(default_factory=default_home, description="Data directory.")
    db_path: Path | None = Field(None, description="SQLite file; default <home>/memory.db.")

    # --- upstream LLM (used by the proxy and by sleep) ----------------------
    upstream: str = Field("http://127.0.0.1:11434/v1", description="OpenAI-compatible base URL.")
    model: str | None = Field(None, description="Upstream model name for consolidation.")

    upstream_api_key: str | None = Field(
        None, repr=False, description="Key sent to the upstream; never logged."
    )
    connect_timeout: float = Field(5.0, gt=0, description="Seconds to connect to the upstream.")
    read_timeout: float = Field(
        300.0, gt=0, description="Seconds to wait for the upstream's next byte."
    )
    context_probe_timeout: float = Field(
        2.0, gt=0, description="Seconds to ask the upstream for its context window."
    )

    # --- proxy server ------------------------------------------------------------
    host: str = Field("127.0.0.1", description="Address the proxy binds.")
    port: int = Field(8080, ge=0, le=65535)
    insecure: bool = Field(False, description="Allow a non-loopback bind without API keys.")
    api_keys: dict[str, list[str]] = Field(
        default_factory=dict,
        repr=False,
        description="Client API key -> spaces it may use ('*' = any). Empty = no auth.",
    )
    max_body_bytes: int = Field(20 * 1024 * 1024, ge=1024, description="Larger bodies get 413.")
    recall_context_messages: int = Field(
        2, ge=1, description="Recent user messages the recall query is built from."
    )
    tool_output_max_chars: int = Field(4_000, ge=0, description="Tool output recorded, capped.")
    last_blocks_kept: int = Field(1_000, ge=1, description="Spaces whose last block is kept.")

    # --- the memory block ----------------------------------------------------------
    budget_tokens: int = Field(4096, ge=64, description="Most tokens the memory block may use.")
    max_context_share: float = Field(
        0.25, gt=0, le=1, description="Most of the model's context window the block may use."
    )
    ollama_default_context: int = Field(
        4096, ge=512, description="Ollama's context when the request doesn't set num_ctx."
    )
    recall_passages: int = Field(12, ge=1, description="Passages considered for the block.")

    # --- SQLite --------------------------------------------------------------
    busy_timeout_ms: int = Field(15_000, ge=0, description="Wait this long for a lock.")
    synchronous: Literal["NORMAL", "FULL"] = Field(
        "FULL", description="FULL survives power loss, NORMAL only process crashes."
    )
    writer_batch_max: int = Field(64, ge=1, description="Writes grouped into one transaction.")

    # --- text ----------------------------------------------------------------
    max_sentence_chars: int = Field(480, ge=32, description="Longer sentences are cut.")
    max_query_chars: int = Field(2_000, ge=16, description="Query text beyond this is ignored.")

    # --- embeddings ------------------------------------------------------------
    embed_model: str = Field(
        "auto",
        description="'auto' (bge-small if it can be had, else MiniLM int8), "
        "'BAAI/bge-small-en-v1.5' or 'all-MiniLM-L6-v2-int8'.",
    )
    embed_batch_size: int = Field(32, ge=1)
    embed_threads: int = Field(0, ge=0, description="onnxruntime intra-op threads; 0 = all.")
    hub_timeout_seconds: float = Field(
        3.0, gt=0, description="Give up reaching the model hub after this long."
    )
    index_batch_size: int = Field(64, ge=1, description="Sentences embedded per indexer step.")

    # --- recall: hybrid search -------------------------------------------------
    search_k: int = Field(30, ge=1, description="Top-k per channel (BM25 and vectors).")
    rrf_k: int = Field(60, ge=1, description="Reciprocal Rank Fusion constant.")
    vector_oversample: int = Field(
        4, ge=1, description="Binary-quantised candidates per result, re-ranked exactly."
    )
    enable_semantic: bool = Field(
        True,
        description="Use the vector channel and sleep consolidation into states and events "
        "(off = pure episodic sentence-search baseline).",
    )
    enable_similarity_weighting: bool = Field(
        True, description="Vector hits under the space's noise floor carry no weight."
    )
    noise_floor_percentile: float = Field(50.0, ge=0, le=100)
    noise_floor_sample: int = Field(256, ge=8, description="Vectors sampled for the floor.")
    noise_floor_min_sentences: int = Field(24, ge=2, description="No floor below this size.")
    noise_floor_regrow: float = Field(
        1.25, gt=1.0, description="Recompute the floor when the space grew by this factor."
    )

    # --- sleep: background consolidation into states and events ----------------
    sleep_after_episodes: int = Field(
        20, ge=1, description="Consolidate a space once this many episodes are pending."
    )
    sleep_idle_seconds: float = Field(
        120.0, ge=0, description="...or once it has been quiet this long with anything pending."
    )
    sleep_poll_seconds: float = Field(
        10.0, gt=0, description="How often the scheduler looks for due spaces."
    )
    sleep_retry_seconds: float = Field(
        300.0, ge=0, description="Wait this long before retrying a space whose batch failed."
    )
    sleep_max_attempts: int = Field(
        3, ge=1, description="LLM calls per batch before it is left pending with its error."
    )
    sleep_batch_lines: int = Field(
        40, ge=1, description="Sentences per LLM call (whole episodes; a longer one is chunked)."
    )
    sleep_context_lines: int = Field(
        6, ge=0, description="Earlier sentences read to carry she/he/they to a named person."
    )
    sleep_lease_seconds: float = Field(
        900.0, gt=0, description="A consolidation's claim on a space expires after this long."
    )
    sleep_connect_timeout_seconds: float = Field(
        2.0, gt=0, description="Give up reaching the upstream after this long (then use rules)."
    )
    sleep_llm_timeout_seconds: float = Field(
        600.0, gt=0, description="Longest wait for one extraction answer from the upstream."
    )
    sleep_max_tokens: int = Field(1536, ge=64, description="Token cap of one extraction answer.")
    sleep_upstream_api: Literal["auto", "openai", "ollama"] = Field(
        "auto", description="'auto' uses Ollama's native /api/chat on port 11434, else OpenAI."
    )
    sleep_yield_to_chat: bool = Field(
        True, description="Hold and abort sleep's LLM call while a chat request is in flight."
    )
    grounding_min_overlap: float = Field(
        0.5, ge=0, le=1, description="Share of a value's words that must be in its cited line."
    )
    grounding_min_similarity: float = Field(
        0.6, ge=-1, le=1, description="...or the cosine similarity value-to-line must reach this."
    )
    attribute_merge_threshold: float = Field(
        0.85, ge=-1, le=1, description="Merge a new attribute name into an existing one above this."
    )
    entity_merge_threshold: float = Field(
        0.92, ge=-1, le=1, description="Merge a new entity name into an existing one above this."
    )
    multi_valued_attributes: tuple[str, ...] = Field(
        ("allergy", "hobby", "language", "pet", "likes", "dislikes", "prefers", "child"),
        description="Attributes where a new value joins the old ones instead of replacing them.",
    )
    timezone: str = Field(
        "local", description="IANA zone for dates in sleep ('last Saturday'); 'local' = system."
    )
    enable_defeasible_logic: bool = Field(
        True, description="A conditional state ('when I have a cold...') never closes the baseline."
    )

    def resolved_db_path(self) -> Path:
        """The database file this configuration points at."""
        return (self.db_path or self.home / "memory.db").expanduser()

    @property
    def models_dir(self) -> Path:
        """Where downloaded embedding models are cached."""
        return self.home / "models"
