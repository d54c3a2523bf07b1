"""One pydantic object holding every tunable and ablation switch.

Its fields come in parts, one module each: ``config/recall.py``,
``config/sleep.py``, ``config/block.py``, and here where things live, the
upstream, the proxy, SQLite, embeddings, forgetting and the viz page. Defaults
follow the original Orma's README; change them in code
(``OrmaConfig(search_k=50)``) and pass the object to ``Memory`` or ``create_app``.
``OrmaConfig(...)`` is exactly what the code says; ``OrmaConfig.load(...)`` adds
the ``ORMA_*`` environment and ``<home>/config.toml`` beneath it (see
``config_load``), and is what ``Memory()`` without a config, the CLI and the
proxy use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Self
from urllib.parse import urlsplit, urlunsplit

from pydantic import ConfigDict, Field, model_validator

from orma_proxy.config.block import BlockSettings
from orma_proxy.config.recall import RecallSettings
from orma_proxy.config.sleep import SleepSettings
from orma_proxy.config_load import default_home, load_config

__all__ = ["OrmaConfig", "is_db_url", "safe_url"]


def is_db_url(target: object) -> bool:
    """Whether a database given as text names a PostgreSQL server rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def safe_url(url: str) -> str:
    """``url`` with its password (if any) as ``***``: what logs, messages and stats may show."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class OrmaConfig(RecallSettings, SleepSettings, BlockSettings):
    """Every knob Orma has. Unknown keys are an error, not silently ignored."""

    model_config = ConfigDict(
        extra="forbid", validate_assignment=True, frozen=False, defer_build=False
    )

    # --- where things live -------------------------------------------------
    home: Path = Field(default_factory=default_home, description="Data directory.")
    db_path: Path | None = Field(None, description="SQLite file; default <home>/memory.db.")
    db_url: str | None = Field(
        None,
        repr=False,
        description="PostgreSQL URL (postgresql://user:pass@host:5432/orma): the memory lives "
        "there instead of in the SQLite file.",
    )

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
    upstream_keepalive_seconds: float = Field(
        2.0,
        ge=0,
        description="Reuse a connection to the upstream idle at most this long: less than the "
        "5 s llama-server and uvicorn keep one, so a request never goes out on a connection "
        "the upstream is closing (a 502).",
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
    public_paths: tuple[str, ...] = Field(
        (
            "/",
            "/index.html",
            "/favicon.ico",
            "/favicon.png",
            "/favicon.svg",
            "/manifest.json",
            "/robots.txt",
        ),
        description="With API keys on, the upstream's web UI files a GET loads without a key "
        "(and without the upstream's key); every other path needs a valid key.",
    )
    admin_paths: tuple[str, ...] = Field(
        ("/slots",),
        description="Upstream paths (and what is under them) only a '*' key may reach: "
        "llama-server's /slots shows the last prompt of every slot, other spaces' memory.",
    )
    max_body_bytes: int = Field(20 * 1024 * 1024, ge=1024, description="Larger bodies get 413.")
    recall_context_messages: int = Field(
        2, ge=1, description="Recent user messages the recall query is built from."
    )
    recall_context_chars: int = Field(
        300,
        ge=0,
        description="Most characters the earlier of those messages add to the query, after "
        "the latest one: context for a short follow-up that a long paste cannot drown.",
    )
    recall_exclude_messages: int = Field(
        8, ge=0, description="Latest messages whose text build_context() leaves out of the block."
    )
    tool_output_max_chars: int = Field(4_000, ge=0, description="Tool output recorded, capped.")
    last_blocks_kept: int = Field(1_000, ge=1, description="Spaces whose last block is kept.")
    unwritten_turns_max: int = Field(
        1_000,
        ge=0,
        description="Exchanges the proxy keeps in memory while the database refuses writes, "
        "to record once it is back; past this (or unwritten_chars_max) a new one is dropped.",
    )
    unwritten_chars_max: int = Field(
        64_000_000, ge=0, description="Characters those kept exchanges may hold in all."
    )

    # --- SQLite --------------------------------------------------------------
    busy_timeout_ms: int = Field(15_000, ge=0, description="Wait this long for a lock.")
    synchronous: Literal["NORMAL", "FULL"] = Field(
        "FULL", description="FULL survives power loss, NORMAL only process crashes."
    )
    writer_batch_max: int = Field(64, ge=1, description="Writes grouped into one transaction.")
    write_retries: int = Field(
        5,
        ge=0,
        description="PostgreSQL: times a write transaction the server aborted (a deadlock, a "
        "serialization failure, a connection lost before COMMIT) runs again.",
    )

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
    index_nice: int = Field(
        5,
        ge=0,
        le=19,
        description="How much lower the background indexing thread's CPU priority is (Linux; "
        "0 = the same): chat, recall and the local LLM come first, vectors a little later.",
    )
    embed_int8_matmul: bool = Field(
        True,
        description="Multiply an int8 model's weights in integers instead of dequantising "
        "them to float first (MiniLM: query 2x, indexing 3x faster; cosine >= 0.99).",
    )
    embed_fuse_layers: bool = Field(
        True,
        description="Run each layer's self-attention and GELU as one onnxruntime node each "
        "instead of the ~30 small nodes they were exported as (same vectors, query ~15% "
        "faster).",
    )
    hub_timeout_seconds: float = Field(
        3.0, gt=0, description="Give up reaching the model hub after this long."
    )
    index_batch_size: int = Field(64, ge=1, description="Sentences embedded per indexer step.")
    index_in_background: bool = Field(
        True,
        description="Embed pending sentences (any process's) in the background while memory is "
        "open; off, only what is asked for (`orma add --no-wait` turns it off).",
    )
    index_retry_seconds: float = Field(
        30.0, gt=0, description="After indexing fails (a full disk), try again this often."
    )
    file_piece_chars: int = Field(
        100_000,
        ge=1000,
        description="A file is stored as episodes of at most this many characters, cut at a "
        "heading, blank line or line break, each citing its byte range in the file.",
    )

    # --- forgetting on request and portability ---------------------------------------
    release_threshold: float = Field(
        0.3,
        ge=-1,
        le=1,
        description="Cosine similarity to a release query that releases a passage (never "
        "below the space's noise floor; raise it for bge-small, whose unrelated pairs sit "
        "near 0.5). Passages holding every word of the query are released too.",
    )
    release_max_items: int = Field(
        100, ge=1, description="Most passages one release hides (best matches first)."
    )
    rebuild_batch_episodes: int = Field(
        500, ge=1, description="Episodes re-split per write transaction by `orma rebuild`."
    )

    # --- the viz page (`orma viz`, GET /_orma/viz) ----------------------------------------
    viz_max_nodes: int = Field(
        2_000,
        ge=10,
        le=20_000,
        description="Most nodes the viz graph draws: the most active first, with a note "
        "saying how many were left out (a page stays fluid at this size).",
    )

    @model_validator(mode="before")
    @classmethod
    def _url_as_db(cls, data: Any) -> Any:
        """A PostgreSQL URL given as the database (``ORMA_DB_PATH``, ``db_path=``) is ``db_url``."""
        if isinstance(data, dict) and is_db_url(data.get("db_path")):
            data = {**data, "db_url": str(data["db_path"]), "db_path": None}
        return data

    @model_validator(mode="after")
    def _check_sums(self) -> Self:
        shares = self.budget_share_states + self.budget_share_events + self.budget_share_passages
        if shares > 1.0 + 1e-9:
            raise ValueError(
                f"budget_share_states + budget_share_events + budget_share_passages "
                f"must be at most 1, not {shares:g}"
            )
        boosts = (
            self.activation_weight
            + self.hawkes_weight
            + self.ebbinghaus_weight
            + self.base_level_weight
        )
        if boosts >= 1.0:
            raise ValueError(
                "activation_weight + hawkes_weight + ebbinghaus_weight + base_level_weight "
                f"must stay under 1 (so no boost lifts an unmatched item over the best match), "
                f"not {boosts:g}"
            )
        return self

    @model_validator(mode="after")
    def _check_keys(self) -> Self:
        """An empty space list must never read as "every space" (an admin key by mistake)."""
        for position, (key, spaces) in enumerate(self.api_keys.items(), start=1):
            if not key.strip():
                raise ValueError(f"API key #{position} is empty")
            if not spaces or not all(isinstance(s, str) and s.strip() for s in spaces):
                raise ValueError(
                    f"API key #{position} has an empty or blank space list: name its spaces, "
                    "or ['*'] for a key that may use every space"
                )
        return self

    @classmethod
    def load(cls, **overrides: Any) -> OrmaConfig:
        """Code ``overrides`` > ``ORMA_*`` environment > ``<home>/config.toml`` > defaults."""
        return load_config(cls, overrides).config

    def with_db(self, target: str | Path) -> OrmaConfig:
        """This configuration on ``target``: a SQLite file, or a PostgreSQL URL."""
        if is_db_url(target):
            return self.model_copy(update={"db_url": str(target), "db_path": None})
        return self.model_copy(update={"db_path": Path(target), "db_url": None})

    def shown_db(self) -> str:
        """Where the memory lives, as a log line may show it: the file, or the URL without
        its password."""
        return safe_url(self.db_url) if self.db_url else str(self.resolved_db_path())

    def resolved_db_path(self) -> Path:
        """The database file this configuration points at."""
        return (self.db_path or self.home / "memory.db").expanduser()

    @property
    def models_dir(self) -> Path:
        """Where downloaded embedding models are cached."""
        return self.home / "models"
