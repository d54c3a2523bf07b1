"""Forgetting requests in a person's own words: case, spelling, kin, chains and ask-backs.

Our own phrasings (the development set, ``bench/data/forgetting_dev.jsonl``,
measures the same on someone else's): a capitalised first word that is not a
name, names typed in lower case or without accents, a person's kin, two lines
a description fits equally, a chain of corrections said differently each time,
filler in any inflection, British and American spelling, two kinds at once.
"""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import AmbiguousDescriptionError, NothingMatchedError
from tests.helpers.life import exported, shown, stored

OTHERS = (
    "The offsite is booked for the second week of March.",
    "The car needs new wiper blades.",
    "Lorenzo grows chillies on his balcony.",
)


async def _store(mem: AsyncMemory, *notes: str) -> None:
    await stored(mem, *OTHERS, *notes)


async def _shown(mem: AsyncMemory, query: str) -> str:
    return "\n".join(await shown(mem, query)).lower()


async def test_a_capitalised_first_word_no_line_names_is_a_word(amem: AsyncMemory) -> None:
    await _store(amem, "Bodhi's favourite band is Coldplay.", "Bodhi lives in Hobart.")
    result = await amem.supersede(
        "Change Bodhi's favourite band", "Bodhi's favourite band is Muse."
    )
    assert result.preview == ("Bodhi's favourite band is Coldplay.",)
    with pytest.raises(NothingMatchedError):
        await amem.purge("Zed phone number")  # a capitalised word no line holds stays required


async def test_a_name_typed_in_lower_case_or_without_accents_is_the_name(
    amem: AsyncMemory,
) -> None:
    await _store(
        amem, "Ingrid lives in Bergen.", "Ingrid works at Solvik.", "Björn's flat is in Malmö."
    )
    result = await amem.supersede("where ingrid lives", "Ingrid moved to Tromso.")
    assert result.preview == ("Ingrid lives in Bergen.",)
    released = await amem.release("forget about bjorn")
    assert released.preview == ("Björn's flat is in Malmö.",)
    assert "solvik" in await _shown(amem, "Where does Ingrid work?")


async def test_a_person_s_kin_is_not_the_person(amem: AsyncMemory) -> None:
    await _store(amem, "Odile's brother works at Lumora.", "Odile lives in Porto.")
    before = await exported(amem)
    with pytest.raises(NothingMatchedError):
        await amem.supersede("Odile's employer", "Odile works at Kestrel.")
    assert await exported(amem) == before


async def test_two_lines_a_description_fits_equally_are_asked_about(amem: AsyncMemory) -> None:
    await _store(
        amem, "Router password at the studio: fennel-42", "Router password at home: quill-77"
    )
    before = await exported(amem)
    with pytest.raises(AmbiguousDescriptionError) as caught:
        await amem.purge("router password")
    assert len(caught.value.candidates) == 2
    assert await exported(amem) == before


async def test_a_chain_said_differently_each_time_leaves_the_last(amem: AsyncMemory) -> None:
    await _store(amem, "Haruto lives in Kyoto.", "Haruto works at Hexfield.")
    await amem.supersede("Haruto's city", "Haruto moved to Sapporo.")
    await amem.supersede("where haruto lives now", "Haruto relocated again, to Fukuoka.")
    await amem.supersede("haruto's current town", "Haruto is back in Kyoto.")
    text = await _shown(amem, "Where does Haruto live?")
    assert "back in kyoto" in text
    for gone in ("sapporo", "fukuoka", "haruto lives in kyoto"):
        assert gone not in text, gone
    assert "hexfield" in await _shown(amem, "Where does Haruto work?")


async def test_filler_in_any_inflection_and_either_spelling(amem: AsyncMemory) -> None:
    await _store(
        amem, "Tanvi's favourite colour is teal.", "Farah lives in Leeds.", "Farah likes jazz."
    )
    result = await amem.release("stop remembering things about Farah")
    assert sorted(result.preview) == ["Farah likes jazz.", "Farah lives in Leeds."]
    corrected = await amem.supersede("Tanvi's favorite color", "Tanvi's favourite colour is amber.")
    assert corrected.preview == ("Tanvi's favourite colour is teal.",)


async def test_two_kinds_take_the_line_showing_both(amem: AsyncMemory) -> None:
    await _store(amem, "My debit card PIN is 4471.", "My bank card is a blue Visa.")
    dry = await amem.purge("Delete my card PIN", dry_run=True)
    assert dry.preview == ("My debit card PIN is 4471.",)
