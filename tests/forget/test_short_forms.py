"""Short forms, values' shapes and a relative, one thing said of two lines, in our own sentences.

"pw" is a password and "no." a number before a code; a line whose value is shaped
like a secret holds a credential whatever its words; "Odile's sister" is the
sister, never all of Odile (the development sets measure the same on others' text).
"""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import AmbiguousDescriptionError, NothingMatchedError
from orma_proxy.text import expanded, in_full, kinds_by_shape
from tests.helpers.life import exported, stored

OTHERS = (
    "The offsite is booked for the second week of March.",
    "The car needs new wiper blades.",
    "Lorenzo grows chillies on his balcony.",
)


async def _store(mem: AsyncMemory, *notes: str) -> None:
    await stored(mem, *OTHERS, *notes)


def test_a_short_form_stands_for_its_words_and_no_is_a_number_only_before_a_code() -> None:
    assert in_full("my SSN") == "my social security number"
    assert expanded("Locker combo 4-19-33").endswith("combination")
    assert expanded("Visa no. X7741920").endswith("number")
    assert expanded("I said no.") == "I said no."


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Bank app pass is Heron77", "credential"),
        ("Owe Lorenzo £40 for the tickets", "bank"),
        ("Call the vet on 0161 555 0199", "phone"),
    ],
)
def test_a_value_shows_its_kind_by_its_shape(text: str, kind: str) -> None:
    assert kind in kinds_by_shape(text)


def test_a_count_with_its_unit_is_no_secret() -> None:
    assert kinds_by_shape("The monitor is a 27in Dell, dose 88mcg at 7pm") == frozenset()


async def test_a_password_written_short_is_found_by_its_full_name(amem: AsyncMemory) -> None:
    await _store(amem, "Router pw: Kestrel-4471", "Router is in the hall cupboard.")
    result = await amem.purge("the router password", dry_run=True)
    assert result.preview == ("Router pw: Kestrel-4471",)
    await amem.purge("the router password")
    kept = str(await exported(amem))
    assert "Kestrel-4471" not in kept and "hall cupboard" in kept


async def test_a_login_is_the_line_with_the_secret(amem: AsyncMemory) -> None:
    await _store(amem, "Deezer pass is Marlin52", "Deezer family plan has 6 seats")
    result = await amem.purge("deezer login", dry_run=True)
    assert result.preview == ("Deezer pass is Marlin52",)


async def test_a_relative_no_line_names_is_nothing_not_the_person(amem: AsyncMemory) -> None:
    await _store(amem, "Odile plays the cello.", "Odile's brother Remy is a chef.")
    before = await exported(amem)
    with pytest.raises(NothingMatchedError):
        await amem.release("forget odile's sister")
    assert await exported(amem) == before


async def test_a_long_word_typed_with_one_letter_wrong_is_the_word(amem: AsyncMemory) -> None:
    await _store(amem, "My endoscopy is booked for 9 May.", "Buy more printer paper.")
    result = await amem.release("the endoscpy appointment", dry_run=True)
    assert result.preview == ("My endoscopy is booked for 9 May.",)


async def test_one_thing_said_of_two_lines_is_a_question(amem: AsyncMemory) -> None:
    await _store(amem, "Call with Mireille on Monday at 9.", "Call with Mireille on Friday at 4.")
    before = await exported(amem)
    with pytest.raises(AmbiguousDescriptionError) as asked:
        await amem.purge("the call with mireille")
    assert len(asked.value.candidates) == 2
    assert await exported(amem) == before
    released = await amem.release("all the calls with mireille", dry_run=True)
    assert len(released.preview) == 2


async def test_two_people_named_together_mean_the_one_line_naming_both(amem: AsyncMemory) -> None:
    await _store(amem, "Tavita's boyfriend is Ioane.", "Tavita plays netball.", "Ioane is a chef.")
    result = await amem.supersede(
        "tavita and ioane split up, she's with Semisi now", "Tavita's boyfriend is Semisi."
    )
    assert result.preview == ("Tavita's boyfriend is Ioane.",)
