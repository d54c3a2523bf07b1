"""A correction replaces the line nearest it, when its description agrees (``forget/corrected.py``).

People describe a correction loosely ("my sister's company", "she moved again, she's
in Sapporo now") and then say the new fact whole. The line that new fact is nearest
is the one it corrects; it is taken only when it holds the description's person, is
one the description itself names as closest, and stands clear of the next line.
"""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import AmbiguousDescriptionError, NothingMatchedError
from tests.helpers.life import exported, shown, stored

pytestmark = pytest.mark.both_backends

OTHERS = (
    "The offsite is booked for the second week of March.",
    "Library books are due back on the 9th.",
    "The boiler was serviced in October.",
    "Bought a new doormat for the back door.",
    "The bins go out on Tuesday night.",
)


@pytest.mark.parametrize(
    ("notes", "about", "new", "replaced", "query", "gone", "kept"),
    [
        (  # a relation the line lacks: "my sister's company" for Ines's employer
            ("My sister is Ines.", "Ines works at Lufthansa.", "Ines lives in Porto."),
            "my sister's company",
            "Ines works at Zalando now.",
            "Ines works at Lufthansa.",
            "Where does Ines work, who is my sister?",
            "lufthansa",
            ("zalando", "my sister is ines"),
        ),
        (  # a description saying the new value, which no line holds
            ("Kenji lives in Osaka.", "Kenji's a chef.", "Kenji is visiting in May."),
            "he moved again, he's in Sapporo now",
            "Kenji lives in Sapporo.",
            "Kenji lives in Osaka.",
            "Where does Kenji live?",
            "osaka",
            ("sapporo", "chef"),
        ),
        (  # the new value said as a number no line holds: not an anchor the line must hold
            (
                "Quentin, my accountant, charges 450 a year.",
                "Quentin needs the receipts by January.",
                "Quentin's office moved to Clifton.",
            ),
            "Quentin's fee went up to 500",
            "Quentin charges 500 a year now.",
            "Quentin, my accountant, charges 450 a year.",
            "What does Quentin charge?",
            "450",
            ("500", "receipts"),
        ),
        (  # the new day said as an ordinal ("the 11th") and again as a date ("11 Nov")
            (
                "Dentist check-up 4 Nov at 8.30.",
                "The dentist is Smile Studio on Queen St.",
                "Hygienist every 6 months.",
            ),
            "the dentist check-up got pushed a week to the 11th",
            "Dentist check-up moved to 11 Nov at 8.30.",
            "Dentist check-up 4 Nov at 8.30.",
            "When is the dentist check-up?",
            "4 nov",
            ("11 nov", "smile studio"),
        ),
        (  # the user's note names no one, and says no "I": it is the user's own
            ("Gym is PureGym on the retail park.", "Gym induction done.", "Protein powder low."),
            "I switched - I train at the leisure centre now",
            "My gym is the leisure centre now.",
            "Gym is PureGym on the retail park.",
            "Which gym do I go to?",
            "puregym",
            ("leisure centre", "induction"),
        ),
        (  # names that are the old value, not whom the line is about
            (
                "The cat's vet is Greenway Vets on Mill Rd.",
                "Cat jab due in May.",
                "Cat food: the salmon biscuits.",
            ),
            "we changed practice for the cat, it's Hollybank by the station now",
            "The cat's vet is now Hollybank, by the station.",
            "The cat's vet is Greenway Vets on Mill Rd.",
            "Who is the cat's vet?",
            "greenway",
            ("hollybank", "jab"),
        ),
        (  # "my grandfather" is the grandfather's fact, not the user's
            ("Grandad's care home is Ashfield House.", "Grandad likes shortbread."),
            "my grandfather has moved residence, he's at the Lindens now",
            "Grandad's care home is now The Lindens.",
            "Grandad's care home is Ashfield House.",
            "Where does Grandad live?",
            "ashfield",
            ("lindens", "shortbread"),
        ),
        (  # a phone that "ends 977": the digits end the new number
            ("Mrs Haddad's number is 07700 900412.", "Mrs Haddad next door feeds the fish."),
            "Mrs Haddad got a new mobile, ends 977",
            "Mrs Haddad's number is 07700 900977.",
            "Mrs Haddad's number is 07700 900412.",
            "What is Mrs Haddad's number?",
            "900412",
            ("900977", "fish"),
        ),
    ],
)
async def test_the_line_the_correction_is_nearest_is_replaced(
    amem: AsyncMemory,
    notes: tuple[str, ...],
    about: str,
    new: str,
    replaced: str,
    query: str,
    gone: str,
    kept: tuple[str, ...],
) -> None:
    await stored(amem, *OTHERS, *notes)
    result = await amem.supersede(about, new)
    assert result.preview == (replaced,)
    text = await _text(amem, query)
    assert gone not in text and all(word in text for word in kept)


async def test_two_lines_the_correction_fits_alike_stay_a_question(amem: AsyncMemory) -> None:
    await stored(amem, *OTHERS, "Dentist appointment Tuesday 9am for me.",
                 "Dentist appointment Tuesday 4pm for Leo.")  # fmt: skip
    before = await exported(amem)
    with pytest.raises((AmbiguousDescriptionError, NothingMatchedError)):
        await amem.supersede("the dentist appointment", "The dentist appointment moved to Friday.")
    assert await exported(amem) == before


async def test_which_person_is_not_settled_by_a_correction_naming_neither(
    amem: AsyncMemory,
) -> None:
    await stored(amem, *OTHERS, "Ravi Menon works at Wipro.", "Ravi Shah works at Tata Steel.")
    before = await exported(amem)
    with pytest.raises(AmbiguousDescriptionError):
        await amem.supersede("Ravi's employer", "Ravi works at Infosys now.")
    assert await exported(amem) == before


async def test_another_persons_line_is_not_what_a_correction_replaces(amem: AsyncMemory) -> None:
    await stored(amem, *OTHERS, "Ines works at Lufthansa.", "Ines lives in Porto.")
    before = await exported(amem)
    with pytest.raises(NothingMatchedError):
        await amem.supersede("Tomas's employer", "Tomas works at Zalando now.")
    assert await exported(amem) == before


async def test_a_person_whose_fact_is_corrected_is_no_new_value(amem: AsyncMemory) -> None:
    # "Samira's address" is Samira's, though the correction says her name: not Omar's line.
    await stored(amem, *OTHERS, "Omar moved to Leeds in 2021.",
                 "Omar's cousin Hodan lives in Cairo.")  # fmt: skip
    before = await exported(amem)
    with pytest.raises((AmbiguousDescriptionError, NothingMatchedError)):
        await amem.supersede("Omar's cousin Samira's address", "Samira lives at 4 Elm Road, Leeds.")
    assert await exported(amem) == before


async def _text(amem: AsyncMemory, query: str) -> str:
    return "\n".join(await shown(amem, query)).lower()
