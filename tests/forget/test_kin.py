"""One relation, two words: "partner" for a girlfriend, "spouse" for a wife, "gran" for grandma."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import NothingMatchedError
from orma_proxy.forget.kin import alike
from orma_proxy.text import stem
from tests.helpers.life import exported, shown

OTHERS = (
    "The offsite is booked for the second week of March.",
    "The car needs new wiper blades.",
    "Haruki teaches pottery on Saturdays.",
)


def _alike(word: str) -> set[str]:
    return alike([stem(word)])


def test_a_wider_word_reaches_every_narrower_one_and_not_the_other_way_across() -> None:
    assert {stem("girlfriend"), stem("wife"), stem("fiance")} <= _alike("partner")
    assert stem("partner") in _alike("husband")  # a line's "partner" is reached by "husband"
    assert stem("girlfriend") not in _alike("wife")
    assert stem("brother") not in _alike("sister")
    assert {stem("mum"), stem("mother"), stem("mom")} <= _alike("mum")
    assert {stem("gran"), stem("grandma"), stem("grandmother")} <= _alike("granny")
    assert _alike("lawyer") == {stem("lawyer")}  # no relation: only itself


async def _store(mem: AsyncMemory, *notes: str) -> None:
    for note in (*OTHERS[:1], *notes, *OTHERS[1:]):
        await mem.add(note)
    await mem.flush()


@pytest.mark.both_backends
@pytest.mark.parametrize(
    ("about", "meant", "others"),
    [
        (
            "Kofi's partner",
            "Kofi's boyfriend is Emeka.",
            ("Kofi's sister is Abena.", "Kofi studies law in Accra."),
        ),
        (
            "Tomasz's spouse's diagnosis",
            "Tomasz's wife was diagnosed with arthritis.",
            ("Tomasz's brother lives in Gdansk.", "Tomasz runs marathons."),
        ),
    ],
)
async def test_the_relation_is_found_whichever_word_the_line_used(
    amem: AsyncMemory, about: str, meant: str, others: tuple[str, ...]
) -> None:
    await _store(amem, meant, *others)
    result = await amem.purge(about)
    assert len(result.affected.episodes) == 1
    said = "\n".join(await shown(amem, about.split("'")[0]))
    assert meant not in said
    assert all(line in said for line in others)


@pytest.mark.both_backends
async def test_a_narrower_word_never_reaches_another_narrow_one(amem: AsyncMemory) -> None:
    await _store(amem, "Kofi's girlfriend is Adjoa.", "Kofi studies law in Accra.")
    before = await exported(amem)
    with pytest.raises(NothingMatchedError):
        await amem.purge("Kofi's wife")
    assert await exported(amem) == before
