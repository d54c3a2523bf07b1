"""What recall searches and how it ranks: hybrid search, candidates, the cognitive boosts.

One of the parts ``OrmaConfig`` is made of; every field is read as ``config.<name>``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RecallSettings"]


class RecallSettings(BaseModel):
    """What recall searches and how it ranks."""

    # Only ``OrmaConfig`` is ever built, and it builds its own schema: this part's is not
    # needed (building it cost every command ~0.01 s).
    model_config = ConfigDict(defer_build=True)

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
    vector_candidate_share: float = Field(
        0.01,
        ge=0,
        le=1,
        description="In memory: at least this share of a space's vectors are Hamming "
        "candidates, re-ranked on int8 copies (the exact top 10 sits deeper in the Hamming "
        "order as a space grows).",
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
        "search, int8 for the re-rank: ~0.45 KB a sentence) once it has been "
        "searched this many times by one process (0 = never: always vec0, or an exact "
        "pgvector scan).",
    )
    vector_catch_up_max: int = Field(
        5_000,
        ge=1,
        description="More vector changes than this since the last search reload the "
        "in-memory spaces instead of patching them; vector_changes keeps this many rows "
        "(pruned once it holds twice as many).",
    )
    keyword_memory_after: int = Field(
        2,
        ge=0,
        description="Hold a space's keyword postings in memory for BM25 (~250 bytes a "
        "sentence; a common word then costs no more than a rare one) once it has been "
        "searched this many times by one process (0 = never: always FTS5, or PostgreSQL's "
        "sentence_terms).",
    )
    keyword_catch_up_max: int = Field(
        5_000,
        ge=1,
        description="More sentence changes than this since the last search reload the "
        "in-memory keyword postings instead of patching them; keyword_changes keeps this "
        "many rows (pruned once it holds twice as many).",
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
