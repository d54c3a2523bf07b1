"""``supersede``: a correction replaces the old value wherever recall looks, history keeps it."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import InputError, NothingMatchedError
from tests.helpers.life import DENTIST, PUNE, exported, remember, shown

pytestmark = pytest.mark.both_backends


def _home(facts: list) -> list[tuple[str, bool, str | None]]:  # type: ignore[type-arg]
    return [
        (s.value, s.active, s.end_reason)
        for s in facts
        if s.attribute == "home_city" and s.entity == "user"  # not Asha's
    ]


async def test_a_correction_replaces_the_old_value_wherever_recall_looks(amem: AsyncMemory) -> None:
    ids = await remember(amem)
    assert _home(await amem.facts()) == [("Pune", True, None)]

    result = await amem.supersede("pune", "Bangalore")  # ASCII case does not matter

    assert len(result.affected.sentences) == 1 and len(result.affected.states) == 1
    assert result.preview == (PUNE,) and result.audit_id is not None
    for query in ("Where do I live?", "Pune", "home city"):
        texts = await shown(amem, query)
        assert not any("Pune" in text for text in texts), texts
    assert "Bangalore" in (await amem.recall("Where do I live?")).text
    assert "Dr. Rao" in (await amem.recall("Who is my dentist?")).text  # the rest is untouched
    history = [
        s
        for s in await amem.facts(include_history=True)
        if s.attribute == "home_city" and s.entity == "user"
    ]
    assert [(s.value, s.active, s.end_reason, s.replaced_by) for s in history] == [
        ("Pune", False, "corrected", "Bangalore"),
        ("Bangalore", True, None, None),
    ]
    assert history[1].episode_id == result.episode_id != ids[PUNE]


async def test_two_corrections_in_a_row_leave_only_the_last_value(amem: AsyncMemory) -> None:
    await remember(amem)
    (pune,) = [s for s in await amem.facts() if s.value == "Pune"]
    await amem.supersede(pune.id, "Bangalore")  # by state id
    await amem.supersede("Bangalore", "Chennai")  # by the value it now has

    assert _home(await amem.facts()) == [("Chennai", True, None)]
    assert [value for value, *_ in _home(await amem.facts(include_history=True))] == [
        "Pune",
        "Bangalore",
        "Chennai",
    ]
    texts = await shown(amem, "Where do I live now?")
    assert "Chennai" in texts[0]
    assert not any("Pune" in t or "Bangalore" in t for t in texts), texts


async def test_a_line_corrected_before_sleep_never_comes_back_as_current(
    amem: AsyncMemory,
) -> None:
    await amem.add(PUNE)  # home_city Pune is drawn as the note is stored
    await amem.supersede("I live in Pune", "I live in Bangalore.")
    await amem.sleep()
    assert _home(await amem.facts(include_history=True)) == [
        ("Pune", False, "corrected"),
        ("Bangalore", True, None),
    ]
    amem.config.enable_facts_on_record = False
    await amem.add("I live in Kochi.", space="other")
    await amem.supersede("I live in Kochi", "I live in Goa.", space="other")
    await amem.sleep("other")
    assert _home(await amem.facts("other", include_history=True)) == [("Goa", True, None)]


async def test_a_dry_run_names_exactly_what_changes_and_changes_nothing(amem: AsyncMemory) -> None:
    await remember(amem)
    before = await exported(amem)
    dry = await amem.supersede("Pune", "Bangalore", dry_run=True)
    assert await exported(amem) == before
    assert (dry.dry_run, dry.audit_id, dry.episode_id) == (True, None, None)
    real = await amem.supersede("Pune", "Bangalore")
    assert real.affected == dry.affected and real.preview == dry.preview


async def test_what_matches_nothing_is_refused_and_changes_nothing(amem: AsyncMemory) -> None:
    await remember(amem)
    await amem.add(DENTIST, space="bob")
    await amem.sleep("bob")
    (bobs,) = await amem.facts("bob")
    before = await exported(amem)
    with pytest.raises(NothingMatchedError, match="nothing in space 'default' matches 'Mumbai'"):
        await amem.supersede("Mumbai", "Bangalore")
    with pytest.raises(InputError, match=f"no state #{bobs.id} in space 'default'"):
        await amem.supersede(bobs.id, "Dr. Shah")
    assert await exported(amem) == before
    await amem.supersede("Pune", "Bangalore")
    (closed,) = [s for s in await amem.facts(include_history=True) if s.value == "Pune"]
    with pytest.raises(InputError, match="already closed"):
        await amem.supersede(closed.id, "Chennai")
    assert (await amem.audit())[0].operation == "supersede"
