"""What recall's history adds must not outweigh what the question asks for by name.

Two facts that differ by one word rank first and second in both channels, and
plain RRF scores them 1/61 and 1/62 however much better the first matches: the
temporal boosts of a fact recalled minutes ago (up to ~0.3 of the best
relevance) then gave it in place of the one the question named. Score-aware
fusion (``rrf_score_power``) keeps the gap the words make; between facts the
question matches equally, the history still decides. ``bench.cognitive``
measures both on many such pairs.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from orma_proxy import AsyncMemory

SAID = datetime(2025, 4, 1, 9, 0, tzinfo=UTC)
NOW = SAID + timedelta(days=60)
BUDGET = 64  # the header and one line


async def told(amem: AsyncMemory) -> None:
    amem.config.enable_facts_on_record = False  # passages compete here, not the facts drawn
    facts = (
        "My garage door code is 9218.",
        "My cabin door code is 6200.",
        "I bought new running shoes last month.",
        "My sister is learning to play the cello.",
    )
    for text in facts:
        await amem.add(text, space="codes", role="user", at=SAID)
    await amem.flush()
    # The garage code was asked for every day this week, and twice minutes ago.
    times = [NOW - timedelta(days=d) for d in range(7, 0, -1)]
    times += [NOW - timedelta(minutes=m) for m in (10, 5)]
    for at in times:
        block = await amem.recall(
            "What is my garage door code?", space="codes", budget_tokens=BUDGET, at=at
        )
        assert "9218" in block.text
    await amem.flush()


@pytest.mark.both_backends
async def test_a_fact_asked_for_by_name_beats_one_recalled_minutes_ago(
    amem: AsyncMemory,
) -> None:
    await told(amem)
    block = await amem.recall(
        "What is my cabin door code?", space="codes", budget_tokens=BUDGET, at=NOW
    )
    assert "6200" in block.text and "9218" not in block.text
    amem.config.rrf_score_power = 0.0  # plain RRF: the history wins over the name
    block = await amem.recall(
        "What is my cabin door code?", space="codes", budget_tokens=BUDGET, at=NOW
    )
    assert "9218" in block.text


@pytest.mark.both_backends
async def test_between_equal_matches_the_history_decides(amem: AsyncMemory) -> None:
    await told(amem)
    block = await amem.recall("What is my door code?", space="codes", budget_tokens=BUDGET, at=NOW)
    assert "9218" in block.text and "6200" not in block.text
