"""``release`` / ``unrelease``: a topic leaves recall, the rest stays, and it all comes back."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import InputError, NothingMatchedError
from tests.helpers.life import CAT, JOB, exported, remember, shown

pytestmark = pytest.mark.both_backends


async def test_releasing_a_topic_hides_it_and_keeps_unrelated_memories(amem: AsyncMemory) -> None:
    ids = await remember(amem)
    before = await exported(amem)
    dry = await amem.release("my old job", dry_run=True)
    assert await exported(amem) == before
    assert set(dry.preview) == set(JOB)  # the dentist, the cat, Pune: not the topic

    real = await amem.release("my old job")
    assert (real.affected, real.preview) == (dry.affected, dry.preview)
    for query in ("my old job", "Where did I work?", "Acme Corp"):
        texts = await shown(amem, query)
        assert not any("Acme" in text for text in texts), texts
    assert "Dr. Rao" in (await shown(amem, "Who is my dentist?"))[0]
    assert CAT in await shown(amem, "our cat")

    back = await amem.unrelease(real.release_id or 0)
    assert back.affected == real.affected
    texts = await shown(amem, "Where did I work?")
    assert all(any(line in text for text in texts) for line in JOB)
    assert ids  # stored, slept and released without touching an episode
    assert [e.operation for e in await amem.audit()] == ["unrelease", "release"]


async def test_the_facts_drawn_from_a_released_line_go_and_come_back_with_it(
    amem: AsyncMemory,
) -> None:
    await remember(amem)
    released = await amem.release("my dentist")
    assert len(released.affected.states) == 1
    left = [s.attribute for s in await amem.facts(include_history=True) if s.entity == "user"]
    assert sorted(left) == ["employer", "home_city", "sister"]  # no dentist, even in history
    block = (await amem.recall("Who is my dentist?")).text
    assert "Rao" not in block and "Pune" in block  # the user's other facts still come along
    await amem.unrelease(released.release_id or 0)
    back = sorted(s.attribute for s in await amem.facts() if s.entity == "user")
    assert back == ["dentist", "home_city", "sister"]
    assert "Dr. Rao" in (await amem.recall("Who is my dentist?")).text


async def test_a_released_fact_can_still_be_forgotten(amem: AsyncMemory) -> None:
    """Forgetting it closes it and says so (it used to close it, then report it "gone")."""
    await remember(amem)
    released = await amem.release("my dentist")
    (state_id,) = released.affected.states
    forgotten = await amem.forget(state_id)
    assert (forgotten.attribute, forgotten.active, forgotten.end_reason) == (
        "dentist",
        False,
        "forgotten",
    )
    await amem.unrelease(released.release_id or 0)
    kept = sorted(s.attribute for s in await amem.facts() if s.entity == "user")
    assert kept == ["home_city", "sister"]  # the dentist is closed for good


async def test_a_release_matching_nothing_writes_nothing(amem: AsyncMemory) -> None:
    await remember(amem)
    before = await exported(amem)
    for dry_run in (True, False):
        with pytest.raises(NothingMatchedError, match="nothing was released") as caught:
            await amem.release(
                "quantum chromodynamics lecture notes", threshold=0.9, dry_run=dry_run
            )
        assert caught.value.candidates  # the closest lines, to say it again
    assert await exported(amem) == before


async def test_unrelease_takes_only_a_live_release_of_its_own_space(amem: AsyncMemory) -> None:
    await remember(amem)
    released = await amem.release("my dentist")
    assert released.release_id is not None
    with pytest.raises(InputError, match="no release #99 in space 'default'"):
        await amem.unrelease(99)
    with pytest.raises(InputError, match=f"no release #{released.release_id} in space 'bob'"):
        await amem.unrelease(released.release_id, space="bob")
    await amem.unrelease(released.release_id)
    with pytest.raises(InputError, match="already undone"):
        await amem.unrelease(released.release_id)
    with pytest.raises(InputError, match="threshold"):
        await amem.release("dentist", threshold=2.0)
