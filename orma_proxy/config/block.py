"""What the memory block may show, how much of it, and how it is laid out.

One of the parts ``OrmaConfig`` is made of; every field is read as ``config.<name>``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BlockSettings"]


class BlockSettings(BaseModel):
    """What the memory block may show, how much of it, and how it is laid out.."""

    # Only ``OrmaConfig`` is ever built, and it builds its own schema: this part's is not
    # needed (building it cost every command ~0.01 s).
    model_config = ConfigDict(defer_build=True)

    # --- the memory block ----------------------------------------------------------
    budget_tokens: int = Field(4096, ge=64, description="Most tokens the memory block may use.")
    max_context_share: float = Field(
        0.25, gt=0, le=1, description="Most of the model's context window the block may use."
    )
    ollama_default_context: int = Field(
        4096, ge=512, description="Ollama's context when the request doesn't set num_ctx."
    )
    recall_passages: int = Field(12, ge=1, description="Passages considered for the block.")

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
    recall_topic_share: float | None = Field(
        0.25,
        ge=0,
        le=1,
        description="With recall_relevant_states, a fact beyond the core, a line it was "
        "drawn from, or a line of a chat enters only on the query's topic "
        "(recall/relevance.py): sharing a content word or a kind of fact with it, or with "
        "its sentence above the topic floor by at least this share of the best "
        "candidate's height above that floor. None = off: anything the search found.",
    )
    recall_topic_margin: float = Field(
        1.0,
        ge=0,
        description="The topic floor: the query's background floor "
        "(noise_floor_background_quantile) with this margin instead of "
        "noise_floor_background_margin.",
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
