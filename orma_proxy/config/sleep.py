"""How sleep consolidates episodes into states and events, and when.

One of the parts ``OrmaConfig`` is made of; every field is read as ``config.<name>``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SleepSettings"]


class SleepSettings(BaseModel):
    """How sleep consolidates episodes into states and events, and when.."""

    # Only ``OrmaConfig`` is ever built, and it builds its own schema: this part's is not
    # needed (building it cost every command ~0.01 s).
    model_config = ConfigDict(defer_build=True)

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
    sleep_context_tokens: int | None = Field(
        None,
        ge=256,
        description="The sleep model's context window in tokens; None asks the upstream "
        "(llama-server's /props, Ollama's /api/show). Each request's lines are cut to fit it "
        "beside the instructions and sleep_max_tokens of answer.",
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
        tuple(
            "allergy hobby habit language pet likes dislikes prefers avoids child sister brother "  # noqa: SIM905
            "son daughter friend cousin colleague coworker neighbour neighbor roommate flatmate "
            "aunt uncle niece nephew teammate classmate".split()
        ),
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
    facts_on_record_max_lines: int = Field(
        400,
        ge=2,
        description="Most lines of one recording drawn from at once: of a longer turn (a "
        "pasted document) its first and last halves of this; sleep reads every line later.",
    )
