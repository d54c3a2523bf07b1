"""One pydantic object holding every tunable and ablation switch.

Defaults follow the original Orma's README; change them in code
(``OrmaConfig(search_k=50)``) and pass the object to ``Memory`` or ``create_app``.
``OrmaConfig(...)`` is exactly what the code says; ``OrmaConfig.load(...)`` adds
the ``ORMA_*`` environment and ``<home>/config.toml`` beneath it (see
``config_load``), and is what ``Memory()`` without a config, the CLI and the
proxy use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from orma_proxy.config_load import default_home, load_config

__all__ = ["OrmaConfig"]


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

    # --- recall: hybrid search -------------------------------------------------
    search_k: int = Field(30, ge=1, description="Top-k per channel (BM25 and vectors).")
    rrf_k: int = Field(60, ge=1, description="Reciprocal Rank Fusion constant.")
    rrf_vector_weight: float = Field(
        1.0,
        ge=0,
        description="Weight of the vector channel in RRF (keywords weigh 1): a strong "
        "keyword match stays on top when the vectors disagree.",
    )
    rrf_score_power: float = Field(
        0.5,
        ge=0,
        description="Each channel's RRF share is scaled by (score / its best score) ** this: a "
        "weak second match is not worth almost as much as a strong first (0 = plain RRF).",
    )
    reply_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Share of a matched question's score given to the turn that answers it.",
    )
    time_boost: float = Field(
        1.5,
        ge=0,
        description="For a question asking when: relative boost of a turn that says when.",
    )
    enable_date_terms: bool = Field(
        True,
        description="Match a date the query names ('in March 2024', 'last week') against the "
        "day each line was said and the dates it speaks of ('yesterday').",
    )
    date_boost: float = Field(
        0.5,
        ge=0,
        description="For a query naming a date: relative boost of a turn said on it or "
        "speaking of it.",
    )
    short_sentence_words: int = Field(
        6,
        ge=0,
        description="A matched sentence of fewer words counts for its share of this many.",
    )
    speaker_boost: float = Field(
        1.0,
        ge=0,
        description="Relative boost of a passage said by a speaker the query names.",
    )
    sentence_share: float = Field(
        0.3,
        ge=0,
        le=1,
        description="A turn's score: its best sentence plus this share of its other hits.",
    )
    vector_oversample: int = Field(
        4, ge=1, description="Binary-quantised candidates per result, re-ranked exactly."
    )
    reader_mmap_bytes: int = Field(
        256 * 1024 * 1024,
        ge=0,
        description="Memory-map up to this much of the file for recall's reads (0 = off).",
    )
    vector_memory_after: int = Field(
        2,
        ge=0,
        description="Hold a space's vectors in memory for the k-NN (bits for the coarse "
        "search, floats for the exact re-rank: ~1.6 KB a sentence) once it has been "
        "searched this many times by one process (0 = never: always vec0).",
    )
    vector_catch_up_max: int = Field(
        5_000,
        ge=1,
        description="More vector changes than this since the last search reload the "
        "in-memory spaces instead of patching them.",
    )
    enable_semantic: bool = Field(
        True,
        description="Use the vector channel and sleep consolidation into states and events "
        "(off = pure episodic sentence-search baseline).",
    )
    enable_cjk_keywords: bool = Field(
        True,
        description="A keyword channel over the character pairs of Chinese, Japanese and "
        "Korean text, which has no spaces for BM25's words (queries without CJK skip it).",
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
    noise_floor_background_quantile: float | None = Field(
        0.9,
        ge=0,
        le=1,
        description="A floor that needs no sentences of the space (recall/floor.py): a "
        "vector hit must be closer to the query than this quantile of the query's "
        "similarities to forty sentences about unrelated things (None = off: below "
        "noise_floor_min_sentences, every vector hit counts).",
    )
    noise_floor_background_margin: float = Field(
        0.5,
        ge=0,
        description="...plus this many times that quantile's distance above the median of "
        "those similarities (a margin in the embedding model's own units).",
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
        6,
        ge=1,
        description="LLM requests a batch may cost within sleep_attempt_window_seconds; "
        "then the rule extractor consolidates it (outcome 'rules-fallback').",
    )
    sleep_attempt_window_seconds: float = Field(
        3600.0, gt=0, description="The window sleep_max_attempts counts a batch's requests in."
    )
    sleep_backoff_seconds: float = Field(
        5.0, ge=0, description="Wait after a batch's failed LLM try; doubles with each failure."
    )
    sleep_backoff_max_seconds: float = Field(
        300.0, ge=0, description="The longest wait between two LLM tries of a failing batch."
    )
    sleep_split_failing_batches: bool = Field(
        True, description="Retry a failed batch with the first half of its episodes, then less."
    )
    sleep_rules_when_llm_empty: bool = Field(
        True,
        description="When nothing the LLM proposed for a batch is verified, keep the rule "
        "extractor's verified facts for it (outcome 'rules-llm-empty').",
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
    enable_facts_on_record: bool = Field(
        True,
        description="Draw the rule-based facts and rules ('never ...', 'I moved to ...') from "
        "a user's turn or note as it is recorded, so an earlier value is outdated at once; "
        "sleep reads the line again later and confirms or repairs them.",
    )

    # --- recall: candidates and cognitive ranking -----------------------------------
    # Scores are RRF relevance scaled so the best candidate of a query is 1.0; every
    # boost below is additive and bounded, so together they reorder near-ties but
    # cannot lift an unmatched item over an exact match (their sum stays under 1).
    recall_states: int = Field(
        24, ge=0, description="States (beyond the user's own) considered for the block."
    )
    recall_user_states: int = Field(
        64, ge=0, description="The user's own active states, always candidates (best first)."
    )
    recall_events: int = Field(16, ge=0, description="Events considered for the block.")
    recall_concurrency: int = Field(
        2,
        ge=1,
        description="Recalls run at once; more wait their turn, so a burst of 50 requests "
        "can't crowd the event loop and the reader connection and delay every stream.",
    )
    superseded_recent_days: float = Field(
        90.0, ge=0, description="A state closed this recently is still a candidate (as history)."
    )
    term_match_weight: float = Field(
        1.0, ge=0, description="Weight of the state/event word-match channel in the RRF."
    )
    enable_novelty_gate: bool = Field(
        True, description="Drop a passage nearly identical to one already chosen."
    )
    novelty_threshold: float = Field(
        0.97, gt=0, le=1, description="Cosine at or above which a passage is a duplicate."
    )
    enable_spreading_activation: bool = Field(
        True, description="Associative spread over the entity graph, damped by fan (Anderson)."
    )
    activation_base_weight: float = Field(
        1.0, gt=0, description="S_ji = base_weight / fan(j): what one entity passes on."
    )
    activation_depth: int = Field(
        2, ge=1, le=4, description="Hops from the seed entities (entity -> item -> entity ...)."
    )
    activation_hop_decay: float = Field(
        0.5, gt=0, le=1, description="Activation kept per extra hop beyond the first."
    )
    activation_max_seeds: int = Field(24, ge=1, description="Seed entities spread from.")
    activation_max_fan: int = Field(
        64,
        ge=1,
        description="Hubs linked to more items than this spread nothing: each item would get "
        "under 1/64 of their activation anyway (the user, a home city), and walking them "
        "costs more than it brings.",
    )
    activation_weight: float = Field(
        0.35, ge=0, le=1, description="Most an item's score gains from spreading activation."
    )
    enable_hawkes: bool = Field(
        True, description="Hawkes self-exciting burst: items recalled minutes ago rank higher."
    )
    hawkes_alpha: float = Field(0.4, ge=0, description="Jump of intensity per recent access.")
    hawkes_half_life_seconds: float = Field(
        1800.0, gt=0, description="beta = ln 2 / half-life (30 minutes)."
    )
    hawkes_horizon_seconds: float = Field(
        6 * 3600.0, gt=0, description="Accesses older than this add nothing (12 half-lives)."
    )
    hawkes_weight: float = Field(
        0.12, ge=0, le=1, description="Most the score gains from a burst (bounded, additive)."
    )
    enable_ebbinghaus: bool = Field(
        True, description="Ebbinghaus retention exp(-dt/S), stability growing with rehearsal."
    )
    ebbinghaus_s0_days: float = Field(2.0, gt=0, description="Stability S0 of a single mention.")
    ebbinghaus_gain: float = Field(
        0.5, ge=0, description="S = S0 * (1 + gain * (n - 1)), n = spaced rehearsals/citations."
    )
    ebbinghaus_weight: float = Field(
        0.1, ge=0, le=1, description="Most the score gains from retention (bounded, additive)."
    )
    enable_base_level: bool = Field(
        True, description="ACT-R base level: recency and frequency of use, power-law decay."
    )
    base_level_decay: float = Field(
        0.5, gt=0, description="d in sum((age_days + 1) ** -d) over an item's uses."
    )
    base_level_weight: float = Field(
        0.1, ge=0, le=1, description="Most the score gains from base level (bounded, additive)."
    )
    access_flush_seconds: float = Field(
        0.5, ge=0, description="Recall's access log is written in one batch this long after."
    )
    access_keep_per_item: int = Field(
        32,
        ge=1,
        description="Most recent accesses kept per item: older ones add ~nothing to a boost, "
        "and every recall reads them.",
    )

    # --- the memory block: what may be shown ----------------------------------------
    recall_screen: bool = Field(
        True,
        description="Leave out of the block (recall/chatter.py; never out of the store or "
        "of search): greetings, thanks, acknowledgements and filler; the user's past "
        "questions, unless the query asks what was asked; assistant sentences quoting "
        "memory lines or restating what the user said. Off = every found sentence.",
    )
    recall_relevant_states: bool = Field(
        True,
        description="States and events compete for the block by relevance like passages: "
        "one enters only when the query or a sentence it found matched it, except the "
        "user's core facts (recall_core_facts) and forbidden rules. Off = every one of "
        "the user's states, whatever the query.",
    )
    recall_core_facts: tuple[str, ...] = Field(
        ("name", "home", "job"),
        description="Kinds of the user's facts always in the block, as attribute names or "
        "the kinds of text/attributes.py ('job' is work: employer, job title).",
    )

    # --- the memory block: layout -------------------------------------------------
    enable_sutra_packing: bool = Field(
        True,
        description="Dense bracket lines ([user.attr: value]); off = classic prose sections.",
    )
    compact_header: bool = Field(
        True,
        description="A 36-token block header that explains [outdated] and [FORBIDDEN] only "
        "when shown; off = the original Orma's 74-token header, byte for byte.",
    )
    budget_share_states: float = Field(
        0.4, ge=0, le=1, description="Share of the budget (after rules) for states."
    )
    budget_share_events: float = Field(
        0.2, ge=0, le=1, description="Share of the budget (after rules) for events."
    )
    budget_share_passages: float = Field(
        0.4, ge=0, le=1, description="Share of the budget (after rules) for passages."
    )
    token_count_cache: int = Field(
        4096, ge=0, description="Block lines whose token counts are remembered between recalls."
    )
    pack_exact_above: float = Field(
        0.9,
        gt=0,
        le=1,
        description="Count the whole block exactly once its parts sum past this share of "
        "the budget (below, the sum of its lines is the count).",
    )
    tokenizer: Path | None = Field(
        None,
        description="The upstream model's tokenizer.json to count block tokens with "
        "(default: the embedder's tokenizer).",
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

    def resolved_db_path(self) -> Path:
        """The database file this configuration points at."""
        return (self.db_path or self.home / "memory.db").expanduser()

    @property
    def models_dir(self) -> Path:
        """Where downloaded embedding models are cached."""
        return self.home / "models"
